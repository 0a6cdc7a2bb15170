/**
 * An in-memory scripted `Provider` for agent-loop unit tests: each request consumes one
 * scripted reply. Wire-format fidelity is tested against the fake HTTP server instead.
 *
 * @module
 */
import type { Chunk, Provider, ProviderRequest } from "../providers/types.ts";

/** One scripted reply: chunks to yield, or an error to throw after them. */
export interface ScriptedReply {
  chunks: Chunk[];
  /** Thrown after the chunks. */
  error?: unknown;
  /** Wait this long before each chunk (abortable). */
  delayMs?: number;
}

/** A provider that replays a script and records every request. */
export class ScriptedProvider implements Provider {
  readonly name = "scripted";
  readonly requests: ProviderRequest[] = [];
  readonly #script: ScriptedReply[];

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

/** A reply with plain text and a stop. */
export function textReply(text: string): ScriptedReply {
  return { chunks: [{ type: "text", text }, { type: "done", finishReason: "stop" }] };
}

/** A reply that calls tools. */
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
