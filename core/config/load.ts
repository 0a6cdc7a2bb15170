/**
 * Loads the layered configuration: built-in defaults, then `<home>/config.toml`, then
 * `<cwd>/reasonix.toml`. Command-line flags go on top with `applyFlags`.
 *
 * @module
 */
import { dirname, join } from "node:path";
import type { z } from "zod";
import { providerKindDescriptor, providerKinds } from "../../providers/registry.ts";
import { displayUrl } from "../../providers/http.ts";
import { endpointUrl } from "../../providers/settings.ts";
import { looksLikeApiKey } from "./api_key.ts";
import { BUILTIN_SOURCE, builtinDefaults } from "./defaults.ts";
import { loadHomeDotenv } from "./dotenv.ts";
import { endpointOrigins } from "./endpoint.ts";
import { ConfigError } from "./errors.ts";
import { parseConfigToml, readConfigText } from "./files.ts";
import { expandVars, referencedVars, VarExpansionError, type VarLookup } from "./expand.ts";
import { reasonixHome } from "./home.ts";
import { mergeLayers } from "./merge.ts";
import {
  knownKeysAt,
  type LayerData,
  type LayerProvider,
  layerSchema,
  LEGACY_KEYS,
  PROVIDER_KEYS,
} from "./schema.ts";
import { knownContextWindow } from "./known_models.ts";
import { suggestKey } from "./suggest.ts";
import { type KeyPath, locateKey, tomlKeyPositions } from "./toml_locate.ts";
import { canonicalPathSync } from "../permission/confine.ts";
import { isWithin } from "../../tools/paths.ts";
import { LOOSENING_SETTINGS, projectSettingsDeclaration, type TrustDeclaration } from "./trust.ts";
import type {
  AgentConfig,
  Config,
  KeyBinding,
  PermissionsConfig,
  ProviderConfig,
  ProviderSource,
  SandboxConfig,
  SourceLocation,
  ToolsConfig,
} from "./types.ts";

/** Options for {@link loadConfig}. */
export interface LoadConfigOptions {
  /** The project directory; `<cwd>/reasonix.toml` is the project layer. */
  cwd: string;
  /** The process environment, passed explicitly so tests never read the real one. */
  env: Record<string, string | undefined>;
  /** The Reasonix home; defaults to {@link reasonixHome} of `env`. */
  home?: string;
  /**
   * Valid provider kinds. Defaults to the kinds registered in `providers/registry.ts`, so the
   * composition root must import the built-in provider kinds before loading.
   */
  knownKinds?: readonly string[];
  /**
   * Whether the project's loosening settings (`[permissions].allow`, `[sandbox].allow_write`,
   * ... see `LOOSENING_SETTINGS` in trust.ts) apply: `true`, or a check of their declaration
   * against the user's trust store. Absent or `false`: they are held back. Tightening settings
   * (deny and ask rules, `forbid_read`, a stricter mode) always apply.
   */
  trustedProject?: boolean | ((settings: TrustDeclaration) => boolean);
  /**
   * A trusted TOML layer over the user's `config.toml` and under the project's: settings a
   * library caller passes in code (`openHost({ config })`). `source` names it in messages.
   */
  extraLayer?: { source: string; text: string };
}

/**
 * The merged configuration plus non-fatal findings (unknown keys), one line each, and the
 * project's loosening settings when they were held back because the workspace is not trusted.
 */
export type LoadedConfig = Config & { warnings: string[]; untrustedSettings?: TrustDeclaration };

type Table = Record<string, unknown>;

/** One parsed, expanded and validated layer. */
interface Layer {
  /** File path, or `built-in defaults`. */
  source: string;
  /** Source text, for locating keys; absent for the built-in layer. */
  text?: string;
  trusted: boolean;
  data: LayerData;
  /** Index in the file of each kept `[sandbox].allow_write` entry, when some were dropped. */
  allowWriteIndex?: number[];
}

interface Context {
  lookup: VarLookup;
  knownKinds: readonly string[];
  warnings: string[];
  /** Variables trusted layers use as `api_key_env`: a project file may not expand them. */
  keyVars: Map<string, KeyBinding[]>;
  userConfigPath: string;
  /** The project directory: a project file may not widen the sandbox beyond it. */
  cwd: string;
  /** A permission mode a project file asked for, applied later only if it tightens. */
  projectMode?: { value: string; source: string };
  /** Warnings about ignored keys outside `[[providers]]`, for notes on later errors. */
  ignored: string[];
  /** Warnings about ignored keys of each provider (by name), for notes on later errors. */
  providerIgnored: Map<string, string[]>;
}

/**
 * Loads, merges and validates the configuration. `${VAR}` references are expanded from
 * `env` and then `<home>/.env` (never a project `.env`). Throws {@link ConfigError}.
 */
