import assert from "node:assert/strict";
import {
  bypassesProxy,
  createMcpFetch,
  type FetchObservation,
  ProxyClients,
  proxyFor,
  streamFailureOf,
} from "./http_fetch.ts";

interface Seen {
  url: string;
  headers: Record<string, string>;
}

function recorder(handler: (req: Request) => Response = () => new Response("ok")) {
  const seen: Seen[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    seen.push({ url: req.url, headers: Object.fromEntries(req.headers) });
    return handler(req);
  });
  const origin = `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`;
  return { seen, origin, close: () => server.shutdown() };
}

Deno.test("configured headers go only to the endpoint's origin", async () => {
  const mcp = recorder();
  const other = recorder();
  try {
    const fetch = createMcpFetch({
      endpoint: new URL(`${mcp.origin}/mcp`),
      headers: { "X-Api-Key": "secret" },
    });
    await (await fetch(`${mcp.origin}/mcp`, { method: "POST", body: "{}" })).text();
    await (await fetch(`${other.origin}/token`, {
      method: "POST",
      headers: { authorization: "Basic abc" },
    })).text();
    assert.equal(mcp.seen[0].headers["x-api-key"], "secret");
    assert.equal(other.seen[0].headers["x-api-key"], undefined);
    // What the caller itself set for that origin (client authentication) is kept.
    assert.equal(other.seen[0].headers["authorization"], "Basic abc");
  } finally {
    await mcp.close();
    await other.close();
  }
});

Deno.test("a cross-origin redirect carries neither configured headers nor credentials", async () => {
  const other = recorder();
  const mcp = recorder((req) => {
    const path = new URL(req.url).pathname;
    if (path === "/same") return Response.redirect(`${new URL(req.url).origin}/mcp`, 307);
    return path === "/away"
      ? Response.redirect(`${other.origin}/landing`, 302)
      : new Response("ok");
  });
  try {
    const fetch = createMcpFetch({
      endpoint: new URL(`${mcp.origin}/mcp`),
      headers: { "X-Api-Key": "secret" },
    });
    const headers = { authorization: "Bearer tok", "mcp-session-id": "sid-1" };
    await (await fetch(`${mcp.origin}/same`, { headers })).text();
    assert.equal(mcp.seen[1].headers["x-api-key"], "secret", "same-origin hop keeps them");
    assert.equal(mcp.seen[1].headers["authorization"], "Bearer tok");
    const response = await fetch(`${mcp.origin}/away`, { headers });
    assert.equal(await response.text(), "ok");
    const landing = other.seen[0].headers;
    assert.equal(landing["x-api-key"], undefined);
    assert.equal(landing["authorization"], undefined);
    assert.equal(landing["mcp-session-id"], undefined);
  } finally {
    await mcp.close();
    await other.close();
  }
});

Deno.test("redirect: manual is left to the caller (the SDK follows within the origin)", async () => {
  const mcp = recorder(() => Response.redirect("http://127.0.0.1:1/elsewhere", 302));
  try {
    const fetch = createMcpFetch({ endpoint: new URL(`${mcp.origin}/mcp`) });
    const response = await fetch(`${mcp.origin}/mcp`, { redirect: "manual" });
    await response.body?.cancel();
    assert.equal(response.status, 302);
    assert.equal(mcp.seen.length, 1);
  } finally {
    await mcp.close();
  }
});

Deno.test("the proxy from the given environment is used, and NO_PROXY bypasses it", async () => {
  const proxy = recorder(() => new Response("via proxy"));
  const proxies = new ProxyClients();
  try {
    const env = { HTTP_PROXY: proxy.origin, NO_PROXY: "direct.invalid" };
    const fetch = createMcpFetch({
      endpoint: new URL("http://mcp.invalid/mcp"),
      env,
      proxies,
    });
    const response = await fetch("http://auth.invalid/.well-known/oauth-authorization-server");
    assert.equal(await response.text(), "via proxy");
    assert.equal(proxy.seen[0].url, "http://auth.invalid/.well-known/oauth-authorization-server");
    assert.equal(proxyFor(new URL("http://direct.invalid/x"), env), undefined);
    assert.equal(proxyFor(new URL("https://secure.invalid/x"), env), undefined);
    assert.equal(
      proxyFor(new URL("https://secure.invalid/x"), { https_proxy: "http://p:3128" }),
      "http://p:3128",
    );
  } finally {
    proxies.close();
    await proxy.close();
  }
});

