/**
 * Composes the MCP host for a run or a `reasonix mcp` command: reads the declarations,
 * expands `${VAR}` with the environment, the project `.env` and the home `.env`, and builds
 * the host. Project declarations may not read a variable a user-level provider uses as its
 * API key, so a cloned repository cannot send that key to a server of its choosing.
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
import type { McpServerEntry } from "../plugins/mcp/types.ts";
import type { Capability } from "../tools/capability.ts";
import type { Tool } from "../tools/types.ts";
import { lazyImport } from "./lazy.ts";
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

/** The `${VAR}` expander of MCP declarations. */
export async function mcpExpander(opts: {
  cwd: string;
  env: Record<string, string | undefined>;
  home: string;
  config?: Config;
}): Promise<VarExpander> {
  const projectEnv = await loadProjectDotenv(opts.cwd);
  const homeEnv = await loadHomeDotenv(opts.home);
  const keys = protectedKeyVars(opts.config);
  const lookup = (name: string) => opts.env[name] ?? projectEnv[name] ?? homeEnv[name];
  return (text, where) => {
    if (where.source !== "user") {
      for (const name of referencedVars(text)) {
        const provider = keys.get(name);
        if (provider) {
          throw new Error(
            `${where.field} uses \${${name}}, the API key of provider "${provider}"; a project ` +
              "file may not read a user's API keys",
          );
        }
      }
    }
    return expandVars(text, lookup);
  };
}

/** Declarations, their resolved entries and the problems met on the way. */
export interface McpDeclarations {
  set: McpDeclarationSet;
  entries: McpServerEntry[];
  warnings: string[];
}

/** Reads and resolves every MCP declaration of a project. */
export async function loadMcpEntries(opts: {
  cwd: string;
  env: Record<string, string | undefined>;
  home: string;
  config?: Config;
}): Promise<McpDeclarations> {
  const set = await loadMcpDeclarations({ home: opts.home, cwd: opts.cwd });
  const declared = new Set([...set.user, ...set.mcp_json, ...set.project].map((d) => d.name));
  await pruneOrphanedOAuth(mcpStateDir(opts.home), declared).catch(() => 0);
  const entries = resolveEntries(set, {
    expand: await mcpExpander(opts),
    defaultStartupTimeoutMs: (opts.config?.tools.mcp_startup_timeout_seconds ?? 30) * 1000,
    cwd: opts.cwd,
  });
  const warnings = [...set.warnings];
  for (const e of entries) {
    if (e.problem) warnings.push(`MCP server "${e.declaration.name}" is not started: ${e.problem}`);
  }
  return { set, entries, warnings };
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
  getPrompt: (server) => Promise.reject(new Error(`no MCP server "${server}" is configured`)),
  resources: () => [],
  readResource: (server) => Promise.reject(new Error(`no MCP server "${server}" is configured`)),
  readReference: () => Promise.resolve(undefined),
  authenticate: (server) => Promise.reject(new Error(`no MCP server "${server}" is configured`)),
  directTools: () => [],
  capabilitySource: () => ({ list: () => NO_CAPABILITIES }),
  close: () => Promise.resolve(),
};

/** Builds a host over resolved entries, loading the MCP SDK on first use. */
export async function createMcpHost(opts: {
  entries: McpServerEntry[];
  env: Record<string, string | undefined>;
  home: string;
  config?: Config;
  workspaceRoot?: string;
  authorizer?: { open: AuthorizationOpener; timeoutMs?: number };
}): Promise<McpHost> {
  const { McpHost } = await lazyImport<typeof import("../plugins/mcp/host.ts")>(
    "plugins/mcp/host.ts",
  );
  return new McpHost({
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
}): Promise<McpRuntime> {
  const loaded = await loadMcpEntries(opts);
  if (loaded.entries.length === 0) {
    return { host: NO_MCP, directTools: [], warnings: loaded.warnings };
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
  return { host, directTools: host.directTools(), warnings };
}