export async function loadConfig(opts: LoadConfigOptions): Promise<LoadedConfig> {
  const home = opts.home ?? reasonixHome(opts.env);
  const homeEnv = await loadHomeDotenv(home);
  const ctx: Context = {
    lookup: (name) => opts.env[name] ?? homeEnv[name],
    knownKinds: opts.knownKinds ?? providerKinds(),
    warnings: [],
    keyVars: new Map(),
    userConfigPath: join(home, "config.toml"),
    cwd: opts.cwd,
    ignored: [],
    providerIgnored: new Map(),
  };

  const layers: Layer[] = [
    prepareLayer({ source: BUILTIN_SOURCE, trusted: true, raw: builtinDefaults() }, ctx),
  ];
  const userText = await readConfigText(ctx.userConfigPath);
  if (userText !== undefined) {
    layers.push(prepareLayer({ source: ctx.userConfigPath, trusted: true, text: userText }, ctx));
  }
  if (opts.extraLayer) {
    layers.push(prepareLayer({ ...opts.extraLayer, trusted: true }, ctx));
  }
  ctx.keyVars = keyBindings(layers);

  const projectPath = join(opts.cwd, "reasonix.toml");
  const projectText = await readConfigText(projectPath);
  let untrustedSettings: TrustDeclaration | undefined;
  if (projectText !== undefined) {
    const layer = prepareLayer({ source: projectPath, trusted: false, text: projectText }, ctx);
    const settings = projectSettingsDeclaration(projectText, projectPath);
    const trusted = typeof opts.trustedProject === "function"
      ? settings !== undefined && opts.trustedProject(settings)
      : opts.trustedProject === true;
    if (settings && !trusted) {
      holdBackLoosening(layer, settings);
      untrustedSettings = settings;
    }
    layers.push(layer);
  }

  const config = finalize(mergeAll(layers), layers, ctx);
  if (ctx.projectMode) {
    config.permissions.project_mode = ctx.projectMode.value;
    config.permissions.project_mode_source = ctx.projectMode.source;
  }
  return {
    ...config,
    warnings: ctx.warnings,
    ...(untrustedSettings ? { untrustedSettings } : {}),
  };
}

/**
 * Removes the settings of an untrusted project file that would loosen what the user allows;
 * a value that loosens nothing (`false`, an empty list) stays, as it may tighten a user's.
 */
function holdBackLoosening(layer: Layer, settings: TrustDeclaration): void {
  const data = layer.data as Record<string, Table | undefined>;
  for (const [table, key] of LOOSENING_SETTINGS) {
    const section = data[table];
    if (section && `${table}.${key}` in settings.content) delete section[key];
  }
}

// ---------------------------------------------------------------------------------------
// One layer

interface LayerInput {
  source: string;
  trusted: boolean;
  text?: string;
  raw?: Table;
}

function prepareLayer(input: LayerInput, ctx: Context): Layer {
  const raw = input.raw ?? parseConfigToml(input.text ?? "", input.source);
  const layer: Layer = {
    source: input.source,
    text: input.text,
    trusted: input.trusted,
    data: {},
  };
  dropLegacyKeys(raw);

  // Unknown keys are reported and dropped before expansion, so a stray key cannot fail the
  // load through an unset variable.
  const first = layerSchema.safeParse(raw);
  const unknown: { line: number; text: string }[] = [];
  for (const issue of first.error?.issues ?? []) {
    if (issue.code !== "unrecognized_keys") continue;
    const parent = valueAt(raw, issue.path as KeyPath) as Table;
    for (const key of issue.keys) {
      const path = [...issue.path, key] as KeyPath;
      unknown.push({
        line: locate(layer, path).line ?? 0,
        text: `${where(layer, path)}${unknownKeyText(path, parent[key], raw)}`,
      });
      delete parent[key];
    }
  }
  const sorted = unknown.sort((a, b) => a.line - b.line).map((w) => w.text);
  ctx.warnings.push(...sorted);
  ctx.ignored.push(...sorted);

  expandTree(raw, [], { layer, root: raw, ctx });

  const second = layerSchema.safeParse(raw);
  if (!second.success) throw issueError(layer, raw, second.error.issues);
  layer.data = second.data;
  checkProviders(layer, ctx);
  if (!input.trusted) confineUntrusted(layer, ctx);
  return layer;
}

/**
 * A project file (possibly from a cloned repository) can tighten what the user allows but
 * never loosen it: its permission mode is held back for the caller to apply only when it is
 * stricter, and sandbox roots that resolve outside the project are dropped with a warning.
 * Roots are judged where they really lead: through every symlink of their deepest existing
 * part (a committed `vendor/cache -> ../../..` is `/`, not `vendor/cache`), with `~` expanded
 * as the permission layer will. Kept roots are rewritten to that resolved path, so they mean
 * the same thing whatever directory the workspace root turns out to be.
 */
