/**
 * Processes of a remote workspace, one SSH exec channel each. A small POSIX `sh` wrapper
 * enters the working directory, checks the program exists (so `spawn` rejects like a local
 * start would), reports the program's pid on the first stdout line and then `exec`s it. The
 * program runs as a background job of the wrapper, so it is not a process-group leader and
 * `setsid` (which the `bash` tool puts in front) starts a new group in place without forking:
 * pid = pgid, and a second exec channel's `kill -- -pgid` stops the whole group.
 *
 * A connection that drops mid-command ends the process's streams with a note saying so: the
 * command's fate on the host is unknown and it is not run again.
 *
 * @module
 */
import { FsError } from "../tools/workspace/errors.ts";
import type {
  ProcessSignal,
  ProcessStatus,
  SpawnOptions,
  WorkspaceProcess,
} from "../tools/workspace/types.ts";
import type { SshConnection } from "./connection.ts";
import type { ClientChannel } from "./ssh2.ts";
import { shellQuote } from "./sftpfs/sftp_fs.ts";

/** Signal numbers on Linux and the BSDs alike for the signals a workspace sends. */
const SIGNALS: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGKILL: 9,
  SIGTERM: 15,
};
const SIGNAL_NAMES = Object.fromEntries(Object.entries(SIGNALS).map(([k, v]) => [v, k]));

/** Variables sshd sets that make bash read ~/.bashrc. */
const SSHD_MARKERS = ["SSH_CLIENT", "SSH2_CLIENT"];

/** Builds the remote command line for `argv` with `opts`. */
export function wrapCommand(argv: readonly string[], opts: SpawnOptions): string {
  // Bash sources ~/.bashrc for a command that sshd started (SSH_CLIENT set, or stdin a
  // socket); a local command never reads it, so a remote one must not either.
  const env = Object.entries(opts.env ?? {})
    .filter(([k]) => !SSHD_MARKERS.includes(k))
    .map(([k, v]) => `${k}=${v}`);
  // Each piece is one quoted word; no remote expansion of anything the caller gave.
  const inner = [
    'command -v -- "$1" >/dev/null 2>&1 || { echo "REASONIX-NOPROG"; exit 127; }',
    'echo "REASONIX-PID $$"',
    'exec "$@"',
  ].join("; ");
  const envPart = [
    opts.clearEnv ? "env -i" : `env ${SSHD_MARKERS.map((k) => `-u ${k}`).join(" ")}`,
    ...env.map(shellQuote),
  ].join(" ");
  // On a pty the terminal is the program's stdin, as `tty` and isatty(0) expect.
  const stdin = opts.stdin === "piped" || opts.pty ? "0<&3 3<&-" : "0</dev/null 3<&-";
  const script = [
    `cd -- ${shellQuote(opts.cwd)} 2>/dev/null || { echo "REASONIX-NOCWD"; exit 126; }`,
    // The program is a background job, stdin kept on fd 3 (non-interactive sh gives a
    // background job /dev/null otherwise); `wait` hands its exit status on.
    `exec 3<&0; ${envPart} /bin/sh -c ${shellQuote(inner)} reasonix-spawn ${
      argv.map(shellQuote).join(" ")
    } ${stdin} & wait "$!"`,
  ].join("\n");
  // Through /bin/sh whatever the login shell is (fish and csh read this line too).
  return `exec /bin/sh -c ${shellQuote(script)}`;
}

function emptyStream(): ReadableStream<Uint8Array<ArrayBuffer>> {
  return new ReadableStream({ start: (c) => c.close() });
}

