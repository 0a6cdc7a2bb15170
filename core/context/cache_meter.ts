/**
 * The cache-break meter (spec §3.6, design invariants 1–5): for every model request of a
 * session it measures how many bytes at the start of the body are identical to the previous
 * request of the same session — the part a prefix cache can serve — and, when the previous
 * request is not simply extended, names the change that broke the prefix and whether it was a
 * planned maintenance step.
 *
 * Bytes are the wire body: encoded into the session's append-only body buffer when the provider
 * can (`BodyEncoding`, every HTTP kind), which its `stream` then sends as they are, so the meter
 * and the request share one encoding and a turn costs its new bytes; else the provider's
 * serializer (`Provider.body`), else a canonical JSON with the same key order as the built-in
 * wire formats. Each request is compared with the previous one only, and through the buffer
 * only from the first piece that changed; no history of bodies is kept.
 *
 * @module
 */
import type { Message, Provider, ProviderRequest, ToolSchema } from "../../providers/types.ts";
import {
  BodyBuffer,
  bodyEncoding,
  type EncodedBody,
  sharedPrefix as bytesShared,
} from "../../providers/body_buffer.ts";
import type { CompactionReport } from "./manager.ts";

/**
 * What broke the prefix, in wire order: `model`; `params` (temperature); `thinking` (reasoning
 * effort, or a cache-keyed thinking setting the provider reports); `tools`; `system`; a message
 * rewritten by a planned `prune`, `summary` or `truncation`; or by nothing planned (`history`).
 */
export type CacheBreakCause =
  | "model"
  | "params"
  | "thinking"
  | "tools"
  | "system"
  | "prune"
  | "summary"
  | "truncation"
  | "history";

/** A maintenance step that is allowed to rewrite messages. */
export type PlannedStep = "prune" | "summary" | "truncation";

/** One request that did not extend the previous request of its session. */
export interface CacheBreak {
  /** The agent turn of the request (0 before the first turn of a run). */
  turn: number;
  /** The first change in wire order. */
  cause: CacheBreakCause;
  /** Whether a maintenance step of this request (or the summary request before it) caused it. */
  planned: boolean;
  /** Bytes at the start of the body shared with the previous request: what a cache can serve. */
  offset: number;
  /** Bytes of the previous request after `offset`: what the cache can no longer serve. */
  bytesInvalidated: number;
  /** For message causes: index of the first message that differs from the previous request. */
  message?: number;
  /** For `tools`: the tools added, removed or changed (MCP tools carry their server prefix). */
  tools?: string[];
  /** In words: what changed (e.g. `tools of MCP server github: added mcp__github__search`). */
  detail: string;
  /** Set when the request was a summary request rather than a conversation request. */
  purpose?: "summary";
}

/** What one observed request measured. */
export interface CacheObservation {
  /** Body bytes of this request. */
  bytes: number;
  /** Of them, bytes shared with the previous request of the session. */
  cachedBytes: number;
  /** Set when the request did not extend the previous one. */
  break?: CacheBreak;
}

/** Running totals of a session. */
export interface CacheTotals {
  /** Requests observed. */
  requests: number;
  /** Body bytes of all requests. */
  bytes: number;
  /** Bytes shared with the request before each one. */
  cachedBytes: number;
  /** Breaks, planned or not. */
  breaks: number;
  /** Breaks that no maintenance step explains. */
  unplanned: number;
}

/** How a request is observed. */
export interface ObserveOptions {
  /** The agent turn; breaks without one take the turn given to {@linkcode CacheMeter.take}. */
  turn?: number;
  /** What maintenance reported while preparing this request (`Prepared.reports`). */
  reports?: readonly CompactionReport[];
  /**
   * The request is itself a maintenance step: `summary` for a summary request. A message rewrite
   * it makes is planned, and so is the rewrite of the request after it (which returns to the
   * conversation, summarized or not).
   */
  planned?: PlannedStep;
  /** The exact body sent, when the caller has it; else the meter serializes the request. */
  body?: string;
}

/** Options of a meter. */
export interface CacheMeterOptions {
  /** Serializes requests as sent (`provider.body`); default the canonical JSON. */
  serialize?: (request: ProviderRequest) => string;
  /** Wire parameters outside the prefix that the provider's cache keys on (`provider.cacheKey`). */
  cacheKey?: (request: ProviderRequest) => string;
}

interface Previous {
  request: ProviderRequest;
  /** Body length in bytes. */
  length: number;
  /** The body, when it was not encoded through the meter's buffer (which holds it itself). */
  bytes?: Uint8Array;
  key: string;
  planned?: PlannedStep;
}

