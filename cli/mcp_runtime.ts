/**
 * Composes the MCP host for a run or a `reasonix mcp` command: reads the declarations,
 * expands `${VAR}` (see {@link mcpExpander}: user-level declarations from the environment and
 * the home `.env`, project ones from the environment and the project `.env`, never a user's
 * API key or token) and builds the host, with stdio servers in the OS sandbox.
 *
 * @module
 */
import { join } from "node:path";
import {
  expandVars,
  loadHomeDotenv,
  loadProjectDotenv,
  referencedVars,
} from "../core/config/mod.ts";
import type { Config } from "../core/config/types.ts";
// Only the light declaration layer is imported eagerly: the host pulls in the MCP SDK, which
// takes about 200 ms to load, so it is imported only when a server is actually declared.
import {
  loadMcpDeclarations,
  type McpDeclarationSet,
  resolveEntries,
  type VarExpander,
} from "../plugins/mcp/config.ts";
import type { McpHost } from "../plugins/mcp/host.ts";
import type { AuthorizationOpener } from "../plugins/mcp/oauth_provider.ts";
import { pruneOrphanedOAuth } from "../plugins/mcp/oauth_store.ts";
import { stripControl } from "../plugins/mcp/text.ts";
import type { HttpServerSpec, McpServerDeclaration, McpServerEntry } from "../plugins/mcp/types.ts";
import type { Capability } from "../tools/capability.ts";
import type { Tool } from "../tools/types.ts";
import type { TrustDeclaration } from "../core/config/mod.ts";
import { findPreset } from "../core/permission/presets.ts";
import { lazyImport } from "./lazy.ts";
import { mcpSandboxLauncher } from "./mcp_sandbox.ts";
import { gateProjectEntries, type ProjectTrust, TRUST_NOTHING } from "./project_trust.ts";
import { version } from "./version.ts";

/**
 * How long a run waits for servers before its tool list is fixed, unless the environment
 * variable `REASONIX_MCP_WAIT_MS` says otherwise (slow `npx` servers, loaded CI machines).
 */
export const MCP_READY_WAIT_MS = 3000;

function readyWaitMs(env: Record<string, string | undefined>): number {
  const value = Number(env.REASONIX_MCP_WAIT_MS);
  return Number.isFinite(value) && value >= 0 && env.REASONIX_MCP_WAIT_MS?.trim()
    ? value
    : MCP_READY_WAIT_MS;
}

/** The private MCP state directory of a Reasonix home. */
export function mcpStateDir(home: string): string {
  return join(home, "mcp");
}

/** Variables that user-level providers read their API key from. */
function protectedKeyVars(config: Config | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of config?.providers ?? []) {
    if (!p.api_key_env) continue;
    if (p.source?.api_key_env_from && !p.source.api_key_env_from.trusted) continue;
    out.set(p.api_key_env, p.name);
  }
  return out;
}

/** Every string a declaration expands. */
function declarationTexts(d: McpServerDeclaration): string[] {
  return [
    d.command,
    ...(d.args ?? []),
    ...Object.values(d.env ?? {}),
    d.cwd,
    d.url,
    ...Object.values(d.headers ?? {}),
  ].filter((t): t is string => t !== undefined);
}

/** Variables the user-level declarations read, with the first server that reads each. */
function userDeclarationVars(set: McpDeclarationSet | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const d of set?.user ?? []) {
    for (const text of declarationTexts(d)) {
      for (const name of referencedVars(text)) if (!out.has(name)) out.set(name, d.name);
    }
  }
  return out;
}

/**
 * The `${VAR}` expander of MCP declarations.
 *
 * - User-level declarations (`config.toml`) read the process environment, then the home
 *   `.env`; never the project `.env`, so a cloned repository cannot redirect them.
 * - Project declarations (`reasonix.toml`, `.mcp.json`) read the process environment, then
 *   the project `.env`; never the home `.env`. They may not read a provider's API key
 *   variable, nor a variable a user-level declaration reads (its token, its URL): a project
 *   declaration of the same name would otherwise take over the user's server and its token.
 * - A project `.env` entry for such a protected name is ignored, with a warning.
 */
