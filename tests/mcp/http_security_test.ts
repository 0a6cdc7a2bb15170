/**
 * HTTP safety: the legacy SSE transport refuses a cross-origin endpoint, stored OAuth tokens
 * are refreshed (and the rotated refresh token stored) through the configured proxy, static
 * headers never reach the authorization server, and a server needing a new authorization is
 * reported, not authorized behind the user's back.
 */
import assert from "node:assert/strict";
import { McpHost, type McpServerSpec, OAuthStore } from "../../plugins/mcp/mod.ts";
import { startHttpFixture } from "./fixtures/http_server.ts";
import { entryOf, httpSpec } from "./servers.ts";

function serve(handler: (req: Request) => Response | Promise<Response>) {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
  return {
    origin: `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`,
    close: () => server.shutdown(),
  };
}

async function withHost(
  spec: McpServerSpec,
  stateDir: string,
  fn: (host: McpHost) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  const host = new McpHost({
    entries: [entryOf(spec)],
    clientInfo: { name: "reasonix-test", version: "0.0.0" },
    callTimeoutMs: 10_000,
    stateDir,
    env,
  });
  try {
    host.start();
    await host.waitForStartup({ timeoutMs: 15_000 });
    await fn(host);
  } finally {
    await host.close();
  }
}

Deno.test("legacy SSE: an endpoint on another origin is refused", async () => {
  const server = serve(() =>
    new Response("event: endpoint\ndata: http://localhost:1/message?sessionId=x\n\n", {
      headers: { "content-type": "text/event-stream" },
    })
  );
  const stateDir = await Deno.makeTempDir();
  try {
    await withHost(
      httpSpec("old", `${server.origin}/sse`, { transport: "sse", headers: { "X-Key": "k" } }),
      stateDir,
      (host) => {
        const status = host.status()[0];
        assert.equal(status.phase, "failed");
        assert.equal(status.error, "refused_endpoint");
        return Promise.resolve();
      },
    );
  } finally {
    await server.close();
    await Deno.remove(stateDir, { recursive: true });
  }
});

/**
 * A minimal authorization server: metadata, dynamic registration, an authorization endpoint
 * that approves at once, a PKCE-checking code grant and a refresh grant that rotates.
 */
function authorizationServer() {
  const seen: { path: string; headers: Record<string, string>; body: string }[] = [];
  let challenge = "";
  const server = serve(async (req) => {
    const url = new URL(req.url);
    seen.push({
      path: url.pathname,
      headers: Object.fromEntries(req.headers),
      body: await req.text(),
    });
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return Response.json({
        issuer: origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        registration_endpoint: `${origin}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
      });
    }
    if (url.pathname === "/register") {
      const meta = JSON.parse(seen[seen.length - 1].body);
      return Response.json({ ...meta, client_id: "registered-1" }, { status: 201 });
    }
    if (url.pathname === "/authorize") {
      challenge = url.searchParams.get("code_challenge") ?? "";
      const back = new URL(url.searchParams.get("redirect_uri")!);
      back.searchParams.set("code", "code-1");
      back.searchParams.set("state", url.searchParams.get("state") ?? "");
      return Response.redirect(back.href, 302);
    }
    if (url.pathname === "/token") {
      const form = new URLSearchParams(seen[seen.length - 1].body);
      if (form.get("grant_type") === "authorization_code" && form.get("code") === "code-1") {
        const digest = await crypto.subtle.digest(
          "SHA-256",
          new TextEncoder().encode(form.get("code_verifier") ?? ""),
        );
        const expected = btoa(String.fromCharCode(...new Uint8Array(digest)))
          .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
        if (expected !== challenge) {
          return Response.json({ error: "invalid_grant" }, { status: 400 });
        }
        return Response.json({
          access_token: "fresh-1",
          token_type: "Bearer",
          refresh_token: "r1",
          expires_in: 3600,
        });
      }
      if (form.get("grant_type") === "refresh_token" && form.get("refresh_token") === "r1") {
        return Response.json({
          access_token: "fresh-1",
          token_type: "Bearer",
          refresh_token: "r2",
          expires_in: 3600,
        });
      }
      return Response.json({ error: "invalid_grant" }, { status: 400 });
    }
    return new Response("not found", { status: 404 });
  });
  const origin = server.origin;
  return { ...server, seen };
}

Deno.test("stored tokens are refreshed through the proxy; the rotated refresh token is kept", async () => {
  const as = authorizationServer();
  let resourceUrl = "";
  const rs = startHttpFixture({
    guard: (req) =>
      req.headers.get("authorization") === "Bearer fresh-1" ? undefined : new Response(null, {
        status: 401,
        headers: {
          "www-authenticate": `Bearer resource_metadata="${resourceUrl.replace(/\/mcp$/, "")}` +
            `/.well-known/oauth-protected-resource/mcp"`,
        },
      }),
  });
  resourceUrl = rs.url;
  rs.route(
    "/.well-known/oauth-protected-resource/mcp",
    () => Response.json({ resource: rs.url, authorization_servers: [as.origin] }),
  );
  const proxied: string[] = [];
  const proxy = serve(async (req) => {
    proxied.push(`${req.method} ${req.url}`);
    return await fetch(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      redirect: "manual",
    });
  });
  const stateDir = await Deno.makeTempDir();
  try {
    const store = new OAuthStore(stateDir, "secure", rs.url);
    await store.update((r) => {
      r.client = {
        client_id: "c1",
        redirect_uris: ["http://127.0.0.1:9/callback"],
        issuer: as.origin,
      };
      r.tokens = {
        access_token: "stale",
        token_type: "Bearer",
        refresh_token: "r1",
        issuer: as.origin,
      };
    });
    await withHost(
      httpSpec("secure", rs.url, { headers: { "X-Team": "blue" } }),
      stateDir,
      async (host) => {
        assert.equal(host.status()[0].phase, "ready", JSON.stringify(host.status()));
        const echo = await host.callTool({ server: "secure", tool: "echo", args: { text: "ok" } });
        assert.equal((echo.content[0] as { text: string }).text, "ok");
      },
      { HTTP_PROXY: proxy.origin },
    );
    const record = await store.read();
    assert.equal((record.tokens as { access_token: string }).access_token, "fresh-1");
    assert.equal((record.tokens as { refresh_token: string }).refresh_token, "r2");
    const token = as.seen.find((r) => r.path === "/token")!;
    assert.equal(new URLSearchParams(token.body).get("resource"), rs.url);
    assert.ok(
      as.seen.every((r) => r.headers["x-team"] === undefined),
      "no static header at the AS",
    );
    assert.ok(rs.requests.some((r) => r.headers["x-team"] === "blue"));
    assert.ok(proxied.some((p) => p === `POST ${as.origin}/token`), proxied.join("\n"));
    assert.ok(proxied.some((p) => p.startsWith(`POST ${rs.url}`)));
  } finally {
    await rs.close();
    await as.close();
    await proxy.close();
    await Deno.remove(stateDir, { recursive: true });
  }
});

