/**
 * A throwaway world for attack tests: a workspace, a canary directory outside it, a home with
 * a secret, the real permission layer (gate + bubblewrap launcher) and the real built-in
 * tools, driven through the central tool pipeline exactly as the agent loop drives them.
 *
 * The lab lives under /var/tmp on Linux, not /tmp: sandboxed commands get a private /tmp, so a
 * canary under the host's /tmp would merely be invisible to them instead of protected.
 *
 * @module
 */
import "../../tools/builtin/mod.ts";
import { join, resolve } from "node:path";
import type { AgentEvent } from "../../core/agent/events.ts";
import { executeToolCall } from "../../core/agent/tool_exec.ts";
import {
  type Permissions,
  type PermissionSetupOptions,
  setupPermissions,
} from "../../core/permission/mod.ts";
import { builtinTools, ToolRegistry } from "../../tools/registry.ts";
import type { Tool, ToolResult } from "../../tools/types.ts";
import { runGlob } from "../../tools/builtin/glob.ts";
import { runGrep } from "../../tools/builtin/grep.ts";
import type { SearchEngine } from "../../tools/builtin/ripgrep.ts";

/** The secret `forbid_read` protects. */
export const SECRET = "-----BEGIN PRIVATE KEY----- lab secret";
/** The canary file's original content. */
export const ORIGINAL = "original\n";

/** Whether the real bubblewrap works on this machine. */
export const HAS_BWRAP: boolean = Deno.build.os === "linux" &&
  await new Deno.Command("bwrap", {
    args: ["--ro-bind", "/", "/", "--unshare-pid", "--cap-drop", "ALL", "true"],
    stdout: "null",
    stderr: "null",
  }).output().then((o) => o.success).catch(() => false);

/**
 * Whether to skip the sandbox cases: only off CI, where bubblewrap may be absent. CI installs it
 * (`.ci/run`), so there a broken sandbox fails the suite instead of skipping it.
 */
export const SKIP_SANDBOX: boolean = !HAS_BWRAP && Deno.env.get("CI") !== "true";

/** Options of {@linkcode makeLab}. */
export interface LabOptions {
  mode: string;
  allow?: string[];
  deny?: string[];
  /** Initialise the workspace as a git repository. */
  git?: boolean;
  which?: (name: string) => Promise<string | undefined>;
  /** Extra `forbid_read` entries, relative to the workspace or absolute. */
  forbidRead?: string[];
  /** Forces the engine of `grep` and `glob` (default: ripgrep when installed). */
  engine?: SearchEngine;
  /**
   * Runs once the lab's files exist, before the permission layer is set up; the sections it
   * returns replace the lab's (`env` is added to the lab's `HOME`).
   */
  prepare?: (world: LabWorld) => Promise<LabSetup | void>;
}

/** The lab's directories, for {@linkcode LabOptions.prepare}. */
export interface LabWorld {
  base: string;
  ws: string;
  outside: string;
  home: string;
  session: string;
}

/** Setup sections a {@linkcode LabOptions.prepare} hook may replace. */
export type LabSetup = Partial<Pick<PermissionSetupOptions, "permissions" | "sandbox" | "env">>;

/** The built-in tools, with `grep` and `glob` pinned to one engine when asked. */
function labTools(engine: SearchEngine | undefined): Tool[] {
  return builtinTools().map((tool): Tool => {
    if (engine === undefined) return tool;
    if (tool.name === "grep") {
      return { ...tool, execute: (args, ctx) => runGrep(args as never, ctx, { engine }) };
    }
    if (tool.name === "glob") {
      return { ...tool, execute: (args, ctx) => runGlob(args as never, ctx, { engine }) };
    }
    return tool;
  });
}

/** One tool call's outcome. */
export interface CallOutcome {
  result: ToolResult;
  /** The `permission` event of the call. */
  permission?: Extract<AgentEvent, { type: "permission" }>;
}