Deno.test("NO_PROXY matches hosts, domain suffixes, ports and *", () => {
  const u = (s: string) => new URL(s);
  assert.ok(bypassesProxy(u("http://localhost:8080/"), "localhost"));
  assert.ok(bypassesProxy(u("https://api.corp.example/"), ".corp.example"));
  assert.ok(bypassesProxy(u("https://api.corp.example/"), "corp.example"));
  assert.ok(!bypassesProxy(u("https://notcorp.example/"), "corp.example"));
  assert.ok(bypassesProxy(u("http://10.0.0.1:9000/"), "10.0.0.1:9000"));
  assert.ok(!bypassesProxy(u("http://10.0.0.1:9001/"), "10.0.0.1:9000"));
  assert.ok(bypassesProxy(u("https://anything/"), "*"));
  assert.ok(!bypassesProxy(u("https://anything/"), undefined));
});

Deno.test("the listener GET and the initialized POST are observed", async () => {
  const server = recorder((req) =>
    req.method === "GET"
      ? new Response("data: x\n\n", { headers: { "content-type": "text/event-stream" } })
      : new Response(null, { status: 202 })
  );
  try {
    const events: FetchObservation[] = [];
    const fetch = createMcpFetch({
      endpoint: new URL(`${server.origin}/mcp`),
      observe: (e) => events.push(e),
    });
    await fetch(`${server.origin}/mcp`, {
      method: "POST",
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    const stream = await fetch(`${server.origin}/mcp`, {
      headers: { accept: "text/event-stream", "mcp-session-id": "s" },
    });
    assert.equal(await stream.text(), "data: x\n\n");
    assert.deepEqual(events, [
      { kind: "initialized", status: 202 },
      { kind: "listener", status: 200, eventStream: true, sessionId: true },
      { kind: "listener_end" },
    ]);
  } finally {
    await server.close();
  }
});

Deno.test("a POST event stream without its answer gets an error answer appended; an answered or resumable one passes as sent", async () => {
  const streams: Record<string, string> = {
    answered: 'event: message\ndata: {"jsonrpc":"2.0","id":7,"result":{}}\n\n',
    resumable: "id: ev-1\ndata: \n\n",
    unanswered: ': working\n\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n',
  };
  const server = recorder((req) =>
    new Response(streams[new URL(req.url).pathname.slice(1)], {
      headers: { "content-type": "text/event-stream" },
    })
  );
  try {
    const events: FetchObservation[] = [];
    const fetch = createMcpFetch({
      endpoint: new URL(`${server.origin}/answered`),
      observe: (e) => events.push(e),
    });
    const post = async (path: string) =>
      await (await fetch(`${server.origin}/${path}`, {
        method: "POST",
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call" }),
      })).text();
    assert.equal(await post("answered"), streams.answered);
    assert.equal(await post("resumable"), streams.resumable);
    assert.deepEqual(events, []);
    const unanswered = await post("unanswered");
    assert.ok(unanswered.startsWith(streams.unanswered));
    const appended = JSON.parse(/data: (\{.*"reasonix_stream".*\})\n\n$/.exec(unanswered)![1]);
    assert.equal(appended.id, 7);
    assert.equal(streamFailureOf(appended.error), "ended");
    assert.deepEqual(events, [{ kind: "post_stream_unanswered", broken: false }]);
  } finally {
    await server.close();
  }
});
