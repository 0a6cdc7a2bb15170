/**
 * The `replay` provider kind: plays a recording made with `--record` back, deterministically
 * and without a network. The recorded kind decodes the recorded bytes, so a replay exercises
 * the same parsing, retries and tool-call handling as the original run.
 *
 * Config: `kind = "replay"` with `file = "<recording.jsonl>"` (relative to the working
 * directory) and optionally `strict = true` to require identical request bodies.
 *
 * @module
 */
import { type BodyBuffer, bodyEncoding, type EncodedBody } from "../body_buffer.ts";
import { createProvider, type ProviderSettings } from "../registry.ts";
import { DEFAULT_RETRY_POLICY } from "../retry.ts";
import type { Chunk, Provider, ProviderRequest } from "../types.ts";
import { parseRecording, ReplayError, replayFetch } from "./reader.ts";
import { ProviderOptionError } from "../errors.ts";

/** A provider answering from a recording. */
export class ReplayProvider implements Provider {
  readonly name: string;
  readonly #inner: Provider;
  #diverged: ReplayError | undefined;

  constructor(settings: ProviderSettings) {
    this.name = settings.name;
    const file = settings.options?.file;
    if (typeof file !== "string" || file === "") {
      throw new ProviderOptionError(
        settings.name,
        "file",
        'the path of a recording (file = "...")',
      );
    }
    const strict = settings.options?.strict;
    if (strict !== undefined && typeof strict !== "boolean") {
      throw new ProviderOptionError(settings.name, "strict", "true or false");
    }
    let text: string;
    try {
      text = Deno.readTextFileSync(file);
    } catch (error) {
      throw new ReplayError(`cannot read the recording ${file}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const recording = parseRecording(text, file);
    const { kind, model, options } = recording.provider;
    if (kind === "replay") throw new ReplayError(`${file}: a recording of a replay`);
    const first = recording.exchanges[0];
    this.#inner = createProvider(kind, {
      name: settings.name,
      model,
      // The recorded kind builds the same URL the original run used.
      requestUrl: first?.url ?? "http://replay.invalid/",
      options,
      // Recorded failures are replayed as recorded; waiting between them proves nothing.
      retry: {
        maxAttempts: settings.retry?.maxAttempts ?? DEFAULT_RETRY_POLICY.maxAttempts,
        baseDelayMs: 0,
        maxDelayMs: 0,
      },
      idleTimeoutMs: settings.idleTimeoutMs,
      onOutputLimit: settings.onOutputLimit,
      fetch: replayFetch(recording, {
        strict,
        onMismatch: (error) => {
          this.#diverged ??= error;
        },
      }),
    });
  }

  /** The body the recorded kind sends for `req`; see {@link Provider.body}. */
  body(req: ProviderRequest): string {
    return this.#inner.body?.(req) ?? JSON.stringify(req);
  }

  /** Encodes through the recorded kind, whose `stream` then sends these bytes. */
  encode(req: ProviderRequest, buffer: BodyBuffer): EncodedBody {
    return bodyEncoding(this.#inner)?.encode(req, buffer) ?? buffer.encode([this.body(req)]);
  }

  /** The recorded kind's cache-keyed parameters; see {@link Provider.cacheKey}. */
  cacheKey(req: ProviderRequest): string {
    return this.#inner.cacheKey?.(req) ?? "";
  }

  /** Streams the next recorded completion; see {@link Provider.stream}. */
  async *stream(req: ProviderRequest, opts: { signal: AbortSignal }): AsyncIterable<Chunk> {
    try {
      yield* this.#inner.stream(req, opts);
    } catch (error) {
      // The inner kind reports a rejected fetch as a network error; say what really happened.
      if (this.#diverged) throw this.#diverged;
      throw error;
    }
  }
}

/** Builds a `replay` provider; the factory registered for the kind. */
export function createReplayProvider(settings: ProviderSettings): Provider {
  return new ReplayProvider(settings);
}
