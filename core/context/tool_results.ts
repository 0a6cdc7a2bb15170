/**
 * `session:tool_result`: explicit paging through the full local text of a tool result whose
 * provider-visible `Content` was shortened. The page enters the context only because the model
 * asked for it; sampling, retries, summaries and replay keep using the bounded `Content`.
 *
 * @module
 */
import type { Message } from "../../providers/types.ts";
import type { Capability } from "../../tools/capability.ts";

/** Characters per page unless the model asks for fewer. */
export const PAGE_CHARS = 20_000;

/** The capability over a live message list. */
export function toolResultCapability(messages: () => readonly Message[]): Capability {
  return {
    id: "session:tool_result",
    description:
      "Read the full text of an earlier tool result that was shortened, a page at a time.",
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
      const end = Math.min(full.length, offset + limit);
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
