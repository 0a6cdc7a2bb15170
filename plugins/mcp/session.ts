/**
 * One session generation of one server: the SDK `Client` over a transport, initialized,
 * with its listener settled and its tool, prompt and resource lists read (every cursor page).
 * The supervisor decides when a session is published, rebuilt or closed.
 *
 * @module
 */
import { basename } from "node:path";
import { pathToFileURL } from "node:url";
import { hasStaticAuthorization } from "./config.ts";
import {
  attachDetail,
  isUnauthorized,
  McpUnavailableError,
  stdioFailureDetail,
} from "./failure.ts";
import { createMcpFetch, type FetchObservation, type ProxyClients } from "./http_fetch.ts";
import { LoopbackReceiver } from "./oauth_loopback.ts";
import { type AuthorizationOpener, ReasonixOAuthProvider } from "./oauth_provider.ts";
import { OAuthStore } from "./oauth_store.ts";
import {
  Client,
  type ClientCapabilities,
  ListRootsRequestSchema,
  type McpToolInfo,
  type OAuthClientProvider,
  type Prompt,
  PromptListChangedNotificationSchema,
  type Resource,
  ResourceListChangedNotificationSchema,
  SseError,
  ToolListChangedNotificationSchema,
} from "./sdk.ts";
import { buildTransport, type BuiltTransport } from "./transport.ts";
import type {
  HttpServerSpec,
  McpListenerPhase,
  McpServerSpec,
  StdioLaunch,
  StdioLauncher,
} from "./types.ts";

/** Test and embedding hooks; the product uses none of them. */
export interface McpClientCustomization {
  /** Extra client capabilities (e.g. elicitation), merged over Reasonix's own. */
  capabilities?: ClientCapabilities;
  /** Registers extra handlers on every new client. */
  onClient?(client: Client, server: string): void;
  /** Replaces the OAuth provider of an HTTP server (e.g. client credentials). */
  authProvider?(spec: HttpServerSpec): OAuthClientProvider | undefined;
  /** Client ID Metadata Document URL and out-of-band credentials for OAuth. */
  oauth?: {
    clientMetadataUrl?: string;
    preRegistered?: { client_id: string; client_secret?: string };
  };
}

/** The user-agent step of interactive OAuth. */
export interface Authorizer {
  open: AuthorizationOpener;
  timeoutMs: number;
}

/** What opening a session needs from the host. */
export interface SessionContext {
  generation: number;
  clientInfo: { name: string; version: string };
  workspaceRoot?: string;
  env: Record<string, string | undefined>;
  proxies: ProxyClients;
  /** `<home>/mcp`: OAuth state lives below it. */
  stateDir: string;
  /** Timeout of list requests, in ms. */
  requestTimeoutMs: number;
  authorizer?: Authorizer;
  customize?: McpClientCustomization;
  /** Wraps stdio servers (the OS sandbox); without it they run as declared. */
  launch?: StdioLauncher;
  /** The link broke in the background (process exit, stream lost). */
  onLoss(generation: number, cause: unknown): void;
  /** The server answered 404 for this session: it expired. */
  onExpired(generation: number): void;
  /** A list or the listener phase changed. */
  onChange(generation: number): void;
  /** A list-changed notification arrived. */
  onListChanged(generation: number, kind: "tools" | "prompts" | "resources"): void;
}

const MAX_PAGES = 1000;
const AUTH_ATTEMPTS = 3;
const DELETE_BOUND_MS = 2000;

/** The Streamable HTTP GET listener as the fetch saw it. */
class ListenerTracker {
  phase: McpListenerPhase;
  #settled!: () => void;
  readonly settled: Promise<void>;

  constructor(phase: McpListenerPhase) {
    this.phase = phase;
    this.settled = new Promise((resolve) => this.#settled = resolve);
    if (phase !== "pending") this.#settled();
  }

  set(phase: McpListenerPhase): void {
    this.phase = phase;
    if (phase !== "pending") this.#settled();
  }
}

/** A connected, initialized session. */
export class Session {
  readonly generation: number;
  readonly client: Client;
  readonly built: BuiltTransport;
  readonly provider?: OAuthClientProvider;
  /** The loopback receiver of interactive OAuth, kept for step-up authorizations. */
  receiver?: LoopbackReceiver;
  readonly listener: ListenerTracker;
  tools: McpToolInfo[] = [];
  prompts: Prompt[] = [];
  resources: Resource[] = [];
  #closed = false;
  #retired = false;
  #inflight = 0;