const encoder = new TextEncoder();
const messageJson = new WeakMap<Message, string>();
const toolJson = new WeakMap<ToolSchema, string>();

function jsonOfMessage(message: Message): string {
  let text = messageJson.get(message);
  if (text === undefined) {
    // rawContent never reaches a provider; leaving it out keeps the fallback honest.
    const { rawContent: _raw, ...wire } = message;
    text = JSON.stringify(wire);
    messageJson.set(message, text);
  }
  return text;
}

function jsonOfTool(tool: ToolSchema): string {
  let text = toolJson.get(tool);
  if (text === undefined) {
    text = JSON.stringify(tool);
    toolJson.set(tool, text);
  }
  return text;
}

/**
 * A canonical JSON of a request, in the key order of the built-in wire formats (model, request
 * parameters, tools, system, messages, output cap), for providers without `body`.
 */
export function canonicalBody(request: ProviderRequest): string {
  let body = `{"model":${JSON.stringify(request.model)}`;
  if (request.temperature !== undefined) body += `,"temperature":${request.temperature}`;
  if (request.reasoningEffort !== undefined) {
    body += `,"reasoning_effort":${JSON.stringify(request.reasoningEffort)}`;
  }
  body += `,"tools":[${request.tools.map(jsonOfTool).join(",")}]`;
  body += `,"system":${JSON.stringify(request.system)}`;
  body += `,"messages":[${request.messages.map(jsonOfMessage).join(",")}]`;
  if (request.maxOutputTokens !== undefined) {
    body += `,"max_output_tokens":${request.maxOutputTokens}`;
  }
  return `${body}}`;
}

/** Length of the common prefix of two byte strings. */
export function sharedPrefix(a: Uint8Array, b: Uint8Array): number {
  return bytesShared(a, b);
}

/** Index of the first message of `before` that `after` does not repeat; -1 when all are kept. */
function firstRewritten(before: readonly Message[], after: readonly Message[]): number {
  for (let i = 0; i < before.length; i++) {
    if (i >= after.length) return i;
    const a = before[i];
    const b = after[i];
    if (a !== b && !sameMessage(a, b)) return i;
  }
  return -1;
}

/** Whether two messages serialize alike (`rawContent` never reaches a provider). */
function sameMessage(a: Message, b: Message): boolean {
  if (
    a.role !== b.role || a.content !== b.content || a.reasoning !== b.reasoning ||
    a.reasoningSignature !== b.reasoningSignature || a.toolCallId !== b.toolCallId ||
    a.name !== b.name || (a.isError ?? false) !== (b.isError ?? false)
  ) return false;
  const calls = [a.toolCalls ?? [], b.toolCalls ?? []];
  if (calls[0].length !== calls[1].length) return false;
  if (
    !calls[0].every((c, i) =>
      c.id === calls[1][i].id && c.name === calls[1][i].name &&
      c.arguments === calls[1][i].arguments
    )
  ) return false;
  const images = [a.images ?? [], b.images ?? []];
  // Images are compared by their serialized form only when both sides have them (rare).
  return images[0].length === images[1].length &&
    (images[0].length === 0 || JSON.stringify(images[0]) === JSON.stringify(images[1]));
}

/** `mcp__<server>__<tool>` → `<server>`; built-in tools have none. */
function serverOf(tool: string): string | undefined {
  const match = /^mcp__(.+?)__/.exec(tool);
  return match?.[1];
}

/** Which tools were added, removed or changed, in words and by name. */
function toolChange(
  before: readonly ToolSchema[],
  after: readonly ToolSchema[],
): { names: string[]; detail: string } | undefined {
  if (before === after) return undefined;
  const old = new Map(before.map((t) => [t.name, jsonOfTool(t)]));
  const now = new Map(after.map((t) => [t.name, jsonOfTool(t)]));
  const added = [...now.keys()].filter((n) => !old.has(n));
  const removed = [...old.keys()].filter((n) => !now.has(n));
  const changed = [...now.keys()].filter((n) => old.has(n) && old.get(n) !== now.get(n));
  const names = [...added, ...removed, ...changed];
  if (names.length === 0) {
    // Same tools, same schemas: only the order moved.
    const same = before.length === after.length && before.every((t, i) => t.name === after[i].name);
    return same ? undefined : { names: after.map((t) => t.name), detail: "tool order changed" };
  }
  const parts = [
    added.length ? `added ${added.join(", ")}` : "",
    removed.length ? `removed ${removed.join(", ")}` : "",
    changed.length ? `changed ${changed.join(", ")}` : "",
  ].filter(Boolean);
  const servers = [...new Set(names.map(serverOf).filter((s) => s !== undefined))];
  const builtin = names.some((n) => serverOf(n) === undefined);
  const owner = servers.length
    ? `tools of MCP server${servers.length > 1 ? "s" : ""} ${servers.join(", ")}${
      builtin ? " and built-in tools" : ""
    }`
    : "built-in tools";
  return { names, detail: `${owner}: ${parts.join("; ")}` };
}

