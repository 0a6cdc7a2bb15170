/**
 * The supervisor's recovery rules (spec §3.3) against a real Streamable HTTP server in its own
 * process (`fixtures/chaos_http_server.ts`) with concurrent calls: an expired session is
 * rebuilt once and every call replayed at most once; a broken or early-ended response stream
 * fails only its own call, at once; an old generation never publishes over a new one; the
 * listener is settled before a session is published; a 404 without a session is no expiry.
 */
import assert from "node:assert/strict";
import { McpHost } from "../../plugins/mcp/mod.ts";
import type { McpServerSpec } from "../../plugins/mcp/mod.ts";
import { ProxyClients } from "../../plugins/mcp/http_fetch.ts";
import { ServerSupervisor } from "../../plugins/mcp/supervisor.ts";
import { type ChaosServer, entryOf, httpSpec, startChaosServer } from "./servers.ts";

const CLIENT = { name: "reasonix-test", version: "0.0.0" };

async function withChaos(
  opts: { sessionless?: boolean; getDelayMs?: number; callTimeoutMs?: number },
  fn: (host: McpHost, server: ChaosServer) => Promise<void>,
): Promise<void> {
  const server = await startChaosServer(opts);
  const stateDir = await Deno.makeTempDir({ prefix: "reasonix-mcp-chaos-" });
  const host = new McpHost({
    entries: [entryOf(httpSpec("web", server.url))],
    clientInfo: CLIENT,
    callTimeoutMs: opts.callTimeoutMs ?? 30_000,
    stateDir,
  });
  try {
    host.start();
    await host.waitForStartup({ timeoutMs: 30_000 });
    assert.equal(host.status()[0].phase, "ready");
    await fn(host, server);
  } finally {
    await host.close();
    await server.stop();
    await Deno.remove(stateDir, { recursive: true });
  }
}

function text(result: { content: { type: string; text?: string }[] }): string {
  return result.content.map((c) => c.text ?? "").join("");
}

async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const ROUNDS = 10;
const CONCURRENT = 5;

Deno.test("after each of 10 expiries, 5 concurrent calls share one rebuild, each runs once and succeeds", async () => {
  await withChaos({}, async (host, server) => {
    const outcomes: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await server.control("expire");
      const calls = Array.from({ length: CONCURRENT }, (_, i) => `r${round}c${i}`);
      const results = await Promise.all(
        calls.map((t) =>
          host.callTool({ server: "web", tool: "echo", args: { text: t } }).then(
            (r) => text(r) === t ? "ok" : `wrong ${text(r)}`,
            (e) => `error: ${(e as Error).message}`,
          )
        ),
      );
      outcomes.push(...results);
    }
    const ok = outcomes.filter((o) => o === "ok").length;
    const failures = outcomes.filter((o) => o !== "ok");
    console.log(`5×10 concurrent 404: ${ok} ok, ${failures.length} failed`);
    assert.deepEqual(failures, [], `${ok} ok`);
    const stats = await server.stats();
    assert.equal(stats.initializes, ROUNDS + 1, "one shared rebuild per expiry");
    assert.equal(host.status()[0].reconnects, ROUNDS);
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < CONCURRENT; i++) {
        const t = `r${round}c${i}`;
        assert.equal(stats.runs[t], 1, `${t} ran once`);
        assert.ok(stats.posts[t] <= 2, `${t} was replayed at most once (${stats.posts[t]} POSTs)`);
      }
    }
  });
});

/** Settles within `ms`, or says it did not. */
function within<T>(p: Promise<T>, ms: number): Promise<T | "hung"> {
  let timer: ReturnType<typeof setTimeout>;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<"hung">((resolve) => timer = setTimeout(() => resolve("hung"), ms)),
  ]);
}

Deno.test("a call whose replay meets 404 again is replayed only once and reported as not run", async () => {
  await withChaos({}, async (host, server) => {
    await server.control("expire-calls");
    const outcome = await within(
      host.callTool({ server: "web", tool: "echo", args: { text: "twice" } }).then(
        () => "ran",
        (e) => (e as Error).message,
      ),
      10_000,
    );
    assert.match(String(outcome), /expired its session again.*did not run/s);
    assert.doesNotMatch(String(outcome), /may or may not/);
    const stats = await server.stats();
    assert.equal(stats.posts.twice, 2, "one replay");
    assert.equal(stats.runs.twice, undefined, "never ran");
    assert.equal(stats.initializes, 2);
  });
});