function confineUntrusted(layer: Layer, ctx: Context): void {
  const permissions = layer.data.permissions as { mode?: string } | undefined;
  if (permissions?.mode !== undefined) {
    ctx.projectMode = { value: permissions.mode, source: layer.source };
    delete permissions.mode;
  }
  const sandbox = layer.data.sandbox as
    | { workspace_root?: string; allow_write?: string[] }
    | undefined;
  if (!sandbox) return;
  const home = ctx.lookup("HOME") ?? ctx.lookup("USERPROFILE");
  const project = canonicalPathSync(ctx.cwd);
  const place = (path: string) => {
    const expanded = home && (path === "~" || path.startsWith("~/"))
      ? join(home, path.slice(1))
      : path;
    return canonicalPathSync(expanded, project);
  };
  const refused = (
    key: KeyPath,
    { path, resolved }: { path: string; resolved: string },
    fix: string,
  ) =>
    ctx.warnings.push(
      `${where(layer, key)}[sandbox].${key[1]} "${path}" resolves to ${resolved}, outside the ` +
        `project ${project}, and is ignored; ${fix}`,
    );
  if (sandbox.workspace_root !== undefined && sandbox.workspace_root !== "") {
    const resolved = place(sandbox.workspace_root);
    if (isWithin(project, resolved)) sandbox.workspace_root = resolved;
    else {
      refused(
        ["sandbox", "workspace_root"],
        { path: sandbox.workspace_root, resolved },
        "only your user config can move the workspace elsewhere",
      );
      delete sandbox.workspace_root;
    }
  }
  if (sandbox.allow_write) {
    const kept: string[] = [];
    const index: number[] = [];
    sandbox.allow_write.forEach((path, i) => {
      const resolved = place(path);
      if (isWithin(project, resolved)) {
        kept.push(resolved);
        index.push(i);
      } else {
        refused(
          ["sandbox", "allow_write", i],
          { path, resolved },
          "grant it in your user config or approve it when asked",
        );
      }
    });
    sandbox.allow_write = kept;
    layer.allowWriteIndex = index;
  }
}

/**
 * Records where the effective `allow_write` entries and `workspace_root` were written, so the
 * permission layer can name the file and line of a root it refuses. A list comes whole from
 * the highest layer that set it.
 */
function sandboxOrigins(sandbox: SandboxConfig, layers: Layer[]): void {
  const from = (key: "allow_write" | "workspace_root") =>
    [...layers].reverse().find((l) => l.text !== undefined && l.data.sandbox?.[key] !== undefined);
  const writeLayer = from("allow_write");
  if (writeLayer) {
    sandbox.allow_write_at = sandbox.allow_write.map((_, i) =>
      sourceLocation(writeLayer, ["sandbox", "allow_write", writeLayer.allowWriteIndex?.[i] ?? i])
    );
  }
  const rootLayer = from("workspace_root");
  if (rootLayer) {
    sandbox.workspace_root_at = sourceLocation(rootLayer, ["sandbox", "workspace_root"]);
  }
}

function dropLegacyKeys(raw: Table): void {
  const tables: unknown[] = [raw, raw.agent];
  if (Array.isArray(raw.providers)) tables.push(...raw.providers);
  for (const t of tables) {
    if (!isTable(t)) continue;
    for (const key of Object.keys(t)) if (LEGACY_KEYS.has(key)) delete t[key];
  }
}

/** Where an expansion happens: the layer, its whole document and the load's context. */
interface ExpandScope {
  layer: Layer;
  root: Table;
  ctx: Context;
}

/** Expands `${VAR}` in every string value except the raw `[mcp]` table. */
function expandTree(node: unknown, path: (string | number)[], scope: ExpandScope): unknown {
  if (typeof node === "string") return expandString(node, path, scope);
  if (Array.isArray(node)) {
    node.forEach((v, i) => node[i] = expandTree(v, [...path, i], scope));
  } else if (isTable(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (path.length === 0 && key === "mcp") continue;
      node[key] = expandTree(value, [...path, key], scope);
    }
  }
  return node;
}

function expandString(text: string, path: KeyPath, { layer, root, ctx }: ExpandScope): string {
  const key = describeKey(path, root);
  if (!layer.trusted) {
    for (const name of referencedVars(text)) {
      const bindings = ctx.keyVars.get(name);
      if (!bindings) continue;
      const b = bindings[0];
      throw new ConfigError({
        ...locate(layer, path),
        problem: `${key} expands \${${name}}, the API key of ` +
          `provider "${b.provider}" (${b.file}); a project file may not read a user's API keys`,
        fix: `use api_key_env = "${name}" on a provider with the same endpoint, or declare ` +
          `this provider in ${ctx.userConfigPath}`,
      });
    }
  }
  try {
    return expandVars(text, ctx.lookup);
  } catch (err) {
    if (!(err instanceof VarExpansionError)) throw err;
    if (err.reason === "unset") {
      throw new ConfigError({
        ...locate(layer, path),
        problem: `${key} uses \${${err.variable}}, but ${err.variable} is not set`,
        fix: `set ${err.variable} or write \${${err.variable}:-default}`,
        cause: err,
      });
    }
    throw new ConfigError({
      ...locate(layer, path),
      problem: `${key}: ${err.message}`,
      fix: "write ${NAME} or ${NAME:-default}, and $$ for a literal $",
      cause: err,
    });
  }
}

