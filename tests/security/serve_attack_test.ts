/**
 * Attack tests for `reasonix serve` at the HTTP level (issue 18): the real CLI host and web
 * app on a loopback port, the fake LLM server as the model, plain `fetch` as the attacker.
 * Each test has a positive control, so a guard that refuses everything fails it too.
 */
import assert from "node:assert/strict";
import { serveSettings } from "../../cli/serve/settings.ts";
import { hostAllowed } from "../../cli/serve/guard.ts";
import { hashPassword } from "../../cli/serve/password.ts";
import { renderMarkdown } from "../../cli/serve/page_markdown.ts";
import { APP_JS_NAME } from "../../cli/serve/assets.generated.ts";
import { runReasonix } from "../e2e/support.ts";
import {
  cookieOf,
  events,
  login,
  post,
  rawRequest,
  readEvents,
  type ServeLab,
  startServeLab,
  state,
} from "../e2e/serve_support.ts";

const opts = { sanitizeResources: false, sanitizeOps: false };

async function withLab(
  setup: Parameters<typeof startServeLab>[0],
  body: (lab: ServeLab) => Promise<void>,
): Promise<void> {
  const lab = await startServeLab(setup);
  try {
    await body(lab);
  } finally {
    await lab.close();
  }
}

async function status(res: Response | Promise<Response>): Promise<number> {
  const r = await res;
  await r.body?.cancel();
  return r.status;
}

Deno.test("without credentials only the login page is served", opts, async () => {
  await withLab({ script: [{ text: "hi" }] }, async (lab) => {
    const root = await fetch(`${lab.origin}/`, { redirect: "manual" });
    await root.body?.cancel();
    assert.equal(root.status, 303);
    assert.equal(root.headers.get("location"), "/login");
    const page = await (await fetch(`${lab.origin}/login`)).text();
    assert.match(page, /<form method="post" action="\/login">/);
    assert.doesNotMatch(page, /reasonix-csrf|<script/);
    for (const path of ["/api/state", "/api/sessions", "/api/models", `/assets/${APP_JS_NAME}`]) {
      assert.equal(await status(fetch(`${lab.origin}${path}`)), 401, path);
    }
    const info = (await state(lab, await login(lab))).info;
    assert.equal(await status(fetch(`${lab.origin}/api/sessions/${info.sessionId}/events`)), 401);
    assert.equal(
      await status(fetch(`${lab.origin}/api/turn`, {
        method: "POST",
        headers: { origin: lab.origin, "content-type": "application/json" },
        body: JSON.stringify({ text: "x", sessionId: info.sessionId }),
      })),
      401,
    );
  });
});

Deno.test("a wrong token gets no session; the right one a strict cookie", opts, async () => {
  await withLab({ script: [{ text: "hi" }] }, async (lab) => {
    assert.ok(lab.token && lab.token.length >= 24);
    const wrong = await fetch(`${lab.origin}/login?token=${lab.token}x`, { redirect: "manual" });
    await wrong.body?.cancel();
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get("set-cookie"), null);
    const form = await fetch(`${lab.origin}/login`, {
      method: "POST",
      redirect: "manual",
      headers: { origin: lab.origin, "content-type": "application/x-www-form-urlencoded" },
      body: `token=${"A".repeat(lab.token!.length)}`,
    });
    await form.body?.cancel();
    assert.equal(form.status, 401);
    assert.equal(
      await status(fetch(`${lab.origin}/api/state`, {
        headers: { authorization: `Bearer ${lab.token}x` },
      })),
      401,
    );
    // The right token, three ways.
    assert.equal(
      await status(fetch(`${lab.origin}/api/state`, {
        headers: { authorization: `Bearer ${lab.token}` },
      })),
      200,
    );
    const good = await login(lab);
    assert.match(good.setCookie, /HttpOnly/);
    assert.match(good.setCookie, /SameSite=Strict/);
    assert.doesNotMatch(good.setCookie, /Secure/, "plain http on loopback: no Secure");
    const byForm = await fetch(`${lab.origin}/login`, {
      method: "POST",
      redirect: "manual",
      headers: { origin: lab.origin, "content-type": "application/x-www-form-urlencoded" },
      body: `token=${encodeURIComponent(lab.token!)}`,
    });
    await byForm.body?.cancel();
    assert.equal(byForm.status, 303);
    // Logout ends the session.
    assert.equal(await status(post(lab, "/logout", {}, good)), 200);
    assert.equal(
      await status(fetch(`${lab.origin}/api/state`, { headers: { cookie: good.cookie } })),
      401,
    );
  });
});

