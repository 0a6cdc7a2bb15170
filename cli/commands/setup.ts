/**
 * `reasonix setup`: the options, checked and gathered into {@link SetupOptions}. The setup
 * itself (`cli/setup/command.ts`) and its prompt library load only when the command runs.
 *
 * @module
 */
import type { Command } from "commander";
import { lazyImport } from "../lazy.ts";
import { action, type CliContext, usageError } from "./execute.ts";
import type { SetupModule, SetupOptions } from "./types.ts";

// Kept in step with core/config/presets.ts (checked by program_test / setup_test); listed here
// so `--help` does not load the configuration modules.
const PRESETS_HELP = "deepseek, deepseek-openai, openai, openai-chat, anthropic, openrouter, " +
  "qwen, qwen-cn, kimi, kimi-cn, glm, glm-cn, ollama, lmstudio, vllm, llamacpp, " +
  "openai-compatible, anthropic-compatible";

const FOOTER = `
Presets: ${PRESETS_HELP}.

Without --yes the missing choices are asked in the terminal. With --yes nothing is asked: the
preset, the flags and the endpoint's model list decide, and a missing choice is an error.
The key is read from the variable --api-key-env names (or standard input with --api-key-stdin),
tested with one short request, and stored in ~/.reasonix/.env (mode 0600); it is never printed.
config.toml is edited in place: comments and other settings stay.

Examples:
  reasonix setup
  reasonix setup --preset openai --api-key-env OPENAI_API_KEY --model gpt-5.5 --yes
  reasonix setup --preset openai-compatible --base-url http://gpu-box:8000/v1 --model qwen3-coder --yes
  reasonix setup --preset ollama --model qwen3-coder:30b --context-window 65536 --yes

Exit codes: 0 configured; 1 the endpoint refused the key or the test request failed (nothing
written); 2 bad usage (unknown preset, a missing flag with --yes, no terminal); 130 cancelled.`;

/** What commander parsed for `setup`. */
interface RawSetupOptions {
  preset?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  apiKeyStdin?: boolean;
  model?: string;
  name?: string;
  contextWindow?: string;
  test?: boolean;
  yes?: boolean;
}

/** Adds `setup` to `parent`. */
export function defineSetup(parent: Command, ctx: CliContext): Command {
  const setup = parent
    .command("setup")
    .summary("choose a provider and model, test the key, write the configuration")
    .description(
      "Sets up a provider: a preset (DeepSeek, OpenAI, Anthropic, OpenRouter, Qwen, Kimi, GLM, " +
        "local servers, or any OpenAI- or Anthropic-compatible endpoint), a model from the " +
        "endpoint's list, and the key. Writes ~/.reasonix/config.toml and ~/.reasonix/.env.",
    )
    .option("--preset <id>", "the provider preset (see below)")
    .option("--base-url <url>", "the endpoint, for a compatible server or to override a preset's")
    .option("--api-key-env <name>", "the environment variable that holds the key")
    .option("--api-key-stdin", "read the key from standard input (implies no questions)")
    .option("--model <name>", "the model, as the endpoint names it")
    .option("--name <provider>", "the [[providers]] name to write (default: the preset's)")
    .option("--context-window <tokens>", "the model's context window, when it is not known")
    .option("--no-test", "skip the test request")
    .option("-y, --yes", "ask nothing: take every choice from the flags and the preset")
    .addHelpText("after", FOOTER);
  action(setup, async (raw: RawSetupOptions, command: Command) => {
    let contextWindow: number | undefined;
    if (raw.contextWindow !== undefined) {
      contextWindow = Number(raw.contextWindow);
      if (!Number.isInteger(contextWindow) || contextWindow < 1) {
        throw usageError(
          command,
          `--context-window must be a positive whole number of tokens, got "${raw.contextWindow}"`,
        );
      }
    }
    const opts: SetupOptions = {
      preset: raw.preset,
      baseUrl: raw.baseUrl,
      apiKeyEnv: raw.apiKeyEnv,
      apiKeyStdin: raw.apiKeyStdin === true,
      model: raw.model,
      name: raw.name,
      contextWindow,
      test: raw.test !== false,
      yes: raw.yes === true,
    };
    const { setupCommand } = await lazyImport<SetupModule>("cli/setup/command.ts");
    return await setupCommand(opts, ctx);
  });
  return setup;
}

/** The preset ids `--help` lists, for the test that keeps them in step with the presets. */
export const SETUP_HELP_PRESETS: readonly string[] = PRESETS_HELP.split(", ");
