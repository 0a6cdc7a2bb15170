/**
 * Program entry. `--version` (`-v`) answers before anything else is loaded so it stays
 * instant: the command tree and its library (commander) are imported lazily, like everything
 * else. The command tree answers the same flags the same way when they come after other
 * options. A plain `reasonix run …` takes the fast path (`cli/commands/fast_run.ts`), which
 * reads the same option declarations as the tree without loading commander at all.
 *
 * @module
 */
import { lazyImport, setLazyRoot } from "./lazy.ts";
import { version, versionReport } from "./version.ts";

/** Global flags that take a value and may precede `--version`. */
const VALUE_FLAGS = new Set(["--cwd"]);

function wantsVersion(args: readonly string[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--version" || arg === "-v") return true;
    // `--json` may come before the flag it modifies: `reasonix --json --version`.
    if (arg === "--json") continue;
    if (VALUE_FLAGS.has(arg)) {
      i++;
      continue;
    }
    if (arg.startsWith("--cwd=")) continue;
    return false;
  }
  return false;
}

/** Runs the CLI and returns the process exit code. */
export async function main(args: string[]): Promise<number> {
  if (wantsVersion(args)) {
    console.log(
      args.includes("--json") ? JSON.stringify(versionReport()) : `reasonix ${version()}`,
    );
    return 0;
  }
  const { runFast } = await lazyImport<typeof import("./commands/fast_run.ts")>(
    "cli/commands/fast_run.ts",
  );
  const code = await runFast(args);
  if (code !== undefined) return code;
  const { runCli } = await lazyImport<typeof import("./app.ts")>("cli/app.ts");
  return await runCli(args);
}

if (import.meta.main) {
  // Run from a bundle (`deno task install`), this file is <out>/cli/main.js and the lazy
  // modules sit beside it as .js files.
  if (import.meta.url.endsWith(".js")) setLazyRoot(new URL("../", import.meta.url), ".js");
  Deno.exit(await main(Deno.args));
}
