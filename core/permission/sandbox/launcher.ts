/**
 * The sandboxing `ShellLauncher`: runs `bash` commands inside bubblewrap (Linux) or Seatbelt
 * (macOS) with the preset's boundary. When a preset needs a backend that is missing or
 * broken, it refuses to run the command — it never falls back to running it unconfined.
 *
 * Every launch re-reads the tree it is about to mount: a writable root or a `forbid_read`
 * path that became a symlink since start-up is refused rather than followed, the parents of
 * hidden paths and of the control files are pinned (see `control.ts`), and the control files
 * that cannot be mounted read-only are restored after the command.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { ReasonixError } from "../../../errors.ts";
import { findTrustedProgram } from "../../../tools/shell.ts";
import type {
  ShellLaunch,
  ShellLauncher,
  ShellPrograms,
  ShellSpawnOptions,
} from "../../../tools/types.ts";
import { isWithin } from "../../../tools/paths.ts";
import { localWorkspace } from "../../../tools/workspace/local.ts";
import type { FileInfo, Workspace } from "../../../tools/workspace/types.ts";
import { canonicalPath, type WriteScope } from "../confine.ts";
import type { SandboxMode } from "../presets.ts";
import { bwrapArgs, bwrapBaseArgs, filtersUnixSockets } from "./bwrap.ts";
import { controlPlan, type Guard, settleGuards } from "./control.ts";
import {
  encodeFilter,
  SECCOMP_FD,
  seccompArch,
  unixSocketFilter,
  withSeccompFd,
} from "./seccomp.ts";
import { seatbeltArgs } from "./seatbelt.ts";
import type { HiddenPath, SandboxSpec } from "./spec.ts";

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

/** A path the sandbox mounts changed into a symlink since start-up; nothing was started. */
export class SandboxPathError extends ReasonixError {
  constructor(message: string) {
    super("sandbox_path_changed", message);
    this.name = "SandboxPathError";
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

/** The programs the launcher starts, each an absolute path or absent when not installed. */
export interface SandboxPrograms extends Partial<ShellPrograms> {
  bwrap?: string;
}

/** Options of {@linkcode createSandboxShell}. */
export interface SandboxShellOptions {
  mode: SandboxMode;
  network: boolean;
  scope: WriteScope;
  /** Session-private temp directory; the sandbox's `/tmp` lives in it. */
  tempDir: string;
  /** The platform; default the workspace's. */
  os?: typeof Deno.build.os;
  /**
   * The programs, resolved at start-up (`setupPermissions` does). Absent: looked up once, on
   * first use, with `which`.
   */
  programs?: SandboxPrograms;
  /**
   * Finds a program; default {@linkcode findTrustedProgram}, which skips relative `PATH`
   * entries and the writable roots. Tests inject a lookup that finds nothing.
   */
  which?: (name: string) => Promise<string | undefined>;
  /** Names the preset in messages. */
  presetName: string;
  /**
   * Canonical directories whose control files (`reasonix.toml`, `.mcp.json`, `.env`,
   * `.reasonix/`, `.git` hooks and config) commands may not change: the workspace root and
   * the project directory. Default none.
   */
  controlDirs?: readonly string[];
  /** `[sandbox] allow_unix_sockets`: no seccomp filter in modes without network. */
  allowUnixSockets?: boolean;
  /** The CPU architecture the seccomp filter is built for; default `Deno.build.arch`. */
  arch?: string;
  /**
   * Where commands run and the mounted tree is checked: the same workspace the tools use.
   * Default this machine's.
   */
  workspace?: Workspace;
}

/** Seatbelt's launcher: only the system's own copy. */
const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

/** Looks `name` up on `PATH` the careful way (see {@linkcode findTrustedProgram}). */
export function whichOnPath(name: string): Promise<string | undefined> {
  return findTrustedProgram(name);
}

/** Fails unless `path`, which was canonical at start-up, still is. */
async function stillCanonical(ws: Workspace, path: string, what: string): Promise<void> {
  const now = await canonicalPath(path, { workspace: ws });
  if (now === path) return;
  throw new SandboxPathError(
    `${what} ${path} now leads to ${now}: it was replaced by a symlink after Reasonix started, ` +
      "so the command was not run. Put the directory back (or restart Reasonix to resolve the " +
      "configuration again).",
  );
}

/**
 * Directories between a writable root and each of `paths`: what must stay where it is for
 * the mounts on `paths` to keep covering them.
 */
function ancestorsToPin(paths: readonly string[], roots: readonly string[]): string[] {
  const pinned = new Set<string>();
  const inRoot = (p: string) => roots.some((r) => isWithin(r, p));
  for (const path of paths) {
    for (let dir = dirname(path); inRoot(dir) && !roots.includes(dir); dir = dirname(dir)) {
      pinned.add(dir);
    }
  }
  return [...pinned];
}

/** A launcher that confines every command to the preset's sandbox. */
export function createSandboxShell(opts: SandboxShellOptions): ShellLauncher {
  const ws = opts.workspace ?? localWorkspace();
  const on = { workspace: ws };
  const lstat = (path: string): Promise<FileInfo | undefined> =>
    ws.lstat(path).catch(() => undefined);
  const os = opts.os ?? ws.os;
  const backend = backendFor(os);
  const which = opts.which ??
    ((name: string) => findTrustedProgram(name, { untrusted: opts.scope.roots(), workspace: ws }));
  let resolving: Promise<SandboxPrograms> | undefined;
  const programs = (): Promise<SandboxPrograms> => {
    if (opts.programs) return Promise.resolve(opts.programs);
    return resolving ??= (async () => ({
      bash: await which("bash"),
      setsid: await which("setsid"),
      bwrap: os === "linux" ? await which("bwrap") : undefined,
    }))();
  };
  let probed: Promise<void> | undefined;

  const unavailable = (what: string, fix: string, cause?: unknown) =>
    new SandboxUnavailableError(
      `The ${opts.presetName} permission mode runs shell commands only inside ${what}. ${fix} ` +
        `The command was not run: Reasonix never falls back to running it unconfined.`,
      { cause },
    );

  const bwrapMissing = () =>
    unavailable(
      "bubblewrap",
      "bubblewrap (bwrap) is not installed: install the bubblewrap package " +
        "(Debian/Ubuntu: `sudo apt install bubblewrap`; Fedora: `sudo dnf install bubblewrap`; " +
        "Arch: `sudo pacman -S bubblewrap`; Alpine: `sudo apk add bubblewrap`). Without it only " +
        "--permission-mode yolo runs commands, unconfined.",
    );

  /** The seccomp filter bytes for a command without unix sockets. */
  const filterBytes = (): Uint8Array => {
    const arch = seccompArch(opts.arch ?? Deno.build.arch);
    if (!arch) {
      throw unavailable(
        "a sandbox that refuses unix sockets",
        `Reasonix has no seccomp filter for ${opts.arch ?? Deno.build.arch}; set ` +
          "[sandbox] allow_unix_sockets = true to run commands without it.",
      );
    }
    return encodeFilter(unixSocketFilter(arch));
  };

  /** bwrap with `args`, with the filter on its descriptor when `filter`. */
  const bwrapCommand = (
    { bwrap, bash }: { bwrap: string; bash: string },
    args: string[],
    filter: boolean,
  ): { program: string; args: string[] } =>
    filter
      ? withSeccompFd(bash, filterBytes(), { program: bwrap, args })
      : { program: bwrap, args };

  /** Runs a trivial command in the sandbox once, so a broken setup fails with its reason. */
  const probe = (bwrap: string, bash: string, filter: boolean): Promise<void> => {
    probed ??= (async () => {
      const seccomp = filter ? ["--seccomp", String(SECCOMP_FD)] : [];
      const base = [...bwrapBaseArgs(opts.network), "--ro-bind", "/", "/", "--cap-drop", "ALL"];
      const command = bwrapCommand({ bwrap, bash }, [...base, ...seccomp, "true"], filter);
      const child = await ws.spawn([command.program, ...command.args], {
        cwd: "/",
        stdout: "null",
      });
      const [out, stderr] = await Promise.all([child.status, new Response(child.stderr).text()]);
      if (!out.success) {
        const why = stderr.trim();
        throw unavailable(
          "bubblewrap",
          `bubblewrap is installed but cannot create a sandbox here (${
            why || `exit ${out.code}`
          }); ` +
            `it needs unprivileged user namespaces${filter ? " and seccomp" : ""}.`,
        );
      }
    })();
    probed.catch(() => probed = undefined);
    return probed;
  };

  /**
   * Throws what stops a command from running the way this mode requires: no sandbox on this
   * platform for read-only, bubblewrap missing or unable to sandbox here, no Seatbelt. The one
   * check behind both `launch` and `preflight`.
   */
  const ready = async (found: SandboxPrograms, bash: string, filter: boolean): Promise<void> => {
    if (backend === "none") {
      if (opts.mode !== "read-only") return;
      throw unavailable(
        "an OS sandbox",
        `There is no shell sandbox on ${os}, so this mode cannot run commands.`,
      );
    }
    if (backend === "bubblewrap") {
      if (!found.bwrap) throw bwrapMissing();
      await probe(found.bwrap, bash, filter);
      return;
    }
    // Only the system's own copy: a sandbox-exec found on PATH could be anyone's.
    if (!(await lstat(SANDBOX_EXEC))) {
      throw unavailable("Seatbelt", `${SANDBOX_EXEC} was not found.`);
    }
  };

  return {
    get rebindsWriteRoots(): boolean {
      return opts.mode === "workspace-write" && backend !== "none";
    },
    async preflight(): Promise<void> {
      if (opts.mode === "none") return;
      const found = await programs();
      // The filter a command gets in this mode unless it names no socket at all.
      const filter = filtersUnixSockets({
        network: opts.network,
        unixSockets: opts.allowUnixSockets ?? false,
      });
      await ready(found, found.bash ?? "/bin/bash", filter);
    },
    get programs(): ShellPrograms | undefined {
      const p = opts.programs;
      return p?.bash ? { bash: p.bash, setsid: p.setsid } : undefined;
    },
    async launch(command: string, spawn: ShellSpawnOptions): Promise<ShellLaunch> {
      const found = await programs();
      // Not found: the system's own lookup for a direct run, the usual place inside a sandbox.
      const direct = found.bash ?? "bash";
      const bash = found.bash ?? "/bin/bash";
      if (opts.mode === "none") return { program: direct, args: ["-c", command] };
      if (backend === "none") {
        await ready(found, bash, false);
        // Documented: on Windows commands run as the current account, after approval.
        return { program: direct, args: ["-c", command] };
      }

      const extra: string[] = [];
      for (const dir of spawn.writeDirs ?? []) {
        const canonical = await canonicalPath(dir, { ...on, base: spawn.cwd });
        if (opts.scope.allowsWrite(canonical)) continue;
        if (opts.mode !== "workspace-write" || !opts.scope.takeOnce(canonical)) {
          throw new WriteScopeError(
            `additional_write_dirs ${canonical} was not approved, so the command was not run.`,
          );
        }
        await ws.mkdir(canonical, { recursive: true });
        extra.push(canonical);
      }
      // A write claim narrows the writable roots; it can never add one the scope lacks.
      for (const root of spawn.writeRoots ?? []) {
        if (!opts.scope.allowsWrite(root)) {
          throw new WriteScopeError(
            `${root} is outside the write scope, so the command was not run.`,
          );
        }
      }
      const roots: string[] = [];
      for (const root of [...spawn.writeRoots ?? opts.scope.roots(), ...extra]) {
        if (!(await lstat(root))) continue;
        await stillCanonical(ws, root, "The writable root");
        roots.push(root);
      }
      const writing = opts.mode === "workspace-write";
      const writable = writing ? roots : [];
      // The private /tmp would hide a workspace under /tmp; read-only mode re-exposes it.
      const visible = writing ? [] : roots;
      const hidden: HiddenPath[] = [];
      for (const path of opts.scope.forbidden()) {
        const info = await lstat(path);
        if (!info) continue;
        await stillCanonical(ws, path, "The forbid_read path");
        hidden.push({ path, dir: info.isDirectory });
      }
      let readOnly: string[] = [];
      let guards: Guard[] = [];
      let pinned: string[] = [];
      if (writing) {
        const inRoot = (p: string) => writable.some((r) => isWithin(r, p));
        const dirs: string[] = [];
        for (const dir of opts.controlDirs ?? []) {
          if ((await lstat(dir))?.isDirectory && inRoot(dir)) dirs.push(dir);
        }
        ({ readOnly, guards } = await controlPlan(dirs, inRoot, on));
        // A path that is mounted on is a mount point already; guarded ones are not.
        const mounted = [...hidden.map((h) => h.path), ...readOnly];
        pinned = ancestorsToPin([...mounted, ...guards.map((g) => g.path)], writable)
          .filter((dir) => !mounted.includes(dir));
      }
      let tmp: string | undefined;
      if (writing) {
        tmp = join(opts.tempDir, "sandbox-tmp");
        await ws.mkdir(tmp, { recursive: true });
      }
      const spec: SandboxSpec = {
        command,
        cwd: await canonicalPath(spawn.cwd, on),
        writable,
        visible,
        hidden,
        pinned,
        readOnly,
        guarded: guards.map((g) => g.path),
        network: opts.network,
        unixSockets: opts.allowUnixSockets ?? false,
        tmp,
        shell: bash,
      };
      const settle = guards.length ? () => settleGuards(guards, spawn.cwd, on) : undefined;

      const filter = filtersUnixSockets(spec);
      await ready(found, bash, filter);
      if (backend === "bubblewrap") {
        return { ...bwrapCommand({ bwrap: found.bwrap!, bash }, bwrapArgs(spec), filter), settle };
      }
      return { program: SANDBOX_EXEC, args: seatbeltArgs(spec), settle };
    },
  };
}
