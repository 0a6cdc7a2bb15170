/**
 * `reasonix setup` and the offer to run it before the first interactive session. Loaded
 * lazily (`cli/lazy.ts`); the prompt library loads only when a terminal session asks.
 *
 * @module
 */
// The provider kinds register on import: the key test builds a real provider.
import "../../providers/builtin_kinds.ts";
import { loadConfig, loadHomeDotenv, reasonixHome, resolveModel } from "../../core/config/mod.ts";
import { EXIT_OK, EXIT_USAGE } from "../exit_codes.ts";
import type { CliContext } from "../commands/execute.ts";
import type { SetupOptions } from "../commands/types.ts";
import { runSetup } from "./flow.ts";
import type { Prompter } from "./prompter.ts";

async function terminalPrompter(): Promise<Prompter> {
  const prompts = await import("./prompts.ts");
  return prompts.terminalPrompter();
}

function onTerminal(): boolean {
  return Deno.stdin.isTerminal() && Deno.stdout.isTerminal();
}

async function readStdin(): Promise<string> {
  return await new Response(Deno.stdin.readable).text();
}

/** Runs `reasonix setup` (parsed by `cli/commands/setup.ts`) and returns the exit code. */
export async function setupCommand(opts: SetupOptions, ctx: CliContext): Promise<number> {
  const env = ctx.env ?? Deno.env.toObject();
  // `--api-key-stdin` takes standard input, so the questions could not be answered there.
  const interactive = !opts.yes && !opts.apiKeyStdin;
  if (interactive && !onTerminal()) {
    ctx.io.err(
      "reasonix setup: no terminal to ask on\n" +
        "fix: pass every choice as flags with --yes, e.g. reasonix setup --preset openai " +
        "--api-key-env OPENAI_API_KEY --model gpt-5.5 --yes",
    );
    return EXIT_USAGE;
  }
  return await runSetup(opts, {
    io: ctx.io,
    prompter: interactive ? await terminalPrompter() : undefined,
    env,
    home: reasonixHome(env),
    readStdin,
  });
}

/**
 * Before a bare `reasonix` opens the session: when the model it would use needs a key that is
 * neither in the environment nor in the home `.env`, asks whether to run the setup first.
 * `undefined` starts the session (after a finished setup, or when the user declines); a
 * number is the exit code to stop with. A broken configuration is left to the session to
 * report, as before.
 */
export async function offerSetup(
  opts: { model?: string },
  ctx: CliContext,
): Promise<number | undefined> {
  const env = ctx.env ?? Deno.env.toObject();
  let missing: string;
  let home: string;
  try {
    home = reasonixHome(env);
    const config = await loadConfig({ cwd: ctx.cwd ?? Deno.cwd(), env, home });
    const { provider } = resolveModel(config, opts.model);
    const name = provider.api_key_env;
    if (!name || env[name] || (await loadHomeDotenv(home))[name]) return undefined;
    missing = `provider "${provider.name}" needs ${name}, which is not set`;
  } catch {
    return undefined;
  }
  const ask = await terminalPrompter();
  let go: boolean;
  try {
    go = await ask.confirm({ message: `No usable provider: ${missing}. Run reasonix setup now?` });
  } catch {
    return undefined;
  }
  if (!go) return undefined;
  const code = await runSetup({ test: true, yes: false, apiKeyStdin: false }, {
    io: ctx.io,
    prompter: ask,
    env,
    home,
  });
  return code === EXIT_OK ? undefined : code;
}
