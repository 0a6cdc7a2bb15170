/**
 * Opens a {@linkcode Host}: loads configuration, binds the default model, sets up the
 * permission layer, the local workspace and the session store. The project's trust and MCP
 * come in through hooks, so this module stays below `plugins/`: the command line passes its
 * trust store and MCP runtime (`cli/host.ts`); a library caller gets a host that trusts nothing
 * a project declares and starts no MCP server unless it passes its own hook.
 *
 * @module
 */
import { join, resolve as resolvePath } from "node:path";
import {
  applyFlags,
  ConfigError,
  loadConfig,
  loadHomeDotenv,
  outputBudgetPlan,
  providerFromConfig,
  reasonixHome,
  resolveApiKey,
  resolveModel,
  type TrustDeclaration,
} from "../config/mod.ts";
import type { Config, ProviderConfig, ResolvedModel } from "../config/types.ts";
import { scrubLegacyKeys } from "../config/toml_edit.ts";
import { FactStore } from "../memory/facts.ts";
import {
  applyProjectMode,
  setupPermissions,
  validatePermissionsConfig,
} from "../permission/mod.ts";
import { readHead } from "../references/mod.ts";
import type { McpResourceReader } from "../references/mod.ts";
import { projectKey, sessionsDir } from "../store/sessions.ts";
import { LearnedLimits, limitKey } from "../store/learned_limits.ts";
import { ImageTurns, planVision } from "../vision/mod.ts";
import {
  openRecording,
  type Recording,
  RECORDING_FORMAT,
  type RecordingOptions,
} from "../../providers/recording.ts";
import { builtinTools } from "../../tools/registry.ts";
import type { Tool } from "../../tools/types.ts";
import { localWorkspace } from "../../tools/workspace/mod.ts";
import type { Workspace } from "../../tools/workspace/types.ts";
import { childEnv } from "./child_env.ts";
import { Host, type HostMcp, type ModelBinding } from "./host.ts";

/** Settings that shape a host: its configuration, permissions and recording. */
export interface HostFlags {
  /** The default model of the host (`-m`): `provider`, `model` or `provider/model`. */
  model?: string;
  /** Upper bound on model requests per run (`--max-turns`). */
  maxTurns?: number;
  /** `--permission-mode`: a preset name (see docs/PERMISSIONS.md). */
  permissionMode?: string;
  /** `--allow` rules, added to `[permissions].allow`. */
  allow?: string[];
  /** `--deny` rules, added to `[permissions].deny`. */
  deny?: string[];
  /** `--record <file>`: write the provider traffic of the default model there. */
  record?: string;
  /** `--max-cost` / `--max-tokens`: checked here so a cap that can never trigger stops start-up. */
  budget?: { maxCost?: number; maxTokens?: number };
  /** `--image` was given: fail at startup when no configured model can use images. */
  images?: boolean;
  /**
   * `--trust-project`: trust what the project files declare now (MCP servers, loosening
   * settings) for this run only; nothing is written to the trust store.
   */
  trustProject?: boolean;
}

/** What the workspace's trust decides while a host opens. */
export interface HostTrust {
  /** Whether a project declaration may take effect. */
  allows(declaration: TrustDeclaration): boolean;
  /**
   * Refuses (throws `ConfigError`) a provider whose endpoint an untrusted project file set.
   *
   * @internal Used by the CLI; not a stable part of the library API.
   */
  checkProvider(provider: ProviderConfig): Promise<void>;
  /** Problems with the trust store, one line each. */
  warnings: string[];
}

/** What an MCP hook hands the host. */
export interface HostMcpStart<M extends HostMcp> {
  /** The running MCP host. */
  host: M;
  /** Tools of the servers that were ready in time; fixed for the whole process. */
  directTools: Tool[];
  /** Problems to show the user (servers that failed, need authorization or were held back). */
  warnings: string[];
  /** MCP resources for `@server:uri` references. */
  resources?: McpResourceReader;
}