Deno.test("a broken response stream fails only its own call, at once; a concurrent call gets its result", async () => {
  await withChaos({ callTimeoutMs: 8_000 }, async (host, server) => {
    await server.control("break=break");
    const started = Date.now();
    const [broken, healthy] = await Promise.all([
      host.callTool({ server: "web", tool: "break", args: {} }).then(
        () => "answered",
        (e) => (e as Error).message,
      ),
      host.callTool({ server: "web", tool: "slow", args: { text: "healthy", ms: 600 } }),
    ]);
    assert.ok(Date.now() - started < 4_000, "the broken call failed at once");
    assert.match(
      broken,
      /broke off before its answer.*may or may not have run and was not retried/s,
    );
    assert.equal(text(healthy), "healthy");
    const stats = await server.stats();
    assert.equal(stats.posts.break, 1, "not replayed");
    assert.equal(stats.initializes, 1, "the session was kept");
    assert.equal(host.status()[0].reconnects, 0);
    assert.equal(host.status()[0].phase, "ready");
  });
});

Deno.test("a JSON answer cut off fails only its own call; the session goes on", async () => {
  await withChaos({ callTimeoutMs: 8_000 }, async (host, server) => {
    await server.control("cut=break");
    const [cut, healthy] = await Promise.all([
      host.callTool({ server: "web", tool: "break", args: {} }).then(
        () => "answered",
        (e) => (e as Error).message,
      ),
      host.callTool({ server: "web", tool: "slow", args: { text: "healthy", ms: 600 } }),
    ]);
    assert.match(cut, /broke during the call; the call may or may not have run/);
    assert.equal(text(healthy), "healthy");
    assert.equal((await server.stats()).initializes, 1, "the session was kept");
    assert.equal(host.status()[0].reconnects, 0);
    const after = await host.callTool({ server: "web", tool: "echo", args: { text: "after" } });
    assert.equal(text(after), "after");
  });
});

Deno.test("a response stream that ends without an answer fails its call at once, not at the timeout", async () => {
  await withChaos({ callTimeoutMs: 8_000 }, async (host, server) => {
    await server.control("end=end");
    const started = Date.now();
    const outcome = await host.callTool({ server: "web", tool: "end", args: {} }).then(
      () => "answered",
      (e) => (e as Error).message,
    );
    assert.ok(Date.now() - started < 4_000, `failed at once (${Date.now() - started} ms)`);
    assert.match(outcome, /ended the response stream of the call without an answer/);
    assert.equal((await server.stats()).initializes, 1);
    const after = await host.callTool({ server: "web", tool: "echo", args: { text: "after" } });
    assert.equal(text(after), "after");
  });
});

Deno.test("a 404 from a server without sessions is its answer, not an expiry", async () => {
  await withChaos({ sessionless: true }, async (host, server) => {
    await server.control("404=echo");
    const outcome = await host.callTool({ server: "web", tool: "echo", args: { text: "x" } }).then(
      () => "answered",
      (e) => (e as Error).message,
    );
    assert.match(outcome, /404|no such thing/);
    assert.doesNotMatch(outcome, /expired|may or may not/);
    const stats = await server.stats();
    assert.equal(stats.initializes, 1, "no rebuild");
    assert.equal(stats.posts.x, 1, "no replay");
    assert.equal(host.status()[0].reconnects, 0);
    const again = await host.callTool({ server: "web", tool: "echo", args: { text: "y" } });
    assert.equal(text(again), "y");
  });
});

Deno.test("a session is published only once its GET listener answered", async () => {
  const server = await startChaosServer({ getDelayMs: 700 });
  const stateDir = await Deno.makeTempDir({ prefix: "reasonix-mcp-chaos-" });
  const host = new McpHost({
    entries: [entryOf(httpSpec("web", server.url))],
    clientInfo: CLIENT,
    callTimeoutMs: 30_000,
    stateDir,
  });
  try {
    const atPublish: string[] = [];
    host.onChange(() => {
      const s = host.status()[0];
      if (s.phase === "ready" && atPublish.length === 0) atPublish.push(s.listener);
    });
    host.start();
    await host.waitForStartup({ timeoutMs: 30_000 });
    assert.deepEqual(atPublish, ["listening"]);
  } finally {
    await host.close();
    await server.stop();
    await Deno.remove(stateDir, { recursive: true });
  }
});

