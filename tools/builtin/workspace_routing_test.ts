/**
 * Every built-in tool works on a workspace whose paths do not exist on this machine: a
 * workspace that keeps its files under a local directory but names them `/remote-…/…`, the
 * way a remote workspace names files of another machine. A tool that touched a path through
 * Deno directly would find nothing there and fail.
 */
import assert from "node:assert/strict";
import { findExecutable } from "../fs/mod.ts";
import type { Tool, ToolContext } from "../types.ts";
import { localWorkspace } from "../workspace/local.ts";
import type {
  DirEntry,
  FileHandle,
  FileInfo,
  FsOptions,
  MkdirOptions,
  OpenOptions,
  RemoveOptions,
  SpawnOptions,
  TempDirOptions,
  Workspace,
  WorkspaceOs,
  WorkspaceProcess,
  WriteFileOptions,
} from "../workspace/types.ts";
import { bashTool } from "./bash.ts";
import { editFileTool } from "./edit_file.ts";
import { globTool, runGlob } from "./glob.ts";
import { grepTool, runGrep } from "./grep.ts";
import { lsTool } from "./ls.ts";
import { moveFileTool } from "./move_file.ts";
import { multiEditTool } from "./multi_edit.ts";
import { readFileTool } from "./read_file.ts";
import type { SearchEngine } from "./ripgrep.ts";
import { callTool, createTestWorkspace } from "./test_context.ts";
import { writeFileTool } from "./write_file.ts";

/** Names the files under `real` as if they lived at `/remote-<id>` on another machine. */
class RenamedWorkspace implements Workspace {
  readonly virtual = `/remote-${crypto.randomUUID()}`;
  readonly #local = localWorkspace();
  /** Operations asked for, by name: proof that the tools came here. */
  readonly calls = new Map<string, number>();

  constructor(readonly real: string) {}

  #count(op: string): void {
    this.calls.set(op, (this.calls.get(op) ?? 0) + 1);
  }

  /** The local path of a workspace path. */
  toReal(path: string): string {
    return path === this.virtual || path.startsWith(`${this.virtual}/`)
      ? this.real + path.slice(this.virtual.length)
      : path;
  }

  #toVirtual(path: string): string {
    return path === this.real || path.startsWith(`${this.real}/`)
      ? this.virtual + path.slice(this.real.length)
      : path;
  }

  get os(): WorkspaceOs {
    return this.#local.os;
  }
  getEnv(name: string): string | undefined {
    return this.#local.getEnv(name);
  }
  stat(path: string, opts?: FsOptions): Promise<FileInfo> {
    this.#count("stat");
    return this.#local.stat(this.toReal(path), opts);
  }
  lstat(path: string, opts?: FsOptions): Promise<FileInfo> {
    this.#count("lstat");
    return this.#local.lstat(this.toReal(path), opts);
  }
  async realPath(path: string, opts?: FsOptions): Promise<string> {
    this.#count("realPath");
    return this.#toVirtual(await this.#local.realPath(this.toReal(path), opts));
  }
  readLink(path: string, opts?: FsOptions): Promise<string> {
    this.#count("readLink");
    return this.#local.readLink(this.toReal(path), opts);
  }
  readDir(path: string, opts?: FsOptions): AsyncIterable<DirEntry> {
    this.#count("readDir");
    return this.#local.readDir(this.toReal(path), opts);
  }
  readFile(path: string, opts?: FsOptions): Promise<Uint8Array> {
    this.#count("readFile");
    return this.#local.readFile(this.toReal(path), opts);
  }
  writeFile(path: string, data: Uint8Array, opts?: WriteFileOptions): Promise<void> {
    this.#count("writeFile");
    return this.#local.writeFile(this.toReal(path), data, opts);
  }
  open(path: string, opts: OpenOptions): Promise<FileHandle> {
    this.#count("open");
    return this.#local.open(this.toReal(path), opts);
  }
  mkdir(path: string, opts?: MkdirOptions): Promise<void> {
    this.#count("mkdir");
    return this.#local.mkdir(this.toReal(path), opts);
  }
  remove(path: string, opts?: RemoveOptions): Promise<void> {
    this.#count("remove");
    return this.#local.remove(this.toReal(path), opts);
  }
  rename(from: string, to: string, opts?: FsOptions): Promise<void> {
    this.#count("rename");
    return this.#local.rename(this.toReal(from), this.toReal(to), opts);
  }
  symlink(target: string, path: string, opts?: FsOptions): Promise<void> {
    this.#count("symlink");
    return this.#local.symlink(target, this.toReal(path), opts);
  }
  copyFile(from: string, to: string, opts?: FsOptions): Promise<void> {
    this.#count("copyFile");
    return this.#local.copyFile(this.toReal(from), this.toReal(to), opts);
  }
  chmod(path: string, mode: number, opts?: FsOptions): Promise<void> {
    this.#count("chmod");
    return this.#local.chmod(this.toReal(path), mode, opts);
  }
  async makeTempDir(opts: TempDirOptions = {}): Promise<string> {
    this.#count("makeTempDir");
    return this.#toVirtual(await Deno.makeTempDir({ dir: this.real, prefix: opts.prefix }));
  }
  spawn(argv: readonly string[], opts: SpawnOptions): Promise<WorkspaceProcess> {
    this.#count("spawn");
    return this.#local.spawn(argv.map((arg) => this.toReal(arg)), {
      ...opts,
      cwd: this.toReal(opts.cwd),
    });
  }
  canSpawn(program: string): Promise<boolean> {
    return this.#local.canSpawn(program);
  }
}

