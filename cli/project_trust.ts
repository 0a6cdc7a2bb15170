/**
 * Workspace trust at the command line: what the project in the working directory declares
 * that needs the user's trust, which of it is trusted, and the warning a run shows for the
 * rest. Project files are untrusted input (a cloned repository, a `git pull` or the model can
 * write them), so:
 *
 * - every MCP server a project file declares (`reasonix.toml` `[[mcp.servers]]`, `.mcp.json`),
 *   stdio or HTTP, starts only once its exact declaration is trusted: a stdio server is a
 *   program, and an HTTP server receives headers expanded from the user's variables;
 * - the loosening settings of `reasonix.toml` (`LOOSENING_SETTINGS`) apply only once trusted;
 * - a model whose provider endpoint a project file set is used only once that provider's
 *   declaration is trusted: it would receive the conversation and everything the model reads.
 *
 * The core stays free of the store: `loadConfig` gets a predicate, the MCP layer gets entries
 * with the untrusted ones turned into problems.
 *
 * @module
 */
import { join } from "node:path";
import {
  ConfigError,
  declarationHash,
  loadProjectDotenv,
  locateKey,
  printable,
  projectProviderDeclarations,
  projectSettingsDeclaration,
  type ProviderConfig,
  referencedVars,
  shellWord,
  type TrustDeclaration,
  TrustStore,
  workspaceFile,
  workspaceKey,
} from "../core/config/mod.ts";
import { readConfigText } from "../core/config/files.ts";
import {
  effectiveDeclarations,
  loadMcpDeclarations,
  type McpDeclarationSet,
  readDeclarationFile,
} from "../plugins/mcp/config.ts";
import type { McpServerDeclaration, McpServerEntry } from "../plugins/mcp/types.ts";

/** One declaration of the project and whether it may take effect. */
export interface TrustItem {
  declaration: TrustDeclaration;
  hash: string;
  /** Trusted in the store (not counting `--trust-project` or answers of this session). */
  stored: boolean;
}

/** Everything the project in a directory declares that needs trust. */
export interface ProjectReview {
  /** The resolved workspace path grants are keyed by. */
  workspace: string;
  /** MCP servers first (by name), then the settings. */
  items: TrustItem[];
  /** Problems with the trust store, one line each. */
  warnings: string[];
}

/** Settings declared by a project file in `.mcp.json` or `reasonix.toml`. */
function isProjectDeclared(d: McpServerDeclaration): boolean {
  return d.source.kind === "project" || d.source.kind === "mcp_json";
}

