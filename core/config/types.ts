/**
 * The configuration model (spec §5). Keys mirror the TOML file, so they stay snake_case.
 *
 * @module
 */

/** Per-model prices, per million tokens. */
export interface Price {
  /** Input tokens served from the prefix cache. */
  cache_hit: number;
  /** Input tokens not served from cache. */
  input: number;
  output: number;
  /** ISO currency code or symbol, e.g. `USD`, `CNY`. */
  currency: string;
}

/** Per-model overrides inside a provider table. */
export interface ModelOverride {
  context_window?: number;
  max_output_tokens?: number;
  price?: Price;
}

/** One `[[providers]]` table: a vendor endpoint exposing one or more models. */
export interface ProviderConfig {
  name: string;
  /** Registered provider kind, e.g. `openai`. */
  kind: string;
  base_url?: string;
  /** Full request URL, used verbatim. */
  request_url?: string;
  /** Legacy OpenAI full chat URL. */
  chat_url?: string;
  models: string[];
  /** Default model of this provider; falls back to the first of `models`. */
  default?: string;
  /** Name of the environment variable that holds the API key. Never the key itself. */
  api_key_env?: string;
  /** Context window in tokens. */
  context_window: number;
  /** 0 = provider automatic, positive = user cap, negative = omit the field. */
  max_output_tokens: number;
  model_overrides: Record<string, ModelOverride>;
  /** Default prices for this provider's models. */
  price?: Price;
  /** Extra static request headers (values may use `${VAR}`). */
  headers: Record<string, string>;
  /** Kind-specific keys not interpreted by the config layer. */
  options: Record<string, unknown>;
  /**
   * Which files declared this provider and set its key-sensitive fields. Filled by
   * `loadConfig`; `resolveApiKey` uses it to refuse sending a user's key to an endpoint a
   * project file chose. Absent on providers built in code.
   */
  source?: ProviderSource;
}

/** A file (or `built-in defaults`) and line that set a value. */
export interface SourceLocation {
  file: string;
  line?: number;
  /** Built-in defaults and the user config are trusted; a project `reasonix.toml` is not. */
  trusted: boolean;
}

/** An endpoint a trusted layer bound to an `api_key_env` name. */
export interface KeyBinding {
  /** Endpoint origin (`scheme://host[:port]`), or `default:<kind>` for a kind's own default. */
  origin: string;
  /** The trusted provider that uses the variable. */
  provider: string;
  /** Where that provider's `api_key_env` was set. */
  file: string;
}

/** Provenance of one merged provider. */
export interface ProviderSource {
  /** The layer whose `[[providers]]` table introduced this name. */
  declared_in: SourceLocation;
  /** The layer that set the effective `api_key_env`. */
  api_key_env_from?: SourceLocation;
  /** Where each effective kind-specific option was set. */
  options_from?: Record<string, SourceLocation>;
  /** The layer that set each effective endpoint key. */
  endpoint_from: {
    base_url?: SourceLocation;
    request_url?: SourceLocation;
    chat_url?: SourceLocation;
  };
  /**
   * Endpoints the trusted layers bound to this provider's `api_key_env`. Absent when no trusted
   * layer uses that variable (then the key is the project's own business).
   */
  trusted_key_bindings?: KeyBinding[];
  /**
   * Warnings (with file, line and "did you mean") about keys of this provider's tables that
   * were ignored, repeated as notes on a later error the typo may explain ("needs base_url").
   */
  ignored?: string[];
}

/** `[agent]`. */
export interface AgentConfig {
  temperature?: number;
  max_turns: number;
  compact_ratio: number;
  reasoning_language: string;
  reasoning_effort?: string;
  planner_model?: string;
  vision_model?: string;
  /** How deep subagents may nest (default 1: children do not delegate). */
  max_subagent_depth?: number;
  /** Children running at once per session (default 6). */
  max_subagent_concurrency?: number;
  /** Of them, children that write (default 3). */
  max_parallel_writers?: number;
  /** Subagents' model, below per-profile config, call arguments and frontmatter. */
  subagent_model?: string;
  /** Subagents' reasoning effort, at the same level as `subagent_model`. */
  subagent_effort?: string;
  goal_token_budget?: number;
  max_goal_rounds?: number;
  /** Deprecated; read and preserved for round-trips, not used for compaction. */
  keep?: unknown;
  /** Deprecated; read and preserved for round-trips, not used for compaction. */
  recent_keep?: unknown;
}

