/**
 * `reasonix mcp add|remove|list|get|login|logout`: manage MCP server declarations.
 *
 * A new server goes to the user `config.toml` unless `--scope project` asks for the project
 * `reasonix.toml`; editing an existing server writes back to the file it is declared in.
 * Removing the effective declaration exposes the next one (project > `.mcp.json` > user).
 *
 * @module
 */
import "../providers/builtin_kinds.ts";
import {
  ConfigError,
  expandVars,
  loadConfig,
  loadHomeDotenv,
  reasonixHome,
} from "../core/config/mod.ts";
import type { Config } from "../core/config/types.ts";
import { ReasonixError } from "../errors.ts";
import {
  addDeclaration,
  checkDeclaration,
  clearOAuthState,
  declarationsNamed,
  effectiveDeclarations,
  loadMcpDeclarations,
  McpConfigFileError,
  type McpServerDeclaration,
  type McpServerEntry,
  type McpServerStatus,
  type McpSourceKind,
  OAuthStore,
  removeDeclaration,
  resolveServer,
  type VarExpander,
} from "../plugins/mcp/mod.ts";
import { childEnv } from "./child_env.ts";
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";
import {
  type CliContext,
  type CliIo,
  CONSOLE_IO,
  runSubtree,
  UsageError,
} from "./commands/execute.ts";
import { defineMcp } from "./commands/mcp.ts";
import type { AddArgs, McpRequest } from "./commands/types.ts";

export type { AddArgs, McpRequest } from "./commands/types.ts";
import { createMcpHost, loadMcpEntries, mcpExpander, mcpStateDir } from "./mcp_runtime.ts";
import { loadProjectTrust, untrustedWarning } from "./project_trust.ts";

/** Bad usage the parser cannot see (a URL for a stdio server, …); shown with the help. */
class McpUsageError extends UsageError {}

type Io = CliIo;

function sourceLabel(kind: McpSourceKind): string {
  return kind === "mcp_json" ? ".mcp.json" : kind;
}

function isUrl(text: string): boolean {
  return /^https?:\/\//i.test(text);
}

/** Where an add or remove writes, following the precedence rules. */
function targetFor(
  existing: McpServerDeclaration[],
  scope: "user" | "project" | undefined,
): McpSourceKind | undefined {
  if (scope === "user") return "user";
  if (scope === "project") {
    return existing.find((d) => d.source.kind === "project" || d.source.kind === "mcp_json")
      ?.source.kind ?? "project";
  }
  return existing[0]?.source.kind;
}