Deno.test("a start of an older generation that finishes late never publishes over the newer one", async () => {
  const server = await startChaosServer();
  const stateDir = await Deno.makeTempDir({ prefix: "reasonix-mcp-chaos-" });
  const proxies = new ProxyClients();
  const spec: McpServerSpec = httpSpec("web", server.url);
  const supervisor = new ServerSupervisor(entryOf(spec), {
    clientInfo: CLIENT,
    env: {},
    proxies,
    stateDir,
    requestTimeoutMs: 10_000,
  }, () => {});
  try {
    await server.control("hold-initialize");
    supervisor.start();
    const deadline = Date.now() + 10_000;
    while ((await server.stats()).initializes < 1) {
      if (Date.now() > deadline) throw new Error("the first initialize never arrived");
      await new Promise((r) => setTimeout(r, 25));
    }
    const second = await supervisor.restart();
    await server.control("release-initialize");
    // The first start now completes: it must be closed (DELETE), not published.
    await until(() => supervisor.status().phase === "ready", "ready");
    const deletes = Date.now() + 10_000;
    while ((await server.stats()).deletes < 1) {
      if (Date.now() > deletes) throw new Error("the superseded session was never ended");
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.equal(supervisor.session, second);
    assert.equal(supervisor.status().reconnects, 0);
    const result = await supervisor.callTool("echo", { text: "new" }, { timeoutMs: 10_000 });
    assert.equal(text(result), "new");
  } finally {
    await supervisor.close();
    proxies.close();
    await server.stop();
    await Deno.remove(stateDir, { recursive: true });
  }
});

Deno.test("a call whose expired session cannot be rebuilt is reported as not run", async () => {
  await withChaos({}, async (host, server) => {
    await server.control("refuse-initialize");
    await server.control("expire");
    const outcome = await host.callTool({ server: "web", tool: "echo", args: { text: "x" } }).then(
      () => "answered",
      (e) => (e as Error).message,
    );
    assert.match(outcome, /expired its session and the new one could not be opened.*did not run/s);
    assert.match(outcome, /HTTP 503/);
    assert.equal((await server.stats()).runs.x, undefined);
  });
});

Deno.test("a call to a server that is gone (connection refused) is reported as not run", async () => {
  await withChaos({}, async (host, server) => {
    await server.stop();
    const outcome = () =>
      host.callTool({ server: "web", tool: "echo", args: { text: "x" } }).then(
        () => "answered",
        (e) => `${(e as Error).message} / ${(e as Error).cause}`,
      );
    // A kept-alive connection the server dropped may fail differently (the request may have
    // been sent on it); a new connection is refused before anything is sent.
    assert.notEqual(await outcome(), "answered");
    const second = await outcome();
    assert.match(second, /refused the connection, so the call did not run/);
    assert.doesNotMatch(second, /may or may not/);
  });
});

Deno.test("a replay never runs on a session that was replaced before it could start", async () => {
  const server = await startChaosServer();
  const stateDir = await Deno.makeTempDir({ prefix: "reasonix-mcp-chaos-" });
  const proxies = new ProxyClients();
  let restartAt: number | undefined;
  const supervisor: ServerSupervisor = new ServerSupervisor(
    entryOf(httpSpec("web", server.url)),
    { clientInfo: CLIENT, env: {}, proxies, stateDir, requestTimeoutMs: 10_000 },
    () => {
      // The rebuilt session is replaced the moment it is published, before the replay starts.
      if (supervisor.phase === "ready" && supervisor.session?.generation === restartAt) {
        restartAt = undefined;
        supervisor.restart().catch(() => {});
      }
    },
  );
  try {
    const first = await supervisor.ready();
    await server.control("expire");
    restartAt = first.generation + 1;
    const result = await supervisor.callTool("echo", { text: "z" }, { timeoutMs: 10_000 });
    assert.equal(text(result), "z");
    assert.equal(restartAt, undefined, "the rebuilt session was replaced");
    const stats = await server.stats();
    assert.equal(stats.runs.z, 1);
    assert.equal(stats.sessions.length, 3);
    assert.equal(stats.ranOn.z, 2, "the replay ran on the session that replaced the rebuilt one");
  } finally {
    await supervisor.close();
    proxies.close();
    await server.stop();
    await Deno.remove(stateDir, { recursive: true });
  }
});
