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
        out(event.text);
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
        const summary = firstLine(event.result.content);
        sinks.err(
          event.result.isError ? red(`  ✗ ${summary}\n`) : dim(`  ⎿ ${summary}\n`),
        );
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
        }
        break;
    }
  };
}
