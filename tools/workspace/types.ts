/**
 * The `Workspace`: the file and process operations that the built-in tools, the confinement
 * checks and the sandbox launcher use, and nothing else. The local implementation
 * (`local.ts`) runs them on this machine; a remote one (SFTP for files, exec for processes)
 * can implement the same interface, so nothing in it is a Deno type.
 *
 * Paths are absolute paths of the workspace's machine. Operations reject with an `Error`
 * whose `code` is the POSIX errno name (`ENOENT`, `EACCES`, `EEXIST`, `EISDIR`, `ENOTDIR`,
 * `EXDEV`, `ELOOP`, …); `errors.ts` reads it, so callers never test error classes.
 *
 * @module
 */

/** Platforms a workspace can be on (the values `Deno.build.os` takes). */
export type WorkspaceOs =
  | "darwin"
  | "linux"
  | "android"
  | "windows"
  | "freebsd"
  | "netbsd"
  | "aix"
  | "solaris"
  | "illumos";

/** What `stat` and `lstat` report about one file-system entry. */
export interface FileInfo {
  /** A regular file. */
  isFile: boolean;
  /** A directory. */
  isDirectory: boolean;
  /** A symlink (only `lstat` reports one). */
  isSymlink: boolean;
  /** Size in bytes (of the link itself for `lstat` of a symlink). */
  size: number;
  /** Last modification, or null where the platform does not record it. */
  mtime: Date | null;
  /** `st_mode` (type and permission bits), or null where the platform has none. */
  mode: number | null;
  /** Inode number, or null where the platform has none. With `dev` it identifies a file. */
  ino: number | null;
  /** Device the entry is on, or null where unknown. */
  dev: number | null;
  /** A FIFO (named pipe); null where the platform cannot tell. */
  isFifo: boolean | null;
  /** A unix socket; null where the platform cannot tell. */
  isSocket: boolean | null;
  /** A character device; null where the platform cannot tell. */
  isCharDevice: boolean | null;
  /** A block device; null where the platform cannot tell. */
  isBlockDevice: boolean | null;
}

/** One entry of a directory listing; the type is the entry's own (a link is not followed). */
export interface DirEntry {
  /** The entry's name in its directory (no path). */
  name: string;
  /** A regular file. */
  isFile: boolean;
  /** A directory. */
  isDirectory: boolean;
  /** A symlink. */
  isSymlink: boolean;
}

/** The options every operation takes. */
export interface FsOptions {
  /** Stops the operation; it then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** Options of {@linkcode Workspace.open}. */
export interface OpenOptions extends FsOptions {
  /** Open for reading. */
  read?: boolean;
  /** Open for writing (from the start, without truncating). */
  write?: boolean;
  /** Create the file; fail with `EEXIST` when something is already there. */
  createNew?: boolean;
  /** Permission bits of a created file, narrowed by the umask. Default 0o666. */
  mode?: number;
}

/** An open file, read or written from the current position. */
export interface FileHandle extends AsyncDisposable {
  /** Reads into `buffer`; the number of bytes read, or null at the end of the file. */
  read(buffer: Uint8Array): Promise<number | null>;
  /** Writes some of `data`; the number of bytes written. */
  write(data: Uint8Array): Promise<number>;
  /** Flushes written data to the storage device. */
  syncData(): Promise<void>;
  /** Closes the file; closing twice is harmless. */
  close(): Promise<void>;
}

/** Options of {@linkcode Workspace.writeFile}. */
export interface WriteFileOptions extends FsOptions {
  /** Fail with `EEXIST` instead of replacing an existing file. */
  createNew?: boolean;
  /** Permission bits of a created file, narrowed by the umask. */
  mode?: number;
}

/** Options of {@linkcode Workspace.mkdir}. */
export interface MkdirOptions extends FsOptions {
  /** Create missing parents; an existing directory is then no error. */
  recursive?: boolean;
  /** Permission bits, narrowed by the umask. */
  mode?: number;
}

/** Options of {@linkcode Workspace.remove}. */
export interface RemoveOptions extends FsOptions {
  /** Remove a directory with everything in it. */
  recursive?: boolean;
}

/** Options of {@linkcode Workspace.makeTempDir}. */
export interface TempDirOptions extends FsOptions {
  /** Start of the directory's name. */
  prefix?: string;
}

/** Signals a process can be sent. */
export type ProcessSignal = "SIGTERM" | "SIGKILL" | "SIGINT" | "SIGHUP" | "SIGQUIT";

/** Options of {@linkcode Workspace.spawn}. */
export interface SpawnOptions {
  /** Working directory; start fails when it cannot be entered. */
  cwd: string;
  /** Variables to set, over the inherited environment (or instead of it with `clearEnv`). */
  env?: Readonly<Record<string, string>>;
  /** Start from an empty environment: the program sees `env` only. */
  clearEnv?: boolean;
  /** Kills the process (SIGTERM) when aborted. */
  signal?: AbortSignal;
  /** `null` (default): no input. `piped`: write it through {@linkcode WorkspaceProcess.stdin}. */
  stdin?: "null" | "piped";
  /** `piped` (default) or `null` (discarded; the stream is then empty). */
  stdout?: "piped" | "null";
  /** `piped` (default) or `null` (discarded; the stream is then empty). */
  stderr?: "piped" | "null";
  /**
   * Run the program on a pseudo-terminal (for programs that insist on one). Its output, both
   * streams merged, then comes on `stdout` with terminal line endings. A request: a workspace
   * that cannot allocate one (the local workspace) runs the program without it. Default false;
   * no built-in tool asks for one.
   */
  pty?: boolean;
}

/** How a process ended. */
export interface ProcessStatus {
  /** Exit code 0. */
  success: boolean;
  /** Exit code; 128 + n after signal n, like a shell reports it. */
  code: number;
  /** The signal that ended it, or null. */
  signal: string | null;
}

/** A started program. Read (or cancel) both output streams, or they hold resources. */
export interface WorkspaceProcess {
  /** Process id on the workspace's machine. */
  readonly pid: number;
  /** What the program writes to its standard output. */
  readonly stdout: ReadableStream<Uint8Array<ArrayBuffer>>;
  /** What the program writes to its standard error. */
  readonly stderr: ReadableStream<Uint8Array<ArrayBuffer>>;
  /** Present with `stdin: "piped"`. */
  readonly stdin: WritableStream<Uint8Array> | undefined;
  /** Settles when the process has ended (its output may still be draining). */
  readonly status: Promise<ProcessStatus>;
  /**
   * Sends `signal` (default SIGTERM). With `group`, to the process group the process leads
   * (it must have been started as a group leader, e.g. through `setsid`). Sending to an
   * ended process is harmless.
   */
  kill(signal?: ProcessSignal, opts?: { group?: boolean }): void;
}

/**
 * The file and process operations tools run against: this machine or another one.
 *
 * @example Read a file where the tool's workspace is
 * ```ts
 * import { defineTool } from "@reasonix/reasonix";
 * import { z } from "zod";
 *
 * const lineCount = defineTool({
 *   name: "line_count",
 *   description: "Counts the lines of a file in the workspace.",
 *   input: z.object({ path: z.string() }),
 *   readOnly: true,
 *   access: (args) => ({ reads: [args.path] }),
 *   async run(args, ctx) {
 *     // Through ctx.workspace, not Deno: the workspace may be a sandbox or another machine.
 *     const bytes = await ctx.workspace.readFile(args.path, { signal: ctx.signal });
 *     return { content: String(new TextDecoder().decode(bytes).split("\n").length) };
 *   },
 * });
 * ```
 */
export interface Workspace {
  /** The platform of the workspace's machine. */
  readonly os: WorkspaceOs;
  /**
   * A variable of the environment programs started here inherit (e.g. `PATH`, for the
   * careful program lookup), or undefined.
   */
  getEnv(name: string): string | undefined;

