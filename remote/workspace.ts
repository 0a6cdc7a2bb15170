/**
 * {@linkcode RemoteWorkspace}: the {@linkcode Workspace} of another machine, files over SFTP and
 * processes over exec channels of one kept-alive SSH connection. The tools, the confinement
 * checks and the sandbox launcher run against it exactly as against the local one.
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
  RemoveOptions,
  SpawnOptions,
  TempDirOptions,
  Workspace,
  WorkspaceOs,
  WorkspaceProcess,
  WriteFileOptions,
} from "../tools/workspace/types.ts";
import type { SshConnection } from "./connection.ts";
import { spawnRemote } from "./exec.ts";
import { SftpFs } from "./sftpfs/sftp_fs.ts";

/** What the workspace knows of its host from the start-up probe. */
export interface RemoteHostFacts {
  os: WorkspaceOs;
  /** The environment a login on the host gets (PATH, HOME, TMPDIR, …). */
  env: Readonly<Record<string, string>>;
}

/** The workspace of a remote host. */
export class RemoteWorkspace implements Workspace {
  readonly #connection: SshConnection;
  readonly #fs: SftpFs;
  readonly #facts: RemoteHostFacts;

  /** A workspace over `connection`, with the host's probed `facts`. */
  constructor(connection: SshConnection, facts: RemoteHostFacts) {
    this.#connection = connection;
    this.#facts = facts;
    this.#fs = new SftpFs({
      sftp: () => connection.sftp(),
      run: (command, opts) => connection.run(command, opts),
    });
  }

  /** The connection (for forwards and the UI's status line). */
  get connection(): SshConnection {
    return this.#connection;
  }

  get os(): WorkspaceOs {
    return this.#facts.os;
  }

  getEnv(name: string): string | undefined {
    return this.#facts.env[name];
  }

  stat(path: string, opts?: FsOptions): Promise<FileInfo> {
    return this.#fs.stat(path, opts);
  }
  lstat(path: string, opts?: FsOptions): Promise<FileInfo> {
    return this.#fs.lstat(path, opts);
  }
  realPath(path: string, opts?: FsOptions): Promise<string> {
    return this.#fs.realPath(path, opts);
  }
  readLink(path: string, opts?: FsOptions): Promise<string> {
    return this.#fs.readLink(path, opts);
  }
  readDir(path: string, opts?: FsOptions): AsyncIterable<DirEntry> {
    return this.#fs.readDir(path, opts);
  }
  readFile(path: string, opts?: FsOptions): Promise<Uint8Array> {
    return this.#fs.readFile(path, opts);
  }
  writeFile(path: string, data: Uint8Array, opts?: WriteFileOptions): Promise<void> {
    return this.#fs.writeFile(path, data, opts);
  }
  open(path: string, opts: OpenOptions): Promise<FileHandle> {
    return this.#fs.open(path, opts);
  }
  mkdir(path: string, opts?: MkdirOptions): Promise<void> {
    return this.#fs.mkdir(path, opts);
  }
  remove(path: string, opts?: RemoveOptions): Promise<void> {
    return this.#fs.remove(path, opts);
  }
  rename(from: string, to: string, opts?: FsOptions): Promise<void> {
    return this.#fs.rename(from, to, opts);
  }
  symlink(target: string, path: string, opts?: FsOptions): Promise<void> {
    return this.#fs.symlink(target, path, opts);
  }
  copyFile(from: string, to: string, opts?: FsOptions): Promise<void> {
    return this.#fs.copyFile(from, to, opts);
  }
  chmod(path: string, mode: number, opts?: FsOptions): Promise<void> {
    return this.#fs.chmod(path, mode, opts);
  }
  makeTempDir(opts?: TempDirOptions): Promise<string> {
    return this.#fs.makeTempDir(this.#facts.env.TMPDIR || "/tmp", opts);
  }
  spawn(argv: readonly string[], opts: SpawnOptions): Promise<WorkspaceProcess> {
    return spawnRemote(this.#connection, argv, opts);
  }
  canSpawn(_program: string): Promise<boolean> {
    // Deno's run permission guards local programs; remote ones start over the channel.
    return Promise.resolve(true);
  }

  /** Ends the connection. */
  close(): Promise<void> {
    return this.#connection.close();
  }
}
