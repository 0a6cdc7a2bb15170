/**
 * Test support for the built-in tools: a real temporary workspace with a `ToolContext`, and a
 * helper that runs a tool the way the central pipeline does (validate, then execute).
 * Used by tests only.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { directShell } from "../shell.ts";
import type { Tool, ToolContext, ToolResult } from "../types.ts";
import { localWorkspace } from "../workspace/local.ts";
import type { Workspace } from "../workspace/types.ts";

/** A temporary workspace directory, removed on dispose. */
export interface TestWorkspace extends AsyncDisposable {
  /** Canonical absolute workspace root. */
  readonly root: string;
  /** A context rooted at `root` with a live signal, the direct shell and a 30 s bash limit. */
  readonly ctx: ToolContext;
  /** Messages passed to `ctx.progress`. */
  readonly progress: string[];
  /** Absolute path of `rel` inside the workspace. */
  path(rel: string): string;
  /** Writes a file (creating parents) and returns its absolute path. */
  write(rel: string, content: string | Uint8Array): Promise<string>;
  /** Reads a file as UTF-8 text. */
  read(rel: string): Promise<string>;
  /** A copy of `ctx` with some fields replaced. */
  context(overrides: Partial<ToolContext>): ToolContext;
  /** Creates a FIFO (named pipe) with `mkfifo`; undefined where that is unavailable. */
  fifo(rel: string): Promise<string | undefined>;
}

/** Options of {@linkcode createTestWorkspace}. */
export interface TestWorkspaceOptions {
  bashTimeoutMs?: number;
  /** The workspace the directory is made in and the context uses; default the local one. */
  workspace?: Workspace;
}

/** Creates a temporary workspace for one test; use with `await using`. */
export async function createTestWorkspace(
  opts: TestWorkspaceOptions = {},
): Promise<TestWorkspace> {
  const workspace = opts.workspace ?? localWorkspace();
  const base = await workspace.realPath(await workspace.makeTempDir({ prefix: "reasonix-tools-" }));
  const root = join(base, "workspace");
  const tempDir = join(base, "session-tmp");
  await workspace.mkdir(root);
  await workspace.mkdir(tempDir);
  const progress: string[] = [];
  const ctx: ToolContext = {
    root,
    signal: new AbortController().signal,
    tempDir,
    shell: directShell,
    settings: { bashTimeoutMs: opts.bashTimeoutMs ?? 30_000 },
    progress: (message) => progress.push(message),
    workspace,
  };
  return {
    root,
    ctx,
    progress,
    path: (rel) => join(root, rel),
    async write(rel, content) {
      const path = join(root, rel);
      await workspace.mkdir(dirname(path), { recursive: true });
      const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
      await workspace.writeFile(path, bytes);
      return path;
    },
    read: async (rel) => new TextDecoder().decode(await workspace.readFile(join(root, rel))),
    context: (overrides) => ({ ...ctx, ...overrides }),
    async fifo(rel) {
      const path = join(root, rel);
      await workspace.mkdir(dirname(path), { recursive: true });
      try {
        const child = await workspace.spawn(["mkfifo", path], {
          cwd: root,
          stdout: "null",
          stderr: "null",
        });
        return (await child.status).success ? path : undefined;
      } catch {
        return undefined;
      }
    },
    async [Symbol.asyncDispose]() {
      await workspace.remove(base, { recursive: true });
    },
  };
}

/**
 * Validates `args` with the tool's parser (throwing a TypeError when invalid, which is a
 * test bug) and executes the call.
 */
export async function callTool(tool: Tool, args: unknown, ctx: ToolContext): Promise<ToolResult> {
  const parsed = tool.parse ? tool.parse(args) : { ok: true as const, value: args };
  if (!parsed.ok) throw new TypeError(`invalid arguments for ${tool.name}: ${parsed.error}`);
  return await tool.execute(parsed.value, ctx);
}

/**
 * Resolves like `promise`, or rejects when it takes longer than `ms`, so a call that would
 * block forever fails its test instead of hanging the run.
 */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let id: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    id = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(id);
  }
}
