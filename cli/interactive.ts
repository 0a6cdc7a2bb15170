/**
 * The interactive session: a line prompt that keeps one conversation across prompts.
 * Ctrl-C cancels a running turn; Ctrl-C at an empty prompt (or Ctrl-D) exits.
 *
 * @module
 */
import { createInterface } from "node:readline/promises";
import process from "node:process";
import { ReasonixError } from "../errors.ts";
import { EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";
import { plainRenderer, syncWriter } from "./render_plain.ts";
import { buildRuntime, type Runtime } from "./runtime.ts";

/** Runs the interactive session and returns the exit code. */
export async function interactive(_argv: string[]): Promise<number> {
  const err = syncWriter(Deno.stderr);
  let runtime: Runtime;
  try {
    runtime = await buildRuntime({ cwd: Deno.cwd(), env: Deno.env.toObject(), flags: {} });
  } catch (error) {
    if (error instanceof ReasonixError) {
      err(`reasonix: ${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
  for (const warning of runtime.warnings) err(`warning: ${warning}\n`);
  err(
    `reasonix · ${runtime.resolved.provider.name}/${runtime.resolved.model} · ${runtime.workspaceRoot}\n` +
      "Type a task and press Enter. Ctrl-C cancels a running turn; Ctrl-D exits.\n",
  );
  const render = plainRenderer({
    out: syncWriter(Deno.stdout),
    err,
    color: !Deno.env.get("NO_COLOR"),
  });
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
  let running: AbortController | undefined;
  let closed = false;
  rl.on("SIGINT", () => {
    if (running) {
      running.abort(new DOMException("Cancelled by the user", "AbortError"));
      return;
    }
    closed = true;
    rl.close();
  });
  rl.on("close", () => closed = true);
  try {
    while (!closed) {
      let line: string;
      try {
        line = (await rl.question("› ")).trim();
      } catch {
        break;
      }
      if (!line) continue;
      if (line === "/exit" || line === "/quit") break;
      running = new AbortController();
      try {
        for await (const event of runtime.agent.run({ text: line }, { signal: running.signal })) {
          render(event);
        }
      } finally {
        running = undefined;
      }
    }
  } finally {
    rl.close();
    await runtime.dispose();
  }
  return EXIT_OK;
}