  constructor(init: {
    generation: number;
    client: Client;
    built: BuiltTransport;
    provider?: OAuthClientProvider;
    listener: ListenerTracker;
  }) {
    this.generation = init.generation;
    this.client = init.client;
    this.built = init.built;
    this.provider = init.provider;
    this.listener = init.listener;
  }

  get protocol(): string | undefined {
    return this.built.transport.protocol;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Whether the server gave this session an id (Streamable HTTP): only then can it expire. */
  get established(): boolean {
    return this.built.transport.sessionId !== undefined;
  }

  /** Whether the session was retired: it takes no new requests. */
  get retired(): boolean {
    return this.#retired;
  }

  /** Requests running on this session. */
  get inflight(): number {
    return this.#inflight;
  }

  /** Runs one request on this session; a retired session closes when its last one settles. */
  async use<T>(fn: (session: Session) => Promise<T>): Promise<T> {
    this.#inflight++;
    try {
      return await fn(this);
    } finally {
      if (--this.#inflight === 0 && this.#retired) this.close({ terminate: false }).catch(() => {});
    }
  }

  /**
   * Closes the session once the requests still running on it have settled. Closing at once
   * would abort them, and a request aborted that way cannot tell whether the server ran it; on
   * an expired session each gets its own 404 and is replayed on the next session.
   */
  retire(): void {
    this.#retired = true;
    if (this.#inflight === 0) this.close({ terminate: false }).catch(() => {});
  }

  /** The code of an authorization the provider just started, if a user agent runs it. */
  pendingAuthorization(): Promise<string> | undefined {
    return this.provider instanceof ReasonixOAuthProvider
      ? this.provider.takeAuthorizationCode()
      : undefined;
  }

  /** Re-reads one list (every page). */
  async refresh(kind: "tools" | "prompts" | "resources", timeoutMs: number): Promise<void> {
    const caps = this.client.getServerCapabilities() ?? {};
    if (kind === "tools" && caps.tools) {
      this.tools = await allPages((cursor) =>
        this.client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs }).then((
          r,
        ) => ({
          items: r.tools,
          next: r.nextCursor,
        }))
      );
    } else if (kind === "prompts" && caps.prompts) {
      this.prompts = await allPages((cursor) =>
        this.client.listPrompts(cursor ? { cursor } : undefined, { timeout: timeoutMs }).then((
          r,
        ) => ({ items: r.prompts, next: r.nextCursor }))
      );
    } else if (kind === "resources" && caps.resources) {
      this.resources = await allPages((cursor) =>
        this.client.listResources(cursor ? { cursor } : undefined, { timeout: timeoutMs }).then((
          r,
        ) => ({ items: r.resources, next: r.nextCursor }))
      );
    }
  }

  /** Ends the session: a bounded DELETE when asked, then the transport (and child). */
  async close(opts: { terminate: boolean }): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (opts.terminate && this.built.terminate) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        this.built.terminate().catch(() => {}),
        new Promise<void>((resolve) => timer = setTimeout(resolve, DELETE_BOUND_MS)),
      ]);
      clearTimeout(timer);
    }
    await this.client.close().catch(() => {});
    await this.receiver?.close().catch(() => {});
  }
}

async function allPages<T>(
  page: (cursor?: string) => Promise<{ items: T[]; next?: string }>,
): Promise<T[]> {
  const out: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let i = 0; i < MAX_PAGES; i++) {
    const { items, next } = await page(cursor);
    out.push(...items);
    // A server that repeats a cursor would loop forever.
    if (!next || seen.has(next)) break;
    seen.add(next);
    cursor = next;
  }
  return out;
}

function rootsOf(workspaceRoot: string): { uri: string; name: string }[] {
  return [{ uri: pathToFileURL(workspaceRoot).href, name: basename(workspaceRoot) }];
}