/** A lab: paths, the permission layer and a way to call tools. */
export interface Lab {
  base: string;
  ws: string;
  /** The canary directory outside the workspace. */
  outside: string;
  home: string;
  permissions: Permissions;
  call(tool: string, args: Record<string, unknown>): Promise<CallOutcome>;
  /** Every path, type, link target and content hash outside the workspace and session dir. */
  snapshot(): Promise<string[]>;
  dispose(): Promise<void>;
}

async function sha256(path: string): Promise<string> {
  const bytes = await Deno.readFile(path);
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function walk(dir: string, skip: Set<string>, out: string[]): Promise<void> {
  const entries = [];
  for await (const entry of Deno.readDir(dir)) entries.push(entry);
  entries.sort((a, b) => a.name < b.name ? -1 : 1);
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (skip.has(path)) continue;
    const info = await Deno.lstat(path);
    if (info.isSymlink) out.push(`${path} -> ${await Deno.readLink(path)}`);
    else if (info.isDirectory) {
      out.push(`${path}/ ${info.mode?.toString(8)}`);
      await walk(path, skip, out);
    } else out.push(`${path} ${info.mode?.toString(8)} ${await sha256(path)}`);
  }
}

/** Builds a lab with the given preset and rules. */
export async function makeLab(opts: LabOptions): Promise<Lab> {
  const parent = Deno.build.os === "linux" ? "/var/tmp" : undefined;
  const base = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "reasonix-attack-", dir: parent }),
  );
  const ws = join(base, "ws");
  const outside = join(base, "outside");
  const home = join(base, "home");
  const session = join(base, "session");
  for (const d of [ws, outside, join(home, ".ssh"), session, join(ws, "d")]) {
    await Deno.mkdir(d, { recursive: true });
  }
  await Deno.writeTextFile(join(outside, "victim.txt"), ORIGINAL);
  await Deno.writeTextFile(join(home, ".ssh", "id_rsa"), SECRET);
  await Deno.writeTextFile(join(ws, "keep.txt"), "keep\n");
  await Deno.writeTextFile(join(ws, "notes.txt"), "original\n");
  await Deno.symlink(outside, join(ws, "link"));
  await Deno.symlink(join(outside, "victim.txt"), join(ws, "file-link"));
  await Deno.symlink(join(outside, "new.txt"), join(ws, "dangling"));
  if (opts.git) {
    const git = (...args: string[]) =>
      new Deno.Command("git", { args, cwd: ws, stdout: "null", stderr: "null" }).output();
    await git("init", "-q");
  }

  const custom = (await opts.prepare?.({ base, ws, outside, home, session })) ?? {};
  const permissions = await setupPermissions({
    permissions: custom.permissions ??
      { mode: opts.mode, allow: opts.allow ?? [], ask: [], deny: opts.deny ?? [] },
    sandbox: custom.sandbox ?? {
      allow_write: [],
      forbid_read: [join(home, ".ssh"), ...(opts.forbidRead ?? []).map((p) => resolve(ws, p))],
    },
    workspaceRoot: ws,
    tempDir: session,
    env: { HOME: home, ...custom.env },
    which: opts.which,
  });
  const registry = new ToolRegistry(labTools(opts.engine));
  let n = 0;
  return {
    base,
    ws,
    outside,
    home,
    permissions,
    async call(tool, args) {
      let permission: CallOutcome["permission"];
      const result = await executeToolCall(
        { id: `call_${++n}`, name: tool, arguments: JSON.stringify(args) },
        {
          registry,
          context: {
            root: ws,
            tempDir: session,
            shell: permissions.shell,
            readGuard: permissions.readGuard,
            settings: { bashTimeoutMs: 20_000 },
          },
          signal: new AbortController().signal,
          gate: permissions.gate,
          timeoutMs: 30_000,
          onEvent: (event) => {
            if (event.type === "permission") permission = event;
          },
        },
      );
      return { result, permission };
    },
    async snapshot() {
      const out: string[] = [];
      await walk(base, new Set([ws, session]), out);
      return out;
    },
    dispose: () => Deno.remove(base, { recursive: true }),
  };
}
