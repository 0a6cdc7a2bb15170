/**
 * MCP server declarations: `[[mcp.servers]]` in the user `config.toml` and the project
 * `reasonix.toml`, and the project `.mcp.json` (Claude Code's `mcpServers` schema).
 *
 * Precedence by name, whole declarations: project `reasonix.toml` > `.mcp.json` > user
 * `config.toml`. Removing a higher declaration exposes the next one.
 *
 * @module
 */
import { join } from "node:path";
import { ReasonixError } from "../../errors.ts";
import { parse, TomlError } from "smol-toml";
import { z } from "zod";
import type {
  McpConcurrency,
  McpDeclarationSource,
  McpServerDeclaration,
  McpServerEntry,
  McpServerSpec,
  McpSourceKind,
  McpTransportKind,
} from "./types.ts";

/** The settings a declaration may carry besides its name and type, in the order written. */
export const DECLARATION_SETTINGS = [
  "command",
  "args",
  "env",
  "cwd",
  "url",
  "headers",
  "concurrency",
  "startup_timeout_seconds",
  "sandbox",
  "remote",
] as const;

/** Declarations of each source, as read. */
export interface McpDeclarationSet {
  user: McpServerDeclaration[];
  mcp_json: McpServerDeclaration[];
  project: McpServerDeclaration[];
  /** Files that were read, per source (absent files are listed too, for editing). */
  files: Record<McpSourceKind, string>;
  /** Problems that skipped a declaration or a key; one line each. */
  warnings: string[];
}

/**
 * A declaration file that cannot be read, or (where an edit depends on it) parsed. It carries
 * what a configuration error shows, so the CLI can report it as one: file, problem, fix.
 */
export class McpConfigFileError extends ReasonixError {
  readonly file: string;
  readonly problem: string;
  readonly fix: string;
  readonly line?: number;
  readonly column?: number;

  constructor(
    details: { file: string; problem: string; fix: string; line?: number; column?: number },
    options?: ErrorOptions,
  ) {
    const where = details.line === undefined ? details.file : `${details.file}:${details.line}`;
    super("config_invalid", `${where}: ${details.problem}\nfix: ${details.fix}`, options);
    this.name = "McpConfigFileError";
    this.file = details.file;
    this.problem = details.problem;
    this.fix = details.fix;
    this.line = details.line;
    this.column = details.column;
  }
}

/** Precedence of the sources, highest first. */
export const SOURCE_ORDER: readonly McpSourceKind[] = ["project", "mcp_json", "user"];

/** Names that look like stateful browser servers default to `serial` (spec §3.16). */
const STATEFUL_NAME = /browser|playwright|puppeteer|chrome|chromium|selenium/i;

/** A server name: no whitespace, `:` (it separates `@<server>:<uri>`), `@` or `/`. */
const NAME = /^[^\s:@/]+$/;

/**
 * Why a server name would make permission rules ambiguous, or undefined. Tools are named
 * `mcp__<server>__<tool>` with characters outside `[A-Za-z0-9_-]` turned into `_`; a server
 * whose name becomes `team__prod` (or starts or ends with `_`) would be matched by the rules
 * of another server, e.g. `mcp__team` would cover `mcp__team__prod__deploy`.
 */
export function ambiguousServerName(name: string): string | undefined {
  const cleaned = name.replace(/[^A-Za-z0-9_-]/g, "_");
  if (cleaned.includes("__")) {
    return `MCP server name "${name}" contains "__"` +
      (cleaned === name ? "" : ` once its characters other than letters, digits, "_" and "-" ` +
        `become "_"`) +
      `, which would make permission rules such as mcp__${cleaned.split("__")[0]} ambiguous`;
  }
  if (cleaned.startsWith("_") || cleaned.endsWith("_")) {
    return `MCP server name "${name}" starts or ends with "_", which would make its tools' ` +
      "names (mcp__<server>__<tool>) ambiguous in permission rules";
  }
  return undefined;
}

