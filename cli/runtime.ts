/**
 * The composition root: turns configuration into a ready `Agent`. Every front end (headless
 * run, interactive) builds its runtime here so they cannot drift apart.
 *
 * @module
 */
import "../providers/anthropic/mod.ts";
import "../providers/openai/mod.ts";
import "../providers/replay/mod.ts";
import "../providers/responses/mod.ts";
import "../tools/builtin/mod.ts";
import { join, resolve as resolvePath } from "node:path";
import { Agent } from "../core/agent/agent.ts";
import type { ApprovalBroker } from "../core/agent/approval.ts";
import type { Session } from "../core/agent/session.ts";
import type { CompactionReport } from "../core/context/manager.ts";
import { ContextManager } from "../core/context/manager.ts";
import { TokenEstimator } from "../core/context/estimator.ts";
import { toolResultCapability } from "../core/context/tool_results.ts";
import { openSession } from "../core/store/session_store.ts";
import { listSessions, projectKey, sessionsDir } from "../core/store/sessions.ts";
import { readTranscript } from "../core/store/transcript.ts";
import { instructionBlocks, readInstructionFiles } from "../core/agent/instructions.ts";
import { FactStore } from "../core/memory/facts.ts";
import { type Archive, HistoryIndex, historyTool } from "../core/memory/history.ts";
import { recallBlock } from "../core/memory/recall.ts";
import { memoryTools } from "../core/memory/tools.ts";
import {
  decorateUserTurn,
  type EnvironmentFacts,
  SYSTEM_PROMPT,
} from "../core/agent/system_prompt.ts";
import {
  applyFlags,
  ConfigError,
  declarationHash,
  loadConfig,
  loadHomeDotenv,
  outputBudgetPlan,
  providerFromConfig,
  reasonixHome,
  resolveApiKey,
  resolveModel,
  type TrustDeclaration,
} from "../core/config/mod.ts";
import type { Config, ResolvedModel } from "../core/config/types.ts";
import { scrubLegacyKeys } from "../core/config/toml_edit.ts";
import {
  openRecording,
  type Recording,
  RECORDING_FORMAT,
  type RecordingOptions,
} from "../providers/recording.ts";
import type { Provider } from "../providers/types.ts";
import { builtinTools, ToolRegistry } from "../tools/registry.ts";
import {
  applyProjectMode,
  type Permissions,
  setupPermissions,
  validatePermissionsConfig,
} from "../core/permission/mod.ts";
import { CapabilityHub, useCapabilityTool } from "../tools/capability.ts";
import type { Tool } from "../tools/types.ts";
import type { McpAccess } from "./mcp_runtime.ts";
import { mcpStateDir, startMcp } from "./mcp_runtime.ts";
import { childEnv } from "./child_env.ts";
import { checkProviderTrust, loadProjectTrust, untrustedWarning } from "./project_trust.ts";
import { readHead } from "../core/references/mod.ts";
import { ImageTurns, planVision } from "../core/vision/mod.ts";
import type { AgentEvent } from "../core/agent/events.ts";