  /** Information about `path`, symlinks followed. */
  stat(path: string, opts?: FsOptions): Promise<FileInfo>;
  /** Information about the entry `path` itself (a symlink is not followed). */
  lstat(path: string, opts?: FsOptions): Promise<FileInfo>;
  /** The canonical absolute path: every symlink followed; rejects when `path` is missing. */
  realPath(path: string, opts?: FsOptions): Promise<string>;
  /** The target a symlink stores, as written. */
  readLink(path: string, opts?: FsOptions): Promise<string>;
  /** The entries of a directory, in no particular order. */
  readDir(path: string, opts?: FsOptions): AsyncIterable<DirEntry>;

  /** The whole content of a file. */
  readFile(path: string, opts?: FsOptions): Promise<Uint8Array>;
  /** Creates or replaces a file with `data` (not atomically; see `tools/fs` for that). */
  writeFile(path: string, data: Uint8Array, opts?: WriteFileOptions): Promise<void>;
  /** Opens a file for streaming reads or writes. */
  open(path: string, opts: OpenOptions): Promise<FileHandle>;

  /** Creates a directory. */
  mkdir(path: string, opts?: MkdirOptions): Promise<void>;
  /** Removes a file, a link or an empty directory (any directory with `recursive`). */
  remove(path: string, opts?: RemoveOptions): Promise<void>;
  /** Renames within one file system; `EXDEV` across file systems. Replaces a file at `to`. */
  rename(from: string, to: string, opts?: FsOptions): Promise<void>;
  /** Creates a symlink at `path` that stores `target` as given. */
  symlink(target: string, path: string, opts?: FsOptions): Promise<void>;
  /** Copies a regular file's content (and permission bits). */
  copyFile(from: string, to: string, opts?: FsOptions): Promise<void>;
  /** Sets permission bits. */
  chmod(path: string, mode: number, opts?: FsOptions): Promise<void>;
  /** Creates a new, private, empty directory in the system's temporary directory. */
  makeTempDir(opts?: TempDirOptions): Promise<string>;

  /**
   * Starts `argv[0]` (an absolute path, or a name the system looks up) with the rest as
   * arguments. Rejects when it cannot start (missing program, `cwd` not enterable).
   */
  spawn(argv: readonly string[], opts: SpawnOptions): Promise<WorkspaceProcess>;
  /**
   * Whether this process may start `program` at all. False, for example, after the
   * read-only preset gave up the right to start programs; callers then pick an in-process
   * path instead of failing.
   */
  canSpawn(program: string): Promise<boolean>;
}
