/**
 * Reading optional configuration files.
 *
 * @module
 */
import { dirname } from "node:path";
import { parse, TomlError } from "smol-toml";
import { ConfigError } from "./errors.ts";

/** The file's text without a byte-order mark, or `undefined` when it does not exist. */
export async function readTextIfExists(path: string): Promise<string | undefined> {
  try {
    return (await Deno.readTextFile(path)).replace(/^\uFEFF/, "");
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw await readError(path, err);
  }
}

/**
 * The text of a TOML configuration file without a byte-order mark, or `undefined` when it
 * does not exist. TOML must be UTF-8: a file that is not is a {@link ConfigError} naming the
 * line of the first invalid byte, because a lenient decode would turn those bytes into U+FFFD
 * and any later rewrite of the file would destroy them.
 */
export async function readConfigText(path: string): Promise<string | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw await readError(path, err);
  }
  try {
    // The default decoder drops a leading byte-order mark.
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (err) {
    const offset = firstInvalidUtf8(bytes);
    let lineStart = 0;
    let line = 1;
    for (let i = 0; i < offset; i++) {
      if (bytes[i] === 0x0a) {
        line++;
        lineStart = i + 1;
      }
    }
    const before = new TextDecoder().decode(bytes.subarray(lineStart, offset));
    const byte = bytes[offset]?.toString(16).toUpperCase().padStart(2, "0") ?? "end of file";
    throw new ConfigError({
      file: path,
      line,
      column: before.replace(/^\uFEFF/, "").length + 1,
      problem: `the file is not valid UTF-8 (byte 0x${byte}); TOML files must be UTF-8`,
      fix: `re-save the file as UTF-8 (for Latin-1 text: iconv -f latin1 -t utf-8), ` +
        `or remove the character on line ${line}`,
      cause: err,
    });
  }
}

/** Parses TOML source, turning a syntax error into a {@link ConfigError} at its line. */
export function parseConfigToml(text: string, file?: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof TomlError) {
      const problem = err.message.split("\n")[0].replace(/^Invalid TOML document:\s*/, "");
      throw new ConfigError({
        file,
        line: err.line,
        column: err.column,
        problem: `invalid TOML: ${problem}`,
        fix: `correct the TOML syntax on line ${err.line} (see https://toml.io)`,
        cause: err,
      });
    }
    throw err;
  }
}

/**
 * A {@link ConfigError} for a file that exists in some form but cannot be read, or a path that
 * is not a file at all (a directory, or a path through a regular file).
 */
async function readError(path: string, err: unknown): Promise<ConfigError> {
  if (err instanceof Deno.errors.IsADirectory) {
    return new ConfigError({
      file: path,
      problem: "cannot read the file: it is a directory",
      fix: `move the directory ${path} away; this path is for a TOML file`,
      cause: err,
    });
  }
  if (err instanceof Deno.errors.NotADirectory) {
    const blocker = await fileOnPath(path);
    return new ConfigError({
      file: path,
      problem: blocker
        ? `cannot read the file: ${blocker} is a file, not a directory`
        : "cannot read the file: part of its path is a file, not a directory",
      fix: blocker
        ? `move the file ${blocker} away, or point REASONIX_HOME at a directory`
        : "make every parent of the path a directory",
      cause: err,
    });
  }
  return new ConfigError({
    file: path,
    problem: `cannot read the file: ${err instanceof Error ? err.message : String(err)}`,
    fix: "make the file readable, or move it away",
    cause: err,
  });
}

/** The nearest existing ancestor of `path` when it is not a directory. */
async function fileOnPath(path: string): Promise<string | undefined> {
  for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      return (await Deno.stat(dir)).isDirectory ? undefined : dir;
    } catch {
      // Missing or unreadable: keep walking up to the first ancestor that exists.
    }
  }
  return undefined;
}

/** Byte offset of the first ill-formed UTF-8 sequence (WHATWG rules), or `bytes.length`. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    let need = 0;
    let lo = 0x80;
    let hi = 0xbf;
    if (b < 0x80) {
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return i;
    }
    i += need + 1;
  }
  return bytes.length;
}