class Pipe {
  readonly stream: ReadableStream<Uint8Array<ArrayBuffer>>;
  #controller!: ReadableStreamDefaultController<Uint8Array<ArrayBuffer>>;
  #open = true;
  constructor() {
    this.stream = new ReadableStream({
      start: (c) => void (this.#controller = c),
      // A reader that cancelled wants no more: later output is dropped, not an error.
      cancel: () => void (this.#open = false),
    });
  }
  push(data: Uint8Array): void {
    if (this.#open) this.#controller.enqueue(new Uint8Array(data) as Uint8Array<ArrayBuffer>);
  }
  end(): void {
    if (!this.#open) return;
    this.#open = false;
    try {
      this.#controller.close();
    } catch { /* cancelled by the reader */ }
  }
}

/** A process on the remote host. */
class RemoteProcess implements WorkspaceProcess {
  readonly pid: number;
  readonly stdout: ReadableStream<Uint8Array<ArrayBuffer>>;
  readonly stderr: ReadableStream<Uint8Array<ArrayBuffer>>;
  readonly stdin: WritableStream<Uint8Array> | undefined;
  readonly status: Promise<ProcessStatus>;
  readonly #connection: SshConnection;

  constructor(init: {
    pid: number;
    stdout: ReadableStream<Uint8Array<ArrayBuffer>>;
    stderr: ReadableStream<Uint8Array<ArrayBuffer>>;
    stdin: WritableStream<Uint8Array> | undefined;
    status: Promise<ProcessStatus>;
    connection: SshConnection;
  }) {
    this.pid = init.pid;
    this.stdout = init.stdout;
    this.stderr = init.stderr;
    this.stdin = init.stdin;
    this.status = init.status;
    this.#connection = init.connection;
  }

  kill(signal: ProcessSignal = "SIGTERM", opts: { group?: boolean } = {}): void {
    const target = opts.group ? `-${this.pid}` : String(this.pid);
    // A second channel: the wrapper's own channel carries no signals OpenSSH acts on for a job.
    this.#connection.run(`kill -s ${signal.replace(/^SIG/, "")} -- ${target} 2>/dev/null`)
      .catch(() => {});
  }
}

/** The status an exit-status (or exit-signal) message reports. */
function statusOf(exit: { code: number | null; signal?: string }): ProcessStatus {
  const code = exit.code ?? 128 + (SIGNALS[exit.signal ?? ""] ?? 0);
  const signal = exit.signal ?? (code > 128 ? SIGNAL_NAMES[code - 128] ?? null : null);
  return { success: code === 0, code, signal };
}

/** A note for the model when the connection dropped under a running command. */
export function droppedNote(label: string): string {
  return `\n[reasonix: the SSH connection to ${label} dropped while this command ran. Whether ` +
    "it finished on the remote host is unknown; it was not run again. The connection is " +
    "re-established for the next call: check the command's effects before repeating it.]\n";
}

/** Starts `argv` on the remote host over one exec channel. */
export async function spawnRemote(
  connection: SshConnection,
  argv: readonly string[],
  opts: SpawnOptions,
): Promise<WorkspaceProcess> {
  opts.signal?.throwIfAborted();
  if (argv[0] === undefined) throw new TypeError("spawn needs a program");
  const channel: ClientChannel = await connection.exec(
    wrapCommand(argv, opts),
    opts.pty ? { pty: true } : {},
  );
  const stdout = new Pipe();
  const stderr = new Pipe();
  let exit: { code: number | null; signal?: string } | undefined;
  let pidResolve!: (pid: number) => void;
  let pidReject!: (error: Error) => void;
  const pidKnown = new Promise<number>((res, rej) => {
    pidResolve = res;
    pidReject = rej;
  });
  let head = "";
  let started = false;
  channel.on("data", (data: Uint8Array) => {
    if (started) {
      if (opts.stdout !== "null") stdout.push(data);
      return;
    }
    head += Buffer.from(data).toString("latin1");
    const nl = head.indexOf("\n");
    if (nl < 0) return;
    // A pty ends lines with CR LF.
    const line = head.slice(0, nl).replace(/\r$/, "");
    const rest = Buffer.from(head.slice(nl + 1), "latin1");
    started = true;
    if (line === "REASONIX-NOCWD") {
      return pidReject(new FsError("ENOENT", `No such file or directory: chdir '${opts.cwd}'`));
    }
    if (line === "REASONIX-NOPROG") {
      return pidReject(
        new FsError("ENOENT", `No such file or directory: spawn '${argv[0]}' on the remote host`),
      );
    }
    const m = /^REASONIX-PID (\d+)$/.exec(line);
    if (!m) return pidReject(new Error(`unexpected start of remote output: ${line.slice(0, 80)}`));
    pidResolve(Number(m[1]));
    if (rest.length && opts.stdout !== "null") stdout.push(rest);
  });
  channel.stderr.on("data", (data: Uint8Array) => {
    if (opts.stderr !== "null") stderr.push(data);
  });
  const status = new Promise<ProcessStatus>((resolve) => {
    // The exit status settles it even while a background child still holds the output open.
    channel.on("exit", (code: number | null, signal?: string) => {
      exit = { code, signal: signal ? `SIG${signal}` : undefined };
      resolve(statusOf(exit));
    });
    channel.on("close", () => {
      if (!started) {
        pidReject(
          new Error(
            exit
              ? `the remote command did not start on ${connection.label}`
              : droppedNote(connection.label).trim(),
          ),
        );
      }
      if (!exit) {
        // No exit status: the connection went away under the command.
        stderr.push(new TextEncoder().encode(droppedNote(connection.label)));
        stdout.end();
        stderr.end();
        return resolve({ success: false, code: 255, signal: null });
      }
      stdout.end();
      stderr.end();
    });
  });
  let pid: number;
  try {
    pid = await pidKnown;
  } catch (error) {
    channel.close();
    throw error;
  }
  const stdin = opts.stdin === "piped"
    ? new WritableStream<Uint8Array>({
      write: (chunk) =>
        new Promise<void>((resolve) => {
          if (channel.write(Buffer.from(chunk))) resolve();
          else channel.once("drain", () => resolve());
        }),
      close: () => void channel.end(),
    })
    : undefined;
  if (opts.stdin !== "piped") channel.end();
  const process = new RemoteProcess({
    pid,
    stdout: opts.stdout === "null" ? emptyStream() : stdout.stream,
    stderr: opts.stderr === "null" ? emptyStream() : stderr.stream,
    stdin,
    status,
    connection,
  });
  opts.signal?.addEventListener("abort", () => process.kill("SIGTERM"), { once: true });
  return process;
}