/** Flags every front end accepts. */
export interface RuntimeFlags {
  model?: string;
  maxTurns?: number;
  /** Resume a session: `latest` (`--continue`) or an id or unique id prefix (`--resume`). */
  resume?: string;
  /** Overrides `[agent].reasoning_effort` (the interactive `/effort`). */
  reasoningEffort?: string;
  /** `--permission-mode`: a preset name (see docs/PERMISSIONS.md). */
  permissionMode?: string;
  /** `--allow` rules, added to `[permissions].allow`. */
  allow?: string[];
  /** `--deny` rules, added to `[permissions].deny`. */
  deny?: string[];
  /** `--record <file>`: write the provider traffic of this run there (see docs/PROVIDERS.md). */
  record?: string;
  /** `--max-cost` / `--max-tokens`: hard limits for unattended runs. */
  budget?: { maxCost?: number; maxTokens?: number };
  /** `--image` was given: fail at startup when no configured model can use images. */
  images?: boolean;
  /**
   * `--trust-project`: trust what the project files declare now (MCP servers, loosening
   * settings) for this run only; nothing is written to the trust store.
   */
  trustProject?: boolean;
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
  /** The session transcript (append-only JSONL). */
  sessionPath: string;
  /** Whether `session` continues an earlier one. */
  resumed: boolean;
  /** Context maintenance of this session (spec §3.6). */
  context: ContextManager;
  /** `/compact [instructions]`: summarize the conversation now, following `instructions`. */
  compact(opts: { signal: AbortSignal; instructions?: string }): Promise<CompactionReport[]>;
  agent: Agent;
  /** The permission gate, write scope and sandboxed shell of this runtime. */
  permissions: Permissions;
  workspaceRoot: string;
  /** MCP servers of this run: status, prompts and resources for the UI (`/mcp`). */
  mcp: McpAccess;
  /** Config warnings to show the user. */
  warnings: string[];
  /** Image handling of this runtime (spec §3.5, `agent.vision_model`). */
  vision: ImageTurns;
  /** Notices raised before the event stream starts (image descriptions); returns unsubscribe. */
  onNotice(listener: (notice: Extract<AgentEvent, { type: "notice" }>) => void): () => void;
  /** Closes the transcript and removes the session's private temp directory. */
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

/**
 * `[sandbox].workspace_root` (`~/` is the home directory; relative to the working directory),
 * else the working directory, as a canonical path. A root that is missing or not a directory is
 * a configuration error.
 */
async function workspaceRootFor(
  config: Config,
  cwd: string,
  env: Record<string, string | undefined>,
): Promise<string> {
  const configured = config.sandbox.workspace_root;
  if (!configured) return await Deno.realPath(cwd);
  const home = env.HOME ?? env.USERPROFILE;
  const expanded = home && (configured === "~" || configured.startsWith("~/"))
    ? home + configured.slice(1)
    : configured;
  const fail = (why: string): never => {
    throw new ConfigError({
      problem: `[sandbox].workspace_root "${configured}" ${why}`,
      fix: "set it to an existing directory, or remove it to work in the current directory",
    });
  };
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(resolvePath(cwd, expanded));
  } catch (error) {
    return fail(
      error instanceof Deno.errors.NotFound ? "does not exist" : `cannot be read: ${error}`,
    );
  }
  if (!info.isDirectory) fail("is not a directory");
  return await Deno.realPath(resolvePath(cwd, expanded));
}

/**
 * Opens the `--record` file. It may be new or an earlier recording, never some other file: a
 * mistyped path must not truncate a user's file.
 */
async function startRecording(
  given: string,
  cwd: string,
  opts: RecordingOptions,
): Promise<Recording> {
  const path = resolvePath(cwd, given);
  const fail = (problem: string, cause?: unknown): never => {
    throw new ConfigError({
      problem: `--record ${given}: ${problem}`,
      fix: "pass a new file path (e.g. --record run.jsonl) or an earlier recording to replace",
      cause,
    });
  };
  if (given.trim() === "") fail("the path is empty");
  try {
    const info = await Deno.stat(path);
    if (!info.isFile) fail("not a regular file");
    if (info.size > 0 && !await isRecording(path)) {
      fail("the file exists and is not a Reasonix recording, so it is left alone");
    }
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    if (!(error instanceof Deno.errors.NotFound)) fail((error as Error).message, error);
  }
  try {
    return openRecording(path, opts);
  } catch (error) {
    return fail((error as Error).message, error);
  }
}

/** Whether the file starts with a recording's header line. */
async function isRecording(path: string): Promise<boolean> {
  const head = new TextDecoder().decode(await readHead(path, 256));
  return head.includes(`"${RECORDING_FORMAT}"`);
}