/** Every string in a value, for finding the variables a declaration reads. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === "object") return Object.values(value).flatMap(strings);
  return [];
}

/** The line a server's declaration starts on, when it can be found. */
function declarationLine(d: McpServerDeclaration, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (d.source.kind === "mcp_json") {
    const start = Math.max(0, text.indexOf('"mcpServers"'));
    const at = text.indexOf(JSON.stringify(d.name), start);
    return at < 0 ? undefined : text.slice(0, at).split("\n").length;
  }
  // The n-th `[[mcp.servers]]` table whose name matches; a table locates by its index.
  const names = [...text.matchAll(/^\s*name\s*=\s*("(?:[^"\\]|\\.)*"|'[^']*')/gm)];
  const headers = [...text.matchAll(/^\s*\[\[\s*mcp\.servers\s*\]\]/gm)];
  for (let i = 0; i < headers.length; i++) {
    const from = headers[i].index!;
    const to = headers[i + 1]?.index ?? text.length;
    const named = names.find((m) => m.index! > from && m.index! < to);
    const value = named?.[1];
    const name = value?.startsWith("'") ? value.slice(1, -1) : value && safeJson(value);
    if (name === d.name) return locateKey(text, ["mcp", "servers", i])?.line;
  }
  return undefined;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The trust declaration of an MCP server: every setting as written, plus the values it reads
 * from the project `.env` (a project file too), so changing either voids the trust.
 */
export function mcpTrustDeclaration(
  d: McpServerDeclaration,
  opts: { projectEnv: Record<string, string>; line?: number },
): TrustDeclaration {
  const { source, ...settings } = d;
  const content: Record<string, unknown> = { ...settings };
  const names = [...new Set(strings(settings).flatMap(referencedVars))].sort();
  const fromProject = names.filter((n) => Object.hasOwn(opts.projectEnv, n));
  if (fromProject.length) {
    content.project_env = Object.fromEntries(fromProject.map((n) => [n, opts.projectEnv[n]]));
  }
  return { kind: "mcp_server", name: d.name, file: source.file, line: opts.line, content };
}

/** The trust declarations of the project-declared servers that would run (highest source). */
export async function projectServerDeclarations(
  set: McpDeclarationSet,
  cwd: string,
  /** The project `.env` as already read; default: read it now. */
  projectEnv?: Readonly<Record<string, string>>,
): Promise<TrustDeclaration[]> {
  const declared = effectiveDeclarations(set).map((e) => e.declaration).filter(isProjectDeclared);
  if (declared.length === 0) return [];
  projectEnv ??= await loadProjectDotenv(cwd).catch(() => ({}));
  const texts = new Map<string, string | undefined>();
  for (const d of declared) {
    if (!texts.has(d.source.file)) {
      texts.set(d.source.file, await readDeclarationFile(d.source.file).catch(() => undefined));
    }
  }
  return declared.map((d) =>
    mcpTrustDeclaration(d, { projectEnv, line: declarationLine(d, texts.get(d.source.file)) })
  );
}

/**
 * The declarations of the project `reasonix.toml` itself: its providers with an endpoint,
 * then its loosening settings.
 */
async function configDeclarations(cwd: string): Promise<TrustDeclaration[]> {
  const file = join(cwd, "reasonix.toml");
  try {
    const text = await readConfigText(file);
    if (text === undefined) return [];
    const settings = projectSettingsDeclaration(text, file);
    return [...projectProviderDeclarations(text, file), ...(settings ? [settings] : [])];
  } catch {
    // A file that does not load is reported by `loadConfig`; it loosens nothing meanwhile.
    return [];
  }
}

/** Reads what the project in `cwd` declares and which of it the trust store holds. */
export async function reviewProject(opts: { home: string; cwd: string }): Promise<ProjectReview> {
  const workspace = await workspaceKey(opts.cwd);
  const store = new TrustStore(opts.home);
  const { hashes, warning } = await store.trusted(workspace);
  const set = await loadMcpDeclarations({ home: opts.home, cwd: opts.cwd });
  const declarations = [
    ...await projectServerDeclarations(set, opts.cwd),
    ...await configDeclarations(opts.cwd),
  ];
  const items = declarations.map((declaration) => {
    const hash = declarationHash(workspace, declaration);
    return { declaration, hash, stored: hashes.has(hash) };
  });
  return { workspace, items, warnings: warning ? [warning] : [] };
}

/** What the user decided for this run, besides the store. */
export interface TrustChoices {
  /** `--trust-project`: everything the project declares now is trusted for this run only. */
  trustProject?: boolean;
  /** Hashes the user trusted for this session only. */
  session?: ReadonlySet<string>;
}

/** The trust decisions of one run. */
export interface ProjectTrust {
  /** The resolved workspace path. */
  workspace: string;
  /** Whether `declaration` may take effect in this run. */
  allows(declaration: TrustDeclaration): boolean;
  /** Problems with the trust store, one line each. */
  warnings: string[];
}

/** The trust decisions for the project in `cwd`: the store plus this run's choices. */
export async function loadProjectTrust(
  opts: { home: string; cwd: string } & TrustChoices,
): Promise<ProjectTrust> {
  const workspace = await workspaceKey(opts.cwd);
  const { hashes, warning } = await new TrustStore(opts.home).trusted(workspace);
  return {
    workspace,
    allows: (d) => {
      if (opts.trustProject) return true;
      const hash = declarationHash(workspace, d);
      return hashes.has(hash) || (opts.session?.has(hash) ?? false);
    },
    warnings: warning ? [warning] : [],
  };
}

/** A trust that allows nothing a project declares: for callers that have no store. */
export const TRUST_NOTHING: ProjectTrust = {
  workspace: "",
  allows: () => false,
  warnings: [],
};

/** `file:line`, relative to the workspace when inside it. */
export function declarationPlace(workspace: string, d: TrustDeclaration): string {
  const file = workspace ? workspaceFile(workspace, d.file) : d.file;
  return d.line === undefined ? file : `${file}:${d.line}`;
}

/**
 * Project-declared entries that are not trusted lose their spec and carry a problem saying
 * so, which the host reports when the model asks for them; nothing of theirs starts.
 */
export async function gateProjectEntries(opts: {
  set: McpDeclarationSet;
  entries: McpServerEntry[];
  cwd: string;
  trust: ProjectTrust;
  /** The project `.env` the entries were expanded from; default: read it now. */
  projectEnv?: Readonly<Record<string, string>>;
}): Promise<{ entries: McpServerEntry[]; untrusted: TrustDeclaration[] }> {
  const declarations = new Map(
    (await projectServerDeclarations(opts.set, opts.cwd, opts.projectEnv)).map((d) => [d.name, d]),
  );
  const untrusted: TrustDeclaration[] = [];
  const entries = opts.entries.map((entry): McpServerEntry => {
    if (!isProjectDeclared(entry.declaration)) return entry;
    const d = declarations.get(entry.declaration.name);
    if (d && opts.trust.allows(d)) return entry;
    // Without a declaration to check (it could not be read back), the entry is not trusted.
    const place = d ? declarationPlace(opts.trust.workspace, d) : entry.declaration.source.file;
    untrusted.push(d ?? mcpTrustDeclaration(entry.declaration, { projectEnv: {} }));
    return {
      declaration: entry.declaration,
      shadowed: entry.shadowed,
      problem: `it is declared by a project file (${place}) and not trusted in this workspace; ` +
        `run \`reasonix trust grant ${entry.declaration.name}\` to start it`,
    };
  });
  return { entries, untrusted };
}

/**
 * The one warning for what an untrusted workspace declared and did not get: servers not
 * started, settings held back. `flag`: mention `--trust-project` (the command has it).
 */
export function untrustedWarning(opts: {
  workspace: string;
  servers: readonly TrustDeclaration[];
  settings?: TrustDeclaration;
  flag: boolean;
}): string | undefined {
  const parts: string[] = [];
  if (opts.servers.length) {
    const list = opts.servers.map((d) => `"${d.name}" (${declarationPlace(opts.workspace, d)})`)
      .join(", ");
    parts.push(`did not start the MCP server${opts.servers.length > 1 ? "s" : ""} ${list}`);
  }
  if (opts.settings) {
    parts.push(
      `ignored the loosening settings of ${declarationPlace(opts.workspace, opts.settings)} ` +
        `(${Object.keys(opts.settings.content).join(", ")})`,
    );
  }
  if (parts.length === 0) return undefined;
  return `this workspace is not trusted, so Reasonix ${parts.join(" and ")}; project files ` +
    "are untrusted input. Review them with `reasonix trust`, trust them with " +
    "`reasonix trust grant --all`" + (opts.flag ? ", or pass --trust-project for this run" : "");
}

/**
 * What a declaration runs or loosens, one setting a line, as written in the file, with
 * control characters escaped. `indent` prefixes every line.
 */
export function describeDeclaration(d: TrustDeclaration, indent = "  "): string[] {
  const c = d.content;
  const lines: string[] = [];
  const add = (label: string, value: string) => lines.push(`${indent}${label.padEnd(10)} ${value}`);
  if (d.kind === "settings") {
    for (const [key, value] of Object.entries(c)) {
      lines.push(`${indent}${printable(`${key} = ${JSON.stringify(value)}`)}`);
    }
    return lines;
  }
  if (d.kind === "provider") {
    for (const key of ["kind", "base_url", "request_url", "chat_url", "api_key_env"]) {
      if (typeof c[key] === "string") add(`${key}:`, printable(c[key] as string));
    }
    for (const [k, v] of Object.entries((c.headers ?? {}) as Record<string, string>)) {
      add("header:", `${printable(k)}: ${printable(v)}`);
    }
    return lines;
  }
  if (typeof c.type === "string") add("transport:", c.type);
  if (typeof c.command === "string") add("command:", shellWord(c.command));
  if (Array.isArray(c.args) && c.args.length) {
    add("args:", c.args.map((a) => shellWord(String(a))).join(" "));
  }
  for (const [k, v] of Object.entries((c.env ?? {}) as Record<string, string>)) {
    add("env:", `${printable(k)}=${shellWord(v)}`);
  }
  if (typeof c.cwd === "string") add("cwd:", shellWord(c.cwd));
  if (typeof c.url === "string") add("url:", printable(c.url));
  for (const [k, v] of Object.entries((c.headers ?? {}) as Record<string, string>)) {
    add("header:", `${printable(k)}: ${printable(v)}`);
  }
  const fromEnv = Object.keys((c.project_env ?? {}) as Record<string, string>);
  if (fromEnv.length) add("reads:", `${fromEnv.map(printable).join(", ")} from the project .env`);
  return lines;
}

/** `MCP server "name"`, `provider "name"` or `loosening settings`, for messages. */
export function declarationTitle(d: TrustDeclaration): string {
  if (d.kind === "mcp_server") return `MCP server "${printable(d.name)}"`;
  if (d.kind === "provider") return `provider "${printable(d.name)}"`;
  return "loosening settings";
}

/**
 * Refuses a provider whose endpoint a project file set, unless the workspace trusts that
 * provider's declaration: the endpoint would receive the whole conversation, including every
 * file the model reads. Throws {@link ConfigError} naming the file and line.
 */
export async function checkProviderTrust(opts: {
  provider: ProviderConfig;
  cwd: string;
  trust: ProjectTrust;
}): Promise<void> {
  const p = opts.provider;
  const endpoint = (["request_url", "chat_url", "base_url"] as const)
    .map((key) => ({ key, from: p.source?.endpoint_from[key] }))
    .find((e) => e.from && !e.from.trusted);
  if (!endpoint) return;
  const declared = (await configDeclarations(opts.cwd))
    .find((d) => d.kind === "provider" && d.name === p.name);
  if (declared && opts.trust.allows(declared)) return;
  throw new ConfigError({
    file: endpoint.from!.file,
    line: endpoint.from!.line,
    problem: `provider "${printable(p.name)}" would send your conversation to ` +
      `${printable(String(p[endpoint.key] ?? ""))}, an endpoint a project file chose, and ` +
      "this workspace is not trusted",
    fix: `review it with \`reasonix trust\`, then run \`reasonix trust grant ${
      printable(p.name)
    }\` or pass --trust-project for this run; or pick another model with --model`,
  });
}
