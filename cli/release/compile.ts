/**
 * `deno task compile`: builds single-file binaries for darwin|linux|windows × x64|arm64 with
 * the `git describe` version injected through a generated entry module.
 *
 * Usage: deno task compile [--target <deno-target>]... [--out dist]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { LAZY_MODULES } from "../lazy.ts";

/** The six release targets, named `<os>-<arch>` for the output files. */
export const TARGETS: Record<string, string> = {
  "linux-x64": "x86_64-unknown-linux-gnu",
  "linux-arm64": "aarch64-unknown-linux-gnu",
  "darwin-x64": "x86_64-apple-darwin",
  "darwin-arm64": "aarch64-apple-darwin",
  "windows-x64": "x86_64-pc-windows-msvc",
  "windows-arm64": "aarch64-pc-windows-msvc",
};

/**
 * The flags the binary runs with: the same explicit permission set as `deno task reasonix`
 * (never `-A`), and a small young generation: a CLI's garbage is short-lived, and the default
 * semi-space lets the heap balloon past 100 MB over a long session for no speed gain.
 */
export const RUN_FLAGS: string[] = [
  "--allow-read",
  "--allow-write",
  "--allow-net",
  "--allow-env",
  "--allow-run",
  "--allow-sys=osRelease,hostname,homedir",
  "--v8-flags=--max-semi-space-size=2",
];

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** `git describe --tags --always`, or the deno.json version outside a git checkout. */
export async function describeVersion(): Promise<string> {
  try {
    const out = await new Deno.Command("git", {
      args: ["describe", "--tags", "--always", "--dirty"],
      cwd: ROOT,
      stdout: "piped",
      stderr: "null",
    }).output();
    const text = new TextDecoder().decode(out.stdout).trim();
    if (out.success && text) return text.replace(/^v/, "");
  } catch {
    // git missing: fall through to deno.json
  }
  const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
  return String(config.version);
}

/** The generated entry: sets the version, then runs the normal CLI. */
export function entrySource(version: string): string {
  return `import { setVersion } from "../cli/version.ts";\n` +
    `setVersion(${JSON.stringify(version)});\n` +
    `const { main } = await import("../cli/main.ts");\n` +
    `Deno.exit(await main(Deno.args));\n`;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { target: { type: "string", multiple: true }, out: { type: "string" } },
  });
  const out = resolve(ROOT, values.out ?? "dist");
  const names = values.target?.length ? values.target : Object.keys(TARGETS);
  for (const name of names) {
    if (!(name in TARGETS)) {
      console.error(`unknown target "${name}" (known: ${Object.keys(TARGETS).join(", ")})`);
      Deno.exit(2);
    }
  }
  const version = await describeVersion();
  await Deno.mkdir(out, { recursive: true });
  const entry = join(out, "entry.ts");
  await Deno.writeTextFile(entry, entrySource(version));
  let failed = 0;
  for (const name of names) {
    const output = join(
      out,
      `reasonix-${version}-${name}${name.startsWith("windows") ? ".exe" : ""}`,
    );
    console.log(`compiling ${name} → ${output}`);
    const status = await new Deno.Command(Deno.execPath(), {
      args: [
        "compile",
        ...RUN_FLAGS,
        "--config",
        join(ROOT, "deno.json"),
        // Imported through computed specifiers (cli/lazy.ts), so not found by analysis.
        ...LAZY_MODULES.flatMap((module) => ["--include", join(ROOT, module)]),
        "--target",
        TARGETS[name],
        "--output",
        output,
        entry,
      ],
      stdout: "inherit",
      stderr: "inherit",
    }).spawn().status;
    if (!status.success) failed++;
  }
  Deno.exit(failed ? 1 : 0);
}
