/**
 * The command line's host: `core/host`'s {@linkcode openCoreHost} with the workspace's trust
 * store and the MCP runtime plugged in. Every front end (headless run, interactive) opens its
 * host here, then builds agents with `host.createAgent(spec)`, so they cannot drift apart. MCP
 * servers start once per host and survive `/model`, `/resume` and `/new`.
 *
 * @module
 */
import "../providers/builtin_kinds.ts";
import "../tools/builtin/mod.ts";
import { declarationHash, reasonixHome, type TrustDeclaration } from "../core/config/mod.ts";
import type { Host } from "../core/host/host.ts";
import {
  type HostFlags,
  openHost as openCoreHost,
  type OpenHostOptions as CoreOpenHostOptions,
} from "../core/host/open.ts";
import type { McpResourceReader } from "../core/references/mod.ts";
import type { McpAccess } from "./mcp_runtime.ts";
import { lazyImport } from "./lazy.ts";
import type { RemoteModule, RemoteRequest } from "./commands/types.ts";
import { mcpStateDir, startMcp } from "./mcp_runtime.ts";
import { checkProviderTrust, loadProjectTrust, untrustedWarning } from "./project_trust.ts";

export type { HostFlags };

/** The host of the command line: MCP is the real one, with status and prompts for the UI. */
export type CliHost = Host<McpAccess>;

/** Options of {@linkcode openHost}. */
export interface OpenHostOptions
  extends Pick<CoreOpenHostOptions, "cwd" | "env" | "flags" | "now"> {
  /** How long to wait for MCP servers before the tool list is fixed (default 3 s). */
  mcpReadyWaitMs?: number;
  /** Hashes of project declarations the user trusted for this session only (the prompt). */
  trustSession?: ReadonlySet<string>;
  /** Hashes of project declarations the user chose to skip: still skipped, not warned about. */
  trustSkipped?: ReadonlySet<string>;
  /**
   * Where `@server:uri` references are read, instead of the host's own MCP servers: for a
   * front end whose MCP view is another one (tests of the interactive UI).
   */
  resources?: McpResourceReader;
  /** `--remote`: the tools run on that host over SSH (`cli/remote_cmd.ts`). */
  remote?: RemoteRequest;
}

/**
 * Loads configuration, checks the workspace's trust, binds the default model, starts MCP and
 * sets up permissions. Throws `ConfigError` for anything the user must fix; nothing is
 * started in that case.
 */
export async function openHost(opts: OpenHostOptions): Promise<CliHost> {
  const home = reasonixHome(opts.env);
  const remote = opts.remote
    ? (await lazyImport<RemoteModule>("cli/remote_cmd.ts"))
      .remoteWorkspace(opts.remote, opts.env)
    : undefined;
  const trust = await loadProjectTrust({
    home,
    cwd: opts.cwd,
    trustProject: opts.flags?.trustProject,
    session: opts.trustSession,
  });
  return await openCoreHost<McpAccess>({
    cwd: opts.cwd,
    env: opts.env,
    flags: opts.flags,
    now: opts.now,
    ...(remote ? { workspace: remote.open } : {}),
    trust: {
      allows: trust.allows,
      warnings: trust.warnings,
      checkProvider: (provider) => checkProviderTrust({ provider, cwd: opts.cwd, trust }),
    },
    // MCP OAuth tokens are no business of the model's tools either.
    forbidRead: [mcpStateDir(home)],
    mcp: async ({ config, workspaceRoot, untrustedSettings }) => {
      const mcp = await startMcp({
        cwd: opts.cwd,
        env: opts.env,
        home,
        config,
        workspaceRoot,
        waitMs: opts.mcpReadyWaitMs,
        trust,
        ...(remote ? { tunnel: remote.tunnel } : {}),
      });
      const warnings = [...mcp.warnings];
      // What the user just declined in the prompt needs no warning.
      const unasked = (d: TrustDeclaration) =>
        !opts.trustSkipped?.has(declarationHash(trust.workspace, d));
      const held = untrustedWarning({
        workspace: trust.workspace,
        servers: mcp.untrusted.filter(unasked),
        settings: untrustedSettings && unasked(untrustedSettings) ? untrustedSettings : undefined,
        flag: true,
      });
      if (held) warnings.push(held);
      return {
        host: mcp.host,
        directTools: mcp.directTools,
        warnings,
        resources: opts.resources ?? {
          hasServer: (name) => mcp.host.status().some((s) => s.name === name),
          readResource: async (server, uri, o) =>
            (await mcp.host.readResource(server, uri, o)).text,
        },
      };
    },
  });
}
