/**
 * Command-line flags: the highest configuration layer.
 *
 * @module
 */
import { ConfigError } from "./errors.ts";
import type { Config } from "./types.ts";

/** Flags the CLI lets override configuration. */
export interface ConfigFlags {
  /** `--model`: a provider, `provider/model` or model name; replaces `default_model`. */
  model?: string;
  /** `--max-turns`. */
  maxTurns?: number;
  /** `--permission-mode`. */
  permissionMode?: string;
  /** `--allow` rules, added to `permissions.allow`. */
  allow?: string[];
  /** `--deny` rules, added to `permissions.deny`. */
  deny?: string[];
}

/**
 * Returns a copy of `config` with the flags applied. Rules are added, never removed, so a
 * flag cannot lift a configured deny. Throws {@link ConfigError} for an invalid value.
 */
export function applyFlags<T extends Config>(config: T, flags: ConfigFlags): T {
  const out = structuredClone(config);
  if (flags.model !== undefined) {
    if (flags.model.trim() === "") {
      throw new ConfigError({
        problem: "--model is empty",
        fix: "pass --model provider/model, a provider name or a model name",
      });
    }
    out.default_model = flags.model.trim();
    out.default_model_from = "--model";
    delete out.default_model_line;
  }
  if (flags.maxTurns !== undefined) {
    if (!Number.isInteger(flags.maxTurns) || flags.maxTurns < 1) {
      throw new ConfigError({
        problem: `--max-turns must be a whole number greater than 0, got ${flags.maxTurns}`,
        fix: "pass --max-turns N with N >= 1",
      });
    }
    out.agent.max_turns = flags.maxTurns;
  }
  if (flags.permissionMode !== undefined) {
    if (flags.permissionMode.trim() === "") {
      throw new ConfigError({
        problem: "--permission-mode is empty",
        fix: "pass a permission mode such as --permission-mode ask",
      });
    }
    out.permissions.mode = flags.permissionMode.trim();
  }
  if (flags.allow) out.permissions.allow = [...new Set([...out.permissions.allow, ...flags.allow])];
  if (flags.deny) out.permissions.deny = [...new Set([...out.permissions.deny, ...flags.deny])];
  return out;
}