Deno.test("a wrong password is refused and logins are rate-limited", opts, async () => {
  const hash = await hashPassword("correct horse battery", { iterations: 1000 });
  await withLab({
    script: [{ text: "hi" }],
    serveToml: `auth_mode = "password"\npassword_hash = "${hash}"`,
  }, async (lab) => {
    assert.equal(lab.token, undefined);
    const attempt = (password: string, headers: Record<string, string> = {}) =>
      fetch(`${lab.origin}/login`, {
        method: "POST",
        redirect: "manual",
        headers: {
          origin: lab.origin,
          "content-type": "application/x-www-form-urlencoded",
          ...headers,
        },
        body: `password=${encodeURIComponent(password)}`,
      });
    // Positive control first (a success does not count against the limit).
    const ok = await attempt("correct horse battery");
    await ok.body?.cancel();
    assert.equal(ok.status, 303);
    assert.match(ok.headers.get("set-cookie") ?? "", /HttpOnly/);
    // A token is no password.
    assert.equal(await status(fetch(`${lab.origin}/login?token=abc`)), 200, "form, no login");
    for (let i = 0; i < 5; i++) {
      // Rotating X-Forwarded-For does not reset the count without behind_proxy.
      const res = await attempt(`wrong ${i}`, { "x-forwarded-for": `10.0.0.${i}` });
      await res.body?.cancel();
      assert.equal(res.status, 401, `attempt ${i}`);
      assert.equal(res.headers.get("set-cookie"), null);
    }
    const limited = await attempt("correct horse battery", { "x-forwarded-for": "10.9.9.9" });
    await limited.body?.cancel();
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get("retry-after")) > 0);
  });
});

