/**
 * An in-memory scripted `Provider` for agent-loop unit tests: each request consumes one
 * scripted reply. Wire-format fidelity is tested against the fake HTTP server instead.
 *
 * @module
 */
import type { Chunk, Provider, ProviderRequest } from "../providers/types.ts";

/** One scripted reply: chunks to yield, or an error to throw after them. */
export interface ScriptedReply {
  /** Chunks the provider yields for this request, in order. */
  chunks: Chunk[];
  /** Thrown after the chunks. */
  error?: unknown;
  /** Wait this long before each chunk (abortable). */
  delayMs?: number;
}

/**
 * A provider that replays a script and records every request.
 *
 * @example Script two replies and inspect the requests
 * ```ts
 * import { ScriptedProvider, textReply, toolReply } from "@reasonix/reasonix/testing";
 *
 * const provider = new ScriptedProvider([
 *   toolReply({ id: "c1", name: "read_file", args: { path: "a.txt" } }),
 *   textReply("Done."),
 * ]);
 * const req = { model: "m", system: "", messages: [{ role: "user" as const, content: "Go" }], tools: [] };
 * for await (const chunk of provider.stream(req, { signal: AbortSignal.timeout(5_000) })) {
 *   console.log(chunk.type); // tool_call, then done
 * }
 * console.log(provider.requests.length); // 1
 * ```
 */
export class ScriptedProvider implements Provider {
  /** Provider name shown in errors and usage. */
  readonly name = "scripted";
  /** Every request received, history snapshotted at call time. */
  readonly requests: ProviderRequest[] = [];
  readonly #script: ScriptedReply[];

  /** `script` is consumed one reply per request; running out throws. */
  constructor(script: ScriptedReply[]) {
    this.#script = [...script];
  }

  async *stream(req: ProviderRequest, opts: { signal: AbortSignal }): AsyncIterable<Chunk> {
    // Snapshot the history: the live array keeps growing after this call.
    this.requests.push({ ...req, messages: [...req.messages] });
    const reply = this.#script.shift();
    if (!reply) throw new Error("scripted provider: script exhausted");
    for (const chunk of reply.chunks) {
      if (reply.delayMs) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, reply.delayMs);
          opts.signal.addEventListener("abort", () => {
            clearTimeout(timer);
            reject(opts.signal.reason);
          }, { once: true });
        });
      }
      opts.signal.throwIfAborted();
      yield chunk;
    }
    if (reply.error !== undefined) throw reply.error;
  }
}

/**
 * A reply with plain text and a stop.
 *
 * @example
 * ```ts
 * import { textReply } from "@reasonix/reasonix/testing";
 *
 * console.log(textReply("Hi").chunks); // [{ type: "text", text: "Hi" }, { type: "done", finishReason: "stop" }]
 * ```
 */
export function textReply(text: string): ScriptedReply {
  return { chunks: [{ type: "text", text }, { type: "done", finishReason: "stop" }] };
}

/**
 * A reply that calls tools.
 *
 * @example
 * ```ts
 * import { toolReply } from "@reasonix/reasonix/testing";
 *
 * const reply = toolReply({ id: "c1", name: "bash", args: { command: "ls" } });
 * console.log(reply.chunks.at(-1)); // { type: "done", finishReason: "tool_calls" }
 * ```
 */
export function toolReply(...calls: { id: string; name: string; args: unknown }[]): ScriptedReply {
  return {
    chunks: [
      ...calls.map((c): Chunk => ({
        type: "tool_call",
        call: { id: c.id, name: c.name, arguments: JSON.stringify(c.args) },
      })),
      { type: "done", finishReason: "tool_calls" },
    ],
  };
}
