/**
 * The interactive program with `--remote` in a tmux terminal: an unknown host key is shown with
 * its fingerprint and asked about before the session starts; accepted, it is recorded and the
 * session's tools run on the remote workspace, and a `--forward`ed port of the remote host answers
 * here while the session runs.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeLlm } from "../fake_llm/mod.ts";
import type { RecordedRequest } from "../fake_llm/mod.ts";
import { makeHome, makeRepo, REASONIX_TASK } from "../e2e/support.ts";
import { TmuxSession } from "../e2e/tmux.ts";
import { sshdMissing, startSshd } from "./sshd.ts";

const missing = await sshdMissing();
const noTmux = !(await TmuxSession.available());
if (missing) console.warn(`SKIPPED interactive remote test: ${missing}`);

Deno.test({
  name: "interactive --remote asks about an unknown host key, then works on the remote host",
  ignore: missing !== undefined || noTmux,
  sanitizeResources: false,
  async fn() {
    await using sshd = await startSshd();
    await Deno.writeTextFile(join(sshd.remoteRoot, "far.txt"), "on the far side\n");
    const fake = await startFakeLlm({
      script: (req: RecordedRequest) => {
        const messages = (req.body as { messages: { role: string }[] }).messages;
        return messages.at(-1)!.role === "tool"
          ? { text: "Listed the remote files." }
          : { toolCalls: [{ name: "ls", arguments: "{}" }] };
      },
    });
    const local = await makeRepo({ "near.txt": "here\n" });
    const home = await makeHome(fake.url);
    // A server on the remote host's 127.0.0.1 (the fixture's host is this one).
    const devServer = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () => new Response("REMOTE_DEV_SERVER"),
    );
    const free = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const localPort = (free.addr as Deno.NetAddr).port;
    free.close();
    const sshHome = await Deno.makeTempDir({ prefix: "reasonix-ssh-home-" });
    await Deno.mkdir(join(sshHome, ".ssh"), { mode: 0o700 });
    await Deno.copyFile(sshd.identity, join(sshHome, ".ssh", "id_ed25519"));
    const env: Record<string, string> = {
      HOME: sshHome,
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      TERM: "xterm-256color",
      LANG: "C.UTF-8",
      REASONIX_HOME: home,
      REASONIX_E2E_KEY: "sk-e2e-test",
      DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/root", ".cache/deno"),
    };
    const argv = [
      "env",
      "-i",
      ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
      ...REASONIX_TASK,
      "--remote",
      `${sshd.user}@127.0.0.1:${sshd.port}:${sshd.remoteRoot}`,
      "--forward",
      `${devServer.addr.port}:${localPort}`,
    ];
    const fingerprint = new TextDecoder().decode(
      (await new Deno.Command("ssh-keygen", {
        args: ["-lf", join(sshd.dir, "host_ed25519.pub")],
        stdout: "piped",
      }).output()).stdout,
    ).split(" ")[1];
    const tmux = await TmuxSession.start(argv, { cwd: local, width: 110, height: 40 });
    try {
      const screen = await tmux.waitFor("Trust it and add it to known_hosts?", 90_000);
      assert.match(
        screen,
        new RegExp(`host \\[127\\.0\\.0\\.1\\]:${sshd.port} can't be established`),
      );
      assert.ok(screen.includes(`ssh-ed25519 key fingerprint is ${fingerprint}`), screen);
      await tmux.type("yes");
      await tmux.keys("Enter");
      await tmux.waitFor("Ask anything", 90_000);
      const forwarded = await fetch(`http://127.0.0.1:${localPort}/`);
      assert.equal(await forwarded.text(), "REMOTE_DEV_SERVER");
      await tmux.type("list the files");
      await tmux.keys("Enter");
      await tmux.waitFor("Listed the remote files.", 60_000);
      const listing = (fake.requests[1].body as { messages: { role: string; content: string }[] })
        .messages.at(-1)!.content;
      assert.match(listing, /far\.txt/);
      assert.doesNotMatch(listing, /near\.txt/);
      assert.equal(
        await Deno.readTextFile(join(sshHome, ".ssh", "known_hosts")),
        `[127.0.0.1]:${sshd.port} ${sshd.hostKey}\n`,
      );
      await tmux.keys("C-c");
      await tmux.keys("C-c");
    } finally {
      await tmux.kill();
      await fake.close();
      await devServer.shutdown();
      for (const dir of [local, home, sshHome]) {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    }
  },
});