export async function mcpExpander(opts: {
  cwd: string;
  env: Record<string, string | undefined>;
  home: string;
  config?: Config;
  /** The declarations being expanded; the user-level ones decide what projects may not read. */
  declarations?: McpDeclarationSet;
  /** Collects the warnings about ignored project `.env` entries. */
  warnings?: string[];
  /** The project `.env` as already read (it is not changed); default: read it now. */
  projectEnv?: Readonly<Record<string, string>>;
}): Promise<VarExpander> {
  const projectEnv = { ...(opts.projectEnv ?? await loadProjectDotenv(opts.cwd)) };
  const homeEnv = await loadHomeDotenv(opts.home);
  const keys = protectedKeyVars(opts.config);
  const userVars = userDeclarationVars(opts.declarations);
  const userFile = join(opts.home, "config.toml");
  const homeDotenv = join(opts.home, ".env");
  const protectedBy = (name: string): string | undefined => {
    const provider = keys.get(name);
    if (provider) return `the API key of provider "${provider}"`;
    const server = userVars.get(name);
    if (server) return `read by your user-level MCP server "${server}" (${userFile})`;
    return undefined;
  };
  for (const name of Object.keys(projectEnv)) {
    const why = protectedBy(name);
    if (!why) continue;
    delete projectEnv[name];
    opts.warnings?.push(
      `${join(opts.cwd, ".env")}: ${name} is ignored: it is ${why}, and a project .env may not ` +
        "change it",
    );
  }
  const userLookup = (name: string) => opts.env[name] ?? homeEnv[name];
  const projectLookup = (name: string) => opts.env[name] ?? projectEnv[name];
  return (text, where) => {
    const user = where.source === "user";
    if (!user) {
      for (const name of referencedVars(text)) {
        const why = protectedBy(name);
        if (why) {
          throw new Error(
            `${where.field} uses \${${name}}, ${why}; a project file may not read it ` +
              `(declare this server in ${userFile} instead)`,
          );
        }
        if (projectLookup(name) === undefined && homeEnv[name] !== undefined) {
          throw new Error(
            `${where.field} uses \${${name}}, which only your ${homeDotenv} sets; a project ` +
              "file may not read it (export it, or set it in the project's .env)",
          );
        }
      }
    }
    const lookup = user ? userLookup : projectLookup;
    return expandVars(text, (name) => {
      const value = lookup(name);
      if (value) where.reveal?.(value);
      return value;
    });
  };
}

/** Declarations, their resolved entries and the problems met on the way. */
export interface McpDeclarations {
  set: McpDeclarationSet;
  entries: McpServerEntry[];
  warnings: string[];
  /** Project-declared servers that are not trusted: their entries carry a problem instead. */
  untrusted: TrustDeclaration[];
}

/**
 * Reads and resolves every MCP declaration of a project. Servers a project file declares
 * start only when `trust` allows their declaration (without `trust`, none does).
 */
export async function loadMcpEntries(opts: {
  cwd: string;
  env: Record<string, string | undefined>;
  home: string;
  config?: Config;
  trust?: ProjectTrust;
}): Promise<McpDeclarations> {
  const set = await loadMcpDeclarations({ home: opts.home, cwd: opts.cwd });
  const declared = new Set([...set.user, ...set.mcp_json, ...set.project].map((d) => d.name));
  await pruneOrphanedOAuth(mcpStateDir(opts.home), declared).catch(() => 0);
  const warnings = [...set.warnings];
  // Read once: the values trust is checked against are the values the servers get.
  const projectEnv = await loadProjectDotenv(opts.cwd);
  const entries = resolveEntries(set, {
    expand: await mcpExpander({ ...opts, declarations: set, warnings, projectEnv }),
    defaultStartupTimeoutMs: (opts.config?.tools.mcp_startup_timeout_seconds ?? 30) * 1000,
    cwd: opts.cwd,
  });
  for (const e of entries) {
    if (e.problem) warnings.push(`MCP server "${e.declaration.name}" is not started: ${e.problem}`);
  }
  const gated = await gateProjectEntries({
    set,
    entries,
    cwd: opts.cwd,
    projectEnv,
    trust: opts.trust ?? TRUST_NOTHING,
  });
  return { set, entries: gated.entries, warnings, untrusted: gated.untrusted };
}

/** What a runtime and the UI use of the MCP host. */
export type McpAccess = Pick<
  McpHost,
  | "status"
  | "onChange"
  | "tools"
  | "prompts"
  | "findPrompt"
  | "getPrompt"
  | "resources"
  | "readResource"
  | "readReference"
  | "authenticate"
  | "directTools"
  | "capabilitySource"
  | "close"
>;

const NO_CAPABILITIES: readonly Capability[] = [];

/** The MCP access of a run that declares no server: nothing to load, nothing to start. */
export const NO_MCP: McpAccess = {
  status: () => [],
  onChange: () => () => {},
  tools: () => [],
  prompts: () => [],
  findPrompt: () => undefined,
  getPrompt: ({ server }) => Promise.reject(new Error(`no MCP server "${server}" is configured`)),
  resources: () => [],
  readResource: (server) => Promise.reject(new Error(`no MCP server "${server}" is configured`)),
  readReference: () => Promise.resolve(undefined),
  authenticate: (server) => Promise.reject(new Error(`no MCP server "${server}" is configured`)),
  directTools: () => [],
  capabilitySource: () => ({ list: () => NO_CAPABILITIES }),
  close: () => Promise.resolve(),
};

