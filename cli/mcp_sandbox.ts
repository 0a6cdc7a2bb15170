/**
 * The OS sandbox of stdio MCP servers (Linux: bubblewrap). A server a project file declares
 * always runs inside it, and so does a user-level one unless its declaration says
 * `sandbox = false`. Inside, the server:
 *
 * - has its own PID namespace and `/proc`, so it cannot read Reasonix's environment from
 *   `/proc/<pid>/environ`;
 * - sees the whole file system read-only except the workspace (read-only too in the
 *   `read-only` permission mode, and its control files always) and a private `/tmp`;
 * - cannot see the Reasonix home (keys in `.env`, OAuth tokens) or any `forbid_read` path;
 * - keeps the network: most servers exist to reach an API;
 * - has `npx`/`uvx` caches in the private `/tmp` (the real ones are read-only).
 *
 * Where a sandbox should exist but cannot run (bubblewrap missing or not working), the server
 * is not started: it never falls back to running unconfined. Other platforms have no MCP
 * sandbox; their servers run as declared.
 *
 * @module
 */
import { dirname, isAbsolute, join, resolve } from "node:path";
import { canonicalPath } from "../core/permission/confine.ts";
import {
  bwrapArgs,
  bwrapBaseArgs,
  controlPlan,
  type HiddenPath,
  type SandboxSpec,
  whichOnPath,
} from "../core/permission/sandbox/mod.ts";
import { McpLaunchRefusedError } from "../plugins/mcp/launch_error.ts";
import type { StdioLauncher, StdioServerSpec } from "../plugins/mcp/types.ts";
import { findTrustedProgram } from "../tools/shell.ts";
import { isWithin } from "../tools/paths.ts";

/** Options of {@linkcode mcpSandboxLauncher}. */
export interface McpSandboxOptions {
  /** The Reasonix home: hidden from sandboxed servers. */
  home: string;
  /** The canonical workspace root: the only writable directory. */
  workspaceRoot: string;
  /** `[sandbox] forbid_read`, as configured (relative to the workspace, `~/` allowed). */
  forbidRead: readonly string[];
  /** The `read-only` permission mode: nothing is writable but the private `/tmp`. */
  readOnly: boolean;
  /** The process environment, for `HOME` and `PATH`. */
  env: Record<string, string | undefined>;
  /** The platform; default `Deno.build.os`. */
  os?: typeof Deno.build.os;
  /** Finds a helper program (`bwrap`, `sh`); default: trusted `PATH` entries only. */
  which?: (name: string) => Promise<string | undefined>;
}

/**
 * Package runners (`npx`, `uvx`) write their caches under the home directory, which is
 * read-only inside: they get the private `/tmp` instead (and download again at each start).
 * A declaration's own `env` wins.
 */
const SANDBOX_ENV: Readonly<Record<string, string>> = {
  npm_config_cache: "/tmp/.npm",
  UV_CACHE_DIR: "/tmp/.cache/uv",
};

/** The directory the sandbox replaces with a private, empty one. */
const TMP = "/tmp";