const engines: SearchEngine[] = (await findExecutable("rg")) ? ["ripgrep", "builtin"] : [
  "builtin",
];

async function renamed(): Promise<{ ws: RenamedWorkspace; dispose(): Promise<void> }> {
  const real = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-renamed-" }));
  return {
    ws: new RenamedWorkspace(real),
    dispose: () => Deno.remove(real, { recursive: true }),
  };
}

async function run(tool: Tool, args: unknown, ctx: ToolContext): Promise<string> {
  const result = await callTool(tool, args, ctx);
  assert.ok(!result.isError, `${tool.name} failed: ${result.content}`);
  return result.content;
}

Deno.test("every built-in tool reaches its files and processes only through ctx.workspace", async () => {
  const { ws, dispose } = await renamed();
  try {
    await using t = await createTestWorkspace({ workspace: ws });
    const ctx = t.ctx;
    assert.ok(ctx.root.startsWith(ws.virtual));
    await assert.rejects(Deno.stat(ctx.root), "the workspace root is not a local path");

    await run(writeFileTool, { path: "src/a.ts", content: "const needle = 1;\nother\n" }, ctx);
    assert.match(await run(readFileTool, { path: "src/a.ts" }, ctx), /1\tconst needle = 1;/);
    await run(editFileTool, { path: "src/a.ts", old_string: "other", new_string: "more" }, ctx);
    await run(multiEditTool, {
      path: "src/a.ts",
      edits: [{ old_string: "more", new_string: "needle again" }],
    }, ctx);
    assert.equal(await t.read("src/a.ts"), "const needle = 1;\nneedle again\n");
    assert.equal(await Deno.readTextFile(ws.toReal(t.path("src/a.ts"))), await t.read("src/a.ts"));
    assert.match(await run(lsTool, { path: "src" }, ctx), /^a\.ts {2}\d+ B$/);
    await run(moveFileTool, { source: "src/a.ts", destination: "lib/b.ts" }, ctx);
    assert.equal(await t.read("lib/b.ts"), "const needle = 1;\nneedle again\n");

    for (const engine of engines) {
      const glob = globTool.parse!({ pattern: "*.ts" });
      assert.ok(glob.ok);
      const globbed = await runGlob(glob.value as never, ctx, { engine });
      assert.equal(globbed.content, "lib/b.ts", engine);
      const grep = grepTool.parse!({ pattern: "needle", output_mode: "content" });
      assert.ok(grep.ok);
      const found = await runGrep(grep.value as never, ctx, { engine });
      assert.equal(found.content, "lib/b.ts:1:const needle = 1;\nlib/b.ts:2:needle again", engine);
      const one = grepTool.parse!({ pattern: "again", path: "lib/b.ts", output_mode: "count" });
      assert.ok(one.ok);
      assert.equal((await runGrep(one.value as never, ctx, { engine })).content, "lib/b.ts:1");
    }

    const bash = await run(bashTool, { command: "cat lib/b.ts | wc -l" }, ctx);
    assert.match(bash, /^2\nExit code: 0$/);
    for (const op of ["stat", "readFile", "open", "rename", "readDir", "spawn", "realPath"]) {
      assert.ok((ws.calls.get(op) ?? 0) > 0, `no ${op} went through the workspace`);
    }
  } finally {
    await dispose();
  }
});
