/**
 * `reasonix setup`: choose a provider preset, find the endpoint's models, test the key with one
 * request through the real provider code, then store the key in the home `.env` (0600) and
 * write the user `config.toml` (comments kept). The same steps serve the flag form (`--yes`,
 * every value from flags, the preset or the endpoint) and the interactive form (a
 * {@link Prompter} asks what the flags leave open). Nothing is written before the test passed.
 *
 * @module
 */
import { join } from "node:path";
import { readConfigText } from "../../core/config/files.ts";
import { loadHomeDotenv } from "../../core/config/dotenv.ts";
import type { ProviderConfig } from "../../core/config/mod.ts";
// Imported directly: the preset tables are built at load time, and only setup needs them.
import {
  knownContextWindow,
  PROVIDER_PRESETS,
  type ProviderPreset,
  providerPreset,
} from "../../core/config/presets.ts";
import { setRootValue, upsertArrayTable, writeTomlFile } from "../../core/config/toml_edit.ts";
import { EXIT_CANCELLED, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "../exit_codes.ts";
import type { CliIo } from "../commands/execute.ts";
import type { SetupOptions } from "../commands/types.ts";
import { keyProblem, storeKey } from "./key_store.ts";
import { type ListedModel, listModels, type ModelListing } from "./models.ts";
import { probeProvider } from "./probe.ts";
import { type Prompter, SetupCancelled } from "./prompter.ts";

/** What the setup runs against. */
export interface SetupDeps {
  /** Plain output for the flag form; the interactive form shows through `prompter`. */
  io: CliIo;
  /** Asks what the flags leave open; absent in the flag form. */
  prompter?: Prompter;
  env: Record<string, string | undefined>;
  /** The Reasonix home: `config.toml` and `.env` go there. */
  home: string;
  /** Reads the key from standard input (`--api-key-stdin`). */
  readStdin?: () => Promise<string>;
  signal?: AbortSignal;
  fetch?: typeof fetch;
}

/** A usage problem: the message and the flag that fixes it. Exit code 2. */
class SetupUsageError extends Error {
  constructor(message: string, readonly fix: string) {
    super(message);
    this.name = "SetupUsageError";
  }
}

/** The request paths kinds append; a base URL that already ends in one is cut back. */
const REQUEST_PATHS: Record<string, string> = {
  openai: "/chat/completions",
  responses: "/responses",
  anthropic: "/v1/messages",
};

const NETWORK_TIMEOUT_MS = 30_000;

/** Runs the setup and returns the exit code: 0 done, 1 the endpoint said no, 2 usage, 130. */
export async function runSetup(opts: SetupOptions, deps: SetupDeps): Promise<number> {
  try {
    return await setup(opts, deps);
  } catch (error) {
    if (error instanceof SetupCancelled) {
      deps.prompter?.outro("Setup cancelled; nothing was written.");
      return EXIT_CANCELLED;
    }
    if (error instanceof SetupUsageError) {
      deps.io.err(`reasonix setup: ${error.message}\nfix: ${error.fix}`);
      return EXIT_USAGE;
    }
    throw error;
  }
}

/** Everything setup found out, ready to write. */
interface Plan {
  preset: ProviderPreset;
  name: string;
  kind: string;
  baseUrl: string;
  apiKeyEnv?: string;
  apiKey?: string;
  /** Where the key came from; a key already in the home `.env` is not written again. */
  keyFrom?: "environment" | "stdin" | "prompt" | "home";
  model: string;
  contextWindow: number;
  /** No `[[providers]]` table: a built-in provider, unchanged. */
  builtin: boolean;
}

async function setup(opts: SetupOptions, deps: SetupDeps): Promise<number> {
  const ask = deps.prompter;
  const signal = deps.signal ?? new AbortController().signal;
  ask?.intro("reasonix setup");

  const preset = await choosePreset(opts, ask);
  const kind = preset.kind;
  const baseUrl = await chooseBaseUrl(opts, preset, ask, deps.io);
  const name = opts.name ?? preset.provider;
  if (!/^[^\s/]+$/.test(name)) {
    throw new SetupUsageError(
      `--name "${name}" is not a provider name`,
      "use letters, digits, - or _",
    );
  }
  const apiKeyEnv = await chooseKeyEnv(opts, preset, ask);
  const { apiKey, keyFrom } = await chooseKey(opts, apiKeyEnv, deps);

  const note = (text: string) => ask ? ask.info(text) : deps.io.out(text);
  const warn = (text: string) => ask ? ask.warn(text) : deps.io.err(`warning: ${text}`);

  const done = ask?.progress(`Asking ${baseUrl} for its models`);
  const listing = await listModels({
    kind,
    baseUrl,
    apiKey,
    signal: AbortSignal.any([signal, AbortSignal.timeout(NETWORK_TIMEOUT_MS)]),
    fetch: deps.fetch,
  });
  done?.(describeListing(listing), listing.status === "refused");
  if (!ask) note(describeListing(listing));
  if (listing.status === "refused") {
    return refused(deps.io, ask, {
      what: `the endpoint refused the key in ${apiKeyEnv ?? "(no key)"}`,
      detail: `GET ${listing.url}: HTTP ${listing.httpStatus}: ${listing.message}`,
      fix: apiKeyEnv
        ? `check the key in ${apiKeyEnv}` +
          (preset.hint.startsWith("keys: ") ? ` (new keys: ${preset.hint.slice(6)})` : "") +
          "; nothing was written"
        : "this endpoint needs a key: pass --api-key-env NAME",
    });
  }
  const listed = listing.status === "listed" ? listing.models : [];

  const model = await chooseModel(opts, preset, listed, ask);
  if (listed.length > 0 && !listed.some((m) => m.id === model)) {
    warn(`"${model}" is not among the ${listed.length} models the endpoint lists`);
  }
  const contextWindow = await chooseWindow(opts, preset, model, listed, ask, warn);

  const builtin = preset.builtin === true && name === preset.provider &&
    baseUrl === preset.base_url && apiKeyEnv === preset.api_key_env &&
    opts.contextWindow === undefined;
  const plan: Plan = {
    preset,
    name,
    kind,
    baseUrl,
    apiKeyEnv,
    apiKey,
    keyFrom,
    model,
    contextWindow,
    builtin,
  };

  if (opts.test) {
    const finish = ask?.progress(`Testing ${name}/${model} with one short request`);
    const result = await probeProvider(providerConfig(plan), model, {
      apiKey,
      signal: AbortSignal.any([signal, AbortSignal.timeout(NETWORK_TIMEOUT_MS * 2)]),
      fetch: deps.fetch,
    });
    if (!result.ok) {
      finish?.("The test request failed", true);
      const auth = result.code === "provider_auth";
      return refused(deps.io, ask, {
        what: auth
          ? `the endpoint refused the key in ${apiKeyEnv ?? "(no key)"}`
          : "the test request failed",
        detail: result.message,
        fix: auth
          ? `check the key in ${apiKeyEnv ?? "--api-key-env"}; nothing was written`
          : `check --base-url (${baseUrl}) and --model (${model}); nothing was written`,
      });
    }
    const reply = result.reply === "" ? "an empty reply" : `"${result.reply.slice(0, 40)}"`;
    finish?.(`The model answered (${reply})`);
    if (!ask) note(`test request: ${name}/${model} answered (${reply})`);
  }

  const written = await writePlan(plan, deps.home);
  for (const line of written) note(line);
  const runLine = `reasonix run --model ${shellWord(`${name}/${model}`)} ` +
    '"Summarize what this repository does"';
  if (ask) {
    ask.outro(`Done. Try:\n  ${runLine}`);
  } else {
    deps.io.out(`\nDone. Try:\n  ${runLine}`);
  }
  return EXIT_OK;
}

/** `text` as one shell word: bare when it is safe, else single-quoted. */
function shellWord(text: string): string {
  return /^[A-Za-z0-9._:/@+=-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

function refused(
  io: CliIo,
  ask: Prompter | undefined,
  failure: { what: string; detail: string; fix: string },
): number {
  ask?.outro("Nothing was written.");
  io.err(`reasonix setup: ${failure.what}\n  ${failure.detail}\nfix: ${failure.fix}`);
  return EXIT_FAILURE;
}

function describeListing(listing: ModelListing): string {
  switch (listing.status) {
    case "listed":
      return `models: ${listing.models.length} listed by ${listing.url}` +
        (listing.models.length ? ` (${preview(listing.models.map((m) => m.id))})` : "");
    case "refused":
      return `models: ${listing.url} refused the key (HTTP ${listing.httpStatus})`;
    case "unavailable":
      return `models: not listed by ${listing.url} (${listing.reason})`;
  }
}

function preview(ids: string[]): string {
  return ids.length <= 5 ? ids.join(", ") : `${ids.slice(0, 5).join(", ")}, …`;
}

async function choosePreset(opts: SetupOptions, ask?: Prompter): Promise<ProviderPreset> {
  if (opts.preset !== undefined) {
    const preset = providerPreset(opts.preset);
    if (!preset) {
      throw new SetupUsageError(
        `unknown preset "${opts.preset}"`,
        `use one of: ${PROVIDER_PRESETS.map((p) => p.id).join(", ")}`,
      );
    }
    return preset;
  }
  if (!ask) {
    throw new SetupUsageError(
      "--yes needs --preset",
      `pass --preset, one of: ${PROVIDER_PRESETS.map((p) => p.id).join(", ")}`,
    );
  }
  const id = await ask.select({
    message: "Which provider?",
    options: PROVIDER_PRESETS.map((p) => ({
      value: p.id,
      label: p.label,
      hint: p.group === "hosted" ? p.api_key_env : p.base_url ?? "you give the URL",
    })),
    initial: "deepseek",
  });
  return providerPreset(id)!;
}

async function chooseBaseUrl(
  opts: SetupOptions,
  preset: ProviderPreset,
  ask: Prompter | undefined,
  io: CliIo,
): Promise<string> {
  let url = opts.baseUrl;
  if (url === undefined && ask && preset.group !== "hosted") {
    url = await ask.text({
      message: `Base URL (${preset.hint})`,
      initial: preset.base_url,
      placeholder: "https://api.example.com/v1",
      validate: (v) => urlProblem(v.trim()),
    });
  }
  url = (url ?? preset.base_url)?.trim();
  if (url === undefined || url === "") {
    throw new SetupUsageError(
      `--preset ${preset.id} needs --base-url`,
      `pass --base-url URL (${preset.hint})`,
    );
  }
  const problem = urlProblem(url);
  if (problem) throw new SetupUsageError(`--base-url ${url}: ${problem}`, problem);
  url = url.replace(/\/+$/, "");
  const path = REQUEST_PATHS[preset.kind];
  if (url.endsWith(path)) {
    const base = url.slice(0, -path.length);
    const message = `the base URL ends in ${path}, which Reasonix appends itself; using ${base}`;
    if (ask) ask.warn(message);
    else io.err(`warning: ${message}`);
    url = base;
  }
  return url;
}

function urlProblem(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === "http:" || parsed.protocol === "https:") return undefined;
  } catch {
    // Reported below.
  }
  return "give an http(s) URL such as https://api.example.com/v1";
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

async function chooseKeyEnv(
  opts: SetupOptions,
  preset: ProviderPreset,
  ask?: Prompter,
): Promise<string | undefined> {
  let name = opts.apiKeyEnv ?? preset.api_key_env;
  if (opts.apiKeyEnv === undefined && ask && preset.group === "generic") {
    name = (await ask.text({
      message: "Environment variable that holds the key (empty: the endpoint needs none)",
      initial: "CUSTOM_API_KEY",
      validate: (v) => v.trim() === "" || ENV_NAME.test(v.trim()) ? undefined : envProblem(v),
    })).trim() || undefined;
  }
  if (name !== undefined && !ENV_NAME.test(name)) {
    throw new SetupUsageError(envProblem(name), "pass --api-key-env NAME, e.g. OPENAI_API_KEY");
  }
  return name;
}

function envProblem(value: string): string {
  // A pasted key is a secret: never quote what was typed here.
  const looksLikeKey = value.length >= 20 || /^(sk|key|api)[-_]/i.test(value) ||
    (/[-.]/.test(value) && /\d/.test(value));
  return looksLikeKey
    ? "--api-key-env takes the name of a variable (such as OPENAI_API_KEY), not the key itself"
    : "an environment variable name has only letters, digits and _";
}

async function chooseKey(
  opts: SetupOptions,
  name: string | undefined,
  deps: SetupDeps,
): Promise<{ apiKey?: string; keyFrom?: Plan["keyFrom"] }> {
  if (name === undefined) {
    if (!opts.apiKeyStdin) return {};
    throw new SetupUsageError(
      "--api-key-stdin needs a variable to store the key under",
      "pass --api-key-env NAME as well",
    );
  }
  const ask = deps.prompter;
  const check = (key: string) => {
    const problem = keyProblem(key);
    if (problem) throw new SetupUsageError(`${name}: ${problem}`, `set ${name} to the key alone`);
    return key;
  };
  if (opts.apiKeyStdin) {
    const text = (await deps.readStdin?.() ?? "").trim();
    return { apiKey: check(text), keyFrom: "stdin" };
  }
  const fromEnv = deps.env[name];
  if (fromEnv) {
    ask?.info(`Using the key in ${name} from the environment.`);
    return { apiKey: check(fromEnv), keyFrom: "environment" };
  }
  const fromHome = (await loadHomeDotenv(deps.home))[name];
  if (
    fromHome && (!ask || await ask.confirm({
      message: `Keep the ${name} already stored in ${join(deps.home, ".env")}?`,
    }))
  ) {
    return { apiKey: check(fromHome), keyFrom: "home" };
  }
  if (!ask) {
    throw new SetupUsageError(
      `${name} is not set`,
      `export ${name}=... first, or pipe the key in with --api-key-stdin`,
    );
  }
  const key = (await ask.secret({
    message: `Paste the API key for ${name} (it is stored in ${join(deps.home, ".env")})`,
    validate: (v) => keyProblem(v.trim()),
  })).trim();
  return { apiKey: key, keyFrom: "prompt" };
}

async function chooseModel(
  opts: SetupOptions,
  preset: ProviderPreset,
  listed: ListedModel[],
  ask?: Prompter,
): Promise<string> {
  if (opts.model !== undefined) {
    if (opts.model.trim() === "") {
      throw new SetupUsageError("--model is empty", "pass --model NAME");
    }
    return opts.model.trim();
  }
  const fallback = preset.default_model ?? (listed.length === 1 ? listed[0].id : undefined);
  if (!ask) {
    if (fallback !== undefined) return fallback;
    throw new SetupUsageError(
      `--preset ${preset.id} has no default model`,
      listed.length
        ? `pass --model, one of: ${preview(listed.map((m) => m.id))}`
        : "pass --model NAME",
    );
  }
  const known = Object.keys(preset.models);
  // The preset's main models first (in its order), then the rest of the listing.
  const ids = listed.length
    ? [
      ...known.filter((id) => listed.some((m) => m.id === id)),
      ...listed.map((m) => m.id).filter((id) => !known.includes(id)).sort(),
    ]
    : known;
  if (ids.length === 0) {
    return (await ask.text({
      message: "Model name",
      initial: fallback,
      validate: (v) =>
        v.trim() === "" ? "give the model's name as the endpoint knows it" : undefined,
    })).trim();
  }
  const OTHER = "\u0000other";
  const picked = await ask.select({
    message: "Which model?",
    options: [
      ...ids.map((id) => {
        const window = listed.find((m) => m.id === id)?.contextWindow ?? preset.models[id];
        return { value: id, label: id, hint: window ? `${tokens(window)} context` : undefined };
      }),
      { value: OTHER, label: "Another model (type its name)" },
    ],
    initial: fallback !== undefined && ids.includes(fallback) ? fallback : ids[0],
  });
  if (picked !== OTHER) return picked;
  return (await ask.text({
    message: "Model name",
    validate: (v) => v.trim() === "" ? "give the model's name as the endpoint knows it" : undefined,
  })).trim();
}

async function chooseWindow(
  opts: SetupOptions,
  preset: ProviderPreset,
  model: string,
  listed: ListedModel[],
  ask: Prompter | undefined,
  warn: (text: string) => void,
): Promise<number> {
  if (opts.contextWindow !== undefined) return opts.contextWindow;
  const known = listed.find((m) => m.id === model)?.contextWindow ?? preset.models[model] ??
    knownContextWindow(model);
  if (known !== undefined) return known;
  if (ask) {
    const text = await ask.text({
      message:
        `Context window of ${model} in tokens (check the model's page or your server's setting)`,
      initial: String(preset.fallback_context_window ?? 128_000),
      validate: (v) =>
        /^\d+$/.test(v.trim()) && Number(v) > 0 ? undefined : "a whole number of tokens",
    });
    return Number(text.trim());
  }
  if (preset.fallback_context_window !== undefined) {
    warn(
      `the context window of ${model} is not known; assuming ${preset.fallback_context_window} ` +
        `tokens. Pass --context-window N with the length your server was started with.`,
    );
    return preset.fallback_context_window;
  }
  throw new SetupUsageError(
    `the context window of ${model} is not known`,
    "pass --context-window N (tokens, from the model's documentation)",
  );
}

function tokens(n: number): string {
  return n >= 1_000_000 && n % 1_000 === 0
    ? `${n / 1_000_000}M`
    : n >= 1_000
    ? `${Math.round(n / 1_024)}K`
    : String(n);
}

/** The provider as `loadConfig` would build it from what {@link writePlan} writes. */
function providerConfig(plan: Plan): ProviderConfig {
  return {
    name: plan.name,
    kind: plan.kind,
    base_url: plan.baseUrl,
    models: [plan.model],
    default: plan.model,
    api_key_env: plan.apiKeyEnv,
    context_window: plan.contextWindow,
    max_output_tokens: 0,
    model_overrides: {},
    headers: {},
    options: { ...plan.preset.options },
  };
}

/** The `[[providers]]` table for `plan`, as TOML source. */
export function providerBlock(plan: {
  name: string;
  kind: string;
  baseUrl: string;
  apiKeyEnv?: string;
  model: string;
  contextWindow: number;
  options?: Readonly<Record<string, string | number | boolean>>;
}): string {
  const lines = [
    "[[providers]]",
    `name = ${JSON.stringify(plan.name)}`,
    `kind = ${JSON.stringify(plan.kind)}`,
    `base_url = ${JSON.stringify(plan.baseUrl)}`,
  ];
  if (plan.apiKeyEnv) lines.push(`api_key_env = ${JSON.stringify(plan.apiKeyEnv)}`);
  lines.push(
    `models = [${JSON.stringify(plan.model)}]`,
    `default = ${JSON.stringify(plan.model)}`,
    `context_window = ${plan.contextWindow}`,
  );
  for (const [key, value] of Object.entries(plan.options ?? {})) {
    lines.push(`${key} = ${JSON.stringify(value)}`);
  }
  return lines.join("\n") + "\n";
}

/** Stores the key and writes `config.toml`; returns one line per file changed. */
async function writePlan(plan: Plan, home: string): Promise<string[]> {
  const out: string[] = [];
  if (plan.apiKeyEnv && plan.apiKey && plan.keyFrom !== "home") {
    const stored = await storeKey(home, plan.apiKeyEnv, plan.apiKey);
    out.push(
      `${stored.replaced ? "replaced" : "stored"} ${plan.apiKeyEnv} in ${stored.path} (mode 0600)`,
    );
  }
  const path = join(home, "config.toml");
  // Strict UTF-8 and a clear error for a directory: the file is rewritten below.
  let text = await readConfigText(path) ?? "";
  if (!plan.builtin) {
    text = upsertArrayTable(text, {
      array: "providers",
      match: { key: "name", value: plan.name },
      block: providerBlock({ ...plan, options: plan.preset.options }),
      file: path,
    });
  }
  const builtinDefault = plan.builtin && plan.model === plan.preset.default_model;
  const defaultModel = plan.builtin && !builtinDefault ? `${plan.name}/${plan.model}` : plan.name;
  text = setRootValue(text, {
    key: "default_model",
    literal: JSON.stringify(defaultModel),
    file: path,
  });
  await writeTomlFile(path, text);
  out.push(
    plan.builtin
      ? `wrote ${path}: default_model = "${defaultModel}" (the built-in provider)`
      : `wrote ${path}:\n  [[providers]] "${plan.name}": kind ${plan.kind}, model ` +
        `${plan.model}, context_window ${plan.contextWindow}\n  default_model = "${defaultModel}"`,
  );
  return out;
}