function isReadOnlyMode(mode: string): boolean {
  return findPreset(mode)?.name === "read-only";
}

/**
 * Builds a host over resolved entries, loading the MCP SDK on first use. Stdio servers run in
 * the OS sandbox (see `mcp_sandbox.ts`) with `workspaceRoot` (else `cwd`) as the workspace.
 */
export async function createMcpHost(opts: {
  entries: McpServerEntry[];
  env: Record<string, string | undefined>;
  home: string;
  config?: Config;
  workspaceRoot?: string;
  cwd?: string;
  authorizer?: { open: AuthorizationOpener; timeoutMs?: number };
}): Promise<McpHost> {
  const { McpHost } = await lazyImport<typeof import("../plugins/mcp/host.ts")>(
    "plugins/mcp/host.ts",
  );
  const root = opts.workspaceRoot ?? await Deno.realPath(opts.cwd ?? ".");
  return new McpHost({
    launch: mcpSandboxLauncher({
      home: opts.home,
      workspaceRoot: root,
      forbidRead: opts.config?.sandbox.forbid_read ?? [],
      readOnly: opts.config !== undefined && isReadOnlyMode(opts.config.permissions.mode),
      env: opts.env,
    }),
    entries: opts.entries,
    clientInfo: { name: "reasonix", version: version() },
    workspaceRoot: opts.workspaceRoot,
    callTimeoutMs: (opts.config?.tools.mcp_call_timeout_seconds ?? 300) * 1000,
    stateDir: mcpStateDir(opts.home),
    env: opts.env,
    authorizer: opts.authorizer,
  });
}

/** The MCP part of a runtime. */
export interface McpRuntime {
  host: McpAccess;
  /** Tools of the servers that were ready in time; fixed for the whole session. */
  directTools: Tool[];
  warnings: string[];
  /** Project-declared servers that were not started because they are not trusted. */
  untrusted: TrustDeclaration[];
}

/**
 * Starts every server in the background and waits a short, bounded time, so servers that
 * are fast become direct tools. Slower ones stay reachable through `use_capability`.
 */
export async function startMcp(opts: {
  cwd: string;
  env: Record<string, string | undefined>;
  home: string;
  config: Config;
  workspaceRoot: string;
  waitMs?: number;
  /** Which project-declared servers may start; without it, none. */
  trust?: ProjectTrust;
  /**
   * `--remote`: starts a `remote = true` server on the remote host when it has a command and
   * returns the local end of a forward to its url. Without it such servers do not start.
   */
  tunnel?: (spec: HttpServerSpec) => Promise<URL>;
}): Promise<McpRuntime> {
  const loaded = await loadMcpEntries(opts);
  await Promise.all(loaded.entries.map(async (entry) => {
    const spec = entry.spec;
    if (!spec || spec.transport === "stdio" || !spec.remote) return;
    if (!opts.tunnel) {
      entry.spec = undefined;
      entry.problem = "is declared remote = true, so it runs on the remote host of a " +
        "--remote session; this session is local";
      return;
    }
    try {
      entry.spec = { ...spec, url: await opts.tunnel(spec) };
    } catch (error) {
      entry.spec = undefined;
      entry.problem = `could not be reached on the remote host: ${(error as Error).message}`;
    }
  }));
  const { untrusted } = loaded;
  if (loaded.entries.length === 0) {
    return {
      host: NO_MCP,
      directTools: [],
      warnings: loaded.warnings.map(stripControl),
      untrusted,
    };
  }
  const host = await createMcpHost({ ...opts, entries: loaded.entries });
  host.start();
  await host.waitForStartup({ timeoutMs: opts.waitMs ?? readyWaitMs(opts.env) });
  const warnings = [...loaded.warnings];
  for (const s of host.status()) {
    if (s.phase === "needs_auth") {
      warnings.push(
        `MCP server "${s.name}" needs authorization: run \`reasonix mcp login ${s.name}\``,
      );
    } else if (s.phase === "failed" && s.error !== "config") {
      warnings.push(
        `MCP server "${s.name}" failed to start (${s.error ?? "unknown"})` +
          (s.detail ? `: ${s.detail.replaceAll("\n", " | ")}` : ""),
      );
    }
  }
  const directTools = host.directTools({ warnings });
  return { host, directTools, warnings: warnings.map(stripControl), untrusted };
}
