/**
 * The built-in defaults: the lowest configuration layer.
 *
 * @module
 */
import type { LayerData } from "./schema.ts";

// Official DeepSeek models (https://api-docs.deepseek.com/quick_start/pricing).
const DEEPSEEK_MODELS = [
  "deepseek-flash",
  "deepseek-v4-flash",
  "deepseek-v4-pro",
  "deepseek-v4-flash-vision-exp",
] as const;

/** How the built-in layer is named in messages and provenance. */
export const BUILTIN_SOURCE = "built-in defaults";

/**
 * A fresh copy of the built-in defaults layer (callers may mutate it). The default provider
 * speaks DeepSeek's Anthropic-compatible API (spec §5); `deepseek-openai` is the same models
 * over the OpenAI-compatible API, for `--model deepseek-openai` or `deepseek-openai/<model>`.
 */
export function builtinDefaults(): LayerData {
  return {
    default_model: "deepseek",
    agent: {
      max_turns: 100,
      compact_ratio: 0.8,
      reasoning_language: "auto",
    },
    providers: [
      {
        name: "deepseek",
        kind: "anthropic",
        base_url: "https://api.deepseek.com/anthropic",
        models: [...DEEPSEEK_MODELS],
        default: "deepseek-v4-flash",
        api_key_env: "DEEPSEEK_API_KEY",
        context_window: 1_000_000,
        max_output_tokens: 0,
      },
      {
        name: "deepseek-openai",
        kind: "openai",
        base_url: "https://api.deepseek.com",
        models: [...DEEPSEEK_MODELS],
        default: "deepseek-v4-flash",
        api_key_env: "DEEPSEEK_API_KEY",
        context_window: 1_000_000,
        max_output_tokens: 0,
      },
    ],
    tools: {
      enabled: [],
      bash_timeout_seconds: 120,
      mcp_startup_timeout_seconds: 30,
      mcp_call_timeout_seconds: 300,
    },
    permissions: { mode: "ask", allow: [], ask: [], deny: [] },
    sandbox: { allow_write: [], forbid_read: [] },
    mcp: {},
  };
}
