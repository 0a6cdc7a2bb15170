/**
 * Stores a provider key in the Reasonix home `.env`, where `resolveApiKey` reads it
 * (`core/config/api_key.ts`). The file is kept at mode 0600 before and after the write, so the
 * key is never readable by other users, even for a moment.
 *
 * @module
 */
import { join } from "node:path";
import { readTextIfExists } from "../../core/config/files.ts";
import { replaceFile } from "../../tools/fs/mod.ts";

/** Where the key went. */
export interface StoredKey {
  path: string;
  /** An earlier value of the variable was replaced. */
  replaced: boolean;
}

/**
 * Why `key` cannot be stored as it is, or `undefined` when it can: an API key is one word of
 * printable ASCII. The message never quotes the key.
 */
export function keyProblem(key: string): string | undefined {
  if (key === "") return "the key is empty";
  const bad = /[^\x21-\x7e]/.exec(key)?.[0];
  if (bad !== undefined) {
    return bad === " " || bad === "\t"
      ? "the key contains a space"
      : bad === "\n" || bad === "\r"
      ? "the key contains a line break"
      : "the key contains a character an API key cannot have";
  }
  if (/^["']/.test(key)) return "the key starts with a quote";
  return undefined;
}

/** Sets `name=key` in `<home>/.env`, replacing earlier lines for `name`, other lines kept. */
export async function storeKey(home: string, name: string, key: string): Promise<StoredKey> {
  const problem = keyProblem(key);
  if (problem) throw new TypeError(`${name}: ${problem}`);
  const path = join(home, ".env");
  const text = await readTextIfExists(path) ?? "";
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const assignment = new RegExp(`^\\s*(?:export\\s+)?${name.replace(/\./g, "\\.")}\\s*=`);
  const lines = text === "" ? [] : text.replace(/\r?\n$/, "").split(/\r?\n/);
  let replaced = false;
  const out: string[] = [];
  for (const line of lines) {
    if (!assignment.test(line)) out.push(line);
    else if (!replaced) {
      out.push(`${name}=${key}`);
      replaced = true;
    }
  }
  if (!replaced) out.push(`${name}=${key}`);
  // Narrowed first: the replaced file keeps the mode of the one it replaces.
  if (text !== "" && Deno.build.os !== "windows") await Deno.chmod(path, 0o600);
  await replaceFile(path, new TextEncoder().encode(out.join(eol) + eol), {
    newFileMode: 0o600,
    makeParents: true,
  });
  if (Deno.build.os !== "windows") await Deno.chmod(path, 0o600);
  return { path, replaced };
}