/** `[tools]`. */
export interface ToolsConfig {
  /** Built-in tools to offer; empty means all. */
  enabled: string[];
  bash_timeout_seconds: number;
  mcp_startup_timeout_seconds: number;
  mcp_call_timeout_seconds: number;
  /**
   * Variables kept in the environment of child processes (`bash` and the programs it starts)
   * although they are provider keys or come from the home `.env`, which are otherwise removed.
   * MCP servers get only the `env` their declaration gives them.
   */
  pass_env?: string[];
}

/** `[permissions]`. */
export interface PermissionsConfig {
  mode: string;
  allow: string[];
  ask: string[];
  deny: string[];
  /**
   * A mode the project `reasonix.toml` asked for. It applies only when it is stricter than
   * `mode` (from the user config or defaults): a cloned repository cannot loosen permissions.
   */
  project_mode?: string;
  /** The file that asked for `project_mode`. */
  project_mode_source?: string;
}

/** `[sandbox]`. */
export interface SandboxConfig {
  workspace_root?: string;
  allow_write: string[];
  forbid_read: string[];
  /**
   * Lets sandboxed commands in modes without network create unix sockets (docker.sock, the
   * D-Bus bus, ssh-agent) again; default false.
   */
  allow_unix_sockets?: boolean;
  /** Where each `allow_write` entry was written (set by the loader), for messages. */
  allow_write_at?: SourceLocation[];
  /** Where `workspace_root` was written (set by the loader), for messages. */
  workspace_root_at?: SourceLocation;
}

/** `[serve]` (docs/SERVE.md); every key optional, defaults applied by `reasonix serve`. */
export interface ServeConfig {
  /** `none` (loopback only), `token` (default) or `password`. */
  auth_mode?: "none" | "token" | "password";
  /** A fixed token for `token` mode; without it a random one is made at each start. */
  token?: string;
  /** For `password` mode: the output of `reasonix serve --hash-password`. */
  password_hash?: string;
  /** Trust `X-Forwarded-*` from a reverse proxy, and mark cookies `Secure`. */
  behind_proxy?: boolean;
  /** Address to listen on; default 127.0.0.1. */
  host?: string;
  /** Port to listen on; default 8788 (0: any free port). */
  port?: number;
  /** Extra origins (`https://name[:port]`) whose `Host`/`Origin` are accepted. */
  allowed_origins?: string[];
}

/** The merged, validated, `${VAR}`-expanded configuration. */
export interface Config {
  default_model: string;
  agent: AgentConfig;
  providers: ProviderConfig[];
  tools: ToolsConfig;
  permissions: PermissionsConfig;
  sandbox: SandboxConfig;
  /**
   * Raw `[mcp]` table, interpreted by the MCP plugin layer. Deep-merged across layers but not
   * `${VAR}`-expanded: the MCP layer expands it with its own environment (which may include the
   * project `.env`).
   */
  mcp: Record<string, unknown>;
  /** `[serve]`: the browser front end, interpreted by `reasonix serve` (docs/SERVE.md). */
  serve?: ServeConfig;
  /** `[subagents.<profile>]`: a profile's model and effort, above every other source. */
  subagents?: Record<string, { model?: string; effort?: string }>;
  /**
   * `[remote.<name>]`: named `--remote` targets (docs/REMOTE.md). The command line reads them
   * from the user's config.toml itself; this is the shape, for validation.
   */
  remote?: Record<string, RemoteTargetConfig>;
  /** Deprecated top-level `keep` / `[[keep]]`; preserved for round-trips. */
  keep?: unknown;
  /** Deprecated; preserved for round-trips. */
  recent_keep?: unknown;
  /** The file that set `default_model`, `built-in defaults`, or `--model` after `applyFlags`. */
  default_model_from?: string;
  /** The line of `default_model` in `default_model_from`, when a file set it. */
  default_model_line?: number;
  /** Files that contributed, lowest precedence first. */
  sources: string[];
  /**
   * Warnings about ignored top-level keys and tables (`[[provider]]`), repeated as notes on a
   * later error they may explain (`unknown model`).
   */
  ignored?: string[];
}

/** One `[remote.<name>]` table: a `--remote` target by name. */
export interface RemoteTargetConfig {
  /** `user@host[:port]:/path`, instead of the separate keys. */
  target?: string;
  host?: string;
  user?: string;
  port?: number;
  path?: string;
  identity_file?: string;
}

/** A model picked from the configuration, ready to build a provider. */
export interface ResolvedModel {
  provider: ProviderConfig;
  /** Model id sent on the wire. */
  model: string;
  contextWindow: number;
  maxOutputTokens: number;
  price?: Price;
}