/**
 * `unknown key "agent.max_turn" is ignored; did you mean "agent.max_turns"?`, or for a table
 * `unknown table [[provider]] is ignored; did you mean [[providers]]?`: the suggestion is the
 * closest key the schema knows in the same table, written the way that key is written.
 */
function unknownKeyText(path: KeyPath, value: unknown, root: Table): string {
  const parentPath = path.slice(0, -1);
  const key = String(path[path.length - 1]);
  const known = knownKeysAt(parentPath) ?? [];
  const near = suggestKey(key, known.map((k) => k.key));
  const form = known.find((k) => k.key === near)?.form ?? "key";
  // Inside a provider table the path is relative to it and the table is named after it.
  const inProvider = path[0] === "providers" && typeof path[1] === "number";
  const show = (name: string, as: "key" | "table" | "array") => {
    const full = dotted([...(inProvider ? parentPath.slice(2) : parentPath), name]);
    return as === "array" ? `[[${full}]]` : as === "table" ? `[${full}]` : `"${full}"`;
  };
  const table = inProvider ? ` in ${describeKey(path.slice(0, 2), root)}` : "";
  const own = Array.isArray(value) && value.length > 0 && value.every(isTable)
    ? "array"
    : isTable(value)
    ? "table"
    : "key";
  const what = own === "key" ? `unknown key ${show(key, own)}` : `unknown table ${show(key, own)}`;
  return `${what}${table} is ignored` +
    (near === undefined ? "" : `; did you mean ${show(near, form)}?`);
}

function checkProviders(layer: Layer, ctx: Context): void {
  const seen = new Map<string, number>();
  (layer.data.providers ?? []).forEach((p, i) => {
    const earlier = seen.get(p.name);
    if (earlier !== undefined) {
      const first = locate(layer, ["providers", earlier]);
      throw new ConfigError({
        ...locate(layer, ["providers", i, "name"]),
        problem: `[[providers]] "${p.name}" is declared twice in this file` +
          (first.line ? ` (first on line ${first.line})` : ""),
        fix: `merge the two [[providers]] tables named "${p.name}" or rename one`,
      });
    }
    seen.set(p.name, i);
    if (p.api_key_env !== undefined && looksLikeApiKey(p.api_key_env)) {
      const path: KeyPath = ["providers", i, "api_key_env"];
      throw keyInNameError(
        locate(layer, path),
        describeKey(path, { providers: layer.data.providers }),
        p.name,
        layer.source,
      );
    }
    if (p.kind !== undefined && !ctx.knownKinds.includes(p.kind)) {
      const known = ctx.knownKinds.length ? ctx.knownKinds.join(", ") : "none registered";
      throw new ConfigError({
        ...locate(layer, ["providers", i, "kind"]),
        problem: `[[providers]] "${p.name}" has unknown kind "${p.kind}" (known kinds: ${known})`,
        fix: ctx.knownKinds.length
          ? `set kind to one of: ${ctx.knownKinds.join(", ")}`
          : "register the built-in provider kinds before loading the configuration",
      });
    }
    checkCapabilityOptions(p, layer, i);
    moveExtrasToOptions(p, { layer, index: i }, ctx);
  });
}

/**
 * Provider options that `providers/capabilities.ts` reads. It skips a value of the wrong type,
 * so without this check `images = "yes"` would be ignored without a word.
 */
const CAPABILITY_OPTIONS: Record<string, { requirement: string; valid(v: unknown): boolean }> = {
  images: { requirement: "true or false", valid: (v) => typeof v === "boolean" },
  vision_models: { requirement: "a list of model names", valid: Array.isArray },
  ignores_thinking_budget: { requirement: "true or false", valid: (v) => typeof v === "boolean" },
  automatic_output_tokens: {
    requirement: "a whole number greater than 0",
    valid: (v) => typeof v === "number" && Number.isInteger(v) && v > 0,
  },
};

