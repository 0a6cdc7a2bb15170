/**
 * The per-server session supervisor. Every session it opens carries a generation number;
 * callbacks of an older generation are ignored, so a late event from a dead session can never
 * overwrite a newer one.
 *
 * - Only a session that is initialized, whose listener has settled and whose lists were read
 *   is published.
 * - When an established Streamable HTTP session (one the server gave an id) answers 404, it
 *   expired: concurrent calls share a single rebuild and each replays at most once. The
 *   expired session is retired, not closed: closing would abort the requests still waiting for
 *   their own 404, which could then no longer tell that the server never ran them.
 * - A tool call that was in flight when the link broke is never replayed: the server may have
 *   run it. The caller gets an error. Over stdio and legacy SSE the link is the session, so the
 *   supervisor reconnects in the background with bounded backoff; a Streamable HTTP request
 *   has its own stream, so only that call fails and the session goes on.
 *
 * @module
 */
import {
  type Classified,
  classifyError,
  describeErrorClass,
  isConnectionLoss,
  isRefused,
  isSessionExpired,
  isUnauthorized,
  McpUnavailableError,
  StartupTimeoutError,
} from "./failure.ts";
import { type StreamFailure, streamFailureOf } from "./http_fetch.ts";
import type { CallToolResult } from "./sdk.ts";
import { SerialGate } from "./serial_gate.ts";
import { stripControl } from "./text.ts";
import { abortable, openSession, type Session, type SessionContext } from "./session.ts";
import type { McpPhase, McpServerEntry, McpServerSpec, McpServerStatus } from "./types.ts";

/** Host-wide settings a supervisor opens sessions with. */
export type SupervisorContext = Omit<
  SessionContext,
  "generation" | "onLoss" | "onExpired" | "onChange" | "onListChanged"
>;

/** Delays between background reconnect attempts. */
const BACKOFF_MS = [250, 1000, 2000, 4000, 8000];
const AUTH_RETRIES = 3;

/** A call failed because the link broke while it was in flight; it was not retried. */
export class McpConnectionLostError extends McpUnavailableError {
  /**
   * `how`: the session's link broke and it is reconnecting, only this request's connection
   * broke (`request`), or its response stream broke off or ended without an answer.
   */
  constructor(
    server: string,
    cause: unknown,
    how: "reconnecting" | "request" | StreamFailure = "reconnecting",
  ) {
    const what = how === "broken"
      ? `the response stream of the call to MCP server "${server}" broke off before its answer`
      : how === "ended"
      ? `MCP server "${server}" ended the response stream of the call without an answer`
      : `the connection to MCP server "${server}" broke during the call`;
    super(
      `${what}; the call may or may not have run and was not retried.` +
        (how === "reconnecting" ? " The server is reconnecting." : ""),
      { server, errorClass: "connection_closed", cause },
    );
    this.name = "McpConnectionLostError";
  }
}

/**
 * A call's server did not become ready within its start-up timeout: what happened and what to
 * do about it, in words the model can pass on to the user.
 */
export function notReadyMessage(server: string, startupTimeoutMs: number): string {
  return `MCP server "${server}" is not ready after ${startupTimeoutMs / 1000}s, so the call ` +
    `did not run. Check the server with \`reasonix mcp get ${server}\`, or give it more time ` +
    "with `startup_timeout_seconds` in its declaration (default " +
    "`[tools].mcp_startup_timeout_seconds`).";
}

/** Options of one request through the supervisor. */
export interface RequestOptions {
  signal?: AbortSignal;
}

/** Options of a tool call. */
export interface CallOptions extends RequestOptions {
  /** Bound on the call once the connection is ready. */
  timeoutMs: number;
  onProgress?(progress: { progress: number; total?: number; message?: string }): void;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Supervises one configured server. */
export class ServerSupervisor {
  readonly entry: McpServerEntry;
  readonly name: string;
  readonly #ctx: SupervisorContext;
  readonly #notify: () => void;
  readonly #gate?: SerialGate;
  readonly #lifetime = new AbortController();
  #generation = 0;
  #session?: Session;
  #phase: McpPhase;
  #error?: Classified;
  #reconnects = 0;
  #published = false;
  #opening?: { generation: number; promise: Promise<Session> };
  #looping = false;
  #closed = false;
  readonly #waiters = new Set<{ resolve(s: Session): void; reject(e: unknown): void }>();

  constructor(entry: McpServerEntry, ctx: SupervisorContext, notify: () => void) {
    this.entry = entry;
    this.name = entry.declaration.name;
    this.#ctx = ctx;
    this.#notify = notify;
    this.#phase = entry.spec ? "starting" : "failed";
    if (!entry.spec) this.#error = { errorClass: "config" };
    if (entry.spec?.concurrency === "serial") this.#gate = new SerialGate();
  }

