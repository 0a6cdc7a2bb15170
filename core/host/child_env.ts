/**
 * The environment of the programs Reasonix starts (`bash` commands, MCP servers): the process
 * environment without the secrets Reasonix holds for itself, so a command the model writes or
 * a server a repository declares cannot read them from its environment.
 *
 * Removed: every provider's `api_key_env` variable and every variable the home `.env` defines
 * (it holds provider keys and the tokens user-level MCP declarations expand), except those the
 * user lists in `[tools] pass_env`.
 *
 * @module
 */
import type { Config } from "../config/types.ts";

/** What the child environment depends on in the configuration. */
export interface ChildEnvConfig {
  providers: readonly Pick<Config["providers"][number], "api_key_env">[];
  tools: Pick<Partial<Config["tools"]>, "pass_env">;
}

/** A child environment and the names that were taken out of it. */
export interface ChildEnv {
  env: Record<string, string>;
  /** Names removed from the process environment, sorted. */
  removed: string[];
  /** Every name kept back from children, present in the environment or not. */
  withheld: ReadonlySet<string>;
}

/** The names a child must not see: provider keys and home `.env` variables, less `pass_env`. */
export function withheldNames(opts: {
  config: ChildEnvConfig;
  homeEnv: Record<string, string>;
}): Set<string> {
  const names = new Set<string>(Object.keys(opts.homeEnv));
  for (const p of opts.config.providers) if (p.api_key_env) names.add(p.api_key_env);
  for (const name of opts.config.tools.pass_env ?? []) names.delete(name);
  return names;
}

/** The environment for child processes, from the process environment `env`. */
export function childEnv(opts: {
  env: Record<string, string | undefined>;
  config: ChildEnvConfig;
  homeEnv: Record<string, string>;
}): ChildEnv {
  const withheld = withheldNames(opts);
  const env: Record<string, string> = {};
  const removed: string[] = [];
  for (const [name, value] of Object.entries(opts.env)) {
    if (value === undefined) continue;
    if (withheld.has(name)) removed.push(name);
    else env[name] = value;
  }
  return { env, removed: removed.sort(), withheld };
}