async function addCommand(a: AddArgs, ctx: Ctx): Promise<number> {
  const transport = a.transport ?? (isUrl(a.target) ? "http" : "stdio");
  if (transport !== "stdio" && !isUrl(a.target) && !a.target.includes("${")) {
    throw new McpUsageError(`a ${transport} server needs an http(s) URL, got "${a.target}"`);
  }
  if (transport === "stdio" && Object.keys(a.headers).length) {
    throw new McpUsageError("--header is for http and sse servers");
  }
  if (transport !== "stdio" && (Object.keys(a.env).length || a.args.length)) {
    throw new McpUsageError("--env and arguments are for stdio servers");
  }
  // Strict: with a file that does not parse, where the server is declared is unknown.
  const set = await loadMcpDeclarations({ home: ctx.home, cwd: ctx.cwd, strict: true });
  const existing = declarationsNamed(set, a.name);
  const kind = targetFor(existing, a.scope) ?? "user";
  const fields: Omit<McpServerDeclaration, "source"> = {
    name: a.name,
    type: transport,
    ...(transport === "stdio"
      ? { command: a.target, args: a.args, env: a.env }
      : { url: a.target, headers: a.headers }),
    ...(a.concurrency ? { concurrency: a.concurrency } : {}),
    ...(a.startupTimeout ? { startup_timeout_seconds: a.startupTimeout } : {}),
  };
  const refuse = (problem: string) =>
    new ConfigError({
      problem: `MCP server "${a.name}" cannot be declared: ${problem}`,
      fix: "correct the command line; nothing was written",
    });
  // The loader's own checks, so nothing is written that it would skip or refuse later.
  const declaration = checkDeclaration(fields, { kind, file: set.files[kind] });
  if ("problem" in declaration) throw refuse(declaration.problem);
  // Values are not expanded now (their variables may be set only where the server runs), but
  // a malformed `${...}` fails every start, so the loader's expansion runs on empty values.
  let syntax: string | undefined;
  const syntaxOnly: VarExpander = (text, where) => {
    try {
      expandVars(text, () => "");
    } catch (error) {
      syntax = `${where.field}: ${(error as Error).message}`;
      throw error;
    }
    return text;
  };
  const check = resolveServer(declaration, {
    expand: syntaxOnly,
    defaultStartupTimeoutMs: 30_000,
    cwd: ctx.cwd,
  });
  if (syntax) throw refuse(syntax);
  if ("problem" in check && !/\$\{/.test(a.target)) throw new McpUsageError(check.problem);
  const result = await addDeclaration(set.files[kind], kind, fields);
  ctx.io.out(`${result.action} MCP server "${a.name}" in ${result.file}`);
  const effective = declarationsNamed(
    await loadMcpDeclarations({ home: ctx.home, cwd: ctx.cwd }),
    a.name,
  )[0];
  if (effective && effective.source.kind !== kind) {
    ctx.io.out(
      `note: "${a.name}" is also declared in ${effective.source.file}, which takes precedence`,
    );
  }
  return EXIT_OK;
}

async function expandedUrl(
  d: McpServerDeclaration | undefined,
  ctx: Ctx,
): Promise<string | undefined> {
  if (!d?.url) return undefined;
  try {
    return (await mcpExpander({ cwd: ctx.cwd, env: ctx.env, home: ctx.home }))(d.url, {
      server: d.name,
      source: d.source.kind,
      field: "url",
    });
  } catch {
    return d.url;
  }
}

async function removeCommand(
  name: string,
  scope: "user" | "project" | undefined,
  ctx: Ctx,
): Promise<number> {
  // Strict: a file that does not parse may be the one that declares the server.
  const set = await loadMcpDeclarations({ home: ctx.home, cwd: ctx.cwd, strict: true });
  const existing = declarationsNamed(set, name);
  const kind = targetFor(existing, scope);
  const removed = existing.find((d) => d.source.kind === kind);
  if (!kind || !removed) {
    ctx.io.err(
      `reasonix mcp: no MCP server "${name}" is declared${scope ? ` in the ${scope} scope` : ""}`,
    );
    return EXIT_FAILURE;
  }
  await removeDeclaration(removed.source.file, kind, name);
  ctx.io.out(`removed MCP server "${name}" from ${removed.source.file}`);
  const now =
    declarationsNamed(await loadMcpDeclarations({ home: ctx.home, cwd: ctx.cwd }), name)[0];
  if (now) ctx.io.out(`"${name}" is now declared by ${now.source.file}`);
  const cleared = await clearOAuthState(
    mcpStateDir(ctx.home),
    { name, url: await expandedUrl(removed, ctx) },
    now ? { url: await expandedUrl(now, ctx) } : undefined,
  );
  if (cleared) ctx.io.out(`cleared the stored OAuth credentials of "${name}"`);
  return EXIT_OK;
}

/** `${VAR}` references stay visible (they name no secret); literal values do not. */
function redactValue(value: string): string {
  return /^(\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}|\s)*$/.test(value) && value.includes("${")
    ? value
    : "<redacted>";
}

const SECRET_WORD = /token|secret|password|passwd|api[-_]?key|auth|credential/i;

function redactArgs(args: string[]): string[] {
  return args.map((arg, i) => {
    const eq = arg.indexOf("=");
    if (eq > 0 && SECRET_WORD.test(arg.slice(0, eq))) return `${arg.slice(0, eq)}=<redacted>`;
    if (i > 0 && args[i - 1].startsWith("-") && SECRET_WORD.test(args[i - 1])) {
      return "<redacted>";
    }
    return arg;
  });
}

function redactUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.username || url.password) {
      url.username = "<redacted>";
      url.password = "";
    }
    for (const key of [...url.searchParams.keys()]) url.searchParams.set(key, "<redacted>");
    return decodeURI(url.href);
  } catch {
    return text;
  }
}

function describeDeclaration(d: McpServerDeclaration): string[] {
  const lines = [`  source:      ${d.source.file}`, `  transport:   ${d.type}`];
  if (d.command !== undefined) lines.push(`  command:     ${d.command}`);
  if (d.args?.length) lines.push(`  args:        ${redactArgs(d.args).join(" ")}`);
  for (const [k, v] of Object.entries(d.env ?? {})) {
    lines.push(`  env:         ${k}=${redactValue(v)}`);
  }
  if (d.cwd !== undefined) lines.push(`  cwd:         ${d.cwd}`);
  if (d.url !== undefined) lines.push(`  url:         ${redactUrl(d.url)}`);
  for (const [k, v] of Object.entries(d.headers ?? {})) {
    lines.push(`  header:      ${k}: ${redactValue(v)}`);
  }
  if (d.concurrency) lines.push(`  concurrency: ${d.concurrency}`);
  if (d.startup_timeout_seconds) lines.push(`  startup:     ${d.startup_timeout_seconds}s`);
  if (d.type === "stdio") {
    const off = d.sandbox === false && d.source.kind === "user";
    lines.push(
      `  sandbox:     ${
        off ? "off (sandbox = false)" : Deno.build.os === "linux" ? "on" : "none on this platform"
      }`,
    );
  }
  return lines;
}

function statusLine(s: McpServerStatus): string {
  const error = s.error ? `${s.error}${s.httpStatus ? ` ${s.httpStatus}` : ""}` : "";
  return [
    s.name,
    s.transport,
    sourceLabel(s.source),
    s.phase,
    s.protocol ?? "-",
    s.listener,
    String(s.reconnects),
    String(s.tools),
    String(s.prompts),
    String(s.resources),
    error || "-",
  ].join("\t");
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c])).join("  ").trimEnd()).join(
    "\n",
  );
}

async function connectAll(entries: McpServerEntry[], ctx: Ctx) {
  const host = await createMcpHost({
    entries,
    env: ctx.env,
    home: ctx.home,
    config: ctx.config,
    workspaceRoot: await Deno.realPath(ctx.cwd),
  });
  host.start();
  const bound = Math.max(1000, ...entries.map((e) => e.spec?.startupTimeoutMs ?? 0)) + 1000;
  await host.waitForStartup({ timeoutMs: bound });
  return host;
}

async function listCommand(json: boolean, ctx: Ctx): Promise<number> {
  const loaded = await loadEntries(ctx);
  for (const w of loaded.warnings) ctx.io.err(`warning: ${w}`);
  const host = await connectAll(loaded.entries, ctx);
  try {
    const status = host.status();
    if (json) {
      ctx.io.out(JSON.stringify({ servers: status }, null, 2));
      return EXIT_OK;
    }
    if (status.length === 0) {
      ctx.io.out(
        `No MCP servers are declared (looked in ${loaded.set.files.project}, ` +
          `${loaded.set.files.mcp_json} and ${loaded.set.files.user}).`,
      );
      return EXIT_OK;
    }
    const header = [
      "NAME",
      "TRANSPORT",
      "SOURCE",
      "STATE",
      "PROTOCOL",
      "LISTENER",
      "RECONNECTS",
      "TOOLS",
      "PROMPTS",
      "RESOURCES",
      "ERROR",
    ];
    ctx.io.out(table([header, ...status.map((s) => statusLine(s).split("\t"))]));
    const details = status.filter((s) => s.detail);
    if (details.length) {
      ctx.io.out("");
      for (const s of details) ctx.io.out(`${s.name}: ${s.detail}`);
    }
    return EXIT_OK;
  } finally {
    await host.close();
  }
}

