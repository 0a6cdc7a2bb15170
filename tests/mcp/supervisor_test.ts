/**
 * The supervisor against real MCP sessions (the SDK-based fixture server over stdio and
 * Streamable HTTP): crashes, expiry, cancellation, progress, serial gating, pagination,
 * roots and generations.
 */
import assert from "node:assert/strict";
import { McpHost } from "../../plugins/mcp/mod.ts";
import type { McpServerSpec } from "../../plugins/mcp/mod.ts";
import { startHttpFixture } from "./fixtures/http_server.ts";
import { entryOf, fixtureArgs, httpSpec, stdioSpec } from "./servers.ts";

const CLIENT = { name: "reasonix-test", version: "0.0.0" };

async function withHost(
  specs: McpServerSpec[],
  fn: (host: McpHost, stateDir: string) => Promise<void>,
  opts: { workspaceRoot?: string; callTimeoutMs?: number } = {},
): Promise<void> {
  const stateDir = await Deno.makeTempDir({ prefix: "reasonix-mcp-state-" });
  const host = new McpHost({
    entries: specs.map(entryOf),
    clientInfo: CLIENT,
    workspaceRoot: opts.workspaceRoot,
    callTimeoutMs: opts.callTimeoutMs ?? 30_000,
    stateDir,
  });
  try {
    host.start();
    await host.waitForStartup({ timeoutMs: 30_000 });
    await fn(host, stateDir);
  } finally {
    await host.close();
    await Deno.remove(stateDir, { recursive: true });
  }
}

function text(result: { content: { type: string; text?: string }[] }): string {
  return result.content.map((c) => c.text ?? "").join("");
}

