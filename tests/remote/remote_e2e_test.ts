/**
 * The real CLI (`deno task reasonix run --remote …`) against a real OpenSSH server on
 * 127.0.0.1 and the fake LLM server: the harness task runs on the remote workspace, host keys
 * are checked, and the model sees the same tools as in a local session.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fakeToolCall, startFakeLlm } from "../fake_llm/mod.ts";
import type { FakeStep, RecordedRequest } from "../fake_llm/mod.ts";
import { CONFIG_PATH, makeHome, makeRepo, runReasonix } from "../e2e/support.ts";
import { REMOTE_MARK, type SshdFixture, sshdMissing, startSshd } from "./sshd.ts";

const missing = await sshdMissing();
if (missing) console.warn(`SKIPPED remote e2e tests: ${missing}`);

function toolResults(req: RecordedRequest): string[] {
  const messages = (req.body as { messages: { role: string; content: string }[] }).messages;
  const out: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i].role === "tool"; i--) {
    out.unshift(messages[i].content);
  }
  return out;
}

const MATH = "export function add(a, b) {\n  return a - b;\n}\n";

/** list → read → edit → run → answer. */
const HARNESS: FakeStep[] = [
  { toolCalls: [fakeToolCall("ls", {})] },
  { toolCalls: [fakeToolCall("read_file", { path: "math.js" })] },
  {
    toolCalls: [
      fakeToolCall("edit_file", { path: "math.js", old_string: "a - b", new_string: "a + b" }),
    ],
  },
  { toolCalls: [fakeToolCall("bash", { command: `cat math.js; echo "mark=$${REMOTE_MARK}"` })] },
  { text: "Fixed add()." },
];

/** A local HOME whose ~/.ssh knows the fixture's host key (or not) and holds its user key. */
async function sshHome(sshd: SshdFixture, opts: { knownHost: boolean }): Promise<string> {
  const home = await Deno.makeTempDir({ prefix: "reasonix-ssh-home-" });
  await Deno.mkdir(join(home, ".ssh"), { mode: 0o700 });
  await Deno.copyFile(sshd.identity, join(home, ".ssh", "id_ed25519"));
  await Deno.chmod(join(home, ".ssh", "id_ed25519"), 0o600);
  if (opts.knownHost) await Deno.copyFile(sshd.knownHosts, join(home, ".ssh", "known_hosts"));
  return home;
}

function target(sshd: SshdFixture): string {
  return `${sshd.user}@127.0.0.1:${sshd.port}:${sshd.remoteRoot}`;
}