/** The planned step a request's maintenance reports name, the most far-reaching first. */
function plannedBy(reports: readonly CompactionReport[] | undefined): PlannedStep | undefined {
  if (!reports?.length) return undefined;
  const phases = new Set(reports.map((r) => r.phase));
  // A failed summary request also returned the conversation to its unsummarized form.
  if (phases.has("summarized") || phases.has("failed")) return "summary";
  if (phases.has("truncated")) return "truncation";
  if (phases.has("pruned")) return "prune";
  return undefined;
}

function show(value: unknown): string {
  return value === undefined ? "unset" : JSON.stringify(value);
}

/**
 * Measures every request of one session against the one before it.
 *
 * @example Two requests, the second with a changed system prompt
 * ```ts
 * import { CacheMeter } from "@reasonix/reasonix";
 *
 * const meter = new CacheMeter();
 * const messages = [{ role: "user" as const, content: "hi" }];
 * meter.observe({ model: "m", system: "A", messages, tools: [] }, { turn: 1 });
 * const seen = meter.observe({ model: "m", system: "B", messages, tools: [] }, { turn: 2 });
 * console.log(seen.break?.cause, seen.break?.planned); // system false
 * ```
 */
export class CacheMeter {
  #serialize: (request: ProviderRequest) => string;
  /** Encodes through the session's append-only buffer, when the provider can. */
  #encode: ((request: ProviderRequest) => EncodedBody) | undefined;
  readonly #buffer = new BodyBuffer();
  #cacheKey: ((request: ProviderRequest) => string) | undefined;
  #previous: Previous | undefined;
  #pending: CacheBreak[] = [];
  #last: CacheBreak | undefined;
  #totals: CacheTotals = { requests: 0, bytes: 0, cachedBytes: 0, breaks: 0, unplanned: 0 };

  /** A meter for one session; see {@linkcode CacheMeter.for} to measure a provider's bodies. */
  constructor(opts: CacheMeterOptions = {}) {
    this.#serialize = opts.serialize ?? canonicalBody;
    this.#cacheKey = opts.cacheKey;
  }

  /** A meter measuring `provider`'s wire bodies (the canonical JSON when it exposes none). */
  static for(provider: Provider): CacheMeter {
    return new CacheMeter().use(provider);
  }

  /**
   * Measures `provider`'s wire bodies from now on: a session that switches model keeps its
   * meter, and its next request is compared with the last one of the old model.
   */
  use(provider: Provider): this {
    this.#serialize = provider.body ? (r) => provider.body!(r) : canonicalBody;
    const encoding = bodyEncoding(provider);
    this.#encode = encoding ? (r) => encoding.encode(r, this.#buffer) : undefined;
    this.#cacheKey = provider.cacheKey ? (r) => provider.cacheKey!(r) : undefined;
    return this;
  }

