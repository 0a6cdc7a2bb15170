/**
 * `session:tool_result`: explicit paging through the full local text of a tool result whose
 * provider-visible `Content` was shortened. The page enters the context only because the model
 * asked for it; sampling, retries, summaries and replay keep using the bounded `Content`.
 *
 * The full text is the message's `rawContent` (at most `MAX_RAW_CONTENT_BYTES`, 4 MiB), which
 * the session store keeps beside the transcript and restores on resume, so paging works for
 * every result of the session, in a later process too.
 *
 * @module
 */
import type { Message } from "../../providers/types.ts";
import type { Capability } from "../../tools/capability.ts";

/** Characters per page unless the model asks for fewer. */
export const PAGE_CHARS = 20_000;
/**
 * UTF-8 bytes of page text at most, so a page of wide characters (CJK: 3 bytes each) still fits
 * the pipeline's 32 KB result bound instead of being cut in the middle again.
 */
export const PAGE_MAX_BYTES = 30 * 1024;

/** The capability over a live message list. */
export function toolResultCapability(messages: () => readonly Message[]): Capability {
  return {
    id: "session:tool_result",
    description:
      "Read the full text of an earlier tool result that was shortened (kept up to 4 MiB), " +
      "a page at a time.",
    schema: {
      type: "object",
      properties: {
        call_id: { type: "string", description: "The tool call id whose result to read." },
        offset: { type: "integer", minimum: 0, description: "Character offset, default 0." },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: PAGE_CHARS,
          description: `Characters to return, at most ${PAGE_CHARS}.`,
        },
      },
      required: ["call_id"],
    },
    readOnly: true,
    rule: "session:tool_result",
    invoke(args) {
      const callId = typeof args.call_id === "string" ? args.call_id : "";
      const message = messages().findLast((m) => m.role === "tool" && m.toolCallId === callId);
      if (!message) {
        return Promise.resolve({
          content: `No tool result with call_id "${callId}" in this session.`,
          isError: true,
          code: "not_found",
        });
      }
      const full = message.rawContent ?? message.content;
      const offset = Math.max(0, Math.floor(Number(args.offset ?? 0)) || 0);
      const limit = Math.min(
        PAGE_CHARS,
        Math.max(1, Math.floor(Number(args.limit ?? PAGE_CHARS)) || PAGE_CHARS),
      );
      if (offset >= full.length && full.length > 0) {
        return Promise.resolve({
          content: `offset ${offset} is past the end (${full.length} characters).`,
          isError: true,
          code: "invalid_arguments",
        });
      }
      const end = pageEnd(full, offset, Math.min(full.length, offset + limit));
      const more = end < full.length
        ? `\n[... ${full.length - end} more characters; call again with offset=${end}]`
        : "";
      return Promise.resolve({
        content: `[characters ${offset}-${end} of ${full.length}]\n${
          full.slice(offset, end)
        }${more}`,
      });
    },
  };
}

/**
 * Where a page from `offset` ends: at most `end`, within {@linkcode PAGE_MAX_BYTES} of UTF-8,
 * and never between the two halves of a surrogate pair.
 */
function pageEnd(text: string, offset: number, end: number): number {
  let bytes = 0;
  let i = offset;
  while (i < end) {
    const code = text.charCodeAt(i);
    const pair = code >= 0xd800 && code <= 0xdbff && i + 1 < text.length;
    const width = pair ? 4 : code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
    const step = pair ? 2 : 1;
    if (bytes + width > PAGE_MAX_BYTES || (pair && i + 2 > end && i > offset)) break;
    bytes += width;
    i += step;
  }
  return Math.max(i, Math.min(end, offset + 1));
}