/** Earlier sessions of this workspace, for the `history` tool. */
async function loadArchives(dir: string, currentId: string | undefined): Promise<Archive[]> {
  const out: Archive[] = [];
  for (const summary of await listSessions(dir)) {
    if (summary.meta.id === currentId) continue;
    const loaded = await readTranscript(summary.path).catch(() => undefined);
    if (loaded) out.push({ id: loaded.meta.id, messages: loaded.messages });
  }
  return out;
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
  /** Answers permission prompts; only interactive front ends have one (headless fails closed). */
  broker?: ApprovalBroker;
  /** How long to wait for MCP servers before the tool list is fixed (default 3 s). */
  mcpReadyWaitMs?: number;
  /** Hashes of project declarations the user trusted for this session only (the prompt). */
  trustSession?: ReadonlySet<string>;
  /** Hashes of project declarations the user chose to skip: still skipped, not warned about. */
  trustSkipped?: ReadonlySet<string>;
}): Promise<Runtime> {
  const home = reasonixHome(opts.env);
  const trust = await loadProjectTrust({
    home,
    cwd: opts.cwd,
    trustProject: opts.flags.trustProject,
    session: opts.trustSession,
  });
  const loaded = await loadConfig({
    cwd: opts.cwd,
    env: opts.env,
    home,
    trustedProject: trust.allows,
  });
  const config = applyFlags(loaded, {
    model: opts.flags.model,
    maxTurns: opts.flags.maxTurns,
    permissionMode: opts.flags.permissionMode,
    allow: opts.flags.allow,
    deny: opts.flags.deny,
  });
  const project = applyProjectMode(config.permissions, opts.flags.permissionMode !== undefined);
  config.permissions = project.permissions;
  validatePermissionsConfig(config.permissions, opts.env);
  const warnings = [
    ...trust.warnings,
    ...loaded.warnings,
    ...await scrubLegacyKeys(loaded.sources),
  ];
  if (project.warning) warnings.push(project.warning);
  const resolved = resolveModel(config, opts.flags.model);
  if (opts.flags.budget?.maxCost !== undefined && !resolved.price) {
    // Without a price nothing has a cost, and the cap would silently never trigger.
    throw new ConfigError({
      problem: `--max-cost needs prices for ${resolved.provider.name}/${resolved.model}, ` +
        "and none are configured",
      fix: `add price = { cache_hit = …, input = …, output = …, currency = "USD" } (per million ` +
        `tokens) to [[providers]] "${resolved.provider.name}", or cap tokens with --max-tokens`,
    });
  }
  await checkProviderTrust({ provider: resolved.provider, cwd: opts.cwd, trust });
  const apiKey = await resolveApiKey(resolved.provider, { env: opts.env, home });
  const visionPlan = planVision(config, resolved);
  if (opts.flags.images && visionPlan.mode === "none") throw visionPlan.error;
  if (visionPlan.mode === "describe") {
    await checkProviderTrust({ provider: visionPlan.vision.provider, cwd: opts.cwd, trust });
  }
  const visionKey = visionPlan.mode === "describe"
    ? await resolveApiKey(visionPlan.vision.provider, { env: opts.env, home })
    : undefined;
  // Built now, though used only when an image arrives, so a bad option stops start-up.
  const visionProvider = visionPlan.mode === "describe"
    ? providerFromConfig(visionPlan.vision.provider, {
      name: visionPlan.vision.provider.name,
      model: visionPlan.vision.model,
      baseUrl: visionPlan.vision.provider.base_url,
      requestUrl: visionPlan.vision.provider.request_url,
      chatUrl: visionPlan.vision.provider.chat_url,
      apiKey: visionKey || undefined,
      headers: visionPlan.vision.provider.headers,
      options: visionPlan.vision.provider.options,
    })
    : undefined;
  const vision = new ImageTurns({
    plan: visionPlan,
    createProvider: () => visionProvider!,
  });
  const noticeListeners = new Set<(notice: Extract<AgentEvent, { type: "notice" }>) => void>();
  const p = resolved.provider;
  const recording = opts.flags.record === undefined ? undefined : await startRecording(
    opts.flags.record,
    opts.cwd,
    {
      provider: { name: p.name, kind: p.kind, model: resolved.model, options: p.options },
      secrets: [apiKey ?? "", ...Object.values(p.headers)],
    },
  );
  // A 400 naming the model's real output limit is remembered for the rest of the session.
  let learnedOutputLimit: number | undefined;
  const provider = providerFromConfig(p, {
    name: p.name,
    model: resolved.model,
    baseUrl: p.base_url,
    requestUrl: p.request_url,
    chatUrl: p.chat_url,
    apiKey: apiKey || undefined,
    headers: p.headers,
    options: p.options,
    fetch: recording?.fetch,
    onOutputLimit: (limit) => {
      learnedOutputLimit = Math.min(limit, learnedOutputLimit ?? limit);
    },
  });

  const workspaceRoot = await workspaceRootFor(config, opts.cwd, opts.env);
  const capabilities = new CapabilityHub();
  const mcp = await startMcp({
    cwd: opts.cwd,
    env: opts.env,
    home,
    config,
    workspaceRoot,
    waitMs: opts.mcpReadyWaitMs,
    trust,
  });
  warnings.push(...mcp.warnings);
  // What the user just declined in the prompt needs no warning.
  const unasked = (d: TrustDeclaration) =>
    !opts.trustSkipped?.has(declarationHash(trust.workspace, d));
  const held = untrustedWarning({
    workspace: trust.workspace,
    servers: mcp.untrusted.filter(unasked),
    settings: loaded.untrustedSettings && unasked(loaded.untrustedSettings)
      ? loaded.untrustedSettings
      : undefined,
    flag: true,
  });
  if (held) warnings.push(held);
  capabilities.addSource(mcp.host.capabilitySource());
  const sessionDir = await sessionsDir(home, workspaceRoot);
  // The session opens after the tool list is fixed; history reads it through this reference.
  const live: { session?: Session } = {};
  const history = new HistoryIndex({
    sessionId: "",
    messages: () => live.session?.messages ?? [],
    archives: () => loadArchives(sessionDir, live.session?.id),
  });
  const facts = new FactStore({
    projectDir: join(home, "memory", "projects", await projectKey(workspaceRoot)),
    globalDir: join(home, "memory", "global"),
  });
  const registry = new ToolRegistry([
    ...enabledTools(config, warnings),
    historyTool(history),
    ...memoryTools(facts, { owner: true }),
    ...mcp.directTools,
    useCapabilityTool(capabilities),
  ]);
  const opened = await openSession({
    dir: sessionDir,
    workspace: workspaceRoot,
    model: `${p.name}/${resolved.model}`,
    resume: opts.flags.resume,
    now: opts.now,
  });
  const { session, writer } = opened;
  live.session = session;
  if (opened.skippedLines > 0) {
    warnings.push(
      `skipped ${opened.skippedLines} damaged line(s) of ${writer.path} (e.g. a write cut short by a crash)`,
    );
  }
  if (opened.repaired > 0) {
    warnings.push(`${opened.repaired} tool call(s) were interrupted when the session last ended`);
  }
  capabilities.register(toolResultCapability(() => session.messages));
  const context = new ContextManager({
    provider,
    model: resolved.model,
    system: SYSTEM_PROMPT,
    tools: registry.schemas(),
    temperature: config.agent.temperature,
    contextWindow: resolved.contextWindow,
    compactRatio: config.agent.compact_ratio,
    estimator: new TokenEstimator(),
    persist: {
      projection: (record) => writer.append({ t: "proj", p: record }),
      failure: (failure) => writer.append({ t: "fail", f: failure }),
    },
    projection: opened.projection,
    failures: opened.failures,
  });
  const tempDir = await Deno.makeTempDir({ prefix: "reasonix-" });
  const permissions = await setupPermissions({
    permissions: config.permissions,
    // The home's keys and OAuth tokens are no business of the model's tools or commands.
    sandbox: {
      ...config.sandbox,
      forbid_read: [...config.sandbox.forbid_read, join(home, ".env"), mcpStateDir(home)],
    },
    workspaceRoot,
    projectDir: opts.cwd,
    tempDir,
    env: opts.env,
    broker: opts.broker,
  });
  const environment: EnvironmentFacts = {
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
      shell: permissions.shell,
      readGuard: permissions.readGuard,
      settings: {
        bashTimeoutMs: config.tools.bash_timeout_seconds * 1000,
        childEnv: childEnv({ env: opts.env, config, homeEnv: await loadHomeDotenv(home) }).env,
      },
    },
    maxTurns: config.agent.max_turns,
    temperature: config.agent.temperature,
    reasoningEffort: opts.flags.reasoningEffort ?? config.agent.reasoning_effort,
    outputBudget: (promptTokens) =>
      outputBudgetPlan(resolved, promptTokens, { learnedLimit: learnedOutputLimit }),
    price: resolved.price,
    budget: opts.flags.budget,
    decorateUserTurn: async (text, s, input, { signal }) => {
      // Checked against what the model sees, so a checkpoint that replaced them re-sends them.
      const view = context.view(s.messages);
      const parts = [
        ...instructionBlocks(await readInstructionFiles(workspaceRoot), view),
        decorateUserTurn(text, view, environment),
      ];
      const recalled = recallBlock(await facts.list().catch(() => []), text);
      if (recalled) parts.push(recalled);
      const content = parts.join("\n\n");
      if (!input.images?.length) return content;
      const turn = await vision.prepare({ content, text, images: input.images }, { signal });
      for (const notice of turn.notices) {
        for (const listener of noticeListeners) listener({ type: "notice", ...notice });
      }
      return turn;
    },
    context,
    gate: permissions.gate,
  });
  // Read-only mode gives up Deno's write permission here; the transcript is already open.
  await permissions.lockDown();
  return {
    config,
    resolved,
    provider,
    registry,
    capabilities,
    session,
    sessionPath: writer.path,
    resumed: opened.resumed,
    context,
    compact: async (opts) => (await context.compactNow(session.messages, opts)).reports,
    agent,
    permissions,
    workspaceRoot,
    mcp: mcp.host,
    warnings,
    vision,
    onNotice: (listener) => {
      noticeListeners.add(listener);
      return () => void noticeListeners.delete(listener);
    },
    dispose: async () => {
      await mcp.host.close();
      writer.close();
      recording?.close();
      await Deno.remove(tempDir, { recursive: true }).catch(() => {});
    },
  };
}
