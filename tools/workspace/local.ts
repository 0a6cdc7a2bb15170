/**
 * The {@linkcode Workspace} of this machine, over Deno's file and process APIs. It adds no
 * state and no per-call bookkeeping: each method is the Deno call it names, with the signal
 * checked first where Deno takes none. Deno's errors pass through unchanged (they carry the
 * errno `code` the interface promises).
 *
 * @module
 */
import type {
  DirEntry,
  FileHandle,
  FileInfo,
  FsOptions,
  MkdirOptions,
  OpenOptions,
  ProcessSignal,
  ProcessStatus,
  RemoveOptions,
  SpawnOptions,
  TempDirOptions,
  Workspace,
  WorkspaceOs,
  WorkspaceProcess,
  WriteFileOptions,
} from "./types.ts";

function checkSignal(opts: FsOptions | undefined): void {
  opts?.signal?.throwIfAborted();
}

class LocalFile implements FileHandle {
  readonly #file: Deno.FsFile;
  #closed = false;

  constructor(file: Deno.FsFile) {
    this.#file = file;
  }

  read(buffer: Uint8Array): Promise<number | null> {
    return this.#file.read(buffer);
  }

  write(data: Uint8Array): Promise<number> {
    return this.#file.write(data);
  }

  syncData(): Promise<void> {
    return this.#file.syncData();
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#file.close();
    }
    return Promise.resolve();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

async function* checkedDir(path: string, signal: AbortSignal): AsyncGenerator<DirEntry> {
  signal.throwIfAborted();
  for await (const entry of Deno.readDir(path)) {
    signal.throwIfAborted();
    yield entry;
  }
}

function emptyStream(): ReadableStream<Uint8Array<ArrayBuffer>> {
  return new ReadableStream({ start: (controller) => controller.close() });
}

class LocalProcess implements WorkspaceProcess {
  readonly #child: Deno.ChildProcess;
  readonly pid: number;
  readonly stdout: ReadableStream<Uint8Array<ArrayBuffer>>;
  readonly stderr: ReadableStream<Uint8Array<ArrayBuffer>>;
  readonly stdin: WritableStream<Uint8Array> | undefined;
  readonly status: Promise<ProcessStatus>;

  constructor(child: Deno.ChildProcess, opts: SpawnOptions) {
    this.#child = child;
    this.pid = child.pid;
    // Deno throws on touching a stream that is not piped.
    this.stdout = opts.stdout === "null" ? emptyStream() : child.stdout;
    this.stderr = opts.stderr === "null" ? emptyStream() : child.stderr;
    this.stdin = opts.stdin === "piped" ? child.stdin : undefined;
    this.status = child.status;
  }

  kill(signal: ProcessSignal = "SIGTERM", opts: { group?: boolean } = {}): void {
    try {
      if (opts.group) Deno.kill(-this.pid, signal);
      else this.#child.kill(signal);
    } catch {
      // Already gone.
    }
  }
}

/** The workspace of this machine. One instance serves every caller; it holds no state. */
export class LocalWorkspace implements Workspace {
  get os(): WorkspaceOs {
    return Deno.build.os;
  }

  getEnv(name: string): string | undefined {
    try {
      return Deno.env.get(name);
    } catch {
      // Without the env permission, nothing is known about it.
      return undefined;
    }
  }

  async stat(path: string, opts?: FsOptions): Promise<FileInfo> {
    checkSignal(opts);
    return await Deno.stat(path);
  }

  async lstat(path: string, opts?: FsOptions): Promise<FileInfo> {
    checkSignal(opts);
    return await Deno.lstat(path);
  }

  async realPath(path: string, opts?: FsOptions): Promise<string> {
    checkSignal(opts);
    return await Deno.realPath(path);
  }

  async readLink(path: string, opts?: FsOptions): Promise<string> {
    checkSignal(opts);
    return await Deno.readLink(path);
  }

  readDir(path: string, opts?: FsOptions): AsyncIterable<DirEntry> {
    // Without a signal, Deno's own iterator: nothing is added per entry.
    return opts?.signal ? checkedDir(path, opts.signal) : Deno.readDir(path);
  }

  readFile(path: string, opts?: FsOptions): Promise<Uint8Array> {
    return Deno.readFile(path, opts?.signal ? { signal: opts.signal } : undefined);
  }

  writeFile(path: string, data: Uint8Array, opts: WriteFileOptions = {}): Promise<void> {
    return Deno.writeFile(path, data, {
      createNew: opts.createNew,
      mode: opts.mode,
      signal: opts.signal,
    });
  }

  async open(path: string, opts: OpenOptions): Promise<FileHandle> {
    checkSignal(opts);
    const file = await Deno.open(path, {
      read: opts.read,
      write: opts.write,
      createNew: opts.createNew,
      mode: opts.mode,
    });
    return new LocalFile(file);
  }

  async mkdir(path: string, opts: MkdirOptions = {}): Promise<void> {
    checkSignal(opts);
    return await Deno.mkdir(path, { recursive: opts.recursive, mode: opts.mode });
  }

  async remove(path: string, opts: RemoveOptions = {}): Promise<void> {
    checkSignal(opts);
    return await Deno.remove(path, { recursive: opts.recursive });
  }

  async rename(from: string, to: string, opts?: FsOptions): Promise<void> {
    checkSignal(opts);
    return await Deno.rename(from, to);
  }

  async symlink(target: string, path: string, opts?: FsOptions): Promise<void> {
    checkSignal(opts);
    return await Deno.symlink(target, path);
  }

  async copyFile(from: string, to: string, opts?: FsOptions): Promise<void> {
    checkSignal(opts);
    return await Deno.copyFile(from, to);
  }

  async chmod(path: string, mode: number, opts?: FsOptions): Promise<void> {
    checkSignal(opts);
    return await Deno.chmod(path, mode);
  }

  async makeTempDir(opts: TempDirOptions = {}): Promise<string> {
    checkSignal(opts);
    return await Deno.makeTempDir({ prefix: opts.prefix });
  }

  spawn(argv: readonly string[], opts: SpawnOptions): Promise<WorkspaceProcess> {
    try {
      opts.signal?.throwIfAborted();
      const [program, ...args] = argv;
      if (program === undefined) throw new TypeError("spawn needs a program");
      const child = new Deno.Command(program, {
        args,
        cwd: opts.cwd,
        env: opts.env === undefined ? undefined : { ...opts.env },
        clearEnv: opts.clearEnv,
        signal: opts.signal,
        stdin: opts.stdin ?? "null",
        stdout: opts.stdout ?? "piped",
        stderr: opts.stderr ?? "piped",
      }).spawn();
      return Promise.resolve(new LocalProcess(child, opts));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async canSpawn(program: string): Promise<boolean> {
    const run = await Deno.permissions.query({ name: "run", command: program });
    return run.state === "granted";
  }
}

const shared = new LocalWorkspace();

/** The workspace of this machine (one shared, stateless instance). */
export function localWorkspace(): LocalWorkspace {
  return shared;
}
