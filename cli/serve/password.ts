/**
 * Password hashes and constant-time comparison, on WebCrypto only. A hash is
 * `pbkdf2-sha256$<iterations>$<salt base64>$<key base64>`: PBKDF2 with HMAC-SHA-256, a 16-byte
 * random salt and a 32-byte key; {@link PBKDF2_ITERATIONS} iterations (OWASP's 2023 figure for
 * PBKDF2-HMAC-SHA256) unless a stored hash says otherwise.
 *
 * @module
 */

/** Iterations of a new hash. */
export const PBKDF2_ITERATIONS = 600_000;

const PREFIX = "pbkdf2-sha256";
const encoder = new TextEncoder();

function b64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

function unb64(text: string): Uint8Array | undefined {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(password), "PBKDF2", false, [
    "deriveBits",
  ]);
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt: salt as BufferSource, iterations },
    key,
    256,
  );
  return new Uint8Array(bits);
}

/** Hashes `password` with a new random salt. */
export async function hashPassword(
  password: string,
  opts: { iterations?: number } = {},
): Promise<string> {
  const iterations = opts.iterations ?? PBKDF2_ITERATIONS;
  const salt = crypto.getRandomValues(new Uint8Array(16));
  return `${PREFIX}$${iterations}$${b64(salt)}$${b64(await derive(password, salt, iterations))}`;
}

/** Whether `text` has the shape of a hash {@link hashPassword} makes. */
export function isPasswordHash(text: string): boolean {
  return parse(text) !== undefined;
}

function parse(stored: string) {
  const [prefix, rounds, salt, key, ...rest] = stored.split("$");
  const iterations = Number(rounds);
  const saltBytes = salt === undefined ? undefined : unb64(salt);
  const keyBytes = key === undefined ? undefined : unb64(key);
  if (prefix !== PREFIX || rest.length || !Number.isInteger(iterations) || iterations < 1) {
    return undefined;
  }
  if (!saltBytes || saltBytes.length < 8 || !keyBytes || keyBytes.length !== 32) return undefined;
  return { iterations, salt: saltBytes, key: keyBytes };
}

/** Whether `password` matches `stored`; a malformed hash matches nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const p = parse(stored);
  if (!p) return false;
  return timingSafeEqual(await derive(password, p.salt, p.iterations), p.key);
}

/** Compares two byte strings in time that depends only on their lengths. */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

/**
 * Compares two secrets in constant time, whatever their lengths: both are hashed to 32 bytes
 * first, so neither the length nor a common prefix shows in the timing.
 */
export async function secretsEqual(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([
    crypto.subtle.digest("SHA-256", encoder.encode(given)),
    crypto.subtle.digest("SHA-256", encoder.encode(expected)),
  ]);
  return timingSafeEqual(new Uint8Array(a), new Uint8Array(b)) && given.length === expected.length;
}

/** A random URL-safe secret of `bytes` random bytes. */
export function randomSecret(bytes = 32): string {
  return b64(crypto.getRandomValues(new Uint8Array(bytes))).replace(/\+/g, "-").replace(
    /\//g,
    "_",
  ).replace(/=+$/, "");
}