/** An absolute path under `/tmp` inside a word of a command line. */
const TMP_PATH = /\/tmp\/[^\s'"`;|&()<>=,]+/g;

/** Whether a stdio server runs inside the sandbox: project ones always, user ones by default. */
export function mustSandbox(spec: StdioServerSpec): boolean {
  return spec.source.kind !== "user" || spec.sandbox !== false;
}

/** `text` quoted for a POSIX shell. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

async function exists(path: string): Promise<Deno.FileInfo | undefined> {
  return await Deno.stat(path).catch(() => undefined);
}

/** An error the MCP layer reports as "cannot run <program>: ENOENT". */
function notFound(command: string): Error {
  return Object.assign(new Error(`${command}: not found`), { code: "ENOENT", path: command });
}

/** The launcher that puts stdio servers into the sandbox. */
export function mcpSandboxLauncher(opts: McpSandboxOptions): StdioLauncher {
  const os = opts.os ?? Deno.build.os;
  const which = opts.which ?? whichOnPath;
  let helpers: Promise<{ bwrap: string; sh: string }> | undefined;

  const refuse = (spec: StdioServerSpec, why: string): never => {
    const optOut = spec.source.kind === "user"
      ? `, or add sandbox = false to its declaration in ${spec.source.file} to run it unconfined`
      : "";
    throw new McpLaunchRefusedError(
      `MCP server "${spec.name}" runs only inside the OS sandbox, and ${why}. Install ` +
        `bubblewrap (e.g. \`apt install bubblewrap\`)${optOut}. It was not started: ` +
        "Reasonix never falls back to running it unconfined.",
    );
  };

  /** bubblewrap and sh, found and tried once. */
  const findHelpers = (spec: StdioServerSpec): Promise<{ bwrap: string; sh: string }> => {
    helpers ??= (async () => {
      const bwrap = await which("bwrap");
      if (!bwrap) throw new Error("bubblewrap (bwrap) is not installed");
      const sh = (await which("sh")) ?? "/bin/sh";
      const probe = await new Deno.Command(bwrap, {
        args: [...bwrapBaseArgs(true), "--ro-bind", "/", "/", "--cap-drop", "ALL", "true"],
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }).output();
      if (!probe.success) {
        const detail = new TextDecoder().decode(probe.stderr).trim() || `exit ${probe.code}`;
        throw new Error(`bubblewrap cannot create a sandbox here (${detail})`);
      }
      return { bwrap, sh };
    })();
    helpers.catch(() => helpers = undefined);
    return helpers.catch((error) => refuse(spec, (error as Error).message));
  };

  /** The program as an absolute path, found the way the server's own `PATH` says. */
  const program = async (spec: StdioServerSpec, cwd: string): Promise<string> => {
    if (spec.command.includes("/")) {
      const path = resolve(cwd, spec.command);
      if (!(await exists(path))?.isFile) throw notFound(spec.command);
      return path;
    }
    const path = spec.env.PATH ?? opts.env.PATH ?? "";
    const found = await findTrustedProgram(spec.command, { path });
    if (!found) throw notFound(spec.command);
    return found;
  };

  /** What the server may not see: the Reasonix home (or its secrets) and `forbid_read`. */
  const hiddenPaths = async (): Promise<HiddenPath[]> => {
    const home = await canonicalPath(opts.home);
    const secretsOfHome = isWithin(home, opts.workspaceRoot)
      ? [join(home, ".env"), join(home, "mcp")]
      : [home];
    const userHome = opts.env.HOME;
    const forbidden = await Promise.all(opts.forbidRead.map((p) => {
      const expanded = userHome && (p === "~" || p.startsWith("~/"))
        ? join(userHome, p.slice(1))
        : p;
      return canonicalPath(isAbsolute(expanded) ? expanded : resolve(opts.workspaceRoot, expanded));
    }));
    const out: HiddenPath[] = [];
    for (const path of [...secretsOfHome, ...forbidden]) {
      const info = await exists(path);
      if (info && !out.some((h) => h.path === path)) out.push({ path, dir: info.isDirectory });
    }
    return out;
  };

  /**
   * What the private `/tmp` would hide by accident: a program, the folders of the files the
   * declaration names (as arguments or inside them), or a home directory that happen to live
   * under `/tmp`. They stay
   * visible read-only; `/tmp` itself stays private.
   */
  const keptVisible = async (argv: readonly string[]): Promise<string[]> => {
    // A path may be an argument of its own or sit inside one (`--config=…`, `sh -c '…'`).
    const named = argv.flatMap((a) => [...a.matchAll(TMP_PATH)].map((m) => m[0]));
    const candidates = named.map((a) => dirname(a) === TMP ? a : dirname(a));
    if (opts.env.HOME) candidates.push(opts.env.HOME);
    const out: string[] = [];
    for (const candidate of candidates) {
      const path = await canonicalPath(candidate);
      if (path === TMP || !isWithin(TMP, path) || out.includes(path)) continue;
      if (await exists(path)) out.push(path);
    }
    return out;
  };

  return async (spec) => {
    if (!mustSandbox(spec) || os !== "linux") return { command: spec.command, args: spec.args };
    const { bwrap, sh } = await findHelpers(spec);
    const cwd = await canonicalPath(spec.cwd ?? opts.workspaceRoot);
    const argv = [await program(spec, cwd), ...spec.args];
    const root = await canonicalPath(opts.workspaceRoot);
    const writable = opts.readOnly ? [] : [root];
    const visible = [
      ...await keptVisible(argv),
      ...(opts.readOnly ? [root] : []),
      ...(isWithin(root, cwd) ? [] : [cwd]),
    ];
    // The files that make Reasonix or git start programs later stay read-only.
    const control = opts.readOnly
      ? { readOnly: [] }
      : await controlPlan([root], (path) => isWithin(root, path));
    const sandbox: SandboxSpec = {
      command: `exec ${argv.map(shellQuote).join(" ")}`,
      cwd,
      writable,
      visible,
      hidden: await hiddenPaths(),
      readOnly: control.readOnly,
      network: true,
      shell: sh,
    };
    return { command: bwrap, args: bwrapArgs(sandbox), env: SANDBOX_ENV };
  };
}