Deno.test("a cross-origin POST is refused, also with a valid session", opts, async () => {
  await withLab({ script: [{ text: "hi" }] }, async (lab) => {
    const who = await login(lab);
    const sessionId = (await state(lab, who)).info.sessionId;
    for (const origin of ["https://evil.example", "null", "http://127.0.0.1:1"]) {
      assert.equal(
        await status(post(lab, "/api/turn", { text: "x", sessionId }, who, { origin })),
        403,
        origin,
      );
    }
    // No Origin at all.
    const bare = await fetch(`${lab.origin}/api/cancel`, {
      method: "POST",
      headers: { cookie: who.cookie, "x-reasonix-csrf": who.csrf },
    });
    await bare.body?.cancel();
    assert.equal(bare.status, 403);
    // A cross-site login form (login CSRF).
    const loginCsrf = await fetch(`${lab.origin}/login`, {
      method: "POST",
      redirect: "manual",
      headers: {
        origin: "https://evil.example",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: `token=${encodeURIComponent(lab.token!)}`,
    });
    await loginCsrf.body?.cancel();
    assert.equal(loginCsrf.status, 403);
    // Control: the page's own origin.
    assert.equal(await status(post(lab, "/api/cancel", {}, who)), 200);
  });
});

Deno.test("a forged or foreign CSRF token is refused", opts, async () => {
  await withLab({ script: [{ text: "hi" }] }, async (lab) => {
    const alice = await login(lab);
    const bob = await login(lab);
    assert.notEqual(alice.csrf, bob.csrf);
    const sessionId = (await state(lab, alice)).info.sessionId;
    const turn = (csrf: string | undefined) =>
      fetch(`${lab.origin}/api/turn`, {
        method: "POST",
        headers: {
          cookie: alice.cookie,
          origin: lab.origin,
          "content-type": "application/json",
          ...(csrf === undefined ? {} : { "x-reasonix-csrf": csrf }),
        },
        body: JSON.stringify({ text: "hello", sessionId }),
      });
    assert.equal(await status(turn(undefined)), 403);
    assert.equal(await status(turn("")), 403);
    assert.equal(await status(turn(`${alice.csrf.slice(0, -1)}x`)), 403);
    assert.equal(await status(turn(bob.csrf)), 403, "another session's token");
    assert.equal(await status(turn(alice.csrf)), 202, "control");
  });
});

Deno.test("a rebinding Host header is refused", opts, async () => {
  await withLab({ script: [{ text: "hi" }] }, async (lab) => {
    const who = await login(lab);
    const port = new URL(lab.origin).port;
    const get = async (host: string, path = "/api/state") =>
      (await rawRequest(lab.origin, { path, headers: { cookie: who.cookie, host } })).status;
    assert.equal(await get(`evil.example:${port}`), 421);
    assert.equal(await get(`attacker.localhost.example:${port}`), 421);
    assert.equal(await get(`127.0.0.1:${Number(port) + 1}`), 421);
    assert.equal(await get(`10.1.2.3:${port}`), 421, "a loopback listener answers loopback names");
    assert.equal(await get(""), 421);
    // The login page too: a rebound page must not even see the form.
    assert.equal(await get(`evil.example:${port}`, "/login"), 421);
    // Controls.
    assert.equal(await get(`127.0.0.1:${port}`), 200);
    assert.equal(await get(`localhost:${port}`), 200);
  });
});

Deno.test("a listener on every interface answers IP addresses and its names only", () => {
  const s = serveSettings({ allowed_origins: ["https://agent.example.com"] }, {
    host: "0.0.0.0",
    port: 8788,
  });
  assert.equal(hostAllowed("evil.example:8788", s, 8788), false, "a rebinding name");
  assert.equal(hostAllowed("127.0.0.1.nip.io:8788", s, 8788), false);
  assert.equal(hostAllowed("192.168.1.5:8789", s, 8788), false, "another port");
  assert.equal(hostAllowed("192.168.1.5:8788", s, 8788), true);
  assert.equal(hostAllowed("[fe80::1]:8788", s, 8788), true);
  assert.equal(hostAllowed("localhost:8788", s, 8788), true);
  assert.equal(hostAllowed("agent.example.com", s, 8788), true, "a configured origin");
});

Deno.test("X-Forwarded-* count only behind_proxy", opts, async () => {
  await withLab({ script: [{ text: "hi" }] }, async (lab) => {
    const port = new URL(lab.origin).port;
    const who = await login(lab);
    const get = async (headers: Record<string, string>) =>
      (await rawRequest(lab.origin, {
        path: "/api/state",
        headers: { cookie: who.cookie, ...headers },
      }))
        .status;
    // A forwarded host does not replace a bad Host, nor spoil a good one.
    assert.equal(
      await get({ host: `evil.example:${port}`, "x-forwarded-host": `127.0.0.1:${port}` }),
      421,
    );
    assert.equal(await get({ "x-forwarded-host": "evil.example" }), 200);
    // A forwarded origin is not ours: the CSRF check does not move to it.
    assert.equal(
      await status(post(lab, "/api/cancel", {}, who, {
        origin: "https://evil.example",
        "x-forwarded-host": "evil.example",
        "x-forwarded-proto": "https",
      })),
      403,
    );
    // A forwarded https does not make the cookie Secure.
    const res = await fetch(`${lab.serve.url}`, {
      redirect: "manual",
      headers: { "x-forwarded-proto": "https" },
    });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.doesNotMatch(res.headers.get("set-cookie") ?? "", /Secure/);
  });
  await withLab({
    script: [{ text: "hi" }],
    serveToml: `behind_proxy = true\nallowed_origins = ["https://agent.example.com"]`,
  }, async (lab) => {
    const proxied = { "x-forwarded-host": "agent.example.com", "x-forwarded-proto": "https" };
    const res = await fetch(lab.serve.url, { redirect: "manual", headers: proxied });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.match(res.headers.get("set-cookie") ?? "", /; Secure/, "behind_proxy: Secure");
    const who = { cookie: cookieOf(res.headers.get("set-cookie")), csrf: "", setCookie: "" };
    const page =
      await (await fetch(`${lab.origin}/`, { headers: { cookie: who.cookie, ...proxied } })).text();
    who.csrf = /content="([^"]+)"/.exec(page.slice(page.indexOf("reasonix-csrf")))![1];
    assert.equal(
      await status(post(lab, "/api/cancel", {}, who, {
        ...proxied,
        origin: "https://agent.example.com",
      })),
      200,
    );
    // Behind the proxy a forwarded host must still be a configured one.
    assert.equal(
      await status(fetch(`${lab.origin}/api/state`, {
        headers: { cookie: who.cookie, "x-forwarded-host": "evil.example" },
      })),
      421,
    );
  });
});