async function until(check: () => boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function toolContext(signal = new AbortController().signal, progress: string[] = []) {
  return { signal, progress: (m: string) => progress.push(m) };
}

const fixture = (name = "fx", opts: { serial?: boolean; env?: Record<string, string> } = {}) =>
  stdioSpec(name, Deno.execPath(), fixtureArgs(), opts);

Deno.test("a stdio server killed with SIGKILL mid-call yields a tool error and a reconnect", async () => {
  await withHost([fixture()], async (host) => {
    const pid = Number(text(await host.callTool({ server: "fx", tool: "pid", args: {} })));
    // Never signal 0 or a negative pid: that would hit this test's whole process group.
    assert.ok(Number.isInteger(pid) && pid > 1, `the fixture's pid tool answered ${pid}`);
    const info = host.tools("fx").find((t) => t.name === "sleep")!;
    assert.equal(info.tool, "mcp__fx__sleep");
    const [tool] = host.directTools().filter((t) => t.name === "mcp__fx__sleep");
    const started = Date.now();
    const pending = tool.execute({ ms: 20_000 }, toolContext() as never);
    await new Promise((r) => setTimeout(r, 300));
    Deno.kill(pid, "SIGKILL");
    const result = await pending;
    assert.ok(Date.now() - started < 10_000, "the call returned promptly");
    assert.equal(result.isError, true);
    assert.match(result.content, /broke during the call.*not retried/s);
    await until(() => host.status()[0].phase === "ready", "the reconnect");
    const status = host.status()[0];
    assert.equal(status.reconnects, 1);
    const newPid = Number(text(await host.callTool({ server: "fx", tool: "pid", args: {} })));
    assert.notEqual(newPid, pid);
    assert.equal(
      text(await host.callTool({ server: "fx", tool: "echo", args: { text: "again" } })),
      "again",
    );
  });
});

Deno.test("tool, prompt and resource lists follow every cursor page", async () => {
  await withHost([fixture("paged", { env: { FIXTURE_PAGE_SIZE: "2" } })], async (host) => {
    const status = host.status()[0];
    assert.equal(status.phase, "ready");
    assert.equal(status.tools, 9);
    assert.equal(status.prompts, 3);
    assert.equal(status.resources, 3);
    assert.deepEqual(host.prompts().map((p) => p.command), [
      "mcp__paged__greet",
      "mcp__paged__p2",
      "mcp__paged__p3",
    ]);
    assert.deepEqual(host.findPrompt("/mcp__paged__greet")?.arguments, [
      { name: "who", required: true },
    ]);
    const prompt = await host.getPrompt({ server: "paged", prompt: "greet", args: { who: "Ada" } });
    assert.deepEqual(prompt.messages, [{ role: "user", text: "Hello, Ada!" }]);
    assert.deepEqual(host.resources().map((r) => r.reference), [
      "@paged:fixture://a",
      "@paged:fixture://b",
      "@paged:fixture://c",
    ]);
    const read = await host.readReference("@paged:fixture://b");
    assert.equal(read?.text, "content of fixture://b");
    assert.equal(await host.readReference("@nobody:fixture://b"), undefined);
  });
});

Deno.test("readOnlyHint maps to a read-only tool; no annotation means a writer", async () => {
  await withHost([fixture()], (host) => {
    const tools = new Map(host.directTools().map((t) => [t.name, t]));
    assert.equal(tools.get("mcp__fx__echo")?.readOnly, true);
    assert.equal(tools.get("mcp__fx__sleep")?.readOnly, false);
    assert.deepEqual(tools.get("mcp__fx__echo")?.access?.({}), {
      rule: "mcp__fx__echo",
      readOnly: true,
    });
    const capabilities = new Map(host.capabilitySource().list().map((c) => [c.id, c]));
    assert.equal(capabilities.get("mcp:fx:delete_everything")?.destructive, true);
    assert.equal(capabilities.get("mcp:fx:sleep")?.destructive, false);
    assert.equal(capabilities.get("mcp:fx:echo")?.rule, "mcp__fx__echo");
    return Promise.resolve();
  });
});

Deno.test("tools/call carries a progress token and progress becomes ctx.progress", async () => {
  await withHost([fixture()], async (host) => {
    const tool = host.directTools().find((t) => t.name === "mcp__fx__sleep")!;
    const progress: string[] = [];
    const result = await tool.execute({ ms: 200 }, toolContext(undefined, progress) as never);
    assert.equal(result.content, "slept 200");
    // The SDK may drop a notification that arrives with the result; the earlier ones arrive.
    assert.deepEqual(progress.slice(0, 3), ["50/200", "100/200", "150/200"]);
  });
});

Deno.test("cancelling a call cancels it on the server", async () => {
  await withHost([fixture()], async (host) => {
    const tool = host.directTools().find((t) => t.name === "mcp__fx__sleep")!;
    const controller = new AbortController();
    const pending = tool.execute({ ms: 10_000 }, toolContext(controller.signal) as never);
    await new Promise((r) => setTimeout(r, 200));
    controller.abort(new DOMException("Cancelled by the user", "AbortError"));
    await assert.rejects(pending, (e: unknown) => (e as Error).name === "AbortError");
    let stats = { cancelled: 0 };
    await until(() => {
      host.callTool({ server: "fx", tool: "stats", args: {} }).then((r) =>
        stats = JSON.parse(text(r))
      );
      return stats.cancelled === 1;
    }, "the server-side cancellation");
  });
});

Deno.test("a serial server runs one call at a time and a queued call honours cancellation", async () => {
  await withHost([fixture("fx", { serial: true })], async (host) => {
    assert.equal(host.status()[0].concurrency, "serial");
    const sleep = host.directTools().find((t) => t.name === "mcp__fx__sleep")!;
    const a = sleep.execute({ ms: 1500 }, toolContext() as never);
    const b = sleep.execute({ ms: 300 }, toolContext() as never);
    const controller = new AbortController();
    const c = sleep.execute({ ms: 300 }, toolContext(controller.signal) as never);
    let aDone = false;
    a.then(() => aDone = true);
    await new Promise((r) => setTimeout(r, 200));
    controller.abort(new DOMException("Cancelled by the user", "AbortError"));
    await assert.rejects(c, (e: unknown) => (e as Error).name === "AbortError");
    // It left the queue when cancelled, not when its turn came behind a and b.
    assert.equal(aDone, false, "the queued call was released while the first still ran");
    await Promise.all([a, b]);
    const stats = JSON.parse(text(await host.callTool({ server: "fx", tool: "stats", args: {} })));
    assert.equal(stats.maxInflight, 1);
    // pid-free count: the two sleeps and this stats call; the cancelled one never ran.
    assert.equal(stats.calls, 3);
  });
});

Deno.test("roots/list answers the workspace root as a file URI", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-root-" }));
  try {
    await withHost([fixture()], async (host) => {
      const roots = JSON.parse(
        text(await host.callTool({ server: "fx", tool: "roots", args: {} })),
      );
      assert.equal(roots.length, 1);
      assert.equal(roots[0].uri, new URL(`file://${root}`).href);
    }, { workspaceRoot: root });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("Streamable HTTP: a listening GET, session id on GET and POST, DELETE on close", async () => {
  const server = startHttpFixture();
  try {
    await withHost(
      [httpSpec("web", server.url, { headers: { "X-Team": "blue" } })],
      async (host) => {
        const status = host.status()[0];
        assert.equal(status.phase, "ready");
        assert.equal(status.listener, "listening");
        assert.equal(status.protocol, "2025-11-25");
        assert.equal(
          text(await host.callTool({ server: "web", tool: "echo", args: { text: "hi" } })),
          "hi",
        );
        const get = server.requests.find((r) => r.method === "GET");
        assert.ok(get?.headers["mcp-session-id"], "the GET listener carries the session id");
        const call = server.requests.find((r) => r.rpc === "tools/call");
        assert.equal(call?.headers["mcp-session-id"], get!.headers["mcp-session-id"]);
        assert.equal(call?.headers["x-team"], "blue");
        // The status never shows the session id.
        assert.doesNotMatch(
          JSON.stringify(host.status()),
          new RegExp(get!.headers["mcp-session-id"]),
        );
      },
    );
    const del = server.requests.find((r) => r.method === "DELETE");
    assert.ok(del?.headers["mcp-session-id"], "close sent a DELETE for the session");
  } finally {
    await server.close();
  }
});

Deno.test("Streamable HTTP: a POST-only server (GET 405) works", async () => {
  const server = startHttpFixture({ getStream: false });
  try {
    await withHost([httpSpec("web", server.url)], async (host) => {
      assert.equal(host.status()[0].listener, "post_only");
      assert.equal(
        text(await host.callTool({ server: "web", tool: "echo", args: { text: "post" } })),
        "post",
      );
    });
  } finally {
    await server.close();
  }
});

Deno.test("a server that never answers initialize fails after its start-up timeout, not hangs", async () => {
  await withHost(
    [stdioSpec("mute", Deno.execPath(), ["eval", "setInterval(() => {}, 1000)"], {
      startupTimeoutMs: 800,
    })],
    async (host) => {
      const status = host.status()[0];
      assert.equal(status.phase, "failed");
      assert.equal(status.error, "startup_timeout");
      const started = Date.now();
      const tool = await host.callTool({ server: "mute", tool: "x", args: {} }).catch((e) => e);
      assert.match(String(tool?.message), /mute/);
      assert.ok(Date.now() - started < 5_000);
    },
  );
});

Deno.test("the call timeout starts once the server is ready; a slow call then times out", async () => {
  const stateDir = await Deno.makeTempDir();
  const host = new McpHost({
    entries: [entryOf(fixture("late", { env: { FIXTURE_DELAY_MS: "1500" } }))],
    clientInfo: CLIENT,
    callTimeoutMs: 800,
    stateDir,
  });
  try {
    host.start();
    assert.equal(host.status()[0].phase, "starting");
    // Not ready yet: the wait for the start does not count against the 800 ms call timeout.
    const started = Date.now();
    const echo = await host.callTool({ server: "late", tool: "echo", args: { text: "waited" } });
    assert.equal(text(echo), "waited");
    assert.ok(Date.now() - started > 800, "the call waited for the start-up");
    const tool = host.directTools().find((t) => t.name === "mcp__late__sleep")!;
    const slow = await tool.execute({ ms: 3000 }, toolContext() as never);
    assert.equal(slow.isError, true);
    assert.match(slow.content, /timed out after 1s/);
  } finally {
    await host.close();
    await Deno.remove(stateDir, { recursive: true });
  }
});
