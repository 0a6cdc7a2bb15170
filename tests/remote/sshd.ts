/**
 * A real OpenSSH server for the remote-workspace tests: host and user keys generated per run
 * into a temp dir, `sshd -D` on a free 127.0.0.1 port as the current user, and a separate
 * directory that plays the remote machine's repository. Nothing here is a fake: the tests talk
 * to Debian's `openssh-server` over TCP.
 *
 * @module
 */
import { join } from "node:path";

/** Where sshd lives (Debian `openssh-server`). */
export const SSHD = "/usr/sbin/sshd";

/** A variable sshd sets in every session it starts (`SetEnv`). */
export const REMOTE_MARK = "REASONIX_TEST_SSH_SESSION";

/** Whether this machine can run the fixture; the reason when it cannot. */
export async function sshdMissing(): Promise<string | undefined> {
  for (const program of [SSHD, "/usr/bin/ssh-keygen"]) {
    try {
      await Deno.stat(program);
    } catch {
      return `${program} is not installed (Debian: apt install openssh-server openssh-client)`;
    }
  }
  return undefined;
}

/** A running sshd. */
export interface SshdFixture extends AsyncDisposable {
  /** Temp dir holding keys, config, known_hosts and the remote root. */
  dir: string;
  port: number;
  user: string;
  /** The private key the user logs in with (no passphrase). */
  identity: string;
  /** A known_hosts file that lists this server's host key. */
  knownHosts: string;
  /** The OpenSSH public host key line (`ssh-ed25519 AAAA…`). */
  hostKey: string;
  /** The directory that plays the remote repository (the path the client names). */
  remoteRoot: string;
  /**
   * Where the remote repository's files really are on this machine: `remoteRoot` itself, or
   * with `privateRoot` another directory that only the server's mount namespace shows at
   * `remoteRoot`.
   */
  remoteStore: string;
  /** Pids of the per-connection sshd children (to drop a connection). */
  sessionPids(): Promise<number[]>;
  /** Replaces the host key (a "changed host key") and restarts the server on the same port. */
  rotateHostKey(): Promise<void>;
  close(): Promise<void>;
}

async function run(program: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(program, { args, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) {
    throw new Error(`${program} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

async function waitForPort(port: number, child: Deno.ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  let exited = false;
  child.status.then(() => exited = true);
  while (Date.now() < deadline) {
    if (exited) throw new Error("sshd exited at start-up");
    try {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      conn.close();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`sshd did not listen on ${port}`);
}

/** Options of {@linkcode startSshd}. */
export interface SshdOptions {
  /**
   * Runs the server in a mount namespace of its own where `remoteStore` is bind-mounted over
   * `remoteRoot`: the remote host then sees other files at `remoteRoot` than this machine
   * does, so a test can tell a read over SSH from a local read of the same path.
   */
  privateRoot?: boolean;
}

/** Starts sshd; dispose it to stop the server and remove every file it made. */
export async function startSshd(opts: SshdOptions = {}): Promise<SshdFixture> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-sshd-" }));
  const user = (await run("id", ["-un"])).trim();
  const hostKeyFile = join(dir, "host_ed25519");
  const identity = join(dir, "id_ed25519");
  await run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", hostKeyFile]);
  await run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", identity]);
  await Deno.copyFile(`${identity}.pub`, join(dir, "authorized_keys"));
  // sshd started as root insists on its privilege-separation directory (the package's unit
  // creates it at boot; a container may not have booted that way).
  if (user === "root") await Deno.mkdir("/run/sshd", { recursive: true, mode: 0o755 });
  const remoteRoot = join(dir, "remote-root");
  await Deno.mkdir(remoteRoot);
  const remoteStore = opts.privateRoot ? join(dir, "remote-store") : remoteRoot;
  if (opts.privateRoot) await Deno.mkdir(remoteStore);
  const port = freePort();
  const config = join(dir, "sshd_config");
  const pidFile = join(dir, "sshd.pid");
  await Deno.writeTextFile(
    config,
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${hostKeyFile}`,
      `PidFile ${pidFile}`,
      `AuthorizedKeysFile ${join(dir, "authorized_keys")}`,
      "PermitRootLogin yes",
      "StrictModes no",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "UsePAM no",
      "AllowTcpForwarding yes",
      "Subsystem sftp internal-sftp",
      // Only a session on the server has it: proof that a command ran over SSH.
      `SetEnv ${REMOTE_MARK}=ssh`,
      "LogLevel ERROR",
      "",
    ].join("\n"),
  );
  let child: Deno.ChildProcess;
  const start = async () => {
    const sshd = [SSHD, "-D", "-e", "-f", config];
    // unshare and sh exec sshd in place, so the child's pid is the listener's.
    const argv = opts.privateRoot
      ? [
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "sh",
        "-c",
        'mount --bind "$0" "$1" && shift && exec "$@"',
        remoteStore,
        remoteRoot,
        ...sshd,
      ]
      : sshd;
    child = new Deno.Command(argv[0], {
      args: argv.slice(1),
      stdout: "null",
      stderr: "piped",
    }).spawn();
    let log = "";
    // Drained so sshd never blocks on a full pipe; kept for a start-up failure's message.
    child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
      new WritableStream({ write: (text) => void (log = (log + text).slice(-4000)) }),
    ).catch(() => {});
    try {
      await waitForPort(port, child);
    } catch (error) {
      await new Promise((r) => setTimeout(r, 100));
      throw new Error(`${(error as Error).message}: ${log}`);
    }
  };
  await start();
  let hostKey = "";
  const knownHosts = join(dir, "known_hosts");
  const writeKnown = async () => {
    hostKey = (await Deno.readTextFile(`${hostKeyFile}.pub`)).trim().split(" ").slice(0, 2)
      .join(" ");
    await Deno.writeTextFile(knownHosts, `[127.0.0.1]:${port} ${hostKey}\n`);
  };
  await writeKnown();
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* gone */ }
    await child.status;
  };
  const fixture: SshdFixture = {
    dir,
    port,
    user,
    identity,
    knownHosts,
    get hostKey() {
      return hostKey;
    },
    remoteRoot,
    remoteStore,
    async sessionPids() {
      // Children of the listener are the per-connection processes.
      const out = await new Deno.Command("pgrep", { args: ["-P", String(child.pid)] }).output();
      return new TextDecoder().decode(out.stdout).split("\n").filter(Boolean).map(Number);
    },
    async rotateHostKey() {
      await stop();
      await Deno.remove(hostKeyFile);
      await Deno.remove(`${hostKeyFile}.pub`);
      await run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", hostKeyFile]);
      await start();
    },
    async close() {
      for (const pid of await fixture.sessionPids()) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch { /* gone */ }
      }
      await stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
    [Symbol.asyncDispose]() {
      return fixture.close();
    },
  };
  return fixture;
}
