/**
 * Agent sessions on a remote workspace, in process: a host opened with the SSH workspace of a
 * real sshd on 127.0.0.1 and the fake LLM server. Cancelling a long command kills its whole
 * process group on the remote host; a connection dropped mid-command is reported to the model
 * and the session goes on over a new connection; a symlink leading out of the workspace is
 * refused.
 */
import "../../builtins.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { openHost } from "../../core/host/open.ts";
import type { HostWorkspace } from "../../core/host/open.ts";
import { fakeToolCall, startFakeLlm } from "../fake_llm/mod.ts";
import type { FakeStep, RecordedRequest } from "../fake_llm/mod.ts";
import { type SshdFixture, sshdMissing, startSshd } from "./sshd.ts";
import { openOnFixture } from "./support.ts";
import type { OpenedRemote } from "../../remote/mod.ts";

const missing = await sshdMissing();
if (missing) console.warn(`SKIPPED remote session tests: ${missing}`);

function toolResults(req: RecordedRequest): string[] {
  const messages = (req.body as { messages: { role: string; content: string }[] }).messages;
  const out: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i].role === "tool"; i--) {
    out.unshift(messages[i].content);
  }
  return out;
}

function hostWorkspace(remote: OpenedRemote): HostWorkspace {
  return {
    workspace: remote.workspace,
    root: remote.root,
    env: remote.probe.env,
    platform: `${remote.probe.os} ${remote.probe.arch}`,
    key: remote.url,
    close: () => remote.close(),
  };
}

async function pgrep(pattern: string): Promise<number[]> {
  const out = await new Deno.Command("pgrep", { args: ["-f", pattern] }).output();
  return new TextDecoder().decode(out.stdout).split("\n").filter(Boolean).map(Number);
}

async function until(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function withSession(
  script: FakeStep[],
  fn: (ctx: {
    sshd: SshdFixture;
    remote: OpenedRemote;
    run: (signal?: AbortSignal, onTool?: (name: string) => void) => Promise<string>;
    requests: () => RecordedRequest[];
    /** Calls of each remote workspace method while the host opened. */
    atOpen: Record<string, number>;
  }) => Promise<void>,
  opts: { mode?: string; config?: (sshd: SshdFixture) => string } = {},
): Promise<void> {
  await using sshd = await startSshd();
  const remote = await openOnFixture(sshd, { reconnectAttempts: 5 });
  const fake = await startFakeLlm({ script });
  const local = await Deno.makeTempDir({ prefix: "reasonix-remote-local-" });
  // Counts what opening the host asks of the remote side (a real workspace, only observed).
  const atOpen: Record<string, number> = {};
  let opening = true;
  const observed = new Proxy(remote.workspace, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (opening) atOpen[String(prop)] = (atOpen[String(prop)] ?? 0) + 1;
        return value.apply(target, args);
      };
    },
  });
  try {
    await using host = await openHost({
      cwd: local,
      env: { REASONIX_HOME: local, FAKE_KEY: "sk-test", HOME: local },
      endpoint: { baseUrl: fake.url, model: "m", apiKeyEnv: "FAKE_KEY" },
      flags: { permissionMode: opts.mode ?? "yolo" },
      ...(opts.config ? { config: opts.config(sshd) } : {}),
      workspace: { ...hostWorkspace(remote), workspace: observed },
    });
    opening = false;
    await using agent = await host.createAgent({ transcript: "ephemeral" });
    await fn({
      sshd,
      remote,
      atOpen,
      requests: () => fake.requests,
      run: async (signal, onTool) => {
        let status = "";
        for await (
          const event of agent.run({ text: "go" }, {
            signal: signal ?? AbortSignal.timeout(60_000),
          })
        ) {
          if (event.type === "tool_start") onTool?.(event.call.name);
          if (event.type === "done") status = event.status;
        }
        return status;
      },
    });
  } finally {
    await fake.close();
    await remote.close();
    await Deno.remove(local, { recursive: true }).catch(() => {});
  }
}

Deno.test({
  name: "cancelling a long remote command kills its whole process group on the remote host",
  ignore: missing !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // A background child and a foreground one: both belong to the command's group. Their
    // odd durations find them (`^sleep` skips the shells whose command lines quote them).
    const command = "sleep 300.31 & sleep 301.31; wait";
    const marker = "^sleep 30[01]\\.31$";
    await withSession(
      [{ toolCalls: [fakeToolCall("bash", { command })] }, { text: "stopped" }],
      async ({ run }) => {
        const controller = new AbortController();
        const running = run(controller.signal);
        await until(async () => (await pgrep(marker)).length >= 2);
        controller.abort();
        const status = await running;
        assert.equal(status, "cancelled");
        await until(async () => (await pgrep(marker)).length === 0, 10_000);
      },
      { mode: "yolo" },
    );
  },
});

