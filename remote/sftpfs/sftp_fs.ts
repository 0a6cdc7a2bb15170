/**
 * The file side of a remote {@linkcode Workspace} over SFTP. SFTP (v3, as OpenSSH speaks it)
 * reports only "no such file", "permission denied" and a generic "failure"; the generic one is
 * turned into the errno the local workspace would raise (`EEXIST`, `EISDIR`, `ENOTEMPTY`, …)
 * by looking at the path, so the tools cannot tell the two workspaces apart. Replacing a file
 * uses OpenSSH's `posix-rename`, so `rename` replaces atomically like rename(2).
 *
 * @module
 */
import { posix } from "node:path";
import { FsError, type FsErrorCode } from "../../tools/workspace/errors.ts";
import type {
  DirEntry,
  FileHandle,
  FileInfo,
  FsOptions,
  MkdirOptions,
  OpenOptions,
  RemoveOptions,
  TempDirOptions,
  WriteFileOptions,
} from "../../tools/workspace/types.ts";
import type { SFTPWrapper, Stats } from "../ssh2.ts";

/** What the file side needs of the connection. */
export interface SftpSource {
  /** The SFTP session (reopened after a reconnect). */
  sftp(): Promise<SFTPWrapper>;
  /** Runs a shell command line on the host (for `rm -r`). */
  run(command: string, opts?: { signal?: AbortSignal }): Promise<{ code: number; stderr: string }>;
}

const S_IFMT = 0o170000;
const TYPES = {
  file: 0o100000,
  dir: 0o040000,
  link: 0o120000,
  fifo: 0o010000,
  socket: 0o140000,
  char: 0o020000,
  block: 0o060000,
};

/** `FileInfo` from SFTP attributes. */
export function fileInfo(stats: Pick<Stats, "mode" | "size" | "mtime">): FileInfo {
  const type = stats.mode & S_IFMT;
  return {
    isFile: type === TYPES.file,
    isDirectory: type === TYPES.dir,
    isSymlink: type === TYPES.link,
    size: stats.size,
    mtime: new Date(stats.mtime * 1000),
    mode: stats.mode,
    // SFTP does not carry inode or device numbers.
    ino: null,
    dev: null,
    isFifo: type === TYPES.fifo,
    isSocket: type === TYPES.socket,
    isCharDevice: type === TYPES.char,
    isBlockDevice: type === TYPES.block,
  };
}

/** Quotes `text` for a POSIX shell. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

const STATUS_NO_SUCH_FILE = 2;
const STATUS_PERMISSION_DENIED = 3;

function sftpCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "number" ? code : undefined;
}

function fsError(code: FsErrorCode, op: string, path: string, cause?: unknown): FsError {
  const reasons: Record<FsErrorCode, string> = {
    ENOENT: "No such file or directory",
    EACCES: "Permission denied",
    EPERM: "Operation not permitted",
    EEXIST: "File exists",
    EISDIR: "Is a directory",
    ENOTDIR: "Not a directory",
    EXDEV: "Invalid cross-device link",
    ELOOP: "Too many levels of symbolic links",
    ENOTEMPTY: "Directory not empty",
  };
  return new FsError(code, `${reasons[code]}: ${op} '${path}'`, { cause });
}

function promisify<T>(call: (cb: (error: Error | null | undefined, value: T) => void) => void) {
  return new Promise<T>((resolve, reject) => {
    call((error, value) => error ? reject(error) : resolve(value));
  });
}

/** The file operations of a remote workspace. */
export class SftpFs {
  readonly #source: SftpSource;

  /** File operations over `source`'s SFTP session. */
  constructor(source: SftpSource) {
    this.#source = source;
  }