const stringMap = z.record(z.string(), z.string({ error: "a string" }), {
  error: "a table of strings",
});

/** An HTTP field name (RFC 9110 token): `fetch` refuses anything else at connect time. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const headerMap = z.record(
  z.string().regex(HEADER_NAME, "an HTTP header name (no spaces, no ':')"),
  z.string({ error: "a string" }),
  { error: "a table of strings" },
);

const declarationSchema = z.strictObject({
  name: z.string({ error: "a string" }).regex(NAME, "a name without spaces, ':', '@' or '/'"),
  type: z.enum(["stdio", "http", "streamable-http", "sse"], {
    error: 'one of "stdio", "http", "streamable-http", "sse"',
  }).optional(),
  command: z.string({ error: "a string" }).min(1, "a command, not empty").optional(),
  args: z.array(z.string({ error: "a string" }), { error: "a list of strings" }).optional(),
  env: stringMap.optional(),
  cwd: z.string({ error: "a string" }).optional(),
  url: z.string({ error: "a string" }).min(1, "a URL, not empty").optional(),
  headers: headerMap.optional(),
  concurrency: z.enum(["parallel", "serial"], { error: '"parallel" or "serial"' }).optional(),
  startup_timeout_seconds: z.number({ error: "a number of seconds" }).gt(
    0,
    "a number of seconds greater than 0",
  ).optional(),
  sandbox: z.boolean({ error: "true or false" }).optional(),
  remote: z.boolean({ error: "true or false" }).optional(),
});

type RawDeclaration = z.infer<typeof declarationSchema>;

function isTable(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => {
    const key = issue.path.join(".") || "(table)";
    if (issue.code === "unrecognized_keys") return `unknown key(s) ${issue.keys.join(", ")}`;
    if (issue.code === "invalid_key") {
      // The record's own message would say "a table of strings"; the key's rule is the news.
      const table = issue.path.slice(0, -1).join(".");
      const inner = issue.issues[0]?.message ?? issue.message;
      return `${table} key ${JSON.stringify(String(issue.path.at(-1)))} must be ${inner}`;
    }
    return `${key} must be ${issue.message}`;
  }).join("; ");
}

function toDeclaration(
  raw: RawDeclaration,
  source: McpDeclarationSource,
): McpServerDeclaration | string {
  const explicit = raw.type === "streamable-http" ? "http" : raw.type;
  // A remote server with a command and a url is started there and reached over HTTP.
  const remoteHttp = raw.remote === true && raw.url !== undefined;
  const type: McpTransportKind | undefined = explicit ??
    (raw.command !== undefined && !remoteHttp
      ? "stdio"
      : raw.url !== undefined
      ? "http"
      : undefined);
  if (raw.remote === true && type === "stdio") {
    return "is remote = true but has no url: give the url it listens on, as the remote host " +
      'sees it (e.g. url = "http://127.0.0.1:8931/mcp")';
  }
  if (!type) return "needs a command (stdio) or a url (http, sse)";
  if (type === "stdio" && raw.command === undefined) return "is stdio but has no command";
  if (type !== "stdio" && raw.url === undefined) return `is ${type} but has no url`;
  const out: McpServerDeclaration = { name: raw.name, type, source };
  for (
    const key of DECLARATION_SETTINGS
  ) {
    if (raw[key] !== undefined) (out as unknown as Record<string, unknown>)[key] = raw[key];
  }
  return out;
}

function label(source: McpDeclarationSource): string {
  return source.file;
}

/**
 * Reads `[[mcp.servers]]` from a parsed TOML document. Invalid entries are skipped with a
 * warning; a name declared twice in one file keeps the first. A name that would make
 * permission rules ambiguous ({@link ambiguousServerName}) throws {@link McpConfigFileError};
 * `doc.text`, the document's source, lets the error name its line.
 */
