/**
 * Builds the SDK transport of one session: a persistent stdio child, Streamable HTTP or
 * legacy SSE. A thin tap in front of it records the negotiated protocol version for status.
 *
 * @module
 */
import type { McpFetch } from "./http_fetch.ts";
import {
  type JSONRPCMessage,
  type OAuthClientProvider,
  SSEClientTransport,
  StdioClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from "./sdk.ts";
import type { McpServerSpec, StdioLaunch } from "./types.ts";

const STDERR_TAIL = 8 * 1024;

/** Forwards to the SDK transport and watches the `initialize` exchange. */
export class TapTransport implements Transport {
  readonly inner: Transport;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];
  /** Negotiated protocol version, once `initialize` was answered. */
  protocol?: string;
  #initializeId?: string | number;

  constructor(inner: Transport) {
    this.inner = inner;
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      this.#watch(message);
      this.onmessage?.(message, extra);
    };
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: Parameters<Transport["send"]>[1]): Promise<void> {
    const m = message as { method?: string; id?: string | number };
    if (m.method === "initialize" && m.id !== undefined) this.#initializeId = m.id;
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  #watch(message: JSONRPCMessage): void {
    const m = message as { id?: string | number; result?: { protocolVersion?: unknown } };
    if (
      this.#initializeId !== undefined && m.id === this.#initializeId &&
      typeof m.result?.protocolVersion === "string"
    ) {
      this.protocol = m.result.protocolVersion;
    }
  }
}

/** A built transport and what only some kinds offer. */
export interface BuiltTransport {
  transport: TapTransport;
  /** Exchanges an authorization code on the transport that asked for it (HTTP kinds). */
  finishAuth?(code: string): Promise<void>;
  /** Ends the server-side session with DELETE (Streamable HTTP with a session id). */
  terminate?(): Promise<void>;
  /** The last bytes the child wrote to stderr (stdio), for local diagnostics only. */
  stderrTail?(): string;
  /** Child process id (stdio), once started. */
  pid?(): number | null;
  /** How the child exited (stdio); `undefined` before it was started. */
  exitStatus?(): { code: number | null; signal: string | null } | undefined;
}

/** The part of node's ChildProcess that tells how it ended. */
interface ChildExit {
  exitCode: number | null;
  signalCode: string | null;
}

/** Options of {@link buildTransport}. */
export interface TransportOptions {
  fetch?: McpFetch;
  authProvider?: OAuthClientProvider;
  /** Streamable HTTP listener retries before the session counts as lost. */
  listenerRetries?: number;
  /** What a stdio server is started as (e.g. inside the sandbox); default: its own command. */
  launch?: StdioLaunch;
}

/** Creates the transport for a server spec. */
export function buildTransport(spec: McpServerSpec, opts: TransportOptions = {}): BuiltTransport {
  if (spec.transport === "stdio") {
    // The SDK adds only HOME, LOGNAME, PATH, SHELL, TERM and USER of this process to `env`.
    const inner = new StdioClientTransport({
      command: opts.launch?.command ?? spec.command,
      args: opts.launch?.args ?? spec.args,
      env: { ...opts.launch?.env, ...spec.env },
      cwd: spec.cwd,
      stderr: "pipe",
    });
    // Drained so a chatty server never blocks on a full pipe; kept only as a short tail.
    let tail = "";
    inner.stderr?.on("data", (chunk: Uint8Array | string) => {
      tail = (tail + (typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk)))
        .slice(-STDERR_TAIL);
    });
    // The SDK keeps its ChildProcess private and drops it on close, so it is taken right after
    // the spawn; its exit status explains a server that quits before it answers.
    let child: ChildExit | undefined;
    const start = inner.start.bind(inner);
    inner.start = async () => {
      await start();
      child = (inner as unknown as { _process?: ChildExit })._process;
    };
    return {
      transport: new TapTransport(inner),
      stderrTail: () => tail,
      pid: () => inner.pid,
      exitStatus: () => child && { code: child.exitCode, signal: child.signalCode },
    };
  }
  if (spec.transport === "sse") {
    const inner = new SSEClientTransport(spec.url, {
      fetch: opts.fetch,
      authProvider: opts.authProvider,
    });
    return {
      transport: new TapTransport(inner),
      finishAuth: (code) => inner.finishAuth(code),
    };
  }
  const inner = new StreamableHTTPClientTransport(spec.url, {
    fetch: opts.fetch,
    authProvider: opts.authProvider,
    reconnectionOptions: {
      initialReconnectionDelay: 1000,
      maxReconnectionDelay: 10_000,
      reconnectionDelayGrowFactor: 2,
      maxRetries: opts.listenerRetries ?? 3,
    },
  });
  return {
    transport: new TapTransport(inner),
    finishAuth: (code) => inner.finishAuth(code),
    terminate: async () => {
      if (inner.sessionId) await inner.terminateSession();
    },
  };
}