Deno.test({
  name: "run --remote does the harness task on the remote host and leaves the local cwd alone",
  ignore: missing !== undefined,
  sanitizeResources: false,
  async fn() {
    await using sshd = await startSshd();
    await Deno.writeTextFile(join(sshd.remoteRoot, "math.js"), MATH);
    const local = await makeRepo({ "math.js": MATH });
    const sshHomeDir = await sshHome(sshd, { knownHost: true });
    const remoteFake = await startFakeLlm({ script: HARNESS });
    const localFake = await startFakeLlm({ script: HARNESS });
    const home = await makeHome(remoteFake.url);
    const localHome = await makeHome(localFake.url);
    try {
      const result = await runReasonix(
        ["run", "--json", "--permission-mode", "auto", "--remote", target(sshd), "fix add"],
        { cwd: local, home, env: { HOME: sshHomeDir, SSH_AUTH_SOCK: "" } },
      );
      assert.equal(result.code, 0, result.stderr);
      const summary = JSON.parse(result.stdout);
      assert.equal(summary.status, "completed", result.stdout);
      assert.equal(summary.result, "Fixed add().");
      // The edit landed on the remote side, nothing changed locally.
      assert.equal(
        await Deno.readTextFile(join(sshd.remoteRoot, "math.js")),
        MATH.replace("a - b", "a + b"),
      );
      assert.equal(await Deno.readTextFile(join(local, "math.js")), MATH);
      const reqs = remoteFake.requests;
      assert.equal(reqs.length, 5);
      assert.match(toolResults(reqs[1])[0], /math\.js/);
      assert.match(toolResults(reqs[2])[0], /a - b/);
      // The command ran in an SSH session (sshd's SetEnv) and saw the edit.
      const ran = toolResults(reqs[4])[0];
      assert.match(ran, /a \+ b/);
      assert.match(ran, /mark=ssh/);
      assert.match(result.stderr, /remote workspace ssh:\/\//);

      // The same task locally: the model is offered byte-identical tools.
      const localRun = await runReasonix(
        ["run", "--json", "--permission-mode", "auto", "fix add"],
        { cwd: local, home: localHome },
      );
      assert.equal(localRun.code, 0, localRun.stderr);
      const tools = (r: RecordedRequest) => JSON.stringify((r.body as { tools: unknown }).tools);
      assert.equal(tools(reqs[0]), tools(localFake.requests[0]));
      assert.doesNotMatch(toolResults(localFake.requests[4])[0], /mark=ssh/);
    } finally {
      await remoteFake.close();
      await localFake.close();
      for (const dir of [local, sshHomeDir, home, localHome]) {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    }
  },
});

Deno.test({
  name: "run --remote refuses an unknown host key headless unless --accept-new-host-key",
  ignore: missing !== undefined,
  sanitizeResources: false,
  async fn() {
    await using sshd = await startSshd();
    const local = await makeRepo({});
    const sshHomeDir = await sshHome(sshd, { knownHost: false });
    const fake = await startFakeLlm({ script: [{ text: "done" }, { text: "done" }] });
    const home = await makeHome(fake.url);
    const env = { HOME: sshHomeDir, SSH_AUTH_SOCK: "" };
    try {
      const refused = await runReasonix(["run", "--remote", target(sshd), "hi"], {
        cwd: local,
        home,
        env,
      });
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /host key of \[127\.0\.0\.1\]:\d+ \(ssh-ed25519 SHA256:/);
      assert.match(refused.stderr, /--accept-new-host-key/);
      assert.equal(fake.requests.length, 0);
      // Nothing was written to known_hosts.
      await assert.rejects(Deno.stat(join(sshHomeDir, ".ssh", "known_hosts")));

      const accepted = await runReasonix(
        ["run", "--remote", target(sshd), "--accept-new-host-key", "hi"],
        { cwd: local, home, env },
      );
      assert.equal(accepted.code, 0, accepted.stderr);
      assert.equal(accepted.stdout, "done\n");
      const known = await Deno.readTextFile(join(sshHomeDir, ".ssh", "known_hosts"));
      assert.equal(known, `[127.0.0.1]:${sshd.port} ${sshd.hostKey}\n`);
    } finally {
      await fake.close();
      for (const dir of [local, sshHomeDir, home]) {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    }
  },
});

Deno.test({
  name:
    "run --remote refuses a changed host key, naming the known_hosts line, even with --accept-new-host-key",
  ignore: missing !== undefined,
  sanitizeResources: false,
  async fn() {
    await using sshd = await startSshd();
    const local = await makeRepo({});
    const sshHomeDir = await sshHome(sshd, { knownHost: true });
    const fake = await startFakeLlm({ script: [{ text: "done" }] });
    const home = await makeHome(fake.url);
    try {
      await sshd.rotateHostKey();
      const refused = await runReasonix(
        ["run", "--remote", target(sshd), "--accept-new-host-key", "hi"],
        { cwd: local, home, env: { HOME: sshHomeDir, SSH_AUTH_SOCK: "" } },
      );
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /has CHANGED/);
      assert.ok(
        refused.stderr.includes(`${join(sshHomeDir, ".ssh", "known_hosts")}:1`),
        refused.stderr,
      );
      assert.equal(fake.requests.length, 0);
    } finally {
      await fake.close();
      for (const dir of [local, sshHomeDir, home]) {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    }
  },
});

Deno.test({
  name: "a remote = true MCP server is started on the remote host and reached through a forward",
  ignore: missing !== undefined,
  sanitizeResources: false,
  async fn() {
    await using sshd = await startSshd();
    const local = await makeRepo({});
    const sshHomeDir = await sshHome(sshd, { knownHost: true });
    const fake = await startFakeLlm({
      script: [{ toolCalls: [fakeToolCall("mcp__far__where", {})] }, { text: "found it" }],
    });
    // A port nothing listens on here: only the server started over SSH will.
    const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (probe.addr as Deno.NetAddr).port;
    probe.close();
    const script = new URL("./fixtures/remote_mcp_server.ts", import.meta.url).pathname;
    const home = await makeHome(
      fake.url,
      `
[[mcp.servers]]
name = "far"
remote = true
command = ${JSON.stringify(Deno.execPath())}
args = ["run", "-A", "--config", ${JSON.stringify(CONFIG_PATH)}, ${
        JSON.stringify(script)
      }, "${port}"]
url = "http://127.0.0.1:${port}/mcp"
`,
    );
    try {
      const result = await runReasonix(
        ["run", "--json", "--permission-mode", "auto", "--remote", target(sshd), "where?"],
        {
          cwd: local,
          home,
          env: { HOME: sshHomeDir, SSH_AUTH_SOCK: "", REASONIX_MCP_WAIT_MS: "30000" },
        },
      );
      assert.equal(result.code, 0, result.stderr);
      const summary = JSON.parse(result.stdout);
      assert.equal(summary.status, "completed", result.stdout);
      const tools = (fake.requests[0].body as { tools: { function: { name: string } }[] }).tools
        .map((t) => t.function.name);
      assert.ok(tools.includes("mcp__far__where"), tools.join(", "));
      // It ran in an SSH session, in the remote workspace, and was reached through a forward
      // (the client addressed a local port, not the one the server listens on).
      const where = toolResults(fake.requests[1])[0];
      assert.match(
        where,
        new RegExp(`session=ssh cwd=${sshd.remoteRoot} host=127\\.0\\.0\\.1:\\d+`),
      );
      assert.doesNotMatch(where, new RegExp(`host=127\\.0\\.0\\.1:${port}\\b`));
      // The server is stopped with the session.
      await assert.rejects(Deno.connect({ hostname: "127.0.0.1", port }));
    } finally {
      await fake.close();
      for (const dir of [local, sshHomeDir, home]) {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    }
  },
});