/** An OpenAI-compatible endpoint, for {@linkcode OpenHostOptions.endpoint}. */
export interface HostEndpoint {
  /** The API's base URL, e.g. `https://api.example.com/v1` (chat goes to `/chat/completions`). */
  baseUrl: string;
  /** The model, as the endpoint names it. */
  model: string;
  /** The environment variable that holds the API key (looked up like `api_key_env`). */
  apiKeyEnv?: string;
  /** The model's context window in tokens; default 128,000. */
  contextWindow?: number;
}

/** The provider name an {@linkcode OpenHostOptions.endpoint} is configured under. */
const ENDPOINT_PROVIDER = "endpoint";

/** The `[[providers]]` entry an endpoint stands for, in TOML (JSON strings are TOML strings). */
function endpointToml(endpoint: HostEndpoint): string {
  const lines = [
    "[[providers]]",
    `name = "${ENDPOINT_PROVIDER}"`,
    'kind = "openai"',
    `base_url = ${JSON.stringify(endpoint.baseUrl)}`,
    `models = [${JSON.stringify(endpoint.model)}]`,
  ];
  if (endpoint.apiKeyEnv !== undefined) {
    lines.push(`api_key_env = ${JSON.stringify(endpoint.apiKeyEnv)}`);
  }
  lines.push(`context_window = ${JSON.stringify(endpoint.contextWindow ?? 128_000)}`);
  return lines.join("\n");
}

/**
 * A workspace on another machine (e.g. `remote/`'s SSH workspace), for
 * {@linkcode OpenHostOptions.workspace}. Configuration, sessions and keys stay local.
 */
export interface HostWorkspace {
  /** Where the tools run: files and processes of that machine. */
  workspace: Workspace;
  /** The canonical workspace root on that machine. */
  root: string;
  /** The environment programs started there inherit (replaces the local one for them). */
  env: Readonly<Record<string, string>>;
  /** The platform the model is told, e.g. `linux x86_64`. */
  platform: string;
  /** Names the workspace in the session store, e.g. `ssh://user@host/path`. */
  key: string;
  /** Called when the host closes (e.g. ends the connection). */
  close?(): Promise<void>;
}

/** Options of {@linkcode openHost}. */
export interface OpenHostOptions<M extends HostMcp = HostMcp> {
  /** The directory the host works in; its `reasonix.toml` is read. */
  cwd: string;
  /** The environment (keys are looked up here and in the home `.env`). */
  env: Record<string, string | undefined>;
  /** Command-line style settings: default model, permission mode, rules, recording. */
  flags?: HostFlags;
  /**
   * Configuration in TOML, over the user's `config.toml` and under the project's
   * `reasonix.toml`, e.g. a `[[providers]]` entry for an OpenAI-compatible endpoint.
   */
  config?: string;
  /**
   * An OpenAI-compatible endpoint as the default model: short for a `[[providers]]` entry named
   * `endpoint` (kind `openai`) after `config`, and `flags.model = "endpoint/<model>"` unless
   * `flags.model` names another model.
   */
  endpoint?: HostEndpoint;
  /** Tools added to every agent's catalogue, besides the built-in ones. */
  tools?: readonly Tool[];
  /** The clock (tests pin it); default the system clock. */
  now?: () => Date;
  /** The workspace's trust; default: nothing a project file declares is trusted. */
  trust?: HostTrust;
  /** Paths no tool may read, besides `[sandbox].forbid_read` and the home `.env`. */
  forbidRead?: readonly string[];
  /**
   * Where the tools run, when not this machine: its files, processes, root and environment.
   * Default the local workspace rooted at `[sandbox].workspace_root` or `cwd`. A function is
   * called once the configuration is loaded and checked (e.g. to connect to a remote host only
   * when nothing else stops start-up).
   */
  workspace?: HostWorkspace | (() => Promise<HostWorkspace>);
  /**
   * Starts MCP once the configuration and the workspace root are known.
   *
   * @internal Used by the CLI; not a stable part of the library API.
   */
  mcp?(ctx: {
    config: Config;
    home: string;
    workspaceRoot: string;
    /** Loosening project settings that were held back, for the hook's warning. */
    untrustedSettings?: TrustDeclaration;
  }): Promise<HostMcpStart<M>>;
}

