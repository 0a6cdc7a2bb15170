/**
 * The sandboxing `ShellLauncher`: runs `bash` commands inside bubblewrap (Linux) or Seatbelt
 * (macOS) with the preset's boundary. When a preset needs a backend that is missing or
 * broken, it refuses to run the command — it never falls back to running it unconfined.
 *
 * @module
 */
import { join } from "node:path";
import { ReasonixError } from "../../../errors.ts";
import type { ShellLauncher, ShellSpawnOptions } from "../../../tools/types.ts";
import { canonicalPath, type WriteScope } from "../confine.ts";
import type { SandboxMode } from "../presets.ts";
import { bwrapArgs, bwrapBaseArgs } from "./bwrap.ts";
import { seatbeltArgs } from "./seatbelt.ts";
import type { HiddenPath, SandboxSpec } from "./spec.ts";

export { bwrapArgs, bwrapBaseArgs } from "./bwrap.ts";
export { seatbeltArgs, type SeatbeltProfile, seatbeltProfile } from "./seatbelt.ts";
export type { HiddenPath, SandboxSpec } from "./spec.ts";

/** The sandbox a preset needs cannot run here; the command was not started. */
export class SandboxUnavailableError extends ReasonixError {
  constructor(message: string, options?: ErrorOptions) {
    super("sandbox_unavailable", message, options);
    this.name = "SandboxUnavailableError";
  }
}

/** A command asked for a write root nobody approved; it was not started. */
export class WriteScopeError extends ReasonixError {
  constructor(message: string) {
    super("write_scope_not_approved", message);
    this.name = "WriteScopeError";
  }
}

/** Which OS mechanism confines commands. */
export type SandboxBackend = "bubblewrap" | "seatbelt" | "none";

/** The backend for a platform, or `none` where there is no shell sandbox (Windows). */
export function backendFor(os: typeof Deno.build.os): SandboxBackend {
  if (os === "linux") return "bubblewrap";
  if (os === "darwin") return "seatbelt";
  return "none";
}

/** Options of {@linkcode createSandboxShell}. */
export interface SandboxShellOptions {
  mode: SandboxMode;
  network: boolean;
  scope: WriteScope;
  /** Session-private temp directory; the sandbox's `/tmp` lives in it. */
  tempDir: string;
  /** The platform; default `Deno.build.os`. */
  os?: typeof Deno.build.os;
  /** Finds a program on `PATH`; tests inject a lookup that finds nothing. */
  which?: (name: string) => Promise<string | undefined>;
  /** Names the preset in messages. */
  presetName: string;
}

/** Looks `name` up on `PATH`. */
export async function whichOnPath(name: string): Promise<string | undefined> {
  const path = Deno.env.get("PATH") ?? "";
  const exts = Deno.build.os === "windows" ? ["", ".exe", ".cmd"] : [""];
  for (const dir of path.split(Deno.build.os === "windows" ? ";" : ":")) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = join(dir, name + ext);
      try {
        const info = await Deno.stat(candidate);
        if (info.isFile && (info.mode === null || (info.mode & 0o111) !== 0)) return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

async function exists(path: string): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.stat(path);
  } catch {
    return undefined;
  }
}

/** A launcher that confines every command to the preset's sandbox. */
export function createSandboxShell(opts: SandboxShellOptions): ShellLauncher {
  const os = opts.os ?? Deno.build.os;
  const which = opts.which ?? whichOnPath;
  const backend = backendFor(os);
  let probed: Promise<void> | undefined;

  const unavailable = (what: string, fix: string, cause?: unknown) =>
    new SandboxUnavailableError(
      `The ${opts.presetName} permission mode runs shell commands only inside ${what}. ${fix} ` +
        `The command was not run: Reasonix never falls back to running it unconfined.`,
      { cause },
    );

  /** Runs a trivial command in the sandbox once, so a broken setup fails with its reason. */
  const probe = (bwrap: string): Promise<void> => {
    probed ??= (async () => {
      const out = await new Deno.Command(bwrap, {
        args: [...bwrapBaseArgs(opts.network), "--ro-bind", "/", "/", "--cap-drop", "ALL", "true"],
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }).output();
      if (!out.success) {
        const why = new TextDecoder().decode(out.stderr).trim();
        throw unavailable(
          "bubblewrap",
          `bubblewrap is installed but cannot create a sandbox here (${
            why || `exit ${out.code}`
          }); ` +
            `it needs unprivileged user namespaces.`,
        );
      }
    })();
    probed.catch(() => probed = undefined);
    return probed;
  };

  return {
    async launch(command: string, spawn: ShellSpawnOptions) {
      if (opts.mode === "none") return { program: "bash", args: ["-c", command] };
      if (backend === "none") {
        if (opts.mode === "read-only") {
          throw unavailable(
            "an OS sandbox",
            `There is no shell sandbox on ${os}, so this mode cannot run commands.`,
          );
        }
        // Documented: on Windows commands run as the current account, after approval.
        return { program: "bash", args: ["-c", command] };
      }

      const extra: string[] = [];
      for (const dir of spawn.writeDirs ?? []) {
        const canonical = await canonicalPath(dir, spawn.cwd);
        if (opts.scope.allowsWrite(canonical)) continue;
        if (opts.mode !== "workspace-write" || !opts.scope.takeOnce(canonical)) {
          throw new WriteScopeError(
            `additional_write_dirs ${canonical} was not approved, so the command was not run.`,
          );
        }
        await Deno.mkdir(canonical, { recursive: true });
        extra.push(canonical);
      }
      const roots: string[] = [];
      for (const root of [...opts.scope.roots(), ...extra]) {
        if (await exists(root)) roots.push(root);
      }
      const writable = opts.mode === "workspace-write" ? roots : [];
      // The private /tmp would hide a workspace under /tmp; read-only mode re-exposes it.
      const visible = opts.mode === "workspace-write" ? [] : roots;
      const hidden: HiddenPath[] = [];
      for (const path of opts.scope.forbidden()) {
        const info = await exists(path);
        if (info) hidden.push({ path, dir: info.isDirectory });
      }
      let tmp: string | undefined;
      if (opts.mode === "workspace-write") {
        tmp = join(opts.tempDir, "sandbox-tmp");
        await Deno.mkdir(tmp, { recursive: true });
      }
      const shell = (await which("bash")) ?? "/bin/bash";
      const spec: SandboxSpec = {
        command,
        cwd: await canonicalPath(spawn.cwd),
        writable,
        visible,
        hidden,
        network: opts.network,
        tmp,
        shell,
      };

      if (backend === "bubblewrap") {
        const bwrap = await which("bwrap");
        if (!bwrap) {
          throw unavailable(
            "bubblewrap",
            "bubblewrap (bwrap) is not installed; install it (e.g. `apt install bubblewrap`).",
          );
        }
        await probe(bwrap);
        return { program: bwrap, args: bwrapArgs(spec) };
      }
      const sandboxExec = (await exists("/usr/bin/sandbox-exec"))
        ? "/usr/bin/sandbox-exec"
        : await which("sandbox-exec");
      if (!sandboxExec) {
        throw unavailable("Seatbelt", "sandbox-exec was not found.");
      }
      return { program: sandboxExec, args: seatbeltArgs(spec) };
    },
  };
}