async function getCommand(name: string, ctx: Ctx): Promise<number> {
  const loaded = await loadEntries(ctx);
  const entry = loaded.entries.find((e) => e.declaration.name === name);
  if (!entry) {
    ctx.io.err(`reasonix mcp: no MCP server "${name}" is declared`);
    return EXIT_FAILURE;
  }
  ctx.io.out(`${name}:`);
  for (const line of describeDeclaration(entry.declaration)) ctx.io.out(line);
  for (const s of entry.shadowed) ctx.io.out(`  overrides:   ${s.source.file}`);
  if (entry.problem) {
    ctx.io.out(`  problem:     ${entry.problem}`);
    return EXIT_FAILURE;
  }
  const host = await connectAll([entry], ctx);
  try {
    const [s] = host.status();
    ctx.io.out(
      `  state:       ${s.phase}${
        s.error ? ` (${s.error}${s.httpStatus ? ` ${s.httpStatus}` : ""})` : ""
      }`,
    );
    if (s.detail) ctx.io.out(`  detail:      ${s.detail}`);
    if (s.protocol) ctx.io.out(`  protocol:    ${s.protocol}`);
    ctx.io.out(`  listener:    ${s.listener}`);
    ctx.io.out(`  reconnects:  ${s.reconnects}`);
    ctx.io.out(`  concurrency: ${s.concurrency}`);
    if (s.server) ctx.io.out(`  server:      ${s.server.name} ${s.server.version}`);
    const tools = host.tools(name);
    if (tools.length) {
      ctx.io.out(`  tools (${tools.length}):`);
      for (const t of tools) ctx.io.out(`    ${t.tool}${t.readOnly ? " (read-only)" : ""}`);
    }
    const prompts = host.prompts();
    if (prompts.length) {
      ctx.io.out(`  prompts (${prompts.length}):`);
      for (const p of prompts) ctx.io.out(`    /${p.command}`);
    }
    const resources = host.resources();
    if (resources.length) {
      ctx.io.out(`  resources (${resources.length}):`);
      for (const r of resources) ctx.io.out(`    ${r.reference}`);
    }
    return s.phase === "ready" ? EXIT_OK : EXIT_FAILURE;
  } finally {
    await host.close();
  }
}

/**
 * Shows the authorization URL and tries to open the default browser on it. The browser gets
 * the environment without the provider keys and home `.env` values.
 */
async function openBrowser(url: URL, io: Io, env: Record<string, string>): Promise<void> {
  io.err(`Open this URL to authorize (a browser window should open):\n  ${url.href}`);
  const [program, args] = Deno.build.os === "darwin"
    ? ["open", [url.href]]
    : Deno.build.os === "windows"
    ? ["cmd", ["/c", "start", "", url.href]]
    : ["xdg-open", [url.href]];
  try {
    await new Deno.Command(program, { args, stdout: "null", stderr: "null", clearEnv: true, env })
      .output();
  } catch {
    // No browser launcher: the printed URL is enough.
  }
}

async function loginCommand(name: string, ctx: Ctx): Promise<number> {
  const loaded = await loadEntries(ctx);
  const entry = loaded.entries.find((e) => e.declaration.name === name);
  if (!entry?.spec) {
    ctx.io.err(`reasonix mcp: ${entry?.problem ?? `no MCP server "${name}" is declared`}`);
    return EXIT_FAILURE;
  }
  const host = await createMcpHost({
    entries: [entry],
    env: ctx.env,
    home: ctx.home,
    config: ctx.config,
  });
  try {
    const env = childEnv({
      env: ctx.env,
      config: { providers: ctx.config?.providers ?? [], tools: ctx.config?.tools ?? {} },
      homeEnv: await loadHomeDotenv(ctx.home),
    }).env;
    await host.authenticate(name, { open: (url) => openBrowser(url, ctx.io, env) });
    ctx.io.out(`authorized MCP server "${name}"`);
    return EXIT_OK;
  } finally {
    await host.close();
  }
}

