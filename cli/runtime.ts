/**
 * The composition root: turns configuration into a ready `Agent`. Every front end (headless
 * run, interactive) builds its runtime here so they cannot drift apart.
 *
 * @module
 */
import "../providers/openai/mod.ts";
import "../tools/builtin/mod.ts";
import { Agent } from "../core/agent/agent.ts";
import { Session } from "../core/agent/session.ts";
import {
  decorateUserTurn,
  type EnvironmentFacts,
  SYSTEM_PROMPT,
} from "../core/agent/system_prompt.ts";
import {
  applyFlags,
  loadConfig,
  outputTokenBudget,
  reasonixHome,
  resolveApiKey,
  resolveModel,
} from "../core/config/mod.ts";
import type { Config, ResolvedModel } from "../core/config/types.ts";
import { createProvider } from "../providers/registry.ts";
import type { Provider } from "../providers/types.ts";
import { builtinTools, ToolRegistry } from "../tools/registry.ts";
import { directShell } from "../tools/shell.ts";
import { CapabilityHub, useCapabilityTool } from "../tools/capability.ts";
import type { Tool } from "../tools/types.ts";

/** Flags every front end accepts. */
export interface RuntimeFlags {
  model?: string;
  maxTurns?: number;
}

/** A ready-to-run agent and what it was built from. */
export interface Runtime {
  config: Config;
  resolved: ResolvedModel;
  provider: Provider;
  registry: ToolRegistry;
  /** Capabilities reachable through the fixed `use_capability` tool. */
  capabilities: CapabilityHub;
  session: Session;
  agent: Agent;
  workspaceRoot: string;
  /** Config warnings to show the user. */
  warnings: string[];
  /** Removes the session's private temp directory. */
  dispose(): Promise<void>;
}

function isoDate(now: Date): string {
  return now.toISOString().slice(0, 10);
}

async function isGitRepo(root: string): Promise<boolean> {
  try {
    await Deno.stat(`${root}/.git`);
    return true;
  } catch {
    return false;
  }
}

/** Picks the built-in tools named in `[tools].enabled` (all when empty). */
function enabledTools(config: Config, warnings: string[]): Tool[] {
  const all = builtinTools();
  const wanted = config.tools.enabled;
  if (wanted.length === 0) return all;
  const known = new Set(all.map((t) => t.name));
  for (const name of wanted) {
    if (!known.has(name)) {
      warnings.push(
        `[tools].enabled names unknown tool "${name}" (known: ${[...known].join(", ")})`,
      );
    }
  }
  return all.filter((t) => wanted.includes(t.name));
}

/**
 * Loads configuration, resolves the model and its key, and builds the agent. Throws
 * `ConfigError` for anything the user must fix; nothing is started in that case.
 */
export async function buildRuntime(opts: {
  cwd: string;
  env: Record<string, string | undefined>;
  flags: RuntimeFlags;
  now?: Date;
}): Promise<Runtime> {
  const home = reasonixHome(opts.env);
  const loaded = await loadConfig({ cwd: opts.cwd, env: opts.env, home });
  const config = applyFlags(loaded, { model: opts.flags.model, maxTurns: opts.flags.maxTurns });
  const warnings = [...loaded.warnings];
  const resolved = resolveModel(config, opts.flags.model);
  const apiKey = await resolveApiKey(resolved.provider, { env: opts.env, home });
  const p = resolved.provider;
  const provider = createProvider(p.kind, {
    name: p.name,
    model: resolved.model,
    baseUrl: p.base_url,
    requestUrl: p.request_url,
    chatUrl: p.chat_url,
    apiKey: apiKey || undefined,
    headers: p.headers,
    options: p.options,
  });

  const workspaceRoot = await Deno.realPath(config.sandbox.workspace_root || opts.cwd);
  const capabilities = new CapabilityHub();
  const registry = new ToolRegistry([
    ...enabledTools(config, warnings),
    useCapabilityTool(capabilities),
  ]);
  const tempDir = await Deno.makeTempDir({ prefix: "reasonix-" });
  const session = new Session();
  const facts: EnvironmentFacts = {
    workspaceRoot,
    platform: `${Deno.build.os} ${Deno.build.arch}`,
    date: isoDate(opts.now ?? new Date()),
    isGitRepo: await isGitRepo(workspaceRoot),
  };
  const agent = new Agent({
    provider,
    model: resolved.model,
    session,
    registry,
    systemPrompt: SYSTEM_PROMPT,
    toolContext: {
      root: workspaceRoot,
      tempDir,
      shell: directShell,
      settings: { bashTimeoutMs: config.tools.bash_timeout_seconds * 1000 },
    },
    maxTurns: config.agent.max_turns,
    temperature: config.agent.temperature,
    reasoningEffort: config.agent.reasoning_effort,
    outputBudget: (promptTokens) => outputTokenBudget(resolved, promptTokens),
    price: resolved.price,
    decorateUserTurn: (text, s) => decorateUserTurn(text, s.messages, facts),
  });
  return {
    config,
    resolved,
    provider,
    registry,
    capabilities,
    session,
    agent,
    workspaceRoot,
    warnings,
    dispose: () => Deno.remove(tempDir, { recursive: true }).catch(() => {}),
  };
}
