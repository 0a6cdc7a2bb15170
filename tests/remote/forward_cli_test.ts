/**
 * `--forward <remote-port>[:<local-port>]`: a dev server listening on the remote host's
 * 127.0.0.1 (started there over SSH) is reached on this machine through the URL the real CLI
 * prints, for as long as the session runs.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeLlm } from "../fake_llm/mod.ts";
import { cliEnv, makeHome, makeRepo, REASONIX_TASK, runReasonix } from "../e2e/support.ts";
import { type SshdFixture, sshdMissing, startSshd } from "./sshd.ts";
import { openOnFixture } from "./support.ts";

const missing = await sshdMissing();
if (missing) console.warn(`SKIPPED remote forward tests: ${missing}`);

async function sshHome(sshd: SshdFixture): Promise<string> {
  const home = await Deno.makeTempDir({ prefix: "reasonix-ssh-home-" });
  await Deno.mkdir(join(home, ".ssh"), { mode: 0o700 });
  await Deno.copyFile(sshd.identity, join(home, ".ssh", "id_ed25519"));
  await Deno.chmod(join(home, ".ssh", "id_ed25519"), 0o600);
  await Deno.copyFile(sshd.knownHosts, join(home, ".ssh", "known_hosts"));
  return home;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Reads `stream` until a line matches `pattern`; the match, and everything read so far. */
async function untilLine(
  reader: ReadableStreamDefaultReader<string>,
  pattern: RegExp,
): Promise<{ match: RegExpExecArray | null; text: string }> {
  let text = "";
  while (true) {
    const m = pattern.exec(text);
    if (m) return { match: m, text };
    const { value, done } = await reader.read();
    if (done) return { match: null, text };
    text += value;
  }
}

Deno.test({
  name: "run --remote --forward prints a local URL that reaches a server on the remote host",
  ignore: missing !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using sshd = await startSshd();
    // The dev server: a process started on the remote host over SSH, on its 127.0.0.1.
    await using remote = await openOnFixture(sshd);
    const port = freePort();
    const server = await remote.workspace.spawn([
      Deno.execPath(),
      "eval",
      `Deno.serve({ hostname: "127.0.0.1", port: ${port}, onListen() { console.log("up") } }, ` +
      `() => new Response("REMOTE_DEV_SERVER " + Deno.env.get("REASONIX_TEST_SSH_SESSION")))`,
    ], { cwd: remote.root });
    const serverOut = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
    server.stderr.cancel();
    assert.ok((await untilLine(serverOut, /up/)).match, "the remote server did not start");

    const local = await makeRepo({});
    const sshHomeDir = await sshHome(sshd);
    // The model keeps the session open for a moment with a command on the remote host.
    const fake = await startFakeLlm({
      script: [
        { toolCalls: [{ name: "bash", arguments: JSON.stringify({ command: "sleep 6" }) }] },
        { text: "done" },
      ],
    });
    const home = await makeHome(fake.url);
    const target = `${sshd.user}@127.0.0.1:${sshd.port}:${sshd.remoteRoot}`;
    const [program, ...taskArgs] = REASONIX_TASK;
    const child = new Deno.Command(program, {
      args: [
        ...taskArgs,
        ...["run", "--json", "--permission-mode", "yolo", "--remote", target],
        ...["--forward", String(port), "wait"],
      ],
      cwd: local,
      clearEnv: true,
      env: cliEnv(home, { HOME: sshHomeDir, SSH_AUTH_SOCK: "" }),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stdout = new Response(child.stdout).text();
    const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    try {
      const seen = await untilLine(
        stderr,
        /forwarding (http:\/\/127\.0\.0\.1:(\d+)\/) -> 127\.0\.0\.1:(\d+) on the remote host/,
      );
      assert.ok(seen.match, seen.text);
      const [, url, localPort, remotePort] = seen.match;
      assert.equal(Number(remotePort), port);
      assert.notEqual(Number(localPort), port);
      const response = await fetch(url);
      assert.equal(await response.text(), "REMOTE_DEV_SERVER ssh");
      let rest = "";
      (async () => {
        for (let r = await stderr.read(); !r.done; r = await stderr.read()) rest += r.value;
      })();
      const status = await child.status;
      assert.equal(status.code, 0, seen.text + rest);
      assert.equal(JSON.parse(await stdout).status, "completed");
    } finally {
      try {
        child.kill("SIGKILL");
      } catch { /* ended */ }
      server.kill("SIGTERM");
      await server.status;
      await serverOut.cancel().catch(() => {});
      await fake.close();
      for (const dir of [local, sshHomeDir, home]) {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    }
  },
});

Deno.test({
  name: "--forward needs --remote and a port",
  async fn() {
    const local = await makeRepo({});
    const home = await makeHome("http://127.0.0.1:9");
    try {
      const alone = await runReasonix(["run", "--forward", "8080", "hi"], { cwd: local, home });
      assert.equal(alone.code, 2, alone.stderr);
      assert.match(alone.stderr, /--forward needs --remote/);
      // The interactive session checks it before it looks for a terminal.
      const interactive = await runReasonix(["--forward", "8080"], { cwd: local, home });
      assert.equal(interactive.code, 2, interactive.stderr);
      assert.match(interactive.stderr, /--forward needs --remote/);
      const bad = await runReasonix(
        ["run", "--remote", "u@h:/x", "--forward", "70000", "hi"],
        { cwd: local, home },
      );
      assert.equal(bad.code, 2, bad.stderr);
      assert.match(bad.stderr, /--forward 70000: expected <remote-port>\[:<local-port>\]/);
    } finally {
      await Deno.remove(local, { recursive: true });
      await Deno.remove(home, { recursive: true });
    }
  },
});