Deno.test({
  name: "a connection dropped mid-command is reported to the model and the session goes on",
  ignore: missing !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const marker = "^sleep 29\\.71$";
    await withSession(
      [
        { toolCalls: [fakeToolCall("bash", { command: "sleep 29.71" })] },
        { toolCalls: [fakeToolCall("read_file", { path: "after.txt" })] },
        { text: "carried on" },
      ],
      async ({ sshd, remote, run, requests }) => {
        await Deno.writeTextFile(join(remote.root, "after.txt"), "still here\n");
        const before = remote.workspace.connection.generation;
        const running = run();
        await until(async () => (await pgrep(marker)).length > 0);
        for (const pid of await sshd.sessionPids()) Deno.kill(pid, "SIGKILL");
        // Bounded: a command whose fate is never reported would hang the session.
        let timer: ReturnType<typeof setTimeout> | undefined;
        const outcome = await Promise.race([
          running,
          new Promise<string>((resolve) => timer = setTimeout(() => resolve("hung"), 30_000)),
        ]);
        clearTimeout(timer);
        assert.equal(outcome, "completed");
        const reqs = requests();
        assert.equal(reqs.length, 3);
        const dropped = toolResults(reqs[1])[0];
        assert.match(dropped, /SSH connection to .* dropped while this command ran/);
        assert.match(dropped, /it was not run again/);
        assert.match(toolResults(reqs[2])[0], /still here/);
        assert.ok(remote.workspace.connection.generation > before, "a new connection");
      },
    );
  },
});

Deno.test({
  name: "a remote symlink that leads out of the workspace is refused",
  ignore: missing !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withSession(
      [
        { toolCalls: [fakeToolCall("read_file", { path: "escape/secret.txt" })] },
        { toolCalls: [fakeToolCall("write_file", { path: "away/planted.txt", content: "x" })] },
        { text: "ok" },
      ],
      async ({ sshd, remote, run, requests, atOpen }) => {
        // The roots were resolved on the remote side, symlink by symlink.
        assert.ok((atOpen.lstat ?? 0) > 0, JSON.stringify(atOpen));
        const outside = join(sshd.dir, "outside");
        await Deno.mkdir(outside);
        await Deno.writeTextFile(join(outside, "secret.txt"), "top secret\n");
        await remote.workspace.symlink(outside, join(remote.root, "escape"));
        // Only writable, not forbidden to read: refused by write confinement alone.
        const elsewhere = join(sshd.dir, "elsewhere");
        await Deno.mkdir(elsewhere);
        await remote.workspace.symlink(elsewhere, join(remote.root, "away"));
        assert.equal(await run(), "completed");
        const reqs = requests();
        const read = toolResults(reqs[1])[0];
        assert.doesNotMatch(read, /top secret/);
        assert.match(read, /outside\/secret\.txt, and .*outside is in \[sandbox\]\.forbid_read/);
        const wrote = toolResults(reqs[2])[0];
        assert.ok(wrote.includes(join(elsewhere, "planted.txt")), wrote);
        assert.doesNotMatch(wrote, /forbid_read/);
        assert.match(wrote, /outside|not allowed|denied|refused|approv/i);
        assert.match(wrote, /would write outside the writable roots/);
        await assert.rejects(Deno.stat(join(elsewhere, "planted.txt")));
      },
      {
        mode: "accept-edits",
        config: (sshd) =>
          `[sandbox]\nforbid_read = [${JSON.stringify(join(sshd.dir, "outside"))}]\n`,
      },
    );
  },
});

Deno.test({
  name: "a mode that needs a sandbox is refused when the remote host has no bubblewrap",
  ignore: missing !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using sshd = await startSshd();
    await using remote = await openOnFixture(sshd);
    // A login PATH on the remote host that has bash and setsid but no bwrap.
    const bin = join(sshd.dir, "bin-without-bwrap");
    await Deno.mkdir(bin);
    for (const p of ["bash", "setsid", "sh"]) {
      await Deno.symlink(remote.probe.programs[p as "bash"] ?? `/bin/${p}`, join(bin, p));
    }
    const local = await Deno.makeTempDir({ prefix: "reasonix-remote-local-" });
    try {
      const workspace = {
        ...hostWorkspace(remote),
        env: { ...remote.probe.env, PATH: bin },
      };
      const error = await openHost({
        cwd: local,
        env: { REASONIX_HOME: local, FAKE_KEY: "sk-test", HOME: local },
        endpoint: { baseUrl: "http://127.0.0.1:9/v1", model: "m", apiKeyEnv: "FAKE_KEY" },
        flags: { permissionMode: "auto" },
        workspace,
      }).then(() => undefined, (e) => e as Error);
      assert.ok(error, "the host must not open");
      assert.match(error.message, /on the remote host \(ssh:\/\//);
      assert.match(
        error.message,
        /bubblewrap \(bwrap\) is not installed: install the bubblewrap package/,
      );
      assert.match(error.message, /apt install bubblewrap/);
      // Nothing stays open when the host cannot open.
      assert.equal(remote.workspace.connection.connected, false);
      // With bwrap on the remote PATH the same mode opens (its sandbox works there).
      await using fresh = await openOnFixture(sshd);
      await using host = await openHost({
        cwd: local,
        env: { REASONIX_HOME: local, FAKE_KEY: "sk-test", HOME: local },
        endpoint: { baseUrl: "http://127.0.0.1:9/v1", model: "m", apiKeyEnv: "FAKE_KEY" },
        flags: { permissionMode: "auto" },
        workspace: hostWorkspace(fresh),
      });
      assert.equal(host.workspaceRoot, fresh.root);
    } finally {
      await Deno.remove(local, { recursive: true }).catch(() => {});
    }
  },
});