  /** The spec this supervisor runs, if the declaration resolved. */
  get spec(): McpServerSpec | undefined {
    return this.entry.spec;
  }

  /** The published session, if any. */
  get session(): Session | undefined {
    return this.#session;
  }

  get phase(): McpPhase {
    return this.#phase;
  }

  /** Whether the first start attempt has finished (either way). */
  get settled(): boolean {
    return this.#phase !== "starting";
  }

  /** Starts connecting in the background. */
  start(): void {
    if (!this.entry.spec || this.#closed || this.#session || this.#opening) return;
    this.#open("start").catch(() => {});
  }

  /** A redacted snapshot for status surfaces. */
  status(): McpServerStatus {
    const d = this.entry.declaration;
    const s = this.#session;
    return {
      name: this.name,
      transport: d.type,
      source: d.source.kind,
      phase: this.#phase,
      ...(s?.protocol ? { protocol: s.protocol } : {}),
      listener: s ? s.listener.phase : this.#phase === "starting" ? "pending" : "none",
      reconnects: this.#reconnects,
      ...(this.#error ? { error: this.#error.errorClass } : {}),
      ...(this.#error?.httpStatus ? { httpStatus: this.#error.httpStatus } : {}),
      ...(this.#error?.detail ? { detail: stripControl(this.#error.detail) } : {}),
      tools: s?.tools.length ?? 0,
      prompts: s?.prompts.length ?? 0,
      resources: s?.resources.length ?? 0,
      ...(s?.client.getServerVersion()
        ? {
          server: {
            name: stripControl(String(s.client.getServerVersion()!.name)),
            version: stripControl(String(s.client.getServerVersion()!.version)),
          },
        }
        : {}),
      concurrency: this.entry.spec?.concurrency ?? "parallel",
    };
  }

  /** Words for why the server is unusable now. */
  unavailableReason(): string {
    if (this.entry.problem) {
      return `MCP server "${this.name}" cannot start: ${this.entry.problem}`;
    }
    const why = this.#error ? describeErrorClass(this.#error) : "it is not connected";
    return `MCP server "${this.name}" is unavailable: ${why}`;
  }

  /**
   * The published session, waiting (bounded by the start-up timeout) for a start or reconnect
   * in progress; a server that failed earlier gets one fresh attempt.
   */
  async ready(opts: RequestOptions = {}): Promise<Session> {
    const spec = this.entry.spec;
    if (!spec) {
      throw new McpUnavailableError(this.unavailableReason(), {
        server: this.name,
        errorClass: "config",
      });
    }
    if (this.#closed) {
      throw new McpUnavailableError(`MCP host is closed`, {
        server: this.name,
        errorClass: "connection_closed",
      });
    }
    if (this.#session) return this.#session;
    if (this.#phase === "needs_auth") {
      throw new McpUnavailableError(this.unavailableReason(), {
        server: this.name,
        errorClass: "auth_required",
      });
    }
    if (!this.#opening && !this.#looping) this.#open("start").catch(() => {});
    const bound = AbortSignal.timeout(spec.startupTimeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, bound]) : bound;
    try {
      return await abortable(this.#nextSession(), signal);
    } catch (error) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      if (bound.aborted) {
        throw new McpUnavailableError(notReadyMessage(this.name, spec.startupTimeoutMs), {
          server: this.name,
          errorClass: "startup_timeout",
        });
      }
      throw error;
    }
  }

  /** Calls a tool: serial gate, call timeout from readiness on, 404 rebuild, auth retries. */
  async callTool(tool: string, args: Record<string, unknown>, opts: CallOptions): Promise<
    CallToolResult
  > {
    const run = () =>
      this.#request(
        (session) =>
          session.client.callTool({ name: tool, arguments: args }, undefined, {
            signal: opts.signal,
            timeout: opts.timeoutMs,
            // Always set, so every call carries its own `_meta.progressToken`.
            onprogress: opts.onProgress ?? (() => {}),
          }) as Promise<CallToolResult>,
        opts,
      );
    return this.#gate ? await this.#gate.run(run, opts.signal) : await run();
  }

  /** Runs a request on the published session with the recovery rules of this module. */
  async request<T>(fn: (session: Session) => Promise<T>, opts: RequestOptions = {}): Promise<T> {
    return await this.#request(fn, opts);
  }

  async #request<T>(fn: (session: Session) => Promise<T>, opts: RequestOptions): Promise<T> {
    let session = this.#session ?? await this.ready(opts);
    let replayed = false;
    let authorizations = 0;
    while (true) {
      // Retired between the readiness wait and now: nothing was sent on it yet.
      if (session.retired || session.closed) {
        const next = await this.ready(opts);
        if (next !== session) {
          session = next;
          continue;
        }
      }
      let error: unknown;
      try {
        return await session.use(fn);
      } catch (e) {
        error = e;
      }
      if (opts.signal?.aborted) throw opts.signal.reason ?? error;
      // A 404 to a request without a session id is the server's answer, not an expiry.
      if (isSessionExpired(error) && session.established) {
        // The server answered 404: it never ran the request.
        if (replayed) {
          throw new McpUnavailableError(
            `MCP server "${this.name}" expired its session again right after it was rebuilt, ` +
              "so the call did not run.",
            { server: this.name, errorClass: "session_expired", cause: error },
          );
        }
        replayed = true;
        session = await this.#renewFor(session.generation, opts);
        continue;
      }
      if (isUnauthorized(error)) {
        const code = session.pendingAuthorization();
        if (code && authorizations < AUTH_RETRIES) {
          authorizations++;
          await session.built.finishAuth!(await abortable(code, opts.signal ?? neverAborts));
          continue;
        }
        this.#fail(session.generation, { errorClass: "auth_required" }, "needs_auth");
        throw new McpUnavailableError(this.unavailableReason(), {
          server: this.name,
          errorClass: "auth_required",
          cause: error,
        });
      }
      if (isRefused(error)) {
        throw new McpUnavailableError(
          `MCP server "${this.name}" refused the connection, so the call did not run.`,
          { server: this.name, errorClass: "network", cause: error },
        );
      }
      const stream = streamFailureOf(error);
      if (stream) throw new McpConnectionLostError(this.name, error, stream);
      if (isConnectionLoss(error)) {
        // A Streamable HTTP request that failed took only its own connection with it.
        if (this.entry.spec?.transport === "http") {
          throw new McpConnectionLostError(this.name, error, "request");
        }
        this.#lost(session.generation, error);
        throw new McpConnectionLostError(this.name, error);
      }
      throw error;
    }
  }

  /** The session after the expiry of `generation`; the call did not run when there is none. */
  async #renewFor(generation: number, opts: RequestOptions): Promise<Session> {
    try {
      return await this.#renew(generation, opts);
    } catch (error) {
      if (opts.signal?.aborted) throw opts.signal.reason ?? error;
      const why = describeErrorClass(classifyError(error));
      throw new McpUnavailableError(
        `MCP server "${this.name}" expired its session and the new one could not be opened ` +
          `(${why}), so the call did not run.`,
        { server: this.name, errorClass: "session_expired", cause: error },
      );
    }
  }

  /** Re-reads a list after a list-changed notification. */
  async #refresh(generation: number, kind: "tools" | "prompts" | "resources"): Promise<void> {
    const session = this.#session;
    if (!session || !this.#isCurrent(generation)) return;
    try {
      await session.refresh(kind, this.#ctx.requestTimeoutMs);
      if (this.#session === session) this.#notify();
    } catch {
      // The next call surfaces a broken link; a failed refresh keeps the previous list.
    }
  }

  /** Starts opening a new generation; the previous session is retired. */
  #open(reason: "start" | "reconnect" | "expired"): Promise<Session> {
    const spec = this.entry.spec!;
    const generation = ++this.#generation;
    const old = this.#session;
    this.#session = undefined;
    // An expired session is gone on the server already: its requests still in flight get their
    // own 404 and replay. Anything else is ended politely.
    if (old && reason === "expired") old.retire();
    else if (old) old.close({ terminate: true }).catch(() => {});
    this.#phase = this.#published ? "reconnecting" : "starting";
    this.#notify();
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new StartupTimeoutError(this.name, spec.startupTimeoutMs)),
      spec.startupTimeoutMs,
    );
    const signal = AbortSignal.any([controller.signal, this.#lifetime.signal]);
    const ctx: SessionContext = {
      ...this.#ctx,
      generation,
      onLoss: (gen, cause) => this.#lost(gen, cause),
      onExpired: (gen) => this.#renew(gen, {}).catch(() => {}),
      onChange: (gen) => {
        if (this.#isCurrent(gen)) this.#notify();
      },
      onListChanged: (gen, kind) => this.#refresh(gen, kind),
    };
    const promise = openSession(spec, ctx, signal).then(
      (session) => {
        if (!this.#isCurrent(generation)) {
          session.close({ terminate: true }).catch(() => {});
          throw new McpUnavailableError("superseded", {
            server: this.name,
            errorClass: "connection_closed",
          });
        }
        if (this.#published) this.#reconnects++;
        this.#published = true;
        this.#session = session;
        this.#phase = "ready";
        this.#error = undefined;
        this.#notify();
        for (const w of this.#waiters) w.resolve(session);
        this.#waiters.clear();
        return session;
      },
      (error) => {
        if (this.#isCurrent(generation)) {
          const classified = classifyError(error);
          const phase = classified.errorClass === "auth_required" ? "needs_auth" : "failed";
          // During a reconnect loop a failed attempt is not final: the loop decides.
          if (!this.#looping || phase === "needs_auth") this.#fail(generation, classified, phase);
          else {
            this.#error = classified;
            this.#notify();
          }
        }
        throw error;
      },
    ).finally(() => {
      clearTimeout(timer);
      if (this.#opening?.promise === promise) this.#opening = undefined;
    });
    this.#opening = { generation, promise };
    return promise;
  }

  /**
   * Whether `generation` is the newest one: the single check every callback of a session
   * passes, so an older generation can never publish, fail or tear down a newer one.
   */
  #isCurrent(generation: number): boolean {
    return generation === this.#generation && !this.#closed;
  }

  /** Marks the current generation failed and releases everyone waiting for it. */
  #fail(generation: number, error: Classified, phase: "failed" | "needs_auth"): void {
    if (!this.#isCurrent(generation)) return;
    if (this.#session?.generation === generation) {
      this.#session.close({ terminate: false }).catch(() => {});
      this.#session = undefined;
    }
    this.#phase = phase;
    this.#error = error;
    this.#notify();
    const failure = new McpUnavailableError(this.unavailableReason(), {
      server: this.name,
      errorClass: error.errorClass,
    });
    for (const w of this.#waiters) w.reject(failure);
    this.#waiters.clear();
  }

  /** The next published session (or the reason none will come). */
  #nextSession(): Promise<Session> {
    if (this.#session) return Promise.resolve(this.#session);
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve,
        reject,
      };
      this.#waiters.add(waiter);
    });
  }

  /** The link of a published session broke: reconnect in the background with backoff. */
  #lost(generation: number, cause: unknown): void {
    // Between a publish and the next open, the published session is the current generation.
    if (!this.#isCurrent(generation) || !this.#session) return;
    this.#error = classifyError(cause);
    if (this.#error.errorClass === "protocol") this.#error = { errorClass: "connection_closed" };
    // Over stdio and legacy SSE the link is the session: what is still waiting on it can get
    // no answer any more. A Streamable HTTP request has its own stream and may still finish.
    if (this.entry.spec?.transport === "http") this.#session.retire();
    else this.#session.close({ terminate: false }).catch(() => {});
    this.#session = undefined;
    this.#phase = "reconnecting";
    this.#notify();
    this.#reconnectLoop().catch(() => {});
  }

  async #reconnectLoop(): Promise<void> {
    if (this.#looping) return;
    this.#looping = true;
    try {
      for (const delay of BACKOFF_MS) {
        await sleep(delay, this.#lifetime.signal);
        if (this.#closed || this.#session) return;
        try {
          await (this.#opening?.promise ?? this.#open("reconnect"));
          return;
        } catch {
          if (this.#closed || this.#phase === "needs_auth") return;
        }
      }
    } finally {
      this.#looping = false;
    }
    if (!this.#session && !this.#closed && this.#phase !== "needs_auth") {
      this.#fail(this.#generation, this.#error ?? { errorClass: "network" }, "failed");
    }
  }

  /**
   * Rebuilds after the session of `generation` expired. Every caller that saw the expiry of
   * the same generation shares one rebuild.
   */
  async #renew(generation: number, opts: RequestOptions): Promise<Session> {
    // A newer generation exists (published or opening): that is the shared rebuild.
    if (!this.#isCurrent(generation)) return await this.ready(opts);
    const promise = this.#open("expired");
    return await abortable(promise, opts.signal ?? neverAborts);
  }

  /** Ends the session (bounded DELETE for HTTP) and stops reconnecting. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#generation++;
    this.#lifetime.abort(
      new McpUnavailableError("closed", { server: this.name, errorClass: "connection_closed" }),
    );
    const session = this.#session;
    this.#session = undefined;
    this.#phase = "closed";
    for (const w of this.#waiters) {
      w.reject(
        new McpUnavailableError("MCP host closed", {
          server: this.name,
          errorClass: "connection_closed",
        }),
      );
    }
    this.#waiters.clear();
    await session?.close({ terminate: true });
    await this.#opening?.promise.catch(() => {});
  }

  /** Restarts from scratch (after an authorization, or on request). */
  restart(): Promise<Session> {
    if (!this.entry.spec) {
      return Promise.reject(
        new McpUnavailableError(this.unavailableReason(), {
          server: this.name,
          errorClass: "config",
        }),
      );
    }
    return this.#open(this.#published ? "reconnect" : "start");
  }
}

const neverAborts = new AbortController().signal;