/** Checks the capability options, written flat in the table or inside its `options`. */
function checkCapabilityOptions(p: LayerProvider, layer: Layer, index: number): void {
  const fail = (path: KeyPath, requirement: string, value: unknown): never => {
    throw new ConfigError({
      ...locate(layer, path),
      problem: `${describeKey(path, { providers: layer.data.providers })} must be ` +
        `${requirement}, got ${show(value)}`,
      fix: `set ${dotted(path.slice(2))} to ${requirement}`,
    });
  };
  for (const [key, { requirement, valid }] of Object.entries(CAPABILITY_OPTIONS)) {
    const places: [unknown, KeyPath][] = [
      [p[key], ["providers", index, key]],
      [isTable(p.options) ? p.options[key] : undefined, ["providers", index, "options", key]],
    ];
    for (const [value, path] of places) {
      if (value === undefined) continue;
      if (!valid(value)) fail(path, requirement, value);
      // A list is reported by its first bad element, which the path names (`vision_models[1]`).
      if (Array.isArray(value)) {
        const bad = value.findIndex((m) => typeof m !== "string" || m === "");
        if (bad >= 0) fail([...path, bad], "a model name", value[bad]);
      }
    }
  }
}

/**
 * Options every kind accepts: the capability declarations, and `web_search`, a key of the
 * specification's example no kind reads yet.
 */
const GENERIC_OPTIONS: readonly string[] = [...Object.keys(CAPABILITY_OPTIONS), "web_search"];

/** Every option key some registered kind declares, plus {@link GENERIC_OPTIONS}. */
function declaredOptions(ctx: Context): Set<string> {
  const out = new Set<string>(GENERIC_OPTIONS);
  for (const kind of ctx.knownKinds) {
    for (const key of providerKindDescriptor(kind).options ?? []) out.add(key);
  }
  return out;
}

/**
 * Keys the config layer does not interpret are kind-specific options (`thinking`, ...), checked
 * against the final kind in {@link buildProvider}. A key that misspells one the config layer
 * does interpret (`base_ur`) is dropped with a warning: passed on as an option it would only
 * surface later as a puzzling "needs base_url".
 */
function moveExtrasToOptions(
  p: LayerProvider,
  { layer, index }: { layer: Layer; index: number },
  ctx: Context,
): void {
  const known = new Set<string>(PROVIDER_KEYS);
  const options = declaredOptions(ctx);
  const extras: Table = {};
  for (const key of Object.keys(p)) {
    if (known.has(key)) continue;
    const value = p[key];
    delete p[key];
    const near = options.has(key) ? undefined : suggestKey(key, PROVIDER_KEYS);
    if (near === undefined) {
      extras[key] = value;
      continue;
    }
    const text = `${where(layer, ["providers", index, key])}unknown key "${key}" in ` +
      `[[providers]] "${p.name}" is ignored; did you mean "${near}"?`;
    ctx.warnings.push(text);
    providerIgnored(ctx, p.name).push(text);
  }
  if (Object.keys(extras).length) p.options = { ...extras, ...p.options };
}

function providerIgnored(ctx: Context, name: string): string[] {
  let list = ctx.providerIgnored.get(name);
  if (!list) ctx.providerIgnored.set(name, list = []);
  return list;
}

/**
 * The provider's options without those its kind does not read, each dropped with a warning at
 * the line that set it. A kind that declares no option list (a library's own) gets them all.
 */
function checkedOptions(
  p: LayerProvider & { kind: string },
  occ: Occurrence[],
  ctx: Context,
): Table {
  const options: Table = { ...(p.options ?? {}) };
  const declared = providerKindDescriptor(p.kind).options;
  if (!declared) return options;
  const reads = [...declared, ...GENERIC_OPTIONS];
  for (const key of Object.keys(options)) {
    if (reads.includes(key)) continue;
    delete options[key];
    const at = optionFrom(occ, key);
    const near = suggestKey(key, [...PROVIDER_KEYS, ...reads]);
    const text = `${at ? atText(at) : ""}unknown key "${key}" in [[providers]] "${p.name}" ` +
      `is ignored: kind "${p.kind}" reads no such option (it reads ${reads.join(", ")})` +
      (near === undefined ? "" : `; did you mean "${near}"?`);
    ctx.warnings.push(text);
    providerIgnored(ctx, p.name).push(text);
  }
  return options;
}

function atText(at: SourceLocation): string {
  return at.line === undefined ? `${at.file}: ` : `${at.file}:${at.line}: `;
}

/**
 * A `base_url` that already ends in the path the kind appends (`…/v1/chat/completions`) would
 * be requested with the path twice. The path is taken off, with one warning, so the kind
 * requests the URL as written; with a query string (`?api-version=…`), which the kind's path
 * cannot follow, the URL becomes the verbatim request URL instead.
 */
