/**
 * Runs a Deno script with a directory on a real, size-limited tmpfs (bubblewrap `--size`), for
 * tests of what happens when the disk is full. Linux only.
 *
 * @module
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const BWRAP = "/usr/bin/bwrap";
/** The repository's deno.json, for the import map the project's modules need. */
const CONFIG = resolve(dirname(fileURLToPath(import.meta.url)), "../../deno.json");

/** What the script printed, and whether it exited 0. */
export interface SmallFsResult {
  success: boolean;
  stdout: string;
  stderr: string;
}

/**
 * Runs `program args…` with `dir` replaced by an empty tmpfs of `bytes` bytes, the rest of the
 * file system as it is. The tmpfs and what was written to it are gone when the program ends.
 */
export async function onSmallTmpfs(
  dir: string,
  bytes: number,
  argv: readonly string[],
  options: Omit<Deno.CommandOptions, "args"> = {},
): Promise<Deno.CommandOutput> {
  return await new Deno.Command(BWRAP, {
    ...options,
    args: ["--dev-bind", "/", "/", "--size", String(bytes), "--tmpfs", dir, ...argv],
    stdout: "piped",
    stderr: "piped",
  }).output();
}

/**
 * Writes `source` to a temporary module and runs it with `Deno.args[0]` = a fresh directory on a
 * tmpfs of `bytes` bytes. `source` may import project modules by absolute `file:` URL.
 */
export async function runOnSmallFs(source: string, bytes: number): Promise<SmallFsResult> {
  const root = await Deno.makeTempDir({ prefix: "reasonix-small-fs-" });
  const dir = join(root, "fs");
  const script = join(root, "script.ts");
  try {
    await Deno.mkdir(dir);
    await Deno.writeTextFile(script, source);
    const out = await onSmallTmpfs(dir, bytes, [
      Deno.execPath(),
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-run",
      "--config",
      CONFIG,
      script,
      dir,
    ]);
    const decoder = new TextDecoder();
    return {
      success: out.success,
      stdout: decoder.decode(out.stdout),
      stderr: decoder.decode(out.stderr),
    };
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** A `file:` URL string for an import inside a {@link runOnSmallFs} script. */
export function moduleUrl(relative: string, base: string | URL): string {
  return JSON.stringify(new URL(relative, base).href);
}
