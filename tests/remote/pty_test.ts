/**
 * `SpawnOptions.pty`: a remote process asked to run on a pseudo-terminal gets one (its stdin
 * is a terminal), and one not asked keeps running without.
 */
import assert from "node:assert/strict";
import { sshdMissing, startSshd } from "./sshd.ts";
import { openOnFixture } from "./support.ts";

const missing = await sshdMissing();
if (missing) console.warn(`SKIPPED remote pty tests: ${missing}`);

Deno.test({
  name: "a remote process spawned with pty runs on a terminal, one without does not",
  ignore: missing !== undefined,
  async fn() {
    await using sshd = await startSshd();
    await using remote = await openOnFixture(sshd);
    const ws = remote.workspace;
    const run = async (pty: boolean) => {
      const p = await ws.spawn(["sh", "-c", "tty; echo code=$?; [ -t 1 ] && echo out-is-tty"], {
        cwd: remote.root,
        pty,
      });
      const [out, status] = await Promise.all([
        new Response(p.stdout).text(),
        p.status,
        new Response(p.stderr).text(),
      ]);
      return { out, status, pid: p.pid };
    };
    const onPty = await run(true);
    assert.equal(onPty.status.code, 0);
    assert.ok(onPty.pid > 0);
    assert.match(onPty.out, /^\/dev\/pts\/\d+\r\ncode=0\r\nout-is-tty\r\n$/);
    const plain = await run(false);
    assert.equal(plain.out, "not a tty\ncode=1\n");
  },
});