export function serversFromToml(
  doc: { root: unknown; text?: string },
  source: McpDeclarationSource,
  warnings: string[],
): McpServerDeclaration[] {
  const { root, text } = doc;
  if (!isTable(root) || root.mcp === undefined) return [];
  if (!isTable(root.mcp)) {
    warnings.push(`${label(source)}: [mcp] must be a table; ignored`);
    return [];
  }
  for (const key of Object.keys(root.mcp)) {
    if (key !== "servers") warnings.push(`${label(source)}: unknown key "mcp.${key}" is ignored`);
  }
  const list = root.mcp.servers;
  if (list === undefined) return [];
  if (!Array.isArray(list)) {
    warnings.push(`${label(source)}: mcp.servers must be [[mcp.servers]] tables; ignored`);
    return [];
  }
  return collect(
    list.map((entry, i) => ({ entry, where: `[[mcp.servers]] #${i + 1}` })),
    source,
    { warnings, text },
  );
}

/**
 * Checks one declaration (a table as written, `name` included) with the rules the loader
 * applies to every file: the declaration, or why the loader would skip it.
 */
export function checkDeclaration(
  entry: unknown,
  source: McpDeclarationSource,
): McpServerDeclaration | { problem: string } {
  const parsed = declarationSchema.safeParse(entry);
  if (!parsed.success) return { problem: describeIssues(parsed.error) };
  const decl = toDeclaration(parsed.data, source);
  return typeof decl === "string" ? { problem: `it ${decl}` } : decl;
}

/** The first line of `text` that mentions `name` as a quoted string (1-based). */
function lineOf(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  const quoted = JSON.stringify(name);
  const at = text.split(/\r?\n/).findIndex((line) => line.includes(quoted));
  return at >= 0 ? at + 1 : undefined;
}

function collect(
  items: { entry: unknown; where: string; name?: string }[],
  source: McpDeclarationSource,
  { warnings, text }: { warnings: string[]; text?: string },
): McpServerDeclaration[] {
  const out: McpServerDeclaration[] = [];
  for (const { entry, where } of items) {
    const name = isTable(entry) && typeof entry.name === "string" ? `"${entry.name}"` : where;
    const decl = checkDeclaration(entry, source);
    if ("problem" in decl) {
      warnings.push(`${label(source)}: MCP server ${name} is skipped: ${decl.problem}`);
      continue;
    }
    const ambiguous = ambiguousServerName(decl.name);
    if (ambiguous) {
      throw new McpConfigFileError({
        file: source.file,
        line: lineOf(text, decl.name),
        problem: ambiguous,
        fix: `rename the server to a name without "__" and without a leading or trailing "_" ` +
          `(e.g. "${decl.name.replace(/[^A-Za-z0-9-]+/g, "-").replace(/^-+|-+$/g, "")}"), ` +
          "and update the permission rules that name its tools",
      });
    }
    if (decl.sandbox === false && source.kind !== "user") {
      warnings.push(
        `${label(source)}: MCP server "${decl.name}": sandbox = false is ignored; a server ` +
          "a project file declares always runs in the sandbox (only your user config.toml " +
          "can run one outside it)",
      );
      delete decl.sandbox;
    }
    if (out.some((d) => d.name === decl.name)) {
      warnings.push(
        `${label(source)}: MCP server "${decl.name}" is declared twice; the first wins`,
      );
      continue;
    }
    out.push(decl);
  }
  return out;
}

/** Reads Claude Code's `{ "mcpServers": { "<name>": { ... } } }`. */
export function serversFromMcpJson(
  text: string,
  source: McpDeclarationSource,
  warnings: string[],
): McpServerDeclaration[] {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (error) {
    warnings.push(`${label(source)}: not valid JSON (${(error as Error).message}); ignored`);
    return [];
  }
  if (!isTable(root)) {
    warnings.push(`${label(source)}: must be a JSON object with "mcpServers"; ignored`);
    return [];
  }
  if (root.mcpServers === undefined) return [];
  if (!isTable(root.mcpServers)) {
    warnings.push(`${label(source)}: "mcpServers" must be an object; ignored`);
    return [];
  }
  return collect(
    Object.entries(root.mcpServers).map(([name, entry]) => ({
      entry: isTable(entry) ? { ...entry, name } : entry,
      where: `"${name}"`,
    })),
    source,
    { warnings, text },
  );
}

