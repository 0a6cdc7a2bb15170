/**
 * The shape one configuration file may take. Every key is optional here: a file only states
 * what it changes, and the built-in defaults layer fills the rest. Each message is the
 * requirement in plain words ("a number between 0.30 and 0.85") so errors read
 * `<key> must be <requirement>`.
 *
 * @module
 */
import { z } from "zod";
import { findPreset, PRESETS } from "../permission/presets.ts";

const str = (what = "a string") => z.string({ error: what }).min(1, `${what}, not empty`);
const strList = () =>
  // The element's own message: the error path already names the element (`enabled[0]`).
  z.array(z.string({ error: "a string" }), { error: "a list of strings" });
const table = <T extends z.ZodRawShape>(shape: T) => z.strictObject(shape, { error: "a table" });
const positive = (what = "a number greater than 0") => z.number({ error: what }).gt(0, what);
const positiveInt = (what = "a whole number greater than 0") =>
  z.number({ error: what }).int(what).gt(0, what);

const httpUrl = z.string({ error: "an http(s) URL" }).refine((v) => {
  try {
    const u = new URL(v);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}, "an http(s) URL such as https://api.example.com");

/** `[providers.price]` and `[providers.model_overrides.<model>.price]`. */
export const priceSchema = table({
  cache_hit: z.number({ error: "a price per million tokens (>= 0)" }).min(
    0,
    "a price per million tokens (>= 0)",
  ),
  input: z.number({ error: "a price per million tokens (>= 0)" }).min(
    0,
    "a price per million tokens (>= 0)",
  ),
  output: z.number({ error: "a price per million tokens (>= 0)" }).min(
    0,
    "a price per million tokens (>= 0)",
  ),
  currency: str("a currency such as USD or CNY"),
});

const modelOverrideSchema = table({
  context_window: positiveInt().optional(),
  max_output_tokens: z.number({ error: "a whole number" }).int("a whole number").optional(),
  price: priceSchema.optional(),
});

/** Keys the config layer interprets in a `[[providers]]` table; others become `options`. */
export const PROVIDER_KEYS = [
  "name",
  "kind",
  "base_url",
  "request_url",
  "chat_url",
  "models",
  "default",
  "api_key_env",
  "context_window",
  "max_output_tokens",
  "model_overrides",
  "price",
  "headers",
  "options",
] as const;

/** The endpoint keys of a provider; together they decide where requests (and keys) go. */
export const ENDPOINT_KEYS = ["request_url", "chat_url", "base_url"] as const;

/** The three meanings of `max_output_tokens`, as docs/PROVIDERS.md states them. */
const OUTPUT_CAP =
  "a whole number (0 = provider automatic, positive = a cap, negative = omit the field)";

/** One `[[providers]]` table. Loose: unknown keys are kind-specific options. */
export const providerSchema = z.looseObject({
  name: str("a provider name without spaces or '/'").regex(
    /^[^\s/]+$/,
    "a provider name without spaces or '/'",
  ),
  kind: str('a provider kind such as "openai"').optional(),
  base_url: httpUrl.optional(),
  request_url: httpUrl.optional(),
  chat_url: httpUrl.optional(),
  models: z.array(str("a model name"), { error: "a list of model names" }).optional(),
  default: str("a model name").optional(),
  api_key_env: z.string({ error: "the name of an environment variable" }).regex(
    /^[A-Za-z_][A-Za-z0-9_]*$/,
    "the name of an environment variable (letters, digits, _), not the key itself",
  ).optional(),
  context_window: positiveInt("a token count greater than 0").optional(),
  max_output_tokens: z.number({ error: OUTPUT_CAP })
    .int(OUTPUT_CAP).optional(),
  model_overrides: z.record(z.string(), modelOverrideSchema, { error: "a table of models" })
    .optional(),
  price: priceSchema.optional(),
  headers: z.record(z.string(), z.string({ error: "a string" }), { error: "a table of strings" })
    .optional(),
  options: z.record(z.string(), z.unknown(), { error: "a table" }).optional(),
}, { error: "a table" });

const agentSchema = table({
  temperature: z.number({ error: "a number between 0 and 2" }).min(0, "a number between 0 and 2")
    .max(2, "a number between 0 and 2").optional(),
  max_turns: positiveInt().optional(),
  compact_ratio: z.number({ error: "a number between 0.30 and 0.85" })
    .min(0.3, "a number between 0.30 and 0.85").max(0.85, "a number between 0.30 and 0.85")
    .optional(),
  reasoning_language: str().optional(),
  reasoning_effort: str().optional(),
  planner_model: z.string({ error: "a model (provider, provider/model or model name)" })
    .optional(),
  vision_model: z.string({ error: 'a model, "auto" or empty' }).optional(),
  max_subagent_depth: z.number({ error: "a whole number >= 0" }).int("a whole number >= 0")
    .min(0, "a whole number >= 0").optional(),
  max_subagent_concurrency: positiveInt().optional(),
  max_parallel_writers: positiveInt().optional(),
  subagent_model: str("a model (provider, provider/model or model name)").optional(),
  subagent_effort: str().optional(),
  goal_token_budget: positiveInt().optional(),
  max_goal_rounds: positiveInt().optional(),
  keep: z.unknown().optional(),
  recent_keep: z.unknown().optional(),
});

const toolsSchema = table({
  enabled: strList().optional(),
  bash_timeout_seconds: positive("a number of seconds greater than 0").optional(),
  mcp_startup_timeout_seconds: positive("a number of seconds greater than 0").optional(),
  mcp_call_timeout_seconds: positive("a number of seconds greater than 0").optional(),
  pass_env: z.array(
    z.string({ error: "the name of an environment variable" }).regex(
      /^[A-Za-z_][A-Za-z0-9_]*$/,
      "the name of an environment variable (letters, digits, _)",
    ),
    { error: "a list of environment variable names" },
  ).optional(),
});

const PERMISSION_MODES = `one of ${PRESETS.map((p) => `"${p.name}"`).join(", ")}`;

const permissionsSchema = table({
  mode: z.string({ error: PERMISSION_MODES }).refine((name) => findPreset(name) !== undefined, {
    error: PERMISSION_MODES,
  }).optional(),
  allow: strList().optional(),
  ask: strList().optional(),
  deny: strList().optional(),
});

const sandboxSchema = table({
  workspace_root: z.string({ error: "a path (or empty)" }).optional(),
  allow_write: strList().optional(),
  forbid_read: strList().optional(),
  allow_unix_sockets: z.boolean({ error: "true or false" }).optional(),
});

/** `[serve]`: the browser front end (`reasonix serve`, docs/SERVE.md). */
const serveSchema = table({
  auth_mode: z.enum(["none", "token", "password"], {
    error: 'one of "none", "token", "password"',
  }).optional(),
  token: str("a token of at least 16 characters").min(16, "a token of at least 16 characters")
    .optional(),
  password_hash: str("a hash printed by `reasonix serve --hash-password`").optional(),
  behind_proxy: z.boolean({ error: "true or false" }).optional(),
  host: str("an address to listen on, e.g. 127.0.0.1").optional(),
  port: z.number({ error: "a port number 0-65535" }).int("a port number 0-65535").min(0).max(
    65535,
    "a port number 0-65535",
  ).optional(),
  allowed_origins: strList().optional(),
});

/** One configuration file (or the built-in defaults) after parsing. */
export const layerSchema = table({
  default_model: str("a model (provider, provider/model or model name)").optional(),
  agent: agentSchema.optional(),
  providers: z.array(providerSchema, { error: "a list of [[providers]] tables" }).optional(),
  tools: toolsSchema.optional(),
  permissions: permissionsSchema.optional(),
  sandbox: sandboxSchema.optional(),
  mcp: z.record(z.string(), z.unknown(), { error: "a table" }).optional(),
  serve: serveSchema.optional(),
  /**
   * `[remote.<name>]`: named `--remote` targets. Read by the command line from the user's
   * config.toml only (a project file cannot point a name at another machine).
   */
  remote: z.record(
    z.string(),
    table({
      target: str("user@host[:port]:/path").optional(),
      host: str("a host name or ~/.ssh/config alias").optional(),
      user: str("a login name").optional(),
      port: z.number({ error: "a port number 1-65535" }).int().min(1).max(65535).optional(),
      path: str("the workspace directory on that host").optional(),
      identity_file: str("a private key file").optional(),
    }),
    { error: "a table of remote targets" },
  ).optional(),
  subagents: z.record(
    z.string(),
    table({
      model: str("a model (provider, provider/model or model name)").optional(),
      effort: str().optional(),
    }),
    { error: "a table of subagent profiles" },
  ).optional(),
  keep: z.unknown().optional(),
  recent_keep: z.unknown().optional(),
});

/** A validated configuration layer. */
export type LayerData = z.infer<typeof layerSchema>;

/** A validated `[[providers]]` table of one layer. */
export type LayerProvider = z.infer<typeof providerSchema>;

/**
 * Keys of the retired multi-threshold context settings. They are dropped without a warning
 * wherever they appear (top level, `[agent]`, `[[providers]]`); another component removes
 * them from the files.
 */
export const LEGACY_KEYS: ReadonlySet<string> = new Set([
  "soft_compact_ratio",
  "tool_result_snip_ratio",
  "compact_force_ratio",
  "cold_resume_prune",
  "context_editing",
]);

/** How a known key is written: a plain key, a `[table]` or an `[[array]]` of tables. */
export interface KnownKey {
  key: string;
  form: "key" | "table" | "array";
}

/**
 * The keys the schema knows in the table at `path` of a layer (`[]` for the top level,
 * `["agent"]`, `["providers", 0, "model_overrides", "m"]`), for "did you mean" suggestions;
 * `undefined` where the schema takes any key (`[mcp]`) or has no table.
 */
export function knownKeysAt(path: readonly (string | number)[]): KnownKey[] | undefined {
  let node: z.ZodType | undefined = layerSchema;
  for (const seg of path) {
    node = unwrap(node);
    if (node instanceof z.ZodObject) node = (node.shape as Record<string, z.ZodType>)[seg];
    else if (node instanceof z.ZodArray && typeof seg === "number") {
      node = node.element as z.ZodType;
    } else if (node instanceof z.ZodRecord) node = node.valueType as z.ZodType;
    else return undefined;
    if (node === undefined) return undefined;
  }
  node = unwrap(node);
  if (!(node instanceof z.ZodObject)) return undefined;
  return Object.entries(node.shape as Record<string, z.ZodType>).map(([key, value]) => {
    const inner = unwrap(value);
    const form =
      inner instanceof z.ZodArray && unwrap(inner.element as z.ZodType) instanceof z.ZodObject
        ? "array"
        : inner instanceof z.ZodObject || inner instanceof z.ZodRecord
        ? "table"
        : "key";
    return { key, form };
  });
}

function unwrap(node: z.ZodType): z.ZodType {
  let current = node;
  while (current instanceof z.ZodOptional) current = current.unwrap() as z.ZodType;
  return current;
}