async function logoutCommand(name: string, ctx: Ctx): Promise<number> {
  const set = await loadMcpDeclarations({ home: ctx.home, cwd: ctx.cwd });
  const effective = effectiveDeclarations(set).find((e) => e.declaration.name === name);
  const url = await expandedUrl(effective?.declaration, ctx);
  if (!url) {
    ctx.io.err(`reasonix mcp: no HTTP MCP server "${name}" is declared`);
    return EXIT_FAILURE;
  }
  await new OAuthStore(mcpStateDir(ctx.home), name, url).remove();
  ctx.io.out(`forgot the OAuth credentials of "${name}"`);
  return EXIT_OK;
}

interface Ctx {
  cwd: string;
  home: string;
  env: Record<string, string | undefined>;
  io: Io;
  /** The loaded configuration, for the MCP timeouts; absent when it does not load. */
  config?: Config;
  /** Why the configuration did not load, to be said once the declarations could be read. */
  configWarning?: string;
}

/**
 * The resolved declarations, then the deferred configuration warning. Servers a project file
 * declares are not started unless trusted (`reasonix trust`).
 */
async function loadEntries(ctx: Ctx): Promise<Awaited<ReturnType<typeof loadMcpEntries>>> {
  const trust = await loadProjectTrust({ home: ctx.home, cwd: ctx.cwd });
  const loaded = await loadMcpEntries({ ...ctx, trust });
  const held = untrustedWarning({
    workspace: trust.workspace,
    servers: loaded.untrusted,
    flag: false,
  });
  loaded.warnings.push(...trust.warnings, ...(held ? [held] : []));
  // Only now: when a declaration file cannot be read at all, its error is the one message.
  if (ctx.configWarning) ctx.io.err(ctx.configWarning);
  return loaded;
}

/**
 * Runs one `reasonix mcp` command and returns the exit code. `context.io` should already drop
 * control characters (the command tree's `mcp` does).
 */
export async function runMcp(request: McpRequest, context: CliContext): Promise<number> {
  const io = context.io;
  const env = context.env ?? Deno.env.toObject();
  try {
    const ctx: Ctx = { cwd: context.cwd ?? Deno.cwd(), home: reasonixHome(env), env, io };
    const sub = request.command;
    if (sub === "list" || sub === "get" || sub === "login") {
      try {
        ctx.config = await loadConfig({ cwd: ctx.cwd, env, home: ctx.home });
      } catch (error) {
        ctx.configWarning = `warning: configuration not loaded, default MCP timeouts apply: ${
          (error as Error).message.split("\n")[0]
        }`;
      }
    }
    switch (request.command) {
      case "add":
        return await addCommand(request.add, ctx);
      case "remove":
        return await removeCommand(request.name, request.scope, ctx);
      case "list":
        return await listCommand(request.json, ctx);
      case "get":
        return await getCommand(request.name, ctx);
      case "login":
        return await loginCommand(request.name, ctx);
      case "logout":
        return await logoutCommand(request.name, ctx);
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const config = error instanceof McpConfigFileError
      ? new ConfigError({
        file: error.file,
        line: error.line,
        column: error.column,
        problem: error.problem,
        fix: error.fix,
        cause: error,
      })
      : error;
    if (config instanceof ConfigError) {
      io.err(`reasonix mcp: ${config.message}`);
      return EXIT_USAGE;
    }
    if (error instanceof ReasonixError || error instanceof Error) {
      io.err(`reasonix mcp: ${error.message}`);
      return EXIT_FAILURE;
    }
    throw error;
  }
}

/**
 * Runs `reasonix mcp …` with its arguments (after `mcp`) in-process: the same command tree as
 * the program's, writing to `opts.io`. Returns the exit code.
 */
export async function mcpCommand(
  argv: string[],
  opts: { cwd?: string; env?: Record<string, string | undefined>; io?: Io } = {},
): Promise<number> {
  return await runSubtree(defineMcp, ["mcp", ...argv], { ...opts, io: opts.io ?? CONSOLE_IO });
}
