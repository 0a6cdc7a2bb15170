/**
 * What a sandboxed command may touch, independent of the backend that enforces it.
 *
 * @module
 */

/** A path `forbid_read` hides from sandboxed commands. */
export interface HiddenPath {
  path: string;
  /** Directories are covered with an empty read-only mount, files with `/dev/null`. */
  dir: boolean;
}

/** The boundary of one sandboxed command. All paths are canonical and exist. */
export interface SandboxSpec {
  command: string;
  cwd: string;
  /** Directories (or files) the command may write. Empty: nothing outside a private `/tmp`. */
  writable: readonly string[];
  /**
   * Directories to keep visible read-only even where the private `/tmp` covers them (the
   * workspace in read-only mode).
   */
  visible?: readonly string[];
  hidden: readonly HiddenPath[];
  /**
   * Directories inside writable roots mounted onto themselves: a mount point cannot be
   * renamed or removed (`EBUSY`), so the parents of hidden and read-only paths stay put and
   * what covers those paths keeps covering them.
   */
  pinned?: readonly string[];
  /** Existing paths inside writable roots that stay read-only: the project's control files. */
  readOnly?: readonly string[];
  /**
   * Control paths that are missing or symlinks. Seatbelt denies them by name; bubblewrap has
   * nothing to mount on, so the launcher restores them after the command instead.
   */
  guarded?: readonly string[];
  network: boolean;
  /**
   * Without network: whether the command may still create unix sockets
   * (`[sandbox] allow_unix_sockets`). Default false. With network it always may.
   */
  unixSockets?: boolean;
  /**
   * A session directory to use as `/tmp`, so temporary files last across commands of one
   * session; absent means a fresh, empty `/tmp` per command.
   */
  tmp?: string;
  /** The shell that runs `command` with `-c`. */
  shell: string;
}