function endpointOfBase(
  p: LayerProvider & { kind: string },
  occ: Occurrence[],
  ctx: Context,
): { base_url?: string; request_url?: string } {
  const requestPath = providerKindDescriptor(p.kind).requestPath;
  const base = p.base_url;
  const unchanged = { base_url: base, request_url: p.request_url };
  if (!requestPath || base === undefined || p.request_url !== undefined || p.chat_url) {
    return unchanged;
  }
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return unchanged;
  }
  const path = url.pathname.replace(/\/+$/, "");
  // `/v1/messages` also matches a base ending in `/messages` (`…/anthropic/messages`).
  const tails = requestPath.startsWith("/v1/")
    ? [requestPath, requestPath.slice(3)]
    : [requestPath];
  const suffix = tails.find((tail) => path.endsWith(tail));
  if (suffix === undefined) return unchanged;
  const root = `${url.origin}${path.slice(0, -suffix.length)}`;
  const request = url.search === ""
    ? endpointUrl({ name: p.name, model: "", baseUrl: root }, requestPath)
    : `${url.origin}${path}${url.search}`;
  const at = fieldFrom(occ, "base_url");
  ctx.warnings.push(
    `${at ? atText(at) : ""}base_url in [[providers]] "${p.name}" ends in ${suffix}, the path ` +
      `Reasonix appends itself; using ${displayUrl(root)} as the base, so requests go to ` +
      `${displayUrl(request)}. Set base_url = "${displayUrl(root)}" to silence ` +
      "this warning",
  );
  return url.search === "" ? { base_url: root } : { base_url: root, request_url: request };
}

// ---------------------------------------------------------------------------------------
// Errors and locations

function issueError(layer: Layer, raw: Table, issues: z.ZodError["issues"]): ConfigError {
  const real = issues.filter((i) => i.code !== "unrecognized_keys");
  const located = (real.length ? real : issues)
    .map((issue) => ({ issue, at: locate(layer, issue.path as KeyPath) }));
  located.sort((a, b) => (a.at.line ?? Infinity) - (b.at.line ?? Infinity));
  const { issue, at } = located[0];
  const path = issue.path as KeyPath;
  const key = describeKey(path, raw);
  const value = valueAt(raw, path);
  const requirement = issue.message;
  if (path[path.length - 1] === "api_key_env" && typeof value === "string") {
    // Whatever is in there is most likely the key itself: it is never repeated.
    return keyInNameError(at, key, providerNameAt(raw, path), layer.source);
  }
  if (path.includes("headers") && value !== undefined) {
    return new ConfigError({
      ...at,
      problem: `${key} must be ${requirement} (the value is not shown: it may be a credential)`,
      fix: `set ${key} to ${requirement}`,
    });
  }
  return new ConfigError({
    ...at,
    problem: value === undefined
      ? `${key} is missing; it must be ${requirement}`
      : `${key} must be ${requirement}, got ${show(value)}`,
    fix: value === undefined ? `add ${key}, ${requirement}` : `set ${key} to ${requirement}`,
  });
}

/** `api_key_env` holds something that is not a variable name, most likely the key itself. */
function keyInNameError(
  at: { file?: string; line?: number; column?: number },
  key: string,
  provider: string | undefined,
  source: string,
): ConfigError {
  const name = suggestedKeyVar(provider);
  const dotenv = source === BUILTIN_SOURCE ? "<home>/.env" : join(dirname(source), ".env");
  return new ConfigError({
    ...at,
    problem: `${key} must be the name of an environment variable that holds the key, not the ` +
      `key itself (the value is not shown)`,
    fix: `put the key in ${dotenv} as ${name}=<your key> (or export ${name}) and set ` +
      `api_key_env = "${name}"`,
  });
}

/** `OPENROUTER_API_KEY` for a provider named `openrouter`. */
function suggestedKeyVar(provider: string | undefined): string {
  const stem = (provider ?? "").toUpperCase().replace(/[^A-Z0-9]+/g, "_").replace(/^_+|_+$/g, "");
  return `${/^[A-Z_]/.test(stem) ? stem : `PROVIDER_${stem}`}_API_KEY`.replace(/^_API/, "API");
}

function providerNameAt(root: Table, path: KeyPath): string | undefined {
  if (path[0] !== "providers" || typeof path[1] !== "number") return undefined;
  const entry = (root.providers as unknown[] | undefined)?.[path[1]];
  return isTable(entry) && typeof entry.name === "string" ? entry.name : undefined;
}

function locate(layer: Layer, path: KeyPath): { file: string; line?: number; column?: number } {
  const pos = layer.text === undefined ? undefined : locateKey(layer.text, path);
  return { file: layer.source, line: pos?.line, column: pos?.column };
}

function where(layer: Layer, path: KeyPath): string {
  const at = locate(layer, path);
  return at.line === undefined ? `${at.file}: ` : `${at.file}:${at.line}: `;
}

/** `agent.compact_ratio`, or `context_window in [[providers]] "name"`. */
function describeKey(path: KeyPath, root: Table): string {
  if (path[0] === "providers" && typeof path[1] === "number") {
    const entry = (root.providers as unknown[] | undefined)?.[path[1]];
    const name = isTable(entry) && typeof entry.name === "string" ? entry.name : undefined;
    const label = name !== undefined ? `[[providers]] "${name}"` : `[[providers]] #${path[1] + 1}`;
    const rest = path.slice(2);
    return rest.length ? `${dotted(rest)} in ${label}` : label;
  }
  return dotted(path);
}