async function oauthFor(
  spec: HttpServerSpec,
  ctx: SessionContext,
): Promise<{ provider?: OAuthClientProvider; receiver?: LoopbackReceiver }> {
  if (hasStaticAuthorization(spec.headers)) return {};
  const custom = ctx.customize?.authProvider?.(spec);
  if (custom) return { provider: custom };
  const store = new OAuthStore(ctx.stateDir, spec.name, spec.url);
  const base = {
    store,
    clientName: ctx.clientInfo.name,
    clientMetadataUrl: ctx.customize?.oauth?.clientMetadataUrl,
    preRegistered: ctx.customize?.oauth?.preRegistered,
  };
  if (ctx.authorizer) {
    const record = await store.read();
    const previous = record.redirectUrl ? Number(new URL(record.redirectUrl).port) : undefined;
    const receiver = await LoopbackReceiver.start({ port: previous || undefined });
    const provider = await ReasonixOAuthProvider.create({
      ...base,
      interactive: { receiver, ...ctx.authorizer },
    });
    return { provider, receiver };
  }
  // In the background only stored tokens are used (and refreshed); starting a new
  // authorization is the user's decision.
  if (!(await store.hasTokens())) return {};
  return { provider: await ReasonixOAuthProvider.create(base) };
}

function observe(
  tracker: ListenerTracker,
  ctx: SessionContext,
  isPublished: () => boolean,
): (event: FetchObservation) => void {
  return (event) => {
    const before = tracker.phase;
    switch (event.kind) {
      case "initialized":
        if (event.status !== 202 && tracker.phase === "pending") tracker.set("post_only");
        break;
      case "listener":
        if (event.status >= 200 && event.status < 300 && event.eventStream) {
          tracker.set("listening");
        } else if (event.status === 404 && event.sessionId && isPublished()) {
          tracker.set("lost");
          ctx.onExpired(ctx.generation);
        } else if (tracker.phase === "pending") {
          tracker.set("post_only");
        }
        break;
      case "listener_end":
        if (tracker.phase === "listening") tracker.set("reconnecting");
        break;
      case "network_error":
        if (event.method === "GET" && tracker.phase === "pending") tracker.set("post_only");
        break;
      case "post_stream_unanswered":
        // Only that request failed (the fetch answered it); the session goes on.
        break;
    }
    if (tracker.phase !== before) ctx.onChange(ctx.generation);
  };
}

/**
 * Opens a session: connect (with the OAuth user-agent step when one is configured),
 * `initialize` → `notifications/initialized`, the listener, then every list.
 * `signal` bounds the whole start; on failure everything opened is closed again.
 */