/**
 * The text of a declaration file without its byte-order mark; `undefined` when it does not
 * exist. Anything else that stops the read (a directory, no permission) is the user's to fix.
 */
export async function readDeclarationFile(path: string): Promise<string | undefined> {
  try {
    return (await Deno.readTextFile(path)).replace(/^\uFEFF/, "");
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw new McpConfigFileError({
      file: path,
      problem: `cannot read the file: ${(error as Error).message}`,
      fix: "make it a readable file, or move it away",
    }, { cause: error });
  }
}

/** Parses a TOML declaration file; a syntax error becomes an {@link McpConfigFileError}. */
export function parseTomlFile(text: string, file: string): unknown {
  try {
    return parse(text);
  } catch (error) {
    const line = error instanceof TomlError ? error.line : undefined;
    throw new McpConfigFileError({
      file,
      line,
      column: error instanceof TomlError ? error.column : undefined,
      problem: `invalid TOML: ${
        (error as Error).message.split("\n")[0].replace(/^Invalid TOML document:\s*/, "")
      }`,
      fix: `correct the TOML syntax${line ? ` on line ${line}` : ""} (see https://toml.io)`,
    }, { cause: error });
  }
}

/** Parses `.mcp.json`; a syntax error becomes an {@link McpConfigFileError}. */
export function parseJsonFile(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new McpConfigFileError({
      file,
      problem: `invalid JSON: ${(error as Error).message}`,
      fix: "correct the JSON syntax (comments and trailing commas are not allowed)",
    }, { cause: error });
  }
}

/** The three declaration files for a project directory and a Reasonix home. */
export function declarationFiles(
  opts: { home: string; cwd: string },
): Record<McpSourceKind, string> {
  return {
    user: join(opts.home, "config.toml"),
    mcp_json: join(opts.cwd, ".mcp.json"),
    project: join(opts.cwd, "reasonix.toml"),
  };
}

/**
 * Reads every declaration source. Missing files are empty; a file that exists but cannot be
 * read throws {@link McpConfigFileError}. A file that does not parse is a warning, or with
 * `strict` (commands that edit: they cannot tell where a server is declared) an error too.
 */
export async function loadMcpDeclarations(
  opts: { home: string; cwd: string; strict?: boolean },
): Promise<McpDeclarationSet> {
  const files = declarationFiles(opts);
  const warnings: string[] = [];
  const set: McpDeclarationSet = { user: [], mcp_json: [], project: [], files, warnings };
  for (const kind of ["user", "project"] as const) {
    const text = await readDeclarationFile(files[kind]);
    if (text === undefined) continue;
    let root: unknown;
    try {
      root = parseTomlFile(text, files[kind]);
    } catch (error) {
      if (opts.strict) throw error;
      warnings.push(`${(error as Error).message.split("\n")[0]}; MCP servers not read`);
      continue;
    }
    set[kind] = serversFromToml({ root, text }, { kind, file: files[kind] }, warnings);
  }
  const json = await readDeclarationFile(files.mcp_json);
  if (json !== undefined) {
    if (opts.strict) parseJsonFile(json, files.mcp_json);
    set.mcp_json = serversFromMcpJson(json, { kind: "mcp_json", file: files.mcp_json }, warnings);
  }
  return set;
}

/** Every declaration of `name`, highest precedence first. */
export function declarationsNamed(set: McpDeclarationSet, name: string): McpServerDeclaration[] {
  return SOURCE_ORDER.flatMap((kind) => set[kind].filter((d) => d.name === name));
}