Deno.test("no authentication binds loopback only", () => {
  for (const host of ["0.0.0.0", "::", "192.168.1.5", "example.com"]) {
    assert.throws(
      () => serveSettings({ auth_mode: "none" }, { host }),
      (e: Error) => /token/.test(e.message) && /password/.test(e.message),
      host,
    );
  }
  assert.throws(() => serveSettings({ auth_mode: "none", host: "0.0.0.0" }, {}), /loopback/);
  assert.throws(() => serveSettings({ auth_mode: "none", behind_proxy: true }, {}), /behind_proxy/);
  assert.throws(() => serveSettings({ auth_mode: "password" }, {}), /--hash-password/);
  // Controls.
  assert.equal(serveSettings({ auth_mode: "none" }, { host: "127.0.0.1" }).authMode, "none");
  assert.equal(serveSettings({ auth_mode: "none" }, { host: "::1" }).host, "::1");
  assert.equal(serveSettings({}, { host: "0.0.0.0" }).authMode, "token", "token by default");
});

Deno.test("reasonix serve --host 0.0.0.0 without auth exits 2 naming token and password", async () => {
  const { makeHome, makeRepo } = await import("../e2e/support.ts");
  const repo = await makeRepo({});
  const home = await makeHome("http://127.0.0.1:9/v1", '\n[serve]\nauth_mode = "none"\n');
  try {
    // A server that did start would run until stopped: give up after a minute.
    const out = await runReasonix(["serve", "--host", "0.0.0.0", "--port", "0"], {
      cwd: repo,
      home,
      signal: AbortSignal.timeout(60_000),
    });
    assert.equal(out.code, 2, out.stderr);
    assert.match(out.stderr, /auth_mode = "token"/);
    assert.match(out.stderr, /auth_mode = "password"/);
    assert.equal(out.stdout, "");
  } finally {
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("an HTML payload in model output stays inert", opts, async () => {
  const payload = 'Look: <img src=x onerror="alert(1)"><script>alert(2)</script>' +
    '\n\n<iframe src="https://evil.example"></iframe>\n\n[x](javascript:alert(3))';
  await withLab({ script: [{ text: payload }] }, async (lab) => {
    const who = await login(lab);
    const s = await state(lab, who);
    const stream = await events(lab, who, s.info.sessionId, s.after);
    assert.equal(
      await status(post(lab, "/api/turn", { text: "go", sessionId: s.info.sessionId }, who)),
      202,
    );
    const frames = await readEvents(stream, (f) => f.data.type === "idle");
    const text = frames.filter((f) => f.data.type === "text").map((f) => f.data.text).join("");
    assert.equal(text, payload, "the stream carries the text as data");
    const html = renderMarkdown(text);
    assert.doesNotMatch(html, /<(img|script|iframe)\b/i);
    assert.doesNotMatch(html, /href="javascript:/i);
    assert.match(html, /&lt;script&gt;alert\(2\)&lt;\/script&gt;/);
    // The page may run only its own files.
    const shell = await fetch(`${lab.origin}/`, { headers: { cookie: who.cookie } });
    const csp = shell.headers.get("content-security-policy") ?? "";
    const body = await shell.text();
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
    assert.equal(shell.headers.get("x-content-type-options"), "nosniff");
    assert.doesNotMatch(
      body,
      /<script>|<script(?![^>]*\bsrc=)|style=/,
      "no inline script or style",
    );
    // The transcript of the stored session carries it as data too.
    const after = await state(lab, who);
    assert.ok(after.items.some((i: { text?: string }) => i.text === payload));
  });
});

Deno.test("a stale Last-Event-ID gets a resync; a fresh one exactly the rest", opts, async () => {
  await withLab({ script: [{ text: "hi" }] }, async (lab) => {
    const who = await login(lab);
    const s = await state(lab, who);
    const ring = lab.serve.app.ring(s.info.sessionId);
    const base = ring.lastId;
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      ids.push(ring.push({ type: "notice", level: "info", message: `n${i}` }));
    }
    // Resume from the 4th: exactly the 5th to the 10th, in order, by header and by query.
    for (const header of [true, false]) {
      const res = await events(lab, who, s.info.sessionId, ids[3], header);
      const frames = await readEvents(res, (_f, all) => all.length === 6, 5_000);
      assert.deepEqual(frames.map((f) => f.id), ids.slice(4));
      assert.deepEqual(frames.map((f) => f.data.message), ["n4", "n5", "n6", "n7", "n8", "n9"]);
    }
    // Nothing after the newest: no event until a new one.
    const live = await events(lab, who, s.info.sessionId, ids[9], true);
    setTimeout(() => ring.push({ type: "notice", level: "info", message: "live" }), 100);
    const one = await readEvents(live, () => true, 5_000);
    assert.deepEqual(one.map((f) => f.data.message), ["live"]);
    // Push the ring past its capacity (4096): the old ids are gone.
    for (let i = 0; i < 4100; i++) ring.push({ type: "notice", level: "info", message: "x" });
    // Another epoch's id is refused even when its number is one this ring holds.
    const foreign = `${ring.epoch === "ffffffff" ? "eeeeeeee" : "ffffffff"}-${
      ring.lastId.split("-")[1]
    }`;
    for (const stale of [base, ids[0], foreign, "garbage", `${ring.epoch}-999999`]) {
      const res = await events(lab, who, s.info.sessionId, stale, true);
      const frames = await readEvents(res, () => true, 5_000);
      assert.equal(frames.length, 1, stale);
      assert.equal(frames[0].event, "resync", stale);
      assert.equal(frames[0].id, undefined, "a resync carries no id to resume from");
    }
  });
});

Deno.test("no secret reaches the page or the event stream", opts, async () => {
  const PROVIDER_KEY = "sk-canary-serve-provider-6f1e2d3c4b5a";
  const MCP_HEADER = "mcp-canary-serve-header-0a9b8c7d";
  const SERVE_TOKEN = "serve-canary-configured-token-1234567890";
  const toml = `
[[mcp.servers]]
name = "remote"
type = "http"
url = "http://127.0.0.1:9/mcp"
headers = { Authorization = "Bearer ${MCP_HEADER}" }
`;
  await withLab({
    script: [
      { text: "Reading.", toolCalls: [{ name: "bash", arguments: '{"command":"env"}' }] },
      { text: "Done." },
    ],
    toml,
    serveToml: `token = "${SERVE_TOKEN}"`,
    env: { REASONIX_E2E_KEY: PROVIDER_KEY },
  }, async (lab) => {
    assert.equal(lab.token, undefined, "a configured token is not printed in the URL");
    assert.ok(!lab.serve.url.includes(SERVE_TOKEN));
    const who = await login(lab, `${lab.origin}/login?token=${SERVE_TOKEN}`);
    const seen: string[] = [];
    const read = async (path: string) => {
      const res = await fetch(`${lab.origin}${path}`, { headers: { cookie: who.cookie } });
      seen.push(`${path} ${[...res.headers].join(" ")} ${await res.text()}`);
    };
    const s = await state(lab, who);
    const stream = await events(lab, who, s.info.sessionId, s.after);
    await post(lab, "/api/mode", { mode: "auto" }, who).then((r) => r.text()).then((t) =>
      seen.push(t)
    );
    const turn = await post(
      lab,
      "/api/turn",
      { text: "show env", sessionId: s.info.sessionId },
      who,
    );
    seen.push(await turn.text());
    const frames = await readEvents(stream, (f) => f.data.type === "idle", 60_000);
    seen.push(...frames.map((f) => JSON.stringify(f.data)));
    assert.ok(frames.some((f) => f.data.type === "tool_end"), "the tool ran");
    for (
      const path of [
        "/",
        "/login",
        "/api/state",
        "/api/sessions",
        "/api/models",
        `/assets/${APP_JS_NAME}`,
        "/api/complete?kind=slash&q=",
        "/api/complete?kind=file&q=",
      ]
    ) {
      await read(path);
    }
    await post(lab, "/api/turn", { text: "/model", sessionId: s.info.sessionId }, who).then((r) =>
      r.text()
    ).then((t) => seen.push(t));
    const all = seen.join("\n");
    for (const [name, secret] of Object.entries({ PROVIDER_KEY, MCP_HEADER, SERVE_TOKEN })) {
      assert.ok(!all.includes(secret), `${name} reached the page`);
    }
    // Control: what the page saw is real content.
    assert.match(all, /Done\./);
    assert.ok(lab.fake.requests.length >= 2);
  });
});

Deno.test("@file completion lists the workspace only", opts, async () => {
  await withLab(
    { script: [{ text: "hi" }], files: { "src/a.ts": "x", "notes.md": "y" } },
    async (lab) => {
      const who = await login(lab);
      const complete = async (q: string) =>
        await (await fetch(`${lab.origin}/api/complete?kind=file&q=${encodeURIComponent(q)}`, {
          headers: { cookie: who.cookie },
        })).json();
      assert.deepEqual((await complete("src/")).map((c: { value: string }) => c.value), [
        "src/a.ts",
      ]);
      assert.deepEqual(await complete("../"), []);
      assert.deepEqual(await complete("/etc/"), []);
      assert.deepEqual(await complete("src/../../"), []);
      const slash = await (await fetch(`${lab.origin}/api/complete?kind=slash&q=mo`, {
        headers: { cookie: who.cookie },
      })).json();
      assert.equal(slash[0].name, "model");
    },
  );
});

Deno.test("auth_mode none still checks Host, Origin and the CSRF token", opts, async () => {
  await withLab({ script: [{ text: "hi" }], serveToml: 'auth_mode = "none"' }, async (lab) => {
    assert.equal(lab.token, undefined);
    assert.equal(await status(fetch(`${lab.origin}/api/state`)), 401, "the page's cookie first");
    const shell = await fetch(`${lab.origin}/`);
    const setCookie = shell.headers.get("set-cookie") ?? "";
    assert.match(setCookie, /HttpOnly; SameSite=Strict/);
    const csrf = /name="reasonix-csrf" content="([^"]+)"/.exec(await shell.text())![1];
    const who = { cookie: cookieOf(setCookie), csrf, setCookie };
    const port = new URL(lab.origin).port;
    const rebound = await rawRequest(lab.origin, {
      path: "/",
      headers: { host: `evil.example:${port}` },
    });
    assert.equal(rebound.status, 421);
    assert.equal(rebound.headers.get("set-cookie"), null);
    assert.equal(
      await status(post(lab, "/api/cancel", {}, who, { origin: "https://evil.example" })),
      403,
    );
    assert.equal(await status(post(lab, "/api/cancel", {}, { ...who, csrf: "forged" })), 403);
    assert.equal(await status(post(lab, "/api/cancel", {}, who)), 200);
  });
});

Deno.test("an untrusted project cannot choose the token or open the server up", opts, async () => {
  const planted = "planted-by-the-repository-0123456789";
  await withLab({
    script: [{ text: "hi" }],
    files: {
      "reasonix.toml": `[serve]\nauth_mode = "none"\ntoken = "${planted}"\n` +
        `behind_proxy = true\nallowed_origins = ["https://evil.example"]\nhost = "0.0.0.0"\n`,
    },
  }, async (lab) => {
    assert.ok(lab.token, "token mode, with a token of its own");
    assert.notEqual(lab.token, planted);
    assert.equal(await status(fetch(`${lab.origin}/login?token=${planted}`)), 401);
    assert.equal(await status(fetch(`${lab.origin}/`, { redirect: "manual" })), 303, "a login");
    const who = await login(lab);
    assert.equal(
      await status(post(lab, "/api/cancel", {}, who, { origin: "https://evil.example" })),
      403,
      "its origins are not allowed",
    );
  });
});
