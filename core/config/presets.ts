/**
 * Provider presets for `reasonix setup`: where each well-known endpoint lives, which wire kind
 * it speaks, which variable usually holds its key, and the context windows of its main models.
 * Data only. The DeepSeek presets are the built-in providers of {@link builtinDefaults}, read
 * from there so the two never disagree.
 *
 * @module
 */
import { builtinDefaults } from "./defaults.ts";
import {
  ANTHROPIC_CONTEXT_WINDOWS,
  GLM_CONTEXT_WINDOWS,
  KIMI_CONTEXT_WINDOWS,
  OPENAI_CONTEXT_WINDOWS,
  QWEN_CONTEXT_WINDOWS,
} from "./known_models.ts";

/** The group a preset is listed under. */
export type PresetGroup = "hosted" | "local" | "generic";

/** One provider preset. */
export interface ProviderPreset {
  /** What `--preset` takes, e.g. `openai`. */
  id: string;
  /** How the preset is shown in the interactive list. */
  label: string;
  group: PresetGroup;
  /** The `[[providers]]` name setup writes (the user may choose another). */
  provider: string;
  /** A registered provider kind (`providers/builtin_kinds.ts`). */
  kind: "openai" | "anthropic" | "responses";
  /** The endpoint; absent for the generic presets, which need `--base-url`. */
  base_url?: string;
  /** The variable that usually holds the key; absent for keyless (local) servers. */
  api_key_env?: string;
  /** Whether the endpoint needs a key at all. Local servers usually do not. */
  needs_key: boolean;
  /** The model offered first. */
  default_model?: string;
  /** Main models and their context windows in tokens, default first. */
  models: Readonly<Record<string, number>>;
  /**
   * Context window assumed for a model neither this table nor the endpoint's model list
   * knows. Only local servers have one: their window is whatever the server was started with.
   */
  fallback_context_window?: number;
  /** Kind-specific options written into the provider table. */
  options?: Readonly<Record<string, string | number | boolean>>;
  /**
   * True for the built-in providers (`deepseek`, `deepseek-openai`): setup writes no
   * `[[providers]]` table for them, only `default_model` and the key.
   */
  builtin?: boolean;
  /** One line on where to get a key, or how to start the server. */
  hint: string;
}

/** A local server's window is its own start-up setting; this is a guess setup says is one. */
const LOCAL_FALLBACK_WINDOW = 32_768;

function deepseekPreset(
  id: string,
  label: string,
  provider: "deepseek" | "deepseek-openai",
): ProviderPreset {
  const table = builtinDefaults().providers!.find((p) => p.name === provider)!;
  return {
    id,
    label,
    group: "hosted",
    provider,
    kind: table.kind as "openai" | "anthropic",
    base_url: table.base_url,
    api_key_env: table.api_key_env,
    needs_key: true,
    default_model: table.default,
    models: Object.fromEntries((table.models ?? []).map((m) => [m, table.context_window!])),
    builtin: true,
    hint: "keys: https://platform.deepseek.com/api_keys",
  };
}

