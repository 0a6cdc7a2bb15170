/**
 * The summary request of a compaction. It reuses the live request's system prompt, tool
 * schemas and message prefix and appends only the compaction instruction, so it is served
 * from the provider's prefix cache like any other turn.
 *
 * @module
 */
import { ContextOverflowError, ProviderError } from "../../providers/errors.ts";
import type { Message, Provider, ProviderRequest, Usage } from "../../providers/types.ts";

/** Output cap of a summary request (spec §3.6). */
export const SUMMARY_MAX_TOKENS = 8192;

/** Tool results are cut to this many characters in the bounded-transcript fallback. */
export const BOUNDED_RESULT_CHARS = 2000;

/** The instruction appended after the selected prefix. */
export const COMPACTION_INSTRUCTION = `<compaction-request>
The conversation so far is about to be replaced by your summary to free context space. Do not
call any tool. Write the summary now, as plain text, so that work can continue from it alone:

1. Task: the user's requests and goals, quoting exact wording where it matters.
2. Decisions and constraints: what was agreed, ruled out or required.
3. Files and code: paths touched or studied, what changed and why, key snippets if essential.
4. Commands and results: builds, tests and their outcomes; errors still open.
5. State: what is done, what is in progress, what is next.

If an earlier <checkpoint> summary is present, merge it with the newer history into one summary.
Be dense and factual; omit pleasantries.
</compaction-request>`;

/**
 * The compaction instruction, with the user's own wishes for this summary (`/compact <focus>`)
 * after the standard ones. Both sit at the end of the request, so the cached prefix is unchanged.
 */
export function compactionInstruction(focus?: string): string {
  const wish = focus?.trim();
  if (!wish) return COMPACTION_INSTRUCTION;
  return `${COMPACTION_INSTRUCTION}\n\nThe user adds these instructions for this summary:\n${wish}`;
}

/** What a summary attempt produced. */
export type SummaryOutcome =
  | { ok: true; text: string; usage?: Usage }
  | {
    ok: false;
    reason: string;
    /** The provider said the summary request itself does not fit. */
    overflow: boolean;
    usage?: Usage;
    /** A prompt size stated by the provider's error, for recalibration. */
    statedPromptTokens?: number;
    /** The context window the provider's error stated. */
    statedLimit?: number;
  };

/** A count as servers print it: `16000`, `16,000`, `16_000`. */
function count(text: string): number | undefined {
  const n = Number(text.replace(/[,_]/g, ""));
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

// How servers word the window in a context-length error, most specific first:
// OpenAI, DeepSeek, vLLM: "This model's maximum context length is 16000 tokens. However, ..."
// Anthropic: "prompt is too long: 210000 tokens > 200000 maximum"
// Others: "exceeds the context window of 16000 tokens", "context length limit of 16000 tokens"
const LIMIT_PATTERNS: readonly RegExp[] = [
  /maximum context length is (\d[\d,_]*)/i,
  /\d[\d,_]*\s*tokens?\s*>\s*(\d[\d,_]*)\s*(?:tokens?\s*)?maximum/i,
  /context (?:window|length)(?: limit)? (?:of|is) (\d[\d,_]*)/i,
  /(?:maximum|max) (?:input|prompt|context)(?: length| size| tokens)? (?:is|of) (\d[\d,_]*)/i,
];

/** The context window an overflow message states, if it states one. */
export function statedLimit(message: string): number | undefined {
  for (const pattern of LIMIT_PATTERNS) {
    const match = pattern.exec(message);
    const n = match ? count(match[1]) : undefined;
    if (n !== undefined) return n;
  }
  return undefined;
}

/**
 * The prompt size an overflow message states: the count "in the messages" when it splits the
 * request, else the largest count (the prompt is larger than the limit).
 */
export function statedTokens(message: string): number | undefined {
  const split = /(\d[\d,_]*)\s*(?:tokens?\s*)?in the messages/i.exec(message);
  if (split) return count(split[1]);
  const counts = [...message.matchAll(/(\d[\d,_]*)\s*(?:input\s+)?tokens/gi)].map((m) =>
    Number(m[1].replace(/[,_]/g, ""))
  ).filter((n) => Number.isFinite(n) && n > 0);
  return counts.length ? Math.max(...counts) : undefined;
}

/** Renders messages as one bounded text, for the last-resort summary request. */
export function boundedTranscript(messages: readonly Message[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    if (m.role === "tool") {
      const text = m.content.length > BOUNDED_RESULT_CHARS
        ? `${m.content.slice(0, BOUNDED_RESULT_CHARS)} [... cut]`
        : m.content;
      lines.push(`[tool result ${m.name ?? ""}]\n${text}`);
      continue;
    }
    const calls = (m.toolCalls ?? []).map((c) => `[tool call ${c.name} ${c.arguments}]`).join("\n");
    lines.push(`[${m.role}]\n${m.content}${calls ? `\n${calls}` : ""}`);
  }
  return `<transcript>\n${lines.join("\n\n")}\n</transcript>`;
}

/** Sends one summary request and judges its output. Never forges a summary. */
export async function requestSummary(
  provider: Provider,
  request: ProviderRequest,
  opts: { signal: AbortSignal; timeoutMs: number },
): Promise<SummaryOutcome> {
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = AbortSignal.any([opts.signal, timeout]);
  let text = "";
  let usage: Usage | undefined;
  let finish = "stop";
  try {
    for await (const chunk of provider.stream(request, { signal })) {
      if (chunk.type === "text") text += chunk.text;
      else if (chunk.type === "usage") usage = chunk.usage;
      else if (chunk.type === "done") finish = chunk.finishReason;
    }
  } catch (error) {
    if (opts.signal.aborted) throw opts.signal.reason;
    if (timeout.aborted) {
      return { ok: false, reason: "the summary request timed out", overflow: false, usage };
    }
    if (error instanceof ContextOverflowError) {
      return {
        ok: false,
        reason: "the summary request does not fit the context window",
        overflow: true,
        statedPromptTokens: statedTokens(error.message),
        statedLimit: statedLimit(error.message),
      };
    }
    const message = error instanceof ProviderError ? error.message : String(error);
    return { ok: false, reason: `the summary request failed: ${message}`, overflow: false, usage };
  }
  if (finish === "length") {
    return { ok: false, reason: "the summary hit its output cap", overflow: false, usage };
  }
  if (!text.trim()) return { ok: false, reason: "the summary was empty", overflow: false, usage };
  return { ok: true, text: text.trim(), usage };
}