/**
 * Trust that allows nothing a project declares (library hosts without a trust store).
 *
 * @example Nothing a project file declares is trusted
 * ```ts
 * import { TRUST_NO_PROJECT } from "@reasonix/reasonix";
 *
 * const server = { command: "github-mcp" };
 * const declaration = { kind: "mcp_server", name: "github", file: "/repo/reasonix.toml", content: server } as const;
 * console.log(TRUST_NO_PROJECT.allows(declaration)); // false
 * ```
 */
export const TRUST_NO_PROJECT: HostTrust = {
  allows: () => false,
  checkProvider(p) {
    const key = (["request_url", "chat_url", "base_url"] as const)
      .find((k) => p.source?.endpoint_from[k] && !p.source.endpoint_from[k]!.trusted);
    if (!key) return Promise.resolve();
    const from = p.source!.endpoint_from[key]!;
    return Promise.reject(
      new ConfigError({
        file: from.file,
        line: from.line,
        problem: `provider "${p.name}" would send the conversation to an endpoint a project ` +
          "file chose, and this host trusts no project declaration",
        fix: "configure the provider in the user's config.toml, or pick another model",
      }),
    );
  },
  warnings: [],
};

async function isGitRepo(root: string, ws: Workspace): Promise<boolean> {
  try {
    await ws.stat(`${root}/.git`);
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

/** Binds a model: trust of its endpoint, its key, its vision plan and its provider. */
async function bindModel(opts: {
  config: Config;
  resolved: ResolvedModel;
  env: Record<string, string | undefined>;
  home: string;
  trust: HostTrust;
  recording?: (apiKey: string | undefined) => Promise<Recording | undefined>;
  limits: LearnedLimits;
}): Promise<ModelBinding & { recording?: Recording }> {
  const { resolved, trust, home, env } = opts;
  await trust.checkProvider(resolved.provider);
  const apiKey = await resolveApiKey(resolved.provider, { env, home });
  const visionPlan = planVision(opts.config, resolved);
  if (visionPlan.mode === "describe") await trust.checkProvider(visionPlan.vision.provider);
  const visionKey = visionPlan.mode === "describe"
    ? await resolveApiKey(visionPlan.vision.provider, { env, home })
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
  const vision = new ImageTurns({ plan: visionPlan, createProvider: () => visionProvider! });
  const recording = await opts.recording?.(apiKey);
  const p = resolved.provider;
  // A 400 naming the model's real output limit is remembered for the rest of the process.
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
  // A window the provider stated in an overflow error (this run or an earlier one) wins over a
  // larger configured one.
  const key = limitKey({
    provider: p.name,
    endpoint: p.request_url ?? p.chat_url ?? p.base_url,
    model: resolved.model,
  });
  let contextWindow = Math.min(
    resolved.contextWindow,
    opts.limits.contextWindow(key) ?? resolved.contextWindow,
  );
  return {
    resolved,
    provider,
    vision,
    contextWindow: () => contextWindow,
    learnContextWindow: (tokens) => {
      if (!(tokens < contextWindow)) return;
      contextWindow = tokens;
      void opts.limits.learnContextWindow(key, tokens);
    },
    outputBudget: (promptTokens) =>
      outputBudgetPlan({ ...resolved, contextWindow }, promptTokens, {
        learnedLimit: learnedOutputLimit,
      }),
    recording,
  };
}

/**
 * Loads configuration, binds the default model, starts MCP (through the hook) and sets up
 * permissions. Throws `ConfigError` for anything the user must fix; nothing is started in
 * that case.
 *
 * @example Open a host on an OpenAI-compatible endpoint and run one task
 * ```ts
 * import "@reasonix/reasonix/builtins";
 * import { openHost } from "@reasonix/reasonix";
 * import { startFakeLlm } from "@reasonix/reasonix/testing";
 *
 * const fake = await startFakeLlm({ script: [{ text: "Hello!" }] });
 * const dir = await Deno.makeTempDir(); // workspace and Reasonix home, so nothing else is touched
 * {
 *   await using host = await openHost({
 *     cwd: dir,
 *     env: { REASONIX_HOME: dir, FAKE_KEY: "sk-test" },
 *     endpoint: { baseUrl: fake.url, model: "m", apiKeyEnv: "FAKE_KEY" },
 *   });
 *   await using agent = await host.createAgent({ transcript: "ephemeral" });
 *   for await (const event of agent.run({ text: "Say hello" }, { signal: AbortSignal.timeout(30_000) })) {
 *     if (event.type === "done") console.log(event.status, event.text); // completed Hello!
 *   }
 * }
 * await fake.close();
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function openHost<M extends HostMcp = HostMcp>(
  opts: OpenHostOptions<M>,
): Promise<Host<M>> {
  const flags = opts.flags ?? {};
  const trust = opts.trust ?? TRUST_NO_PROJECT;
  const home = reasonixHome(opts.env);
  const extra = [opts.config, opts.endpoint && endpointToml(opts.endpoint)]
    .filter((text) => text !== undefined);
  const model = flags.model ??
    (opts.endpoint ? `${ENDPOINT_PROVIDER}/${opts.endpoint.model}` : undefined);
  const loaded = await loadConfig({
    cwd: opts.cwd,
    env: opts.env,
    home,
    trustedProject: (d) => trust.allows(d),
    ...(extra.length > 0
      ? {
        extraLayer: {
          source: opts.endpoint ? "openHost({ config, endpoint })" : "openHost({ config })",
          // The endpoint's entry starts with its own header, so it ends no table of `config`.
          text: extra.join("\n"),
        },
      }
      : {}),
  });
  const config = applyFlags(loaded, {
    model,
    maxTurns: flags.maxTurns,
    permissionMode: flags.permissionMode,
    allow: flags.allow,
    deny: flags.deny,
  });
  const project = applyProjectMode(config.permissions, flags.permissionMode !== undefined);
  config.permissions = project.permissions;
  validatePermissionsConfig(config.permissions, opts.env);
  const warnings = [
    ...trust.warnings,
    ...loaded.warnings,
    ...await scrubLegacyKeys(loaded.sources),
  ];
  if (project.warning) warnings.push(project.warning);
  const resolved = resolveModel(config, model);
  if (flags.budget?.maxCost !== undefined && !resolved.price) {
    // Without a price nothing has a cost, and the cap would silently never trigger.
    throw new ConfigError({
      problem: `--max-cost needs prices for ${resolved.provider.name}/${resolved.model}, ` +
        "and none are configured",
      fix: `add price = { cache_hit = …, input = …, output = …, currency = "USD" } (per million ` +
        `tokens) to [[providers]] "${resolved.provider.name}", or cap tokens with --max-tokens`,
    });
  }
  const limits = new LearnedLimits(home);
  const bind = (r: ResolvedModel, recording?: Parameters<typeof bindModel>[0]["recording"]) =>
    bindModel({ config, resolved: r, env: opts.env, home, trust, recording, limits });
  const p = resolved.provider;
  // The default model is bound before anything starts, so its errors stop start-up.
  const defaultBinding = await bind(
    resolved,
    flags.record === undefined ? undefined : (apiKey) =>
      startRecording(flags.record!, opts.cwd, {
        provider: { name: p.name, kind: p.kind, model: resolved.model, options: p.options },
        secrets: [apiKey ?? "", ...Object.values(p.headers)],
      }),
  );
  if (flags.images && defaultBinding.vision.plan.mode === "none") {
    defaultBinding.recording?.close();
    throw defaultBinding.vision.plan.error;
  }

  const remote = typeof opts.workspace === "function"
    ? await opts.workspace().catch((error) => {
      defaultBinding.recording?.close();
      throw error;
    })
    : opts.workspace;
  const ws = remote?.workspace ?? localWorkspace();
  const workspaceRoot = remote?.root ?? await workspaceRootFor(config, opts.cwd, opts.env);
  const mcp = await opts.mcp?.({
    config,
    home,
    // MCP servers start on this machine, in the directory Reasonix was started in.
    workspaceRoot: remote ? await Deno.realPath(opts.cwd) : workspaceRoot,
    untrustedSettings: loaded.untrustedSettings,
  }).catch(async (error) => {
    await remote?.close?.();
    throw error;
  });
  if (mcp) warnings.push(...mcp.warnings);
  try {
    return await assemble();
  } catch (error) {
    // Nothing stays running when the host cannot open.
    await mcp?.host.close();
    defaultBinding.recording?.close();
    await remote?.close?.();
    throw error;
  }

  async function assemble(): Promise<Host<M>> {
    const sessionDir = await sessionsDir(home, remote?.key ?? workspaceRoot);
    const facts = new FactStore({
      projectDir: join(home, "memory", "projects", await projectKey(remote?.key ?? workspaceRoot)),
      globalDir: join(home, "memory", "global"),
    });
    const catalogue = [
      ...enabledTools(config, warnings),
      ...opts.tools ?? [],
      ...mcp?.directTools ?? [],
    ];
    const tempDir = await ws.makeTempDir({ prefix: "reasonix-" });
    let permissions: Awaited<ReturnType<typeof setupPermissions>>;
    try {
      permissions = await setupPermissions({
        ...(remote ? { workspace: ws } : {}),
        permissions: config.permissions,
        // The home's keys and OAuth tokens are no business of the model's tools or commands.
        sandbox: {
          ...config.sandbox,
          forbid_read: [
            ...config.sandbox.forbid_read,
            join(home, ".env"),
            ...opts.forbidRead ?? [],
          ],
        },
        workspaceRoot,
        projectDir: remote ? workspaceRoot : opts.cwd,
        tempDir,
        // Programs are looked up on the workspace's own PATH.
        env: remote ? { ...opts.env, PATH: remote.env.PATH } : opts.env,
      });
      // A mode whose commands run unasked needs its sandbox: find out now, not mid-run.
      await permissions.preflight();
    } catch (error) {
      await ws.remove(tempDir, { recursive: true }).catch(() => {});
      // The package to install is missing over there, not here.
      if (remote && error instanceof ConfigError) {
        throw new ConfigError({
          problem: `on the remote host (${remote.key}): ${error.problem}`,
          fix: error.fix,
          cause: error,
        });
      }
      throw error;
    }
    const defaultKey = model;
    const userHome = opts.env?.HOME ?? opts.env?.USERPROFILE;
    return new Host<M>({
      config,
      warnings,
      home,
      ...(userHome ? { userHome } : {}),
      workspaceRoot,
      sessionDir,
      bindModel: (ref) =>
        ref === defaultKey || (ref === undefined && defaultKey === undefined)
          ? Promise.resolve(defaultBinding)
          : bind(resolveModel(config, ref)),
      permissions,
      catalogue,
      mcp: mcp?.host,
      resources: mcp?.resources,
      facts,
      toolContext: {
        root: workspaceRoot,
        workspace: ws,
        tempDir,
        shell: permissions.shell,
        readGuard: permissions.readGuard,
        settings: {
          bashTimeoutMs: config.tools.bash_timeout_seconds * 1000,
          // Provider keys and the home `.env` never reach the programs tools start.
          childEnv: childEnv({
            env: remote?.env ?? opts.env,
            config,
            homeEnv: await loadHomeDotenv(home),
          }).env,
        },
      },
      platform: remote?.platform ?? `${Deno.build.os} ${Deno.build.arch}`,
      isGitRepo: await isGitRepo(workspaceRoot, ws),
      now: opts.now,
      close: async () => {
        defaultBinding.recording?.close();
        await ws.remove(tempDir, { recursive: true }).catch(() => {});
        await remote?.close?.();
      },
    });
  }
}
