/**
 * The web app of `reasonix serve`: the same host, agents and event stream as the terminal UI
 * (a {@linkcode HostBackend} with a {@linkcode UiApprovalBroker}), behind the guards of
 * `guard.ts` and the logins of `auth.ts`. Each session's events go through an
 * {@linkcode EventRing}, so tabs resume by id, and turns run on the server whether or not a
 * tab is open.
 *
 * @module
 */
import { relative } from "node:path";
import { Hono } from "hono";
import type { Context } from "hono";
import type { ApprovalChoice } from "../../core/agent/approval.ts";
import { expandTemplateParts } from "../../core/commands/mod.ts";
import type { CustomCommand } from "../../core/commands/mod.ts";
import { completeReferencePath } from "../../core/references/mod.ts";
import { SESSION_MODES } from "../../core/permission/mod.ts";
import type { Message, ToolCall } from "../../providers/types.ts";
import type { ChatBackend } from "../ui/backend.ts";
import type { UiApprovalBroker } from "../ui/broker.ts";
import type { McpView } from "../ui/hooks.ts";
import { completeSlash, findBuiltin, parseSlash, slashCatalog } from "../ui/slash.ts";
import { APP_CSS, APP_CSS_NAME, APP_JS, APP_JS_NAME } from "./assets.generated.ts";
import {
  BrowserSessions,
  CSRF_HEADER,
  LoginLimiter,
  type RateLimit,
  readCookie,
  SESSION_COOKIE,
  sessionCookie,
} from "./auth.ts";
import {
  hostAllowed,
  originAllowed,
  type RequestView,
  securityHeaders,
  viewRequest,
} from "./guard.ts";
import { appPage, loginPage } from "./pages.ts";
import { secretsEqual, verifyPassword } from "./password.ts";
import { EventRing, type StreamEntry } from "./ring.ts";
import type { ServeSettings } from "./settings.ts";
import { displayItems, type WireEvent, wireEvent, type WireInfo } from "./wire.ts";

/** What the app is built from. */
export interface ServeAppOptions {
  backend: ChatBackend;
  broker: UiApprovalBroker;
  settings: ServeSettings;
  /** The token of `token` mode (the configured one or the one made at start). */
  token?: string;
  /** Custom slash commands (`core/commands`). */
  commands?: readonly CustomCommand[];
  mcp?: McpView;
  /** Events each session's ring holds (default 4096). */
  ringCapacity?: number;
  loginLimit?: RateLimit;
  /** Heartbeat comment interval of event streams (default 15 s). */
  heartbeatMs?: number;
}

interface Env {
  Bindings: { peer: string; port: number };
  Variables: { view: RequestView; session?: string; bearer: boolean };
}

/** A turn on the server: its cancel switch and the conversation before it. */
interface Running {
  controller: AbortController;
  /** The stored conversation when the turn began; its events follow `after` in the ring. */
  before: readonly Message[];
  after: string;
}

const CHOICES: readonly ApprovalChoice[] = ["once", "session", "deny"];
const MAX_BODY = 256 * 1024;
const encoder = new TextEncoder();

/** The server's state and its request handler. */
export class ServeApp {
  readonly #o: ServeAppOptions;
  readonly #sessions = new BrowserSessions();
  readonly #limiter: LoginLimiter;
  readonly #rings = new Map<string, EventRing>();
  readonly #app: Hono<Env>;
  #running: Running | undefined;
  /** A non-turn task (switching, compacting) that must not overlap a turn. */
  #busy: string | undefined;
  readonly #calls = new Map<string, ToolCall>();
  /** Runs in flight, so `close` can wait for them. */
  #turn: Promise<void> | undefined;

  constructor(opts: ServeAppOptions) {
    this.#o = opts;
    this.#limiter = new LoginLimiter(opts.loginLimit);
    this.#app = this.#routes();
  }

