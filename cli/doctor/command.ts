/**
 * `reasonix doctor [--json]`: runs the checks and prints them, as text or as one JSON
 * document on stdout and nothing else. Exit 1 when a run here would fail.
 *
 * @module
 */
import { EXIT_FAILURE, EXIT_OK } from "../exit_codes.ts";
import type { CliContext } from "../commands/execute.ts";
import { type DoctorReport, runDoctor } from "./checks.ts";

/** `reasonix doctor` as the command line asks for it. */
export interface DoctorRequest {
  json: boolean;
  /** `--timeout <seconds>` per endpoint and for the sandbox command. */
  timeoutMs?: number;
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** The report as the lines `reasonix doctor` prints. */
export function renderDoctor(r: DoctorReport): string[] {
  const lines: string[] = [];
  const mark = (ok: boolean) => ok ? "ok  " : "FAIL";
  lines.push(
    `Reasonix ${r.reasonix.version}${
      r.reasonix.commit ? ` (${r.reasonix.commit.slice(0, 12)})` : ""
    }` +
      ` on Deno ${r.reasonix.deno} (V8 ${r.reasonix.v8}), ${r.reasonix.target}`,
  );
  lines.push(`Home ${r.home}`);
  lines.push("", "Configuration");
  if (r.config.files.length === 0) lines.push("  no configuration file: built-in defaults");
  for (const f of r.config.files) lines.push(`  ${f}`);
  if (r.config.defaultModel) lines.push(`  default model: ${r.config.defaultModel}`);
  for (const w of r.config.warnings) lines.push(`  warning: ${w}`);
  lines.push("", "Providers");
  for (const p of r.providers) {
    const key = p.key.env === null
      ? "no key needed"
      : `${p.key.env} ${p.key.present ? "set" : "missing"}`;
    const ok = (p.key.env === null || p.key.present) && p.reachable !== "refused" &&
      p.reachable !== "unreachable";
    lines.push(
      `  ${mark(ok)} ${p.name}${p.default ? " (default)" : ""}: ${key}; ` +
        `${p.endpoint ?? "no endpoint"} ${p.reachable}${p.detail ? ` (${p.detail})` : ""}`,
    );
  }
  lines.push("", "Sandbox");
  if (r.sandbox) {
    lines.push(
      `  ${mark(r.sandbox.status !== "broken")} ${r.sandbox.backend}, mode ${r.sandbox.mode}: ` +
        `${r.sandbox.status}${r.sandbox.detail ? ` (${r.sandbox.detail.split("\n")[0]})` : ""}`,
    );
  } else lines.push("  not checked (the configuration did not load)");
  lines.push("", "MCP servers");
  if (r.mcp.length === 0) lines.push("  none declared");
  for (const m of r.mcp) {
    const ok = m.phase === "ready" || m.trust === "untrusted";
    lines.push(
      `  ${mark(ok)} ${m.name} (${m.transport}, ${m.trust}): ${m.phase}` +
        `${m.error ? ` ${m.error}` : ""}${m.tools !== undefined ? `, ${m.tools} tool(s)` : ""}`,
    );
  }
  lines.push("", "Instruction files");
  if (r.instructions.length === 0) lines.push("  none (REASONIX.md, AGENTS.md, CLAUDE.md)");
  for (const f of r.instructions) lines.push(`  ${f.name} (${f.chars} characters)`);
  lines.push("", "Sessions");
  lines.push(`  ${r.sessions.dir}: ${r.sessions.files} file(s), ${size(r.sessions.bytes)}`);
  if (r.notes.length) {
    lines.push("", "Notes");
    for (const n of r.notes) lines.push(`  ${n}`);
  }
  lines.push("");
  if (r.problems.length === 0) lines.push("Everything a run needs works.");
  else {
    lines.push(`${r.problems.length} problem(s) stop a run here:`);
    for (const p of r.problems) {
      lines.push(`  ${p.check}: ${p.problem}`);
      lines.push(`    fix: ${p.fix}`);
    }
  }
  return lines;
}

/** Runs `reasonix doctor` and returns its exit code. */
export async function doctorCommand(request: DoctorRequest, ctx: CliContext): Promise<number> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  try {
    Deno.addSignalListener("SIGINT", stop);
  } catch {
    // No signal support (Windows without a console): Ctrl-C ends the process anyway.
  }
  try {
    const report = await runDoctor({
      cwd: ctx.cwd ?? Deno.cwd(),
      env: ctx.env ?? Deno.env.toObject(),
      timeoutMs: request.timeoutMs,
      signal: controller.signal,
    });
    if (request.json) ctx.io.out(JSON.stringify(report, null, 2));
    else for (const line of renderDoctor(report)) ctx.io.out(line);
    return report.ok ? EXIT_OK : EXIT_FAILURE;
  } finally {
    try {
      Deno.removeSignalListener("SIGINT", stop);
    } catch {
      // Never added.
    }
  }
}
