/**
 * Plain-text rendering of agent events for headless runs: the answer goes to stdout,
 * everything else (reasoning, tool activity, notices) to stderr.
 *
 * @module
 */
import type { AgentEvent } from "../core/agent/events.ts";

const encoder = new TextEncoder();

/** Where rendered text goes. */
export interface PlainSinks {
  /** The answer. `undefined` suppresses it (e.g. `--json`). */
  out?: (text: string) => void;
  /** Diagnostics. */
  err: (text: string) => void;
  /** Use ANSI styling on diagnostics. */
  color: boolean;
}

/** Writes to a Deno stream synchronously, so output interleaves in order. */
export function syncWriter(file: { writeSync(p: Uint8Array): number }): (text: string) => void {
  return (text) => {
    const bytes = encoder.encode(text);
    let written = 0;
    while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
  };
}

function firstLine(text: string, max = 160): string {
  const line = text.split("\n", 1)[0];
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** A short human summary of a tool call's arguments. */
export function describeCall(name: string, args: string): string {
  try {
    const a = JSON.parse(args || "{}") as Record<string, unknown>;
    const key = ["command", "path", "pattern", "source"].find((k) => typeof a[k] === "string");
    return key ? `${name} ${firstLine(String(a[key]), 120)}` : name;
  } catch {
    return name;
  }
}

/** Lines of a result that are not notes (`[…]`) or blank. */
function bodyLines(text: string): string[] {
  return text.split("\n").filter((l) => l.trim() && !/^\[.*\]$/.test(l.trim()));
}

/**
 * What a tool card says about a result: what it found or did, not only its first line (an `ls`
 * whose first entry is `.git/` is not an empty repository). Commands show their exit code and
 * their last lines.
 */
export function resultSummary(
  call: { name: string },
  result: { content: string; isError?: boolean; meta?: Record<string, unknown> },
): string[] {
  const text = result.content;
  // A command that ran has an exit status; one that did not (refused, no sandbox) says why.
  const ran = result.meta?.exitCode !== undefined || result.meta?.timedOut ||
    result.meta?.cancelled;
  if (call.name === "bash" && ran) {
    const lines = bodyLines(text);
    const exit = lines.findLast((l) =>
      /^Exit code: /.test(l) || /^Command (timed out|cancelled)/.test(l)
    );
    const output = lines.filter((l) => l !== exit);
    const status = exit?.replace(/^Exit code: /, "exit ") ?? "";
    const tail = output.slice(-3).map((l) => firstLine(l, 160));
    const more = output.length > 3 ? ` (last 3 of ${output.length} lines)` : "";
    return [`${status || "done"}${output.length ? more || ":" : ", no output"}`, ...tail];
  }
  if (result.isError) return [firstLine(text)];
  const lines = bodyLines(text);
  const n = lines.length;
  switch (call.name) {
    case "read_file":
      return [
        /^\s*\d+\t/.test(lines[0] ?? "") ? `read ${n} line${n === 1 ? "" : "s"}` : firstLine(text),
      ];
    case "ls":
      return [
        n && !/ is empty\.| shows no entries/.test(text)
          ? `${n} entr${n === 1 ? "y" : "ies"}: ${firstLine(lines.slice(0, 5).join("  "))}`
          : firstLine(text),
      ];
    case "glob":
      return [
        /^No files match/.test(text)
          ? firstLine(text)
          : `${n} file${n === 1 ? "" : "s"}: ${firstLine(lines.slice(0, 3).join("  "))}`,
      ];
    case "grep":
      return [
        /^No matches/.test(text) ? firstLine(text) : `${n} matching line${n === 1 ? "" : "s"}`,
      ];
    default:
      return [firstLine(text)];
  }
}

/** Returns a renderer that writes each event as it arrives. */
export function plainRenderer(sinks: PlainSinks): (event: AgentEvent) => void {
  const dim = (s: string) => sinks.color ? `\x1b[2m${s}\x1b[22m` : s;
  const red = (s: string) => sinks.color ? `\x1b[31m${s}\x1b[39m` : s;
  let inReasoning = false;
  let atLineStart = true;
  const out = (text: string) => {
    if (!sinks.out || !text) return;
    sinks.out(text);
    atLineStart = text.endsWith("\n");
  };
  const endReasoning = () => {
    if (inReasoning) sinks.err("\n");
    inReasoning = false;
  };
  const breakLine = () => {
    if (!atLineStart) out("\n");
  };
  return (event) => {
    switch (event.type) {
      case "reasoning":
        if (!inReasoning) sinks.err(dim("thinking: "));
        inReasoning = true;
        sinks.err(dim(event.text));
        break;
      case "text":
        endReasoning();
        // The planner's prose is research, not the answer: stdout keeps the executor's.
        if (event.agent === "planner") sinks.err(dim(event.text));
        else out(event.text);
        break;
      case "route":
        if (event.route !== "executor") {
          sinks.err(
            dim(`planner: ${event.route.replace("_", " ")} (${event.reason.replace("_", " ")})\n`),
          );
        }
        break;
      case "plan":
        endReasoning();
        breakLine();
        if (event.status === "submitted") {
          sinks.err(dim(`plan ${event.plan.id}: ${event.plan.title}\n`));
        }
        // A plan that is the result of the run is its answer.
        if (event.status === "saved" || event.status === "pending") out(`${event.plan.text}\n`);
        if (event.status === "rejected") sinks.err(`plan ${event.plan.id} was not approved\n`);
        break;
      case "tool_start":
        endReasoning();
        breakLine();
        sinks.err(`● ${describeCall(event.call.name, event.call.arguments)}\n`);
        break;
      case "tool_progress":
        sinks.err(dim(`  … ${firstLine(event.message)}\n`));
        break;
      case "tool_end": {
        const [head, ...rest] = resultSummary(event.call, event.result);
        const lines = [head, ...rest.map((l) => `  ${l}`)].join("\n    ");
        sinks.err(event.result.isError ? red(`  ✗ ${lines}\n`) : dim(`  ⎿ ${lines}\n`));
        break;
      }
      case "attachments":
        endReasoning();
        sinks.err(dim(`attached: ${event.labels.join(", ")}\n`));
        break;
      case "notice":
        endReasoning();
        sinks.err(`${event.level === "warning" ? "warning" : "note"}: ${event.message}\n`);
        break;
      case "done":
        endReasoning();
        breakLine();
        if (event.status === "error" && event.error) {
          sinks.err(red(`error: ${event.error.message}\n`));
        } else if (event.status === "max_turns") {
          sinks.err(
            red(`stopped: reached the turn limit (${event.turns}); raise it with --max-turns\n`),
          );
        } else if (event.status === "budget_exceeded" || event.status === "timeout") {
          sinks.err(red(`stopped: ${event.detail ?? event.status}\n`));
        } else if (event.status === "cancelled") {
          sinks.err("cancelled\n");
        } else if (event.status === "awaiting_approval") {
          sinks.err(`waiting: ${event.detail ?? "a plan waits for approval"}\n`);
        }
        break;
    }
  };
}
