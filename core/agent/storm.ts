/**
 * Breaks identical tool-call storms: a model that repeats the same failing call gets a
 * reminder on the second identical failure and a refusal after that, keyed on the tool, its
 * arguments and the error it keeps producing.
 *
 * @module
 */
import type { ToolCall } from "../../providers/types.ts";
import type { ToolResult } from "../../tools/types.ts";

/** Identical failures before the reminder is attached. */
export const REMIND_AFTER = 2;
/** Identical failures after which the call is refused without running. */
export const REFUSE_AFTER = 3;

/** Canonical key of a call: name plus arguments with insignificant whitespace removed. */
function callKey(call: ToolCall): string {
  let args = call.arguments.trim();
  try {
    args = JSON.stringify(JSON.parse(args || "{}"));
  } catch {
    // not JSON: keep the text as is
  }
  return `${call.name}\u0000${args}`;
}

/** Per-run storm state. */
export class StormBreaker {
  readonly #failures = new Map<string, { error: string; count: number }>();

  /** A refusal result when this exact call already failed the same way too often. */
  refusal(call: ToolCall): ToolResult | undefined {
    const seen = this.#failures.get(callKey(call));
    if (!seen || seen.count < REFUSE_AFTER - 1) return undefined;
    seen.count++;
    return {
      content:
        `Refused: ${call.name} was called ${seen.count - 1} times with these exact arguments ` +
        `and failed the same way each time:\n${seen.error}\nIt was not run again. Change the ` +
        "arguments or take a different approach.",
      isError: true,
      code: "repeated_failure",
    };
  }

  /** Records a result; returns it with a reminder attached on a repeated identical failure. */
  observe(call: ToolCall, result: ToolResult): ToolResult {
    const key = callKey(call);
    if (!result.isError) {
      this.#failures.delete(key);
      return result;
    }
    const seen = this.#failures.get(key);
    if (!seen || seen.error !== result.content) {
      this.#failures.set(key, { error: result.content, count: 1 });
      return result;
    }
    seen.count++;
    if (seen.count < REMIND_AFTER) return result;
    return {
      ...result,
      content:
        `${result.content}\n\n[Reminder: ${seen.count} identical calls have now failed with ` +
        "this same error. Repeating it will not help; the next identical call will be refused.]",
    };
  }
}
