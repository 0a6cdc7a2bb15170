/**
 * Context windows of well-known models, as their vendors document them. Data only: the
 * configuration layer suggests a value from here when a `[[providers]]` table has no
 * `context_window`, and `reasonix setup` presets can take their model lists from it. It is
 * never used as a silent default: a window that is wrong for the endpoint (a gateway or a local
 * server started with a smaller one) would overflow, so the user always writes the value.
 *
 * @module
 */

/** OpenAI models and their context windows in tokens. */
export const OPENAI_CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  "gpt-5.5": 1_050_000,
  "gpt-5.4": 1_050_000,
  "gpt-5.4-mini": 400_000,
  "gpt-5": 400_000,
  "gpt-5-mini": 400_000,
  "gpt-4.1": 1_047_576,
  "gpt-4o": 128_000,
};

/** Anthropic Claude models and their context windows in tokens. */
export const ANTHROPIC_CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  "claude-sonnet-4-6": 1_000_000,
  "claude-opus-4-7": 1_000_000,
  "claude-opus-4-6": 1_000_000,
  "claude-haiku-4-5": 200_000,
  "claude-sonnet-4-5": 200_000,
  "claude-opus-4-5": 200_000,
};

/** DeepSeek models (both APIs) and their context windows in tokens. */
export const DEEPSEEK_CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  "deepseek-v4-flash": 1_000_000,
  "deepseek-v4-pro": 1_000_000,
  "deepseek-flash": 1_000_000,
  "deepseek-v4-flash-vision-exp": 1_000_000,
};

/** Qwen (DashScope) models and their context windows in tokens. */
export const QWEN_CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  "qwen3-coder-plus": 1_000_000,
  "qwen3.6-plus": 1_000_000,
  "qwen3-max": 262_144,
  "qwen3-coder-flash": 1_000_000,
};

/** Moonshot Kimi models and their context windows in tokens. */
export const KIMI_CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  "kimi-k2.6": 262_144,
  "kimi-k2.5": 262_144,
  "kimi-k2-thinking": 262_144,
};

/** Zhipu GLM models and their context windows in tokens. */
export const GLM_CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  "glm-5": 202_752,
  "glm-4.6": 202_752,
  "glm-4.5": 131_072,
  "glm-4.5-air": 131_072,
};

/** Every table above in one: model id → context window in tokens. */
export const KNOWN_CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  ...DEEPSEEK_CONTEXT_WINDOWS,
  ...OPENAI_CONTEXT_WINDOWS,
  ...ANTHROPIC_CONTEXT_WINDOWS,
  ...QWEN_CONTEXT_WINDOWS,
  ...KIMI_CONTEXT_WINDOWS,
  ...GLM_CONTEXT_WINDOWS,
};

/**
 * The documented context window of `model`, or `undefined` for a model not in the table. A
 * gateway's spelling is matched too: a vendor prefix (`openai/gpt-5.5` on OpenRouter), letter
 * case, and a dated or `-latest` suffix (`claude-haiku-4-5-20251001`).
 */
export function knownContextWindow(model: string): number | undefined {
  const bare = model.trim().toLowerCase().replace(/^.*\//, "");
  const exact = KNOWN_CONTEXT_WINDOWS[bare];
  if (exact !== undefined) return exact;
  const undated = bare.replace(/-(latest|\d{8}|\d{4}-\d{2}-\d{2})$/, "");
  return KNOWN_CONTEXT_WINDOWS[undated];
}
