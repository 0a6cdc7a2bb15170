/**
 * Canonical JSON: object keys sorted recursively, so equal schemas serialize to equal bytes.
 *
 * @module
 */

/** Returns a deep copy of `value` with every object's keys in sorted order. */
export function canonicalize<T>(value: T): T {
  if (Array.isArray(value)) return value.map(canonicalize) as T;
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      out[key] = canonicalize((value as Record<string, unknown>)[key]);
    }
    return out as T;
  }
  return value;
}

/** `JSON.stringify` of the canonical form. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonicalize(value));
}