/** The effective declaration per name (highest source wins), sorted by name. */
export function effectiveDeclarations(
  set: McpDeclarationSet,
): { declaration: McpServerDeclaration; shadowed: McpServerDeclaration[] }[] {
  const names = new Set(SOURCE_ORDER.flatMap((kind) => set[kind].map((d) => d.name)));
  return [...names].sort().map((name) => {
    const [declaration, ...shadowed] = declarationsNamed(set, name);
    return { declaration, shadowed };
  });
}

/**
 * Expands `${VAR}` in one value of a declaration; throws an `Error` naming the problem. It
 * passes each variable's value to `reveal`, so the values can be kept out of what is shown.
 */
export type VarExpander = (
  text: string,
  where: { server: string; source: McpSourceKind; field: string; reveal?(value: string): void },
) => string;

/** The policy a server gets when its declaration does not say. */
export function defaultConcurrency(name: string): McpConcurrency {
  return STATEFUL_NAME.test(name) ? "serial" : "parallel";
}

/** Turns a declaration into a runnable spec, or a problem to show. */
export function resolveServer(
  declaration: McpServerDeclaration,
  opts: { expand: VarExpander; defaultStartupTimeoutMs: number; cwd: string },
): { spec: McpServerSpec } | { problem: string } {
  const d = declaration;
  const revealed = new Set<string>();
  const ex = (text: string, field: string) =>
    opts.expand(text, {
      server: d.name,
      source: d.source.kind,
      field,
      reveal: (value) => revealed.add(value),
    });
  const exMap = (map: Record<string, string> | undefined, field: string) =>
    Object.fromEntries(Object.entries(map ?? {}).map(([k, v]) => [k, ex(v, `${field}.${k}`)]));
  const base = {
    name: d.name,
    concurrency: d.concurrency ?? defaultConcurrency(d.name),
    startupTimeoutMs: d.startup_timeout_seconds !== undefined
      ? d.startup_timeout_seconds * 1000
      : opts.defaultStartupTimeoutMs,
    source: d.source,
  };
  try {
    if (d.type === "stdio") {
      const cwd = d.cwd === undefined ? undefined : join(opts.cwd, ex(d.cwd, "cwd"));
      const command = ex(d.command!, "command");
      const args = (d.args ?? []).map((a, i) => ex(a, `args[${i}]`));
      const env = exMap(d.env, "env");
      return {
        spec: {
          ...base,
          transport: "stdio",
          command,
          args,
          env,
          ...(cwd !== undefined ? { cwd } : {}),
          ...(d.sandbox === false && d.source.kind === "user" ? { sandbox: false } : {}),
          secrets: [...new Set([...Object.values(env), ...revealed])],
        },
      };
    }
    const text = ex(d.url!, "url");
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return { problem: `url is not a valid URL` };
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      return { problem: `url must be http or https, got ${url.protocol}` };
    }
    const remote = d.remote === true
      ? {
        remote: {
          ...(d.command !== undefined ? { command: ex(d.command, "command") } : {}),
          args: (d.args ?? []).map((a, i) => ex(a, `args[${i}]`)),
        },
      }
      : {};
    return {
      spec: { ...base, transport: d.type, url, headers: exMap(d.headers, "headers"), ...remote },
    };
  } catch (error) {
    return { problem: (error as Error).message };
  }
}

/** Resolves every effective declaration. */
export function resolveEntries(
  set: McpDeclarationSet,
  opts: { expand: VarExpander; defaultStartupTimeoutMs: number; cwd: string },
): McpServerEntry[] {
  return effectiveDeclarations(set).map(({ declaration, shadowed }) => {
    const resolved = resolveServer(declaration, opts);
    return "spec" in resolved
      ? { declaration, shadowed, spec: resolved.spec }
      : { declaration, shadowed, problem: resolved.problem };
  });
}

/** Whether a spec carries its own `Authorization` header (then OAuth is never used). */
export function hasStaticAuthorization(headers: Record<string, string>): boolean {
  return Object.keys(headers).some((k) => k.toLowerCase() === "authorization");
}
