/**
 * How a higher configuration layer combines with a lower one.
 *
 * - tables merge key by key, recursively (this includes the raw `[mcp]` table);
 * - arrays are replaced by the higher layer, except `permissions.allow/ask/deny` and
 *   `sandbox.forbid_read`, which are concatenated so a project file can never remove a
 *   user-level rule or hidden path;
 * - `[[providers]]` merge by `name`: a higher table with a known name overrides that
 *   provider's fields, a new name is appended.
 *
 * @module
 */
import type { LayerData, LayerProvider } from "./schema.ts";

const CONCATENATED = new Set([
  "permissions.allow",
  "permissions.ask",
  "permissions.deny",
  "sandbox.forbid_read",
]);

/** Merges `higher` over `lower`. Neither input is modified. */
export function mergeLayers(lower: LayerData, higher: LayerData): LayerData {
  return mergeTables(lower, higher, "") as LayerData;
}

type Table = Record<string, unknown>;

function isTable(v: unknown): v is Table {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function mergeTables(lower: Table, higher: Table, path: string): Table {
  const out: Table = structuredClone(lower);
  for (const [key, value] of Object.entries(higher)) {
    if (value === undefined) continue;
    const keyPath = path ? `${path}.${key}` : key;
    const below = out[key];
    if (keyPath === "providers" && Array.isArray(below) && Array.isArray(value)) {
      out[key] = mergeProviders(below as LayerProvider[], value as LayerProvider[]);
    } else if (CONCATENATED.has(keyPath) && Array.isArray(below) && Array.isArray(value)) {
      out[key] = [...new Set([...below, ...value])];
    } else if (isTable(below) && isTable(value)) {
      out[key] = mergeTables(below, value, keyPath);
    } else {
      out[key] = structuredClone(value);
    }
  }
  return out;
}

function mergeProviders(lower: LayerProvider[], higher: LayerProvider[]): LayerProvider[] {
  const out = structuredClone(lower);
  for (const provider of higher) {
    const at = out.findIndex((p) => p.name === provider.name);
    if (at >= 0) out[at] = mergeTables(out[at], provider, `providers[]`) as LayerProvider;
    else out.push(structuredClone(provider));
  }
  return out;
}