function dotted(path: KeyPath): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else {
      const key = /^[A-Za-z0-9_-]+$/.test(seg) ? seg : JSON.stringify(seg);
      out += out ? `.${key}` : key;
    }
  }
  return out;
}

function show(value: unknown): string {
  // JSON has no spelling for these and would print "null".
  if (typeof value === "number" && Number.isNaN(value)) return "nan (not a number)";
  if (value === Infinity || value === -Infinity) {
    return `${value < 0 ? "-" : ""}inf (an infinite number, or one too large to store)`;
  }
  if (Array.isArray(value)) return "a list";
  if (isTable(value)) return "a table";
  return JSON.stringify(value) ?? String(value);
}

function valueAt(root: unknown, path: KeyPath): unknown {
  let node = root;
  for (const seg of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string | number, unknown>)[seg];
  }
  return node;
}

function isTable(v: unknown): v is Table {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// ---------------------------------------------------------------------------------------
// Provenance and the merged result

interface Occurrence {
  layer: Layer;
  index: number;
  provider: LayerProvider;
}

function occurrences(layers: Layer[], name: string): Occurrence[] {
  const out: Occurrence[] = [];
  for (const layer of layers) {
    const index = layer.data.providers?.findIndex((p) => p.name === name) ?? -1;
    if (index >= 0) out.push({ layer, index, provider: layer.data.providers![index] });
  }
  return out;
}

/** The highest layer that set `field` on the provider, as a source location. */
function fieldFrom(occ: Occurrence[], field: string): SourceLocation | undefined {
  for (let k = occ.length - 1; k >= 0; k--) {
    const o = occ[k];
    if (o.provider[field] === undefined) continue;
    return sourceLocation(o.layer, ["providers", o.index, field]);
  }
  return undefined;
}

/**
 * The highest layer that set the kind-specific option `key`, written either as a key of the
 * provider table or inside its `options` table.
 */
function optionFrom(occ: Occurrence[], key: string): SourceLocation | undefined {
  for (let k = occ.length - 1; k >= 0; k--) {
    const o = occ[k];
    const options = o.provider.options;
    if (!isTable(options) || options[key] === undefined) continue;
    const flat: KeyPath = ["providers", o.index, key];
    const nested: KeyPath = ["providers", o.index, "options", key];
    const written = o.layer.text !== undefined &&
      tomlKeyPositions(o.layer.text).has(JSON.stringify(flat));
    return sourceLocation(o.layer, written ? flat : nested);
  }
  return undefined;
}

function sourceLocation(layer: Layer, path: KeyPath): SourceLocation {
  const at = locate(layer, path);
  return withoutUndefined({ file: at.file, line: at.line, trusted: layer.trusted });
}

function withoutUndefined<T extends object>(obj: T): T {
  for (const key of Object.keys(obj) as (keyof T)[]) if (obj[key] === undefined) delete obj[key];
  return obj;
}

/** Which endpoints the trusted layers bind to each `api_key_env` name. */
function keyBindings(trusted: Layer[]): Map<string, KeyBinding[]> {
  const out = new Map<string, KeyBinding[]>();
  for (const p of mergeAll(trusted).providers ?? []) {
    if (!p.api_key_env) continue;
    const file = fieldFrom(occurrences(trusted, p.name), "api_key_env")?.file ?? BUILTIN_SOURCE;
    const list = out.get(p.api_key_env) ?? [];
    for (const { origin } of endpointOrigins({ ...p, kind: p.kind ?? "" })) {
      list.push({ origin, provider: p.name, file });
    }
    out.set(p.api_key_env, list);
  }
  return out;
}

function mergeAll(layers: Layer[]): LayerData {
  return layers.slice(1).reduce((acc, l) => mergeLayers(acc, l.data), layers[0].data);
}

function finalize(merged: LayerData, layers: Layer[], ctx: Context): Config {
  const providers = (merged.providers ?? []).map((p) => buildProvider(p, layers, ctx));
  const defaultFrom = [...layers].reverse().find((l) => l.data.default_model !== undefined);
  const config: Config = {
    // The built-in layer supplies every required key below; later layers only override.
    default_model: merged.default_model!,
    agent: merged.agent as AgentConfig,
    providers,
    tools: merged.tools as ToolsConfig,
    permissions: merged.permissions as PermissionsConfig,
    sandbox: merged.sandbox as SandboxConfig,
    mcp: merged.mcp ?? {},
    serve: merged.serve ?? {},
    ...(merged.subagents ? { subagents: merged.subagents } : {}),
    sources: layers.filter((l) => l.text !== undefined).map((l) => l.source),
    default_model_from: defaultFrom?.source ?? BUILTIN_SOURCE,
  };
  sandboxOrigins(config.sandbox, layers);
  const defaultLine = defaultFrom && locate(defaultFrom, ["default_model"]).line;
  if (defaultLine !== undefined) config.default_model_line = defaultLine;
  if (ctx.ignored.length) config.ignored = [...ctx.ignored];
  if (merged.keep !== undefined) config.keep = merged.keep;
  if (merged.recent_keep !== undefined) config.recent_keep = merged.recent_keep;
  return config;
}

function buildProvider(p: LayerProvider, layers: Layer[], ctx: Context): ProviderConfig {
  const occ = occurrences(layers, p.name);
  const top = occ[occ.length - 1];
  const header = locate(top.layer, ["providers", top.index]);
  // A typo elsewhere in the table (`knid`, `modles`) may be why something is missing here.
  const notes = ctx.providerIgnored.get(p.name) ?? [];
  if (p.kind === undefined) {
    throw new ConfigError({
      ...header,
      problem: `[[providers]] "${p.name}" has no kind`,
      fix: `add kind = "${ctx.knownKinds[0] ?? "openai"}" to the [[providers]] table "${p.name}"` +
        (ctx.knownKinds.length ? ` (known kinds: ${ctx.knownKinds.join(", ")})` : ""),
      notes,
    });
  }
  const models = p.models ?? [];
  if (p.context_window === undefined) {
    throw new ConfigError({
      ...header,
      problem: `[[providers]] "${p.name}" has no context_window`,
      fix: contextWindowFix(p.name, p.default === undefined ? models : [p.default, ...models]),
      notes,
    });
  }
  if (p.default !== undefined && models.length > 0 && !models.includes(p.default)) {
    const at = fieldFrom(occ, "default")!;
    throw new ConfigError({
      file: at.file,
      line: at.line,
      problem: `default = "${p.default}" in [[providers]] "${p.name}" is not one of its ` +
        `models (${models.join(", ")})`,
      fix: `set default to one of the listed models, or add "${p.default}" to models`,
      notes,
    });
  }
  const kinded = { ...p, kind: p.kind };
  const options = checkedOptions(kinded, occ, ctx);
  const endpoint = endpointOfBase(kinded, occ, ctx);

  const source: ProviderSource = {
    declared_in: sourceLocation(occ[0].layer, ["providers", occ[0].index]),
    endpoint_from: {},
  };
  for (const key of ["base_url", "request_url", "chat_url"] as const) {
    const from = fieldFrom(occ, key);
    if (from) source.endpoint_from[key] = from;
  }
  if (endpoint.request_url !== undefined && p.request_url === undefined) {
    // The request URL is the base_url as written: that is the line to blame or quote.
    source.endpoint_from.request_url = source.endpoint_from.base_url;
  }
  const keyFrom = fieldFrom(occ, "api_key_env");
  if (keyFrom) source.api_key_env_from = keyFrom;
  for (const key of Object.keys(options)) {
    const from = optionFrom(occ, key);
    if (from) (source.options_from ??= {})[key] = from;
  }
  const bindings = p.api_key_env ? ctx.keyVars.get(p.api_key_env) : undefined;
  if (bindings) source.trusted_key_bindings = bindings;
  const ignored = ctx.providerIgnored.get(p.name);
  if (ignored?.length) source.ignored = [...ignored];

  return withoutUndefined<ProviderConfig>({
    name: p.name,
    kind: p.kind,
    base_url: endpoint.base_url,
    request_url: endpoint.request_url,
    chat_url: p.chat_url,
    models,
    default: p.default,
    api_key_env: p.api_key_env,
    context_window: p.context_window,
    max_output_tokens: p.max_output_tokens ?? 0,
    model_overrides: p.model_overrides ?? {},
    price: p.price,
    headers: p.headers ?? {},
    options,
    source,
  });
}

/**
 * The fix for a missing `context_window`: the documented window of the provider's models when
 * the table of known models has them (the smallest, so no listed model overflows), else how to
 * find it.
 */
function contextWindowFix(provider: string, listed: readonly string[]): string {
  const models = [...new Set(listed)];
  const known = models
    .map((model) => ({ model, window: knownContextWindow(model) }))
    .filter((k): k is { model: string; window: number } => k.window !== undefined)
    .sort((a, b) => a.window - b.window);
  if (known.length === 0) {
    return `add context_window = <tokens> (the models' context window, from the provider's ` +
      `model documentation) to [[providers]] "${provider}"`;
  }
  const { model, window } = known[0];
  const others = models.length > 1
    ? "; a model with a larger window can have its own in [providers.model_overrides.<model>]"
    : "";
  return `add context_window = ${window} (the documented window of ${model}) to [[providers]] ` +
    `"${provider}"${others}`;
}