export async function openSession(
  spec: McpServerSpec,
  ctx: SessionContext,
  signal: AbortSignal,
): Promise<Session> {
  const gen = ctx.generation;
  let session: Session | undefined;
  let published = false;
  const opened: Session[] = [];
  let receiver: LoopbackReceiver | undefined;
  let lastBuilt: BuiltTransport | undefined;
  const onAbort = () => {
    for (const s of opened) s.close({ terminate: false }).catch(() => {});
  };
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    const oauth = spec.transport === "stdio" ? {} : await oauthFor(spec, ctx);
    const launch: StdioLaunch | undefined = spec.transport === "stdio" && ctx.launch
      ? await ctx.launch(spec)
      : undefined;
    const provider = oauth.provider;
    receiver = oauth.receiver;
    let pendingCode: Promise<string> | undefined;
    let finishedAuthOn: BuiltTransport | undefined;
    for (let attempt = 0;; attempt++) {
      signal.throwIfAborted();
      const tracker = new ListenerTracker(spec.transport === "http" ? "pending" : "listening");
      const fetch = spec.transport === "stdio" ? undefined : createMcpFetch({
        endpoint: spec.url,
        headers: spec.headers,
        env: ctx.env,
        proxies: ctx.proxies,
        observe: observe(tracker, ctx, () => published),
      });
      const built = buildTransport(spec, { fetch, authProvider: provider, launch });
      lastBuilt = built;
      if (pendingCode && finishedAuthOn?.finishAuth) {
        // The authorization was started by the previous attempt's transport, which remembers
        // the resource metadata and scope; it exchanges the code, the new one uses the token.
        const code = await abortable(pendingCode, signal);
        pendingCode = undefined;
        await finishedAuthOn.finishAuth(code);
      }
      const capabilities: ClientCapabilities = {
        ...(ctx.workspaceRoot ? { roots: { listChanged: false } } : {}),
        ...ctx.customize?.capabilities,
      };
      const client = new Client(ctx.clientInfo, { capabilities });
      if (ctx.workspaceRoot) {
        const roots = rootsOf(ctx.workspaceRoot);
        client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
      }
      client.setNotificationHandler(
        ToolListChangedNotificationSchema,
        () => ctx.onListChanged(gen, "tools"),
      );
      client.setNotificationHandler(
        PromptListChangedNotificationSchema,
        () => ctx.onListChanged(gen, "prompts"),
      );
      client.setNotificationHandler(
        ResourceListChangedNotificationSchema,
        () => ctx.onListChanged(gen, "resources"),
      );
      ctx.customize?.onClient?.(client, spec.name);
      const candidate = new Session({
        generation: gen,
        client,
        built,
        provider,
        listener: tracker,
      });
      opened.push(candidate);
      client.onclose = () => {
        if (published) ctx.onLoss(gen, new Error("connection closed"));
      };
      client.onerror = (error) => {
        if (!published) return;
        const message = error?.message ?? "";
        // Streamable HTTP: the SDK gave up re-opening the GET stream. Legacy SSE: the stream
        // broke (its server-side session went with it).
        if (/Maximum reconnection attempts/.test(message)) {
          tracker.set("lost");
          ctx.onLoss(gen, error);
        } else if (spec.transport === "sse" && error instanceof SseError) {
          ctx.onLoss(gen, error);
        }
      };
      try {
        await client.connect(built.transport, { signal, timeout: spec.startupTimeoutMs });
      } catch (error) {
        if (isUnauthorized(error) && attempt < AUTH_ATTEMPTS) {
          pendingCode = candidate.pendingAuthorization();
          if (pendingCode) {
            finishedAuthOn = built;
            continue;
          }
          throw new McpUnavailableError(`MCP server "${spec.name}" needs authorization`, {
            server: spec.name,
            errorClass: "auth_required",
            cause: error,
          });
        }
        throw error;
      }
      await abortable(tracker.settled, signal);
      // A server may first ask for authorization (or more scope) on a list request; that
      // session is alive, so the same transport finishes the authorization and retries.
      for (let auth = 0;; auth++) {
        try {
          await Promise.all(
            (["tools", "prompts", "resources"] as const).map((k) =>
              candidate.refresh(k, ctx.requestTimeoutMs)
            ),
          );
          break;
        } catch (error) {
          const code = isUnauthorized(error) ? candidate.pendingAuthorization() : undefined;
          if (!code || auth >= AUTH_ATTEMPTS || !built.finishAuth) throw error;
          await built.finishAuth(await abortable(code, signal));
        }
      }
      signal.throwIfAborted();
      session = candidate;
      session.receiver = receiver;
      published = true;
      return session;
    }
  } catch (error) {
    if (spec.transport === "stdio" && !signal.aborted) {
      // Before the sessions close: closing would end a child that is still running.
      attachDetail(error, await stdioDetail(spec, lastBuilt, error));
    }
    for (const s of opened) await s.close({ terminate: false }).catch(() => {});
    await receiver?.close().catch(() => {});
    throw signal.aborted && signal.reason ? signal.reason : error;
  } finally {
    signal.removeEventListener("abort", onAbort);
    // Sessions of failed attempts (not the returned one) are closed.
    for (const s of opened) if (s !== session) s.close({ terminate: false }).catch(() => {});
  }
}

/** What is safe to say about a stdio start that failed (see `stdioFailureDetail`). */
async function stdioDetail(
  spec: McpServerSpec & { transport: "stdio" },
  built: BuiltTransport | undefined,
  error: unknown,
): Promise<string | undefined> {
  // The child's last stderr bytes pass through a stream after its pipes close; one turn of
  // the event loop lets them arrive.
  await new Promise((resolve) => setTimeout(resolve, 0));
  return stdioFailureDetail(error, {
    command: spec.command,
    exit: built?.exitStatus?.(),
    stderr: built?.stderrTail?.(),
    secrets: spec.secrets ?? Object.values(spec.env),
  });
}

/** Resolves or rejects with `promise`, or rejects when `signal` aborts first. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