  /** Handles one request; `peer` is the remote address, `port` the one we listen on. */
  fetch(req: Request, conn: { peer: string; port: number }): Promise<Response> {
    return Promise.resolve(this.#app.fetch(req, conn));
  }

  /** The ring of session `id`, made on first use; a few recent ones are kept. */
  ring(id: string): EventRing {
    let ring = this.#rings.get(id);
    if (!ring) {
      ring = new EventRing({ capacity: this.#o.ringCapacity });
      this.#rings.set(id, ring);
      for (const [key, r] of this.#rings) {
        if (this.#rings.size <= 8) break;
        if (key !== id && r.subscribers === 0) this.#rings.delete(key);
      }
    }
    return ring;
  }

  /** Whether a turn is running. */
  get running(): boolean {
    return this.#running !== undefined;
  }

  /** Cancels a running turn and waits for it to end. */
  async close(): Promise<void> {
    this.#running?.controller.abort(new DOMException("The server is stopping", "AbortError"));
    await this.#turn;
  }

  #info(): WireInfo {
    const i = this.#o.backend.info();
    return {
      sessionId: i.sessionId,
      model: i.model,
      contextWindow: i.contextWindow,
      ...(i.mode ? { mode: i.mode } : {}),
      ...(i.effort ? { effort: i.effort } : {}),
      planMode: this.#o.backend.planMode?.()?.active ?? false,
      workspaceRoot: i.workspaceRoot,
    };
  }

  #publish(event: WireEvent): void {
    this.ring(this.#o.backend.info().sessionId).push(event);
  }

  #notice(level: "info" | "warning", message: string): void {
    this.#publish({ type: "notice", level, message });
  }

  // -------------------------------------------------------------------------------------
  // Routes

  #routes(): Hono<Env> {
    const app = new Hono<Env>();
    const s = this.#o.settings;

    app.onError((error, c) => {
      console.error(`reasonix serve: ${error.stack ?? error}`);
      return c.json({ error: "internal error" }, 500);
    });

    // Every response: strict headers. Every request: a Host that names this server.
    app.use("*", async (c, next) => {
      const view = viewRequest(c.req.raw, c.env.peer, s);
      c.set("view", view);
      c.set("bearer", false);
      if (!hostAllowed(view.host, s, c.env.port)) {
        const res = c.text("This server does not answer to that host name.\n", 421);
        for (const [k, v] of Object.entries(securityHeaders())) res.headers.set(k, v);
        return res;
      }
      await next();
      for (const [k, v] of Object.entries(securityHeaders())) c.res.headers.set(k, v);
      if (c.req.path.startsWith("/api/") || c.req.path === "/") {
        c.res.headers.set("cache-control", "no-store");
      }
    });

    app.get(`/assets/${APP_CSS_NAME}`, (c) =>
      c.body(APP_CSS, 200, {
        "content-type": "text/css; charset=utf-8",
        "cache-control": "public, max-age=31536000, immutable",
      }));

    app.get("/login", async (c) => {
      if (s.authMode === "none") return c.redirect("/", 303);
      const token = c.req.query("token");
      if (token !== undefined && s.authMode === "token") {
        return await this.#login(c, { token });
      }
      return c.html(loginPage(s.authMode));
    });

    app.post("/login", async (c) => {
      if (s.authMode === "none") return c.redirect("/", 303);
      // A cross-site form must not log a browser in (login CSRF).
      if (!originAllowed(c.req.header("origin") ?? null, c.get("view"), s)) {
        return c.text("Cross-origin login refused.\n", 403);
      }
      const form = await c.req.parseBody().catch(() => ({} as Record<string, unknown>));
      const value = (k: string) => typeof form[k] === "string" ? form[k] as string : undefined;
      return await this.#login(c, { token: value("token"), password: value("password") });
    });

    // Authentication: a session cookie, or a bearer token in token mode.
    app.use("*", async (c, next) => {
      const auth = c.req.header("authorization");
      if (auth?.startsWith("Bearer ") && s.authMode === "token" && this.#o.token) {
        const view = c.get("view");
        const wait = this.#limiter.retryAfter(view.client);
        if (wait > 0) return this.#tooMany(c, wait);
        if (await secretsEqual(auth.slice(7).trim(), this.#o.token)) {
          c.set("bearer", true);
          return await next();
        }
        this.#limiter.fail(view.client);
        return c.json({ error: "unauthorized" }, 401);
      }
      const session = this.#sessions.get(
        readCookie(c.req.header("cookie") ?? null, SESSION_COOKIE),
      );
      if (session) {
        c.set("session", session.id);
        return await next();
      }
      if (s.authMode === "none" && c.req.method === "GET" && c.req.path === "/") {
        // Loopback without a login: the page still needs a session for its CSRF token.
        const made = this.#sessions.create();
        c.set("session", made.id);
        await next();
        c.res.headers.append("set-cookie", sessionCookie(made.id, c.get("view")));
        return;
      }
      if (c.req.method === "GET" && c.req.path === "/") return c.redirect("/login", 303);
      return c.json({ error: "unauthorized" }, 401);
    });

    // State changes: the Origin must be ours and the CSRF token this session's.
    app.use("*", async (c, next) => {
      if (c.req.method === "GET" || c.req.method === "HEAD" || c.get("bearer")) return await next();
      const view = c.get("view");
      if (!originAllowed(c.req.header("origin") ?? null, view, s)) {
        return c.json({ error: "cross-origin request refused" }, 403);
      }
      const session = this.#sessions.get(c.get("session"));
      const given = c.req.header(CSRF_HEADER) ?? "";
      if (!session || !(await secretsEqual(given, session.csrf))) {
        return c.json({ error: "bad CSRF token" }, 403);
      }
      const length = Number(c.req.header("content-length") ?? "0");
      if (length > MAX_BODY) return c.json({ error: "request too large" }, 413);
      await next();
    });

    app.get("/", (c) => {
      const session = this.#sessions.get(c.get("session"));
      return c.html(appPage(session?.csrf ?? "", { logout: s.authMode !== "none" }));
    });

    app.get(`/assets/${APP_JS_NAME}`, (c) =>
      c.body(APP_JS, 200, {
        "content-type": "text/javascript; charset=utf-8",
        "cache-control": "private, max-age=31536000, immutable",
      }));

    app.post("/logout", (c) => {
      const id = c.get("session");
      if (id) this.#sessions.delete(id);
      c.header("set-cookie", sessionCookie("", c.get("view")));
      return c.json({ ok: true });
    });

    app.get("/api/state", (c) => c.json(this.#state()));

    app.get("/api/sessions/:id/events", (c) => this.#events(c));

    app.post("/api/turn", async (c) => {
      const body = await this.#json(c);
      const text = typeof body.text === "string" ? body.text : "";
      if (body.sessionId !== this.#o.backend.info().sessionId) {
        return c.json({ error: "that session is no longer the current one; reload" }, 409);
      }
      if (!text.trim()) return c.json({ error: "empty message" }, 400);
      if (this.#running || this.#busy) return c.json({ error: "a turn is running" }, 409);
      return c.json(await this.#submit(text), 202);
    });

    app.post("/api/cancel", (c) => {
      const running = this.#running;
      running?.controller.abort(new DOMException("Cancelled by the user", "AbortError"));
      return c.json({ ok: true, cancelled: running !== undefined });
    });

    app.post("/api/approve", async (c) => {
      const body = await this.#json(c);
      const choice = body.choice as ApprovalChoice;
      if (typeof body.id !== "string" || !CHOICES.includes(choice)) {
        return c.json(
          { error: "an approval needs an id and a choice of once, session, deny" },
          400,
        );
      }
      if (this.#o.broker.current()?.id !== body.id) {
        return c.json({ error: "no such approval is waiting" }, 404);
      }
      this.#o.broker.answer(body.id, choice);
      this.#publish({ type: "approval_settled", id: body.id, choice });
      return c.json({ ok: true });
    });

    app.get("/api/sessions", async (c) => {
      const list = await this.#o.backend.sessions();
      return c.json(list.map((s) => ({ ...s, updated: s.updated.toISOString() })));
    });

    app.post("/api/sessions/new", (c) => this.#switch(c, () => this.#o.backend.newConversation()));

    app.post("/api/sessions/resume", async (c) => {
      const body = await this.#json(c);
      if (typeof body.id !== "string" || !body.id) return c.json({ error: "which session?" }, 400);
      return await this.#switch(c, () => this.#o.backend.resume(body.id as string));
    });

    app.get("/api/models", async (c) => {
      const choices = await this.#o.backend.modelChoices?.() ??
        this.#o.backend.models().map((name) => ({ name }));
      return c.json(choices);
    });

    app.post("/api/model", async (c) => {
      const body = await this.#json(c);
      if (typeof body.name !== "string") return c.json({ error: "which model?" }, 400);
      return await this.#change(c, async () => {
        await this.#o.backend.switchModel(body.name as string);
      });
    });

    app.post("/api/mode", async (c) => {
      const body = await this.#json(c);
      if (typeof body.mode !== "string") return c.json({ error: "which mode?" }, 400);
      return await this.#change(c, () => {
        if (!this.#o.backend.setPermissionMode) throw new Error("the mode is fixed here");
        this.#o.backend.setPermissionMode(body.mode as string);
        return Promise.resolve();
      });
    });

    app.get("/api/complete", async (c) => {
      const kind = c.req.query("kind");
      const q = c.req.query("q") ?? "";
      if (kind === "slash") {
        const catalog = slashCatalog(this.#o.commands ?? [], this.#o.mcp?.prompts() ?? []);
        return c.json(completeSlash(q, catalog).slice(0, 30));
      }
      if (kind === "file") {
        // Completion lists the workspace only, whatever the typed path says.
        if (q.startsWith("/") || q.startsWith("~") || q.split("/").includes("..")) {
          return c.json([]);
        }
        const root = this.#o.backend.info().workspaceRoot;
        return c.json(await completeReferencePath(q, { root, limit: 30 }));
      }
      return c.json({ error: "kind is slash or file" }, 400);
    });

    app.notFound((c) => c.json({ error: "not found" }, 404));
    return app;
  }

  async #login(
    c: Context<Env>,
    given: { token?: string; password?: string },
  ): Promise<Response> {
    const s = this.#o.settings;
    const view = c.get("view");
    const wait = this.#limiter.retryAfter(view.client);
    if (wait > 0) return this.#tooMany(c, wait);
    let ok = false;
    if (s.authMode === "token" && given.token !== undefined && this.#o.token) {
      ok = await secretsEqual(given.token, this.#o.token);
    } else if (s.authMode === "password" && given.password !== undefined && s.passwordHash) {
      ok = await verifyPassword(given.password, s.passwordHash);
    }
    if (!ok) {
      this.#limiter.fail(view.client);
      const what = s.authMode === "token" ? "token" : "password";
      return c.html(loginPage(s.authMode as "token" | "password", `Wrong ${what}.`), 401);
    }
    const session = this.#sessions.create();
    c.header("set-cookie", sessionCookie(session.id, view));
    return c.redirect("/", 303);
  }

  #tooMany(c: Context<Env>, wait: number): Response {
    c.header("retry-after", String(wait));
    return c.text(`Too many failed logins; try again in ${wait} s.\n`, 429);
  }

  async #json(c: Context<Env>): Promise<Record<string, unknown>> {
    try {
      const body = await c.req.json();
      return body && typeof body === "object" && !Array.isArray(body) ? body : {};
    } catch {
      return {};
    }
  }

  #state() {
    const info = this.#info();
    const ring = this.ring(info.sessionId);
    const running = this.#running;
    const messages = running ? running.before : this.#o.backend.history();
    return {
      info,
      items: displayItems(messages),
      after: running ? running.after : ring.lastId,
      running: running !== undefined,
      modes: SESSION_MODES,
      warnings: this.#o.backend.warnings(),
    };
  }

  /**
   * Runs `work` holding the session (`busy` names what holds it), refused while a turn or
   * another change runs; returns the session id it started from, or the error response.
   */
  async #exclusive(
    c: Context<Env>,
    busy: string,
    work: () => Promise<void>,
  ): Promise<{ old: string } | Response> {
    if (this.#running || this.#busy) return c.json({ error: "a turn is running" }, 409);
    const old = this.#o.backend.info().sessionId;
    this.#busy = busy;
    try {
      await work();
    } catch (error) {
      return c.json({ error: (error as Error).message }, 400);
    } finally {
      this.#busy = undefined;
    }
    return { old };
  }

  /** A change of the current agent (new or resumed session): refused while a turn runs. */
  async #switch(c: Context<Env>, work: () => Promise<void>): Promise<Response> {
    const held = await this.#exclusive(c, "switching", work);
    if (held instanceof Response) return held;
    const now = this.#o.backend.info().sessionId;
    this.ring(held.old).push({ type: "session_switched", sessionId: now });
    return c.json({ ok: true, sessionId: now });
  }

  /** A change of model or mode on the current session. */
  async #change(c: Context<Env>, work: () => Promise<void>): Promise<Response> {
    const held = await this.#exclusive(c, "changing", work);
    if (held instanceof Response) return held;
    const { old } = held;
    const info = this.#info();
    if (info.sessionId !== old) {
      this.ring(old).push({ type: "session_switched", sessionId: info.sessionId });
    } else this.#publish({ type: "info", info });
    return c.json({ ok: true, info });
  }