  /** Session totals so far. */
  get totals(): CacheTotals {
    return { ...this.#totals };
  }

  /** The latest break of the session, if any. */
  get lastBreak(): CacheBreak | undefined {
    return this.#last;
  }

  /** Share of all request bytes a prefix cache could serve, 0..1 (0 before any request). */
  get share(): number {
    return this.#totals.bytes === 0 ? 0 : this.#totals.cachedBytes / this.#totals.bytes;
  }

  /**
   * Measures one request just before it is sent. Cost through the buffer: the new pieces'
   * encoding and a scan of the bytes after the first change; else one serialization and one
   * linear scan against the previous body, which is all that is kept.
   */
  observe(request: ProviderRequest, opts: ObserveOptions = {}): CacheObservation {
    const previous = this.#previous;
    const encoded = opts.body === undefined ? this.#encoded(request) : undefined;
    let length: number;
    let cachedBytes: number;
    let bytes: Uint8Array | undefined;
    if (encoded && previous && !previous.bytes) {
      // Both bodies went through the buffer: it knows what they share, scanning only the
      // bytes after the first changed piece.
      length = encoded.bytes.byteLength;
      cachedBytes = encoded.sharedBytes;
    } else {
      // Without `encoded` the buffer still holds the previous body when it encoded that one.
      const before = previous ? previous.bytes ?? this.#buffer.current : undefined;
      bytes = encoded?.bytes ?? encoder.encode(opts.body ?? this.#body(request));
      length = bytes.byteLength;
      cachedBytes = before ? sharedPrefix(before, bytes) : 0;
      // Only a body outside the buffer is kept; the buffer keeps its own.
      if (encoded) bytes = undefined;
    }
    const key = this.#cacheKey?.(request) ?? "";
    this.#previous = { request, length, bytes, key, planned: opts.planned };
    this.#totals.requests++;
    this.#totals.bytes += length;
    this.#totals.cachedBytes += cachedBytes;
    const seen: CacheObservation = { bytes: length, cachedBytes };
    if (!previous) return seen;
    const change = this.#change(previous, request, key, opts);
    if (!change) return seen;
    // A maintenance request (and the request returning from it) may differ in anything: a
    // summary can run on another model or with fewer tools.
    if (opts.planned || previous.planned === "summary") change.planned = true;
    const found: CacheBreak = {
      turn: opts.turn ?? -1,
      ...change,
      offset: cachedBytes,
      bytesInvalidated: previous.length - cachedBytes,
      ...(opts.planned === "summary" ? { purpose: "summary" as const } : {}),
    };
    this.#totals.breaks++;
    if (!found.planned) this.#totals.unplanned++;
    this.#last = found;
    this.#pending.push(found);
    seen.break = found;
    return seen;
  }

  /**
   * The breaks not taken yet, oldest first; those observed without a turn (summary requests
   * made while preparing a turn) get `turn`.
   */
  take(turn: number): CacheBreak[] {
    const out = this.#pending.map((b) => b.turn < 0 ? { ...b, turn } : b);
    this.#pending = [];
    return out;
  }

  /** The body encoded through the buffer, or undefined to serialize it as a string. */
  #encoded(request: ProviderRequest): EncodedBody | undefined {
    if (!this.#encode) return undefined;
    try {
      return this.#encode(request);
    } catch {
      // Measuring must never fail a request; a request the wire cannot encode fails in `stream`.
      return undefined;
    }
  }

  #body(request: ProviderRequest): string {
    try {
      return this.#serialize(request);
    } catch {
      // Measuring must never fail a request; a request the wire cannot encode fails in `stream`.
      return canonicalBody(request);
    }
  }

  /** The first change in wire order, or undefined when `request` extends the previous one. */
  #change(
    previous: Previous,
    request: ProviderRequest,
    key: string,
    opts: ObserveOptions,
  ): Omit<CacheBreak, "turn" | "offset" | "bytesInvalidated" | "purpose"> | undefined {
    const before = previous.request;
    const unplanned = (cause: CacheBreakCause, detail: string) => ({
      cause,
      planned: false,
      detail,
    });
    if (before.model !== request.model) {
      return unplanned("model", `model ${before.model} → ${request.model}`);
    }
    if (before.temperature !== request.temperature) {
      return unplanned(
        "params",
        `temperature ${show(before.temperature)} → ${show(request.temperature)}`,
      );
    }
    if (before.reasoningEffort !== request.reasoningEffort) {
      return unplanned(
        "thinking",
        `reasoning effort ${show(before.reasoningEffort)} → ${show(request.reasoningEffort)}`,
      );
    }
    const tools = toolChange(before.tools, request.tools);
    if (tools) return { ...unplanned("tools", tools.detail), tools: tools.names };
    if (before.system !== request.system) return unplanned("system", "system prompt changed");
    const k = firstRewritten(before.messages, request.messages);
    if (k >= 0) {
      const step = opts.planned ?? plannedBy(opts.reports) ??
        // The request after a summary request returns to the conversation.
        (previous.planned === "summary" ? "summary" : undefined);
      const what = k >= request.messages.length ? "removed" : "rewritten";
      if (!step) {
        return { cause: "history", planned: false, message: k, detail: `message ${k} ${what}` };
      }
      return { cause: step, planned: true, message: k, detail: `message ${k} ${what} by ${step}` };
    }
    if (previous.key !== key) {
      return unplanned("thinking", `cache-keyed parameters changed: ${previous.key} → ${key}`);
    }
    return undefined;
  }
}