Deno.test("without stored tokens a protected server reports needs_auth and registers nothing", async () => {
  const as = authorizationServer();
  const rs = startHttpFixture({
    guard: () => new Response(null, { status: 401, headers: { "www-authenticate": "Bearer" } }),
  });
  const stateDir = await Deno.makeTempDir();
  try {
    await withHost(httpSpec("secure", rs.url), stateDir, async (host) => {
      const status = host.status()[0];
      assert.equal(status.phase, "needs_auth");
      assert.equal(status.error, "auth_required");
      const result = await host.callTool({ server: "secure", tool: "echo", args: { text: "x" } })
        .catch((e) => e);
      assert.match(String(result.message), /reasonix mcp login/);
    });
    assert.equal(as.seen.length, 0);
  } finally {
    await rs.close();
    await as.close();
    await Deno.remove(stateDir, { recursive: true });
  }
});

Deno.test("reasonix mcp login's flow: registration, PKCE, loopback callback, then the server is ready", async () => {
  const as = authorizationServer();
  const rs = startHttpFixture({
    guard: (req) =>
      req.headers.get("authorization") === "Bearer fresh-1" ? undefined : new Response(null, {
        status: 401,
        headers: {
          "www-authenticate": `Bearer resource_metadata="${rs.origin}` +
            `/.well-known/oauth-protected-resource/mcp"`,
        },
      }),
  });
  rs.route(
    "/.well-known/oauth-protected-resource/mcp",
    () => Response.json({ resource: rs.url, authorization_servers: [as.origin] }),
  );
  const stateDir = await Deno.makeTempDir();
  const opened: URL[] = [];
  try {
    await withHost(httpSpec("secure", rs.url), stateDir, async (host) => {
      assert.equal(host.status()[0].phase, "needs_auth");
      await host.authenticate("secure", {
        // The "browser": the authorization server approves and redirects to the loopback.
        open: async (url) => {
          opened.push(url);
          const answer = await fetch(url, { redirect: "manual" });
          await answer.body?.cancel();
          const callback = await fetch(answer.headers.get("location")!);
          assert.match(await callback.text(), /Authorization complete/);
        },
      });
      assert.equal(host.status()[0].phase, "ready");
      const echo = await host.callTool({ server: "secure", tool: "echo", args: { text: "in" } });
      assert.equal((echo.content[0] as { text: string }).text, "in");
    });
    assert.equal(opened.length, 1);
    assert.equal(opened[0].searchParams.get("code_challenge_method"), "S256");
    assert.equal(opened[0].searchParams.get("resource"), rs.url);
    assert.match(
      opened[0].searchParams.get("redirect_uri") ?? "",
      /^http:\/\/127\.0\.0\.1:\d+\/callback$/,
    );
    const record = await new OAuthStore(stateDir, "secure", rs.url).read();
    assert.equal((record.client as { client_id: string }).client_id, "registered-1");
    assert.equal((record.tokens as { access_token: string }).access_token, "fresh-1");
    assert.equal(record.codeVerifier, undefined, "the verifier is dropped once used");
  } finally {
    await rs.close();
    await as.close();
    await Deno.remove(stateDir, { recursive: true });
  }
});
