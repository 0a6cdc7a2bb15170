/**
 * Reading optional configuration files.
 *
 * @module
 */
import { ConfigError } from "./errors.ts";

/** The file's text without a byte-order mark, or `undefined` when it does not exist. */
export async function readTextIfExists(path: string): Promise<string | undefined> {
  try {
    return (await Deno.readTextFile(path)).replace(/^\uFEFF/, "");
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw new ConfigError({
      file: path,
      problem: `cannot read the file: ${err instanceof Error ? err.message : String(err)}`,
      fix: "make the file readable, or move it away",
      cause: err,
    });
  }
}