  // -------------------------------------------------------------------------------------
  // Turns and slash commands

  /** Runs what the user typed: a slash command, a custom command, or a plain turn. */
  async #submit(raw: string): Promise<{ ok: true; started: boolean }> {
    const slash = parseSlash(raw);
    if (!slash) return this.#start(raw, raw);
    const builtin = findBuiltin(slash.name);
    if (builtin) return await this.#builtin(builtin.name, slash.args, raw);
    const custom = this.#o.commands?.find((c) => c.name === slash.name);
    if (custom) {
      const { text, fromTemplate } = expandTemplateParts(custom.template, slash.args);
      // A project's command file is the repository's text; its `@` references stay inside.
      const source = relative(this.#o.backend.info().workspaceRoot, custom.path);
      const supplied = custom.scope === "project"
        ? fromTemplate.map((span) => ({ ...span, source }))
        : undefined;
      return this.#start(raw, text, supplied);
    }
    this.#notice("warning", `Unknown command /${slash.name}. Type /help to see the commands.`);
    return { ok: true, started: false };
  }

  async #builtin(name: string, args: string, raw: string): Promise<{ ok: true; started: boolean }> {
    const b = this.#o.backend;
    const done = { ok: true as const, started: false };
    const old = b.info().sessionId;
    const switched = () => {
      const now = b.info().sessionId;
      if (now !== old) this.ring(old).push({ type: "session_switched", sessionId: now });
      else this.#publish({ type: "info", info: this.#info() });
    };
    try {
      switch (name) {
        case "help": {
          const catalog = slashCatalog(this.#o.commands ?? [], this.#o.mcp?.prompts() ?? []);
          this.#notice(
            "info",
            catalog.map((i) =>
              `/${i.name}${i.argumentHint ? ` ${i.argumentHint}` : ""} — ${i.description}`
            )
              .join("\n"),
          );
          return done;
        }
        case "new":
        case "clear":
          await b.newConversation();
          switched();
          return done;
        case "model":
          if (!args) {
            this.#notice("info", `Models: ${b.models().join(", ")} (current ${b.info().model})`);
            return done;
          }
          await b.switchModel(args);
          switched();
          return done;
        case "permissions":
          if (!args || !b.setPermissionMode) {
            this.#notice(
              "info",
              `Permission mode: ${b.info().mode ?? "fixed"} (${SESSION_MODES.join(", ")})`,
            );
            return done;
          }
          b.setPermissionMode(args);
          switched();
          return done;
        case "effort":
          await b.setEffort(args && args !== "default" ? args : undefined);
          switched();
          return done;
        case "resume": {
          const list = await b.sessions();
          if (!args) {
            this.#notice(
              "info",
              list.slice(0, 20).map((s) => `${s.id.slice(0, 8)}  ${s.title}`).join("\n") ||
                "No sessions.",
            );
            return done;
          }
          const found = list.filter((s) => s.id.startsWith(args));
          if (found.length !== 1) {
            this.#notice(
              "warning",
              found.length
                ? `"${args}" matches ${found.length} sessions.`
                : `No session "${args}".`,
            );
            return done;
          }
          await b.resume(found[0].id);
          switched();
          return done;
        }
        case "compact": {
          this.#busy = "compacting";
          try {
            const reports = await b.compact({
              signal: AbortSignal.timeout(300_000),
              instructions: args || undefined,
            });
            for (const report of reports) this.#publish({ type: "compaction", report });
            if (!reports.length) this.#notice("info", "Nothing to compact.");
          } finally {
            this.#busy = undefined;
          }
          return done;
        }
        case "plan":
          if (args) return this.#start(raw, raw);
          this.#notice("info", "Type /plan <task> to plan a task first.");
          return done;
        default:
          this.#notice("info", `/${name} is available in the terminal UI (reasonix).`);
          return done;
      }
    } catch (error) {
      this.#notice("warning", (error as Error).message);
      return done;
    }
  }

  /** Starts a turn in the background; the browser follows it on the event stream. */
  #start(
    shown: string,
    text: string,
    supplied?: { start: number; end: number; source: string }[],
  ): { ok: true; started: boolean } {
    const ring = this.ring(this.#o.backend.info().sessionId);
    const controller = new AbortController();
    this.#running = { controller, before: [...this.#o.backend.history()], after: ring.lastId };
    ring.push({ type: "user", text: shown });
    this.#turn = this.#drive(ring, text, controller.signal, supplied).finally(() => {
      this.#running = undefined;
      this.#calls.clear();
      ring.push({ type: "idle" });
    });
    return { ok: true, started: true };
  }

  async #drive(
    ring: EventRing,
    text: string,
    signal: AbortSignal,
    supplied?: { start: number; end: number; source: string }[],
  ): Promise<void> {
    const b = this.#o.backend;
    try {
      for await (const event of b.run(text, { signal, ...(supplied ? { supplied } : {}) })) {
        if (event.type === "tool_start") this.#calls.set(event.call.id, event.call);
        if (event.type === "approval_request") {
          const call = event.request.callId ? this.#calls.get(event.request.callId) : undefined;
          const preview = call && b.preview
            ? await b.preview(call, { signal }).catch(() => undefined)
            : undefined;
          ring.push(wireEvent(event, preview));
          continue;
        }
        ring.push(wireEvent(event));
      }
    } catch (error) {
      ring.push({ type: "notice", level: "warning", message: (error as Error).message });
    }
  }

  // -------------------------------------------------------------------------------------
  // Event streams

  #events(c: Context<Env>): Response {
    const id = c.req.param("id")!;
    const after = c.req.header("last-event-id") ?? c.req.query("after");
    const ring = this.ring(id);
    const heartbeatMs = this.#o.heartbeatMs ?? 15_000;
    let stop = () => {};
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        const send = (text: string) => {
          try {
            controller.enqueue(encoder.encode(text));
          } catch {
            stop();
          }
        };
        const frame = (e: StreamEntry) => send(`id: ${e.id}\ndata: ${e.data}\n\n`);
        send("retry: 1000\n\n");
        const replay = ring.since(after);
        if (replay.kind === "resync") {
          // No id: the browser must not resume from here; it reloads the stored session.
          send(`event: resync\ndata: ${JSON.stringify({ reason: replay.reason })}\n\n`);
          controller.close();
          return;
        }
        for (const e of replay.entries) frame(e);
        const unsubscribe = ring.subscribe(frame);
        const beat = setInterval(() => send(": keep-alive\n\n"), heartbeatMs);
        stop = () => {
          unsubscribe();
          clearInterval(beat);
        };
      },
      cancel: () => stop(),
    });
    // A closed connection cancels the body, which unsubscribes.
    return c.body(body, 200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "x-accel-buffering": "no",
    });
  }
}
