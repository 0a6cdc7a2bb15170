/**
 * The key test: one tiny completion through the real provider code, the same path a run takes,
 * so a wrong key, base URL, kind or model fails here and not in the first task.
 *
 * @module
 */
import "../../providers/builtin_kinds.ts";
import { providerFromConfig } from "../../core/config/mod.ts";
import type { ProviderConfig } from "../../core/config/mod.ts";
import { ProviderError } from "../../providers/errors.ts";

/** The request sent: fixed text, a small output cap, no tools. */
export const PROBE_PROMPT = "Reply with the single word OK.";

/** What {@link probeProvider} saw. */
export type ProbeResult =
  | { ok: true; reply: string }
  | { ok: false; code: string; status?: number; message: string };

/**
 * Sends one request to `provider` for `model` with `apiKey` and reads the stream to its end.
 * A provider error is returned (its message already has the key redacted), never thrown.
 */
export async function probeProvider(
  provider: ProviderConfig,
  model: string,
  opts: { apiKey?: string; signal: AbortSignal; fetch?: typeof fetch },
): Promise<ProbeResult> {
  const client = providerFromConfig(provider, {
    name: provider.name,
    model,
    baseUrl: provider.base_url,
    requestUrl: provider.request_url,
    chatUrl: provider.chat_url,
    apiKey: opts.apiKey || undefined,
    headers: provider.headers,
    options: provider.options,
    fetch: opts.fetch,
    // One attempt: a setup check should answer fast, and a retried 401 stays a 401.
    retry: { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
  });
  let reply = "";
  try {
    const stream = client.stream({
      model,
      system: "",
      messages: [{ role: "user", content: PROBE_PROMPT }],
      tools: [],
      maxOutputTokens: 16,
    }, { signal: opts.signal });
    for await (const chunk of stream) {
      if (chunk.type === "text") reply += chunk.text;
    }
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    return { ok: false, code: error.code, status: error.status, message: error.message };
  }
  return { ok: true, reply: reply.trim() };
}