/** Every preset, in the order the interactive list shows them. */
export const PROVIDER_PRESETS: readonly ProviderPreset[] = [
  deepseekPreset("deepseek", "DeepSeek (Anthropic-compatible API, the default)", "deepseek"),
  deepseekPreset("deepseek-openai", "DeepSeek (OpenAI-compatible API)", "deepseek-openai"),
  {
    id: "openai",
    label: "OpenAI (Responses API)",
    group: "hosted",
    provider: "openai",
    kind: "responses",
    base_url: "https://api.openai.com/v1",
    api_key_env: "OPENAI_API_KEY",
    needs_key: true,
    default_model: "gpt-5.5",
    models: OPENAI_CONTEXT_WINDOWS,
    hint: "keys: https://platform.openai.com/api-keys",
  },
  {
    id: "openai-chat",
    label: "OpenAI (Chat Completions API)",
    group: "hosted",
    provider: "openai-chat",
    kind: "openai",
    base_url: "https://api.openai.com/v1",
    api_key_env: "OPENAI_API_KEY",
    needs_key: true,
    default_model: "gpt-5.5",
    models: OPENAI_CONTEXT_WINDOWS,
    // Newer OpenAI models reject `max_tokens` on Chat Completions.
    options: { max_tokens_field: "max_completion_tokens" },
    hint: "keys: https://platform.openai.com/api-keys",
  },
  {
    id: "anthropic",
    label: "Anthropic (Claude)",
    group: "hosted",
    provider: "anthropic",
    kind: "anthropic",
    base_url: "https://api.anthropic.com",
    api_key_env: "ANTHROPIC_API_KEY",
    needs_key: true,
    default_model: "claude-sonnet-4-6",
    models: ANTHROPIC_CONTEXT_WINDOWS,
    hint: "keys: https://console.anthropic.com/settings/keys",
  },
  {
    id: "openrouter",
    label: "OpenRouter (many vendors, one key)",
    group: "hosted",
    provider: "openrouter",
    kind: "openai",
    base_url: "https://openrouter.ai/api/v1",
    api_key_env: "OPENROUTER_API_KEY",
    needs_key: true,
    default_model: "openai/gpt-5.5",
    models: {},
    hint: "keys: https://openrouter.ai/keys",
  },
  {
    id: "qwen",
    label: "Qwen (Alibaba Cloud DashScope, international)",
    group: "hosted",
    provider: "qwen",
    kind: "openai",
    base_url: "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
    api_key_env: "DASHSCOPE_API_KEY",
    needs_key: true,
    default_model: "qwen3-coder-plus",
    models: QWEN_CONTEXT_WINDOWS,
    hint: "keys: https://modelstudio.console.alibabacloud.com (API keys)",
  },
  {
    id: "qwen-cn",
    label: "Qwen (阿里云百炼 DashScope, China)",
    group: "hosted",
    provider: "qwen",
    kind: "openai",
    base_url: "https://dashscope.aliyuncs.com/compatible-mode/v1",
    api_key_env: "DASHSCOPE_API_KEY",
    needs_key: true,
    default_model: "qwen3-coder-plus",
    models: QWEN_CONTEXT_WINDOWS,
    hint: "keys: https://bailian.console.aliyun.com (API-KEY)",
  },
  {
    id: "kimi",
    label: "Kimi (Moonshot AI, international)",
    group: "hosted",
    provider: "kimi",
    kind: "openai",
    base_url: "https://api.moonshot.ai/v1",
    api_key_env: "MOONSHOT_API_KEY",
    needs_key: true,
    default_model: "kimi-k2.6",
    models: KIMI_CONTEXT_WINDOWS,
    hint: "keys: https://platform.moonshot.ai/console/api-keys",
  },
  {
    id: "kimi-cn",
    label: "Kimi (月之暗面 Moonshot, China)",
    group: "hosted",
    provider: "kimi",
    kind: "openai",
    base_url: "https://api.moonshot.cn/v1",
    api_key_env: "MOONSHOT_API_KEY",
    needs_key: true,
    default_model: "kimi-k2.6",
    models: KIMI_CONTEXT_WINDOWS,
    hint: "keys: https://platform.moonshot.cn/console/api-keys",
  },
  {
    id: "glm",
    label: "GLM (Z.ai, international)",
    group: "hosted",
    provider: "glm",
    kind: "openai",
    base_url: "https://api.z.ai/api/paas/v4",
    api_key_env: "ZAI_API_KEY",
    needs_key: true,
    default_model: "glm-5",
    models: GLM_CONTEXT_WINDOWS,
    hint: "keys: https://z.ai/manage-apikey/apikey-list",
  },
  {
    id: "glm-cn",
    label: "GLM (智谱 BigModel, China)",
    group: "hosted",
    provider: "glm",
    kind: "openai",
    base_url: "https://open.bigmodel.cn/api/paas/v4",
    api_key_env: "ZHIPUAI_API_KEY",
    needs_key: true,
    default_model: "glm-5",
    models: GLM_CONTEXT_WINDOWS,
    hint: "keys: https://open.bigmodel.cn/usercenter/apikeys",
  },
  {
    id: "ollama",
    label: "Ollama (local)",
    group: "local",
    provider: "ollama",
    kind: "openai",
    base_url: "http://localhost:11434/v1",
    needs_key: false,
    models: {},
    fallback_context_window: LOCAL_FALLBACK_WINDOW,
    hint: "start it with `ollama serve`; set a large num_ctx for agent work",
  },
  {
    id: "lmstudio",
    label: "LM Studio (local)",
    group: "local",
    provider: "lmstudio",
    kind: "openai",
    base_url: "http://localhost:1234/v1",
    needs_key: false,
    models: {},
    fallback_context_window: LOCAL_FALLBACK_WINDOW,
    hint: "start the server in LM Studio's Developer tab (or `lms server start`)",
  },
  {
    id: "vllm",
    label: "vLLM (local)",
    group: "local",
    provider: "vllm",
    kind: "openai",
    base_url: "http://localhost:8000/v1",
    needs_key: false,
    models: {},
    fallback_context_window: LOCAL_FALLBACK_WINDOW,
    hint: "start it with `vllm serve <model> --enable-auto-tool-choice --tool-call-parser …`",
  },
  {
    id: "llamacpp",
    label: "llama.cpp server (local)",
    group: "local",
    provider: "llamacpp",
    kind: "openai",
    base_url: "http://localhost:8080/v1",
    needs_key: false,
    models: {},
    fallback_context_window: LOCAL_FALLBACK_WINDOW,
    hint: "start it with `llama-server -m <model.gguf> --jinja -c <context>`",
  },
  {
    id: "openai-compatible",
    label: "Any OpenAI-compatible endpoint (Chat Completions)",
    group: "generic",
    provider: "custom",
    kind: "openai",
    needs_key: true,
    models: {},
    hint: "the base URL is the part before /chat/completions",
  },
  {
    id: "anthropic-compatible",
    label: "Any Anthropic-compatible endpoint (Messages)",
    group: "generic",
    provider: "custom",
    kind: "anthropic",
    needs_key: true,
    models: {},
    hint: "the base URL is the part before /v1/messages",
  },
];

/** The preset with this id, or `undefined`. */
export function providerPreset(id: string): ProviderPreset | undefined {
  return PROVIDER_PRESETS.find((p) => p.id === id);
}

export { knownContextWindow } from "./known_models.ts";