  /**
   * Runs `call` and turns SFTP's status into an errno error; `infer` picks the errno for a
   * generic failure from the state of the paths.
   */
  async #op<T>(
    op: string,
    path: string,
    call: (sftp: SFTPWrapper) => Promise<T>,
    infer?: () => Promise<FsErrorCode | undefined>,
    opts?: FsOptions,
  ): Promise<T> {
    opts?.signal?.throwIfAborted();
    const sftp = await this.#source.sftp();
    try {
      return await call(sftp);
    } catch (error) {
      if (error instanceof FsError) throw error;
      const status = sftpCode(error);
      if (status === STATUS_NO_SUCH_FILE) throw fsError("ENOENT", op, path, error);
      if (status === STATUS_PERMISSION_DENIED) throw fsError("EACCES", op, path, error);
      const inferred = await infer?.().catch(() => undefined);
      if (inferred) throw fsError(inferred, op, path, error);
      throw error;
    }
  }

  async #lstatOrUndefined(path: string): Promise<Stats | undefined> {
    const sftp = await this.#source.sftp();
    return await promisify<Stats>((cb) => sftp.lstat(path, cb)).catch(() => undefined);
  }

  /** Why something at `path` could not be created or entered. */
  async #parentProblem(path: string): Promise<FsErrorCode | undefined> {
    const parent = await this.#lstatOrUndefined(posix.dirname(path));
    if (!parent) return "ENOENT";
    if ((parent.mode & S_IFMT) !== TYPES.dir) return "ENOTDIR";
    return undefined;
  }

  /** Information about `path`, symlinks followed. */
  stat(path: string, opts?: FsOptions): Promise<FileInfo> {
    return this.#op(
      "stat",
      path,
      async (s) => {
        const info = fileInfo(await promisify<Stats>((cb) => s.stat(path, cb)));
        // A trailing `/.` must name a directory (checkSearchDir relies on it).
        if (/\/\.?$/.test(path) && path !== "/" && !info.isDirectory) {
          throw fsError("ENOTDIR", "stat", path);
        }
        return info;
      },
      undefined,
      opts,
    );
  }

  /** Information about the entry itself. */
  lstat(path: string, opts?: FsOptions): Promise<FileInfo> {
    return this.#op(
      "lstat",
      path,
      async (s) => {
        return fileInfo(await promisify<Stats>((cb) => s.lstat(path, cb)));
      },
      undefined,
      opts,
    );
  }

  /** The canonical path, resolved by the remote server; rejects when it is missing. */
  realPath(path: string, opts?: FsOptions): Promise<string> {
    return this.#op(
      "realpath",
      path,
      async (s) => {
        // Older servers resolve a missing path lexically; the stat makes it fail like realpath(3).
        await promisify<Stats>((cb) => s.stat(path, cb));
        return await promisify<string>((cb) => s.realpath(path, cb));
      },
      undefined,
      opts,
    );
  }

  /** The target a symlink stores. */
  readLink(path: string, opts?: FsOptions): Promise<string> {
    return this.#op(
      "readlink",
      path,
      (s) => promisify<string>((cb) => s.readlink(path, cb)),
      async () => {
        const info = await this.#lstatOrUndefined(path);
        return info ? undefined : "ENOENT";
      },
      opts,
    );
  }

  /** The entries of a directory (without `.` and `..`). */
  async *readDir(path: string, opts?: FsOptions): AsyncGenerator<DirEntry> {
    const list = await this.#op(
      "readdir",
      path,
      async (s) => {
        const info = await promisify<Stats>((cb) => s.stat(path, cb));
        if ((info.mode & S_IFMT) !== TYPES.dir) throw fsError("ENOTDIR", "readdir", path);
        return await promisify<{ filename: string; attrs: Stats }[]>((cb) =>
          s.readdir(path, cb as never)
        );
      },
      undefined,
      opts,
    );
    for (const entry of list) {
      opts?.signal?.throwIfAborted();
      if (entry.filename === "." || entry.filename === "..") continue;
      const type = entry.attrs.mode & S_IFMT;
      yield {
        name: entry.filename,
        isFile: type === TYPES.file,
        isDirectory: type === TYPES.dir,
        isSymlink: type === TYPES.link,
      };
    }
  }

  /** The whole content of a file. */
  async readFile(path: string, opts?: FsOptions): Promise<Uint8Array> {
    const handle = await this.open(path, { read: true, signal: opts?.signal });
    try {
      const chunks: Uint8Array[] = [];
      let total = 0;
      const buffer = new Uint8Array(256 * 1024);
      while (true) {
        opts?.signal?.throwIfAborted();
        const n = await handle.read(buffer);
        if (n === null) break;
        chunks.push(buffer.slice(0, n));
        total += n;
      }
      const out = new Uint8Array(total);
      let at = 0;
      for (const c of chunks) {
        out.set(c, at);
        at += c.length;
      }
      return out;
    } finally {
      await handle.close();
    }
  }

  /** Creates or replaces a file (not atomically, like the local workspace). */
  async writeFile(path: string, data: Uint8Array, opts: WriteFileOptions = {}): Promise<void> {
    const handle = await this.open(path, {
      write: true,
      createNew: opts.createNew,
      mode: opts.mode,
      signal: opts.signal,
      truncate: true,
    } as OpenOptions);
    try {
      let at = 0;
      while (at < data.length) {
        opts.signal?.throwIfAborted();
        at += await handle.write(data.subarray(at, at + 256 * 1024));
      }
    } finally {
      await handle.close();
    }
  }

  /** Opens a file for streaming reads or writes. */
  open(path: string, opts: OpenOptions): Promise<FileHandle> {
    const truncate = (opts as { truncate?: boolean }).truncate === true;
    const flags = opts.createNew
      ? (opts.read ? "xw+" : "wx")
      : opts.write
      ? (truncate ? (opts.read ? "w+" : "w") : (opts.read ? "r+" : "r+"))
      : "r";
    return this.#op("open", path, async (s) => {
      if (!opts.write && !opts.createNew) {
        // Opening a directory for reading succeeds on the server; reading it would not.
        const info = await promisify<Stats>((cb) => s.stat(path, cb));
        if ((info.mode & S_IFMT) === TYPES.dir) throw fsError("EISDIR", "open", path);
      }
      const mode = opts.mode ?? 0o666;
      // The server's umask narrows the bits, as the kernel does locally.
      const handle = await promisify<Buffer>((cb) => s.open(path, flags as never, { mode }, cb));
      return new SftpFile(s, handle, path);
    }, async () => {
      const info = await this.#lstatOrUndefined(path);
      if (opts.createNew && info) return "EEXIST";
      if (info && (info.mode & S_IFMT) === TYPES.dir) return "EISDIR";
      return await this.#parentProblem(path);
    }, opts);
  }

  /** Creates a directory (and its parents with `recursive`). */
  async mkdir(path: string, opts: MkdirOptions = {}): Promise<void> {
    if (opts.recursive) {
      const existing = await this.#lstatOrUndefined(path);
      if (existing) {
        if ((existing.mode & S_IFMT) === TYPES.dir) return;
        const followed = await this.stat(path).catch(() => undefined);
        if (followed?.isDirectory) return;
        throw fsError("EEXIST", "mkdir", path);
      }
      const parent = posix.dirname(path);
      if (parent !== path) await this.mkdir(parent, { ...opts, mode: undefined });
    }
    await this.#op("mkdir", path, async (s) => {
      await promisify<void>((cb) => s.mkdir(path, { mode: opts.mode ?? 0o777 }, cb as never));
    }, async () => {
      if (await this.#lstatOrUndefined(path)) return opts.recursive ? undefined : "EEXIST";
      return await this.#parentProblem(path);
    }, opts).catch(async (error) => {
      // Created concurrently: fine for a recursive mkdir.
      if (opts.recursive && (await this.stat(path).catch(() => undefined))?.isDirectory) return;
      throw error;
    });
  }

  /** Removes a file, link or empty directory (any directory with `recursive`). */
  async remove(path: string, opts: RemoveOptions = {}): Promise<void> {
    const info = await this.lstat(path, opts);
    if (info.isDirectory) {
      if (opts.recursive) {
        const out = await this.#source.run(`rm -rf -- ${shellQuote(path)}`, opts);
        if (out.code !== 0) throw fsError("EACCES", "remove", path, new Error(out.stderr));
        return;
      }
      await this.#op(
        "rmdir",
        path,
        (s) => promisify<void>((cb) => s.rmdir(path, cb as never)),
        async () => {
          for await (const _ of this.readDir(path)) return "ENOTEMPTY";
          return undefined;
        },
        opts,
      );
      return;
    }
    await this.#op(
      "unlink",
      path,
      (s) => promisify<void>((cb) => s.unlink(path, cb as never)),
      undefined,
      opts,
    );
  }

  /** Renames (replacing a file at `to`, like rename(2)). */
  rename(from: string, to: string, opts?: FsOptions): Promise<void> {
    return this.#op("rename", from, async (s) => {
      await promisify<void>((cb) => s.ext_openssh_rename(from, to, cb as never));
    }, async () => {
      if (!(await this.#lstatOrUndefined(from))) return "ENOENT";
      const target = await this.#lstatOrUndefined(to);
      if (target && (target.mode & S_IFMT) === TYPES.dir) {
        const source = await this.#lstatOrUndefined(from);
        if (source && (source.mode & S_IFMT) !== TYPES.dir) return "EISDIR";
        return "ENOTEMPTY";
      }
      if (target && (await this.#lstatOrUndefined(from))!.mode & TYPES.dir) return "ENOTDIR";
      return (await this.#parentProblem(to)) ?? "EXDEV";
    }, opts);
  }

  /** Creates a symlink at `path` storing `target`. */
  symlink(target: string, path: string, opts?: FsOptions): Promise<void> {
    return this.#op(
      "symlink",
      path,
      async (s) => {
        await promisify<void>((cb) => s.symlink(target, path, cb as never));
      },
      async () => (await this.#lstatOrUndefined(path)) ? "EEXIST" : await this.#parentProblem(path),
      opts,
    );
  }

  /** Copies a file's content and permission bits. */
  async copyFile(from: string, to: string, opts?: FsOptions): Promise<void> {
    const info = await this.stat(from, opts);
    if (info.isDirectory) throw fsError("EISDIR", "copy", from);
    const data = await this.readFile(from, opts);
    await this.writeFile(to, data, { signal: opts?.signal });
    await this.chmod(to, (info.mode ?? 0o644) & 0o7777, opts);
  }

  /** Sets permission bits. */
  chmod(path: string, mode: number, opts?: FsOptions): Promise<void> {
    return this.#op(
      "chmod",
      path,
      (s) => promisify<void>((cb) => s.chmod(path, mode, cb as never)),
      undefined,
      opts,
    );
  }

  /** A new private directory under `tmp` (the remote `TMPDIR`). */
  async makeTempDir(tmp: string, opts: TempDirOptions = {}): Promise<string> {
    for (let i = 0; i < 10; i++) {
      const name = `${opts.prefix ?? ""}${crypto.randomUUID().slice(0, 12)}`;
      const path = posix.join(tmp, name);
      try {
        await this.#op(
          "mkdir",
          path,
          (s) => promisify<void>((cb) => s.mkdir(path, { mode: 0o700 }, cb as never)),
          async () => (await this.#lstatOrUndefined(path)) ? "EEXIST" : undefined,
          opts,
        );
        return path;
      } catch (error) {
        if ((error as FsError).code !== "EEXIST") throw error;
      }
    }
    throw fsError("EEXIST", "mkdtemp", tmp);
  }
}

class SftpFile implements FileHandle {
  readonly #sftp: SFTPWrapper;
  readonly #handle: Buffer;
  readonly #path: string;
  #position = 0;
  #closed = false;

  constructor(sftp: SFTPWrapper, handle: Buffer, path: string) {
    this.#sftp = sftp;
    this.#handle = handle;
    this.#path = path;
  }

  read(buffer: Uint8Array): Promise<number | null> {
    return new Promise((resolve, reject) => {
      this.#sftp.read(
        this.#handle,
        Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength),
        0,
        buffer.length,
        this.#position,
        (error, n) => {
          if (error) {
            if (sftpCode(error) === 1) return resolve(null); // SSH_FX_EOF
            return reject(fsError("EISDIR", "read", this.#path, error));
          }
          if (n === 0) return resolve(null);
          this.#position += n;
          resolve(n);
        },
      );
    });
  }

  write(data: Uint8Array): Promise<number> {
    return new Promise((resolve, reject) => {
      const chunk = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      this.#sftp.write(this.#handle, chunk, 0, chunk.length, this.#position, (error) => {
        if (error) return reject(error);
        this.#position += chunk.length;
        resolve(chunk.length);
      });
    });
  }

  syncData(): Promise<void> {
    return new Promise((resolve) => {
      // fsync@openssh.com; a server without it cannot flush, which is not an error here.
      try {
        this.#sftp.ext_openssh_fsync(this.#handle, () => resolve());
      } catch {
        resolve();
      }
    });
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    return new Promise((resolve) => this.#sftp.close(this.#handle, () => resolve()));
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
