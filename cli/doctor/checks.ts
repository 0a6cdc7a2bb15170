/**
 * `reasonix doctor`: what a run in this directory would find, checked with the same code the
 * run uses. Configuration through `loadConfig` (its warnings included), keys through
 * `resolveApiKey` (reported as present or missing, never shown), endpoints with `GET /models`,
 * the sandbox by running one trivial command through the real launcher, MCP servers through the
 * real host (project servers only when trusted), instruction files through the agent's reader.
 *
 * A problem is something a run needs that is broken; each names its fix. Notes are what is
 * worth knowing but stops nothing (a provider that is not the default lacks its key).
 *
 * @module
 */
import "../../providers/builtin_kinds.ts";
import { isAbsolute, join, resolve } from "node:path";
import { readInstructionFiles } from "../../core/agent/mod.ts";
import {
  type Config,
  ConfigError,
  loadConfig,
  type ProviderConfig,
  reasonixHome,
  resolveApiKey,
  resolveModel,
} from "../../core/config/mod.ts";
import { setupPermissions } from "../../core/permission/setup.ts";
import { sessionsDir } from "../../core/store/sessions.ts";
import { listModels } from "../setup/models.ts";
import { createMcpHost, loadMcpEntries } from "../mcp_runtime.ts";
import { checkProviderTrust, loadProjectTrust, type ProjectTrust } from "../project_trust.ts";
import { type VersionReport, versionReport } from "../version.ts";

/** Which check a problem or note comes from. */
export type DoctorCheck =
  | "config"
  | "provider"
  | "sandbox"
  | "mcp"
  | "trust"
  | "instructions"
  | "sessions";

/** Something a run needs that is broken, with what fixes it. */
export interface DoctorProblem {
  check: DoctorCheck;
  problem: string;
  fix: string;
}

/** One provider as the doctor found it. */
export interface ProviderReport {
  name: string;
  kind: string;
  /** Whether the default model is one of this provider's. */
  default: boolean;
  /** The base URL requests go to, when the provider names one. */
  endpoint?: string;
  /** The variable named by `api_key_env` and whether it holds a key (never the key). */
  key: { env: string; present: boolean } | { env: null };
  /** `GET /models`: answered, refused the key, unreachable, or not tried (no key, no URL). */
  reachable: "ok" | "refused" | "unreachable" | "skipped";
  /** The HTTP status, error or reason behind `reachable`, free of secrets. */
  detail?: string;
}

/** The sandbox as the doctor found it. */
export interface SandboxReport {
  backend: "bubblewrap" | "seatbelt" | "none";
  /** The permission mode of a run here. */
  mode: string;
  /** `ok`: a confined command ran; `off`: this mode confines nothing; `broken`: it failed. */
  status: "ok" | "off" | "broken";
  detail?: string;
}

/** One MCP server as the doctor found it. */
export interface McpReport {
  name: string;
  source: string;
  transport: string;
  /** Project-declared servers need the user's trust; others are the user's own. */
  trust: "user" | "trusted" | "untrusted";
  /** The host's phase after the start-up wait; `not_started` when it could not start. */
  phase: string;
  error?: string;
  detail?: string;
  tools?: number;
}

/** Everything `reasonix doctor --json` prints. */
export interface DoctorReport {
  /** False when a problem stops a run. */
  ok: boolean;
  reasonix: VersionReport;
  cwd: string;
  home: string;
  config: { files: string[]; warnings: string[]; defaultModel?: string };
  providers: ProviderReport[];
  sandbox?: SandboxReport;
  mcp: McpReport[];
  instructions: { name: string; chars: number }[];
  sessions: { dir: string; files: number; bytes: number };
  problems: DoctorProblem[];
  notes: string[];
}

/** Options of {@link runDoctor}. */
export interface DoctorOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  /** Per endpoint and for the sandbox command (default 5 s). */
  timeoutMs?: number;
  /** How long MCP servers get to start (default `REASONIX_MCP_WAIT_MS`, else 10 s). */
  mcpWaitMs?: number;
  signal?: AbortSignal;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A ConfigError's problem and fix, else the message with a generic fix. */
function asProblem(check: DoctorCheck, error: unknown, fix: string): DoctorProblem {
  if (error instanceof ConfigError) {
    const where = error.file ? `${error.file}${error.line ? `:${error.line}` : ""}: ` : "";
    return { check, problem: `${where}${error.problem}`, fix: error.fix ?? fix };
  }
  return { check, problem: message(error), fix };
}

/** Runs every check; never throws for what it finds. */
export async function runDoctor(opts: DoctorOptions): Promise<DoctorReport> {
  const home = reasonixHome(opts.env);
  const timeoutMs = opts.timeoutMs ?? 5000;
  const problems: DoctorProblem[] = [];
  const notes: string[] = [];
  const report: DoctorReport = {
    ok: true,
    reasonix: versionReport(),
    cwd: opts.cwd,
    home,
    config: { files: [], warnings: [] },
    providers: [],
    mcp: [],
    instructions: [],
    sessions: { dir: "", files: 0, bytes: 0 },
    problems,
    notes,
  };

  const trust = await loadProjectTrust({ home, cwd: opts.cwd });
  for (const w of trust.warnings) {
    problems.push({
      check: "trust",
      problem: w,
      fix: "repair or remove the trust store, then `reasonix trust grant`",
    });
  }

  let config: Config | undefined;
  try {
    const loaded = await loadConfig({
      cwd: opts.cwd,
      env: opts.env,
      home,
      trustedProject: (d) => trust.allows(d),
    });
    config = loaded;
    report.config = {
      files: loaded.sources.filter((s) => isAbsolute(s)),
      warnings: loaded.warnings,
      defaultModel: loaded.default_model,
    };
    if (loaded.untrustedSettings) {
      notes.push(
        `the loosening settings of ${loaded.untrustedSettings.file} are held back until you ` +
          "trust them (`reasonix trust`)",
      );
    }
  } catch (error) {
    problems.push(asProblem("config", error, "correct the configuration file named above"));
  }

  if (config) {
    report.providers = await checkProviders(config, {
      ...opts,
      home,
      timeoutMs,
      trust,
      problems,
      notes,
    });
    report.sandbox = await checkSandbox(config, { ...opts, timeoutMs, problems });
    report.mcp = await checkMcp(config, { ...opts, home, trust, problems, notes });
  }
  const root = config?.sandbox.workspace_root
    ? resolve(opts.cwd, config.sandbox.workspace_root)
    : opts.cwd;
  report.instructions = (await readInstructionFiles(root)).map((f) => ({
    name: f.name,
    chars: f.text.length,
  }));
  report.sessions = await sessionsSize(home, root);
  report.ok = problems.length === 0;
  return report;
}

async function checkProviders(
  config: Config,
  opts: DoctorOptions & {
    home: string;
    timeoutMs: number;
    trust: ProjectTrust;
    problems: DoctorProblem[];
    notes: string[];
  },
): Promise<ProviderReport[]> {
  let defaultProvider: string | undefined;
  try {
    defaultProvider = resolveModel(config).provider.name;
  } catch (error) {
    opts.problems.push(asProblem("config", error, "set default_model to a listed model"));
  }
  const out: ProviderReport[] = [];
  for (const p of config.providers) {
    const isDefault = p.name === defaultProvider;
    const entry: ProviderReport = {
      name: p.name,
      kind: p.kind,
      default: isDefault,
      ...(endpointOf(p) ? { endpoint: endpointOf(p) } : {}),
      key: p.api_key_env ? { env: p.api_key_env, present: false } : { env: null },
      reachable: "skipped",
    };
    out.push(entry);
    const fail = (problem: DoctorProblem) => {
      if (isDefault) opts.problems.push(problem);
      else opts.notes.push(`provider "${p.name}": ${problem.problem} (fix: ${problem.fix})`);
    };
    try {
      await checkProviderTrust({ provider: p, cwd: opts.cwd, trust: opts.trust });
    } catch (error) {
      fail(asProblem("provider", error, "trust the provider or pick another model"));
      entry.detail = "endpoint not trusted";
      continue;
    }
    let key: string | undefined;
    try {
      key = await resolveApiKey(p, { env: opts.env, home: opts.home });
      if (entry.key.env !== null) entry.key.present = key !== undefined;
    } catch (error) {
      fail(asProblem("provider", error, `set ${p.api_key_env}`));
      entry.detail = "no API key";
      continue;
    }
    const baseUrl = endpointOf(p);
    if (!baseUrl) {
      entry.detail = "no base_url to list models at";
      continue;
    }
    const signals = [AbortSignal.timeout(opts.timeoutMs)];
    if (opts.signal) signals.push(opts.signal);
    try {
      const listing = await listModels({
        kind: p.kind,
        baseUrl,
        apiKey: key,
        signal: AbortSignal.any(signals),
      });
      if (listing.status === "listed") {
        entry.reachable = "ok";
        entry.detail = `${listing.models.length} model(s) listed`;
      } else if (listing.status === "refused") {
        entry.reachable = "refused";
        entry.detail = `HTTP ${listing.httpStatus}`;
        fail({
          check: "provider",
          problem: `${listing.url} refused the key in ${p.api_key_env ?? "(none)"} (HTTP ` +
            `${listing.httpStatus})`,
          fix: `put a valid key in ${p.api_key_env ?? "the variable named by api_key_env"}`,
        });
      } else if (/^HTTP (404|405)$/.test(listing.reason)) {
        // Not every gateway lists models; it answered, so it is there.
        entry.reachable = "ok";
        entry.detail = `answered ${listing.reason} to GET /models`;
      } else {
        entry.reachable = "unreachable";
        entry.detail = listing.reason;
        fail({
          check: "provider",
          problem: `${listing.url} is not reachable (${listing.reason})`,
          fix: `check the network and base_url of provider "${p.name}"`,
        });
      }
    } catch (error) {
      if (opts.signal?.aborted) throw error;
      entry.reachable = "unreachable";
      entry.detail = `no answer within ${opts.timeoutMs} ms`;
      fail({
        check: "provider",
        problem: `${baseUrl} did not answer GET /models within ${opts.timeoutMs} ms`,
        fix: `check the network and base_url of provider "${p.name}"`,
      });
    }
  }
  return out;
}

/** Where `GET /models` goes: `base_url`, else the origin of a full request URL. */
function endpointOf(p: ProviderConfig): string | undefined {
  if (p.base_url) return p.base_url;
  const full = p.request_url ?? p.chat_url;
  if (!full) return undefined;
  try {
    return new URL(full).origin;
  } catch {
    return undefined;
  }
}

async function checkSandbox(
  config: Config,
  opts: DoctorOptions & { timeoutMs: number; problems: DoctorProblem[] },
): Promise<SandboxReport> {
  const tempDir = await Deno.makeTempDir({ prefix: "reasonix-doctor-" });
  const mode = config.permissions.mode;
  try {
    const workspaceRoot = config.sandbox.workspace_root
      ? resolve(opts.cwd, config.sandbox.workspace_root)
      : opts.cwd;
    const permissions = await setupPermissions({
      permissions: config.permissions,
      sandbox: config.sandbox,
      workspaceRoot,
      tempDir,
      env: opts.env,
      projectDir: opts.cwd,
    });
    const backend = permissions.backend;
    if (permissions.preset.sandbox === "none") {
      return { backend, mode, status: "off", detail: `mode ${mode} runs commands unconfined` };
    }
    // The real launcher, then the real process: what `bash` of a run does, minus the tool.
    const launch = await permissions.shell.launch("echo reasonix-doctor", {
      cwd: await Deno.realPath(workspaceRoot),
    });
    const signals = [AbortSignal.timeout(opts.timeoutMs)];
    if (opts.signal) signals.push(opts.signal);
    const out = await new Deno.Command(launch.program, {
      args: launch.args,
      cwd: workspaceRoot,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.any(signals),
    }).output();
    await launch.settle?.();
    const stdout = new TextDecoder().decode(out.stdout).trim();
    if (!out.success || stdout !== "reasonix-doctor") {
      const why = new TextDecoder().decode(out.stderr).trim().split("\n").slice(-2).join(" | ");
      opts.problems.push({
        check: "sandbox",
        problem: `a confined test command failed (exit ${out.code}${why ? `: ${why}` : ""})`,
        fix: "see docs/PERMISSIONS.md for what the sandbox needs here, or use " +
          "--permission-mode yolo to run commands unconfined",
      });
      return { backend, mode, status: "broken", detail: why || `exit ${out.code}` };
    }
    return { backend, mode, status: "ok", detail: `a confined command ran (${backend})` };
  } catch (error) {
    // The launcher's own error names the package to install and the mode that works without.
    const text = message(error);
    opts.problems.push({
      check: "sandbox",
      problem: text.split(". ")[0],
      fix: text.includes("install")
        ? text
        : "use --permission-mode yolo to run commands unconfined, or fix the sandbox",
    });
    const backend = Deno.build.os === "linux"
      ? "bubblewrap"
      : Deno.build.os === "darwin"
      ? "seatbelt"
      : "none";
    return { backend, mode, status: "broken", detail: text };
  } finally {
    await Deno.remove(tempDir, { recursive: true }).catch(() => {});
  }
}

async function checkMcp(
  config: Config,
  opts: DoctorOptions & {
    home: string;
    trust: ProjectTrust;
    problems: DoctorProblem[];
    notes: string[];
  },
): Promise<McpReport[]> {
  let loaded;
  try {
    // Untrusted project servers come back with a problem instead of a spec: never started.
    loaded = await loadMcpEntries({ ...opts, config, trust: opts.trust });
  } catch (error) {
    opts.problems.push(asProblem("mcp", error, "correct the MCP declarations"));
    return [];
  }
  const untrusted = new Set(loaded.untrusted.map((d) => d.name));
  const reports = new Map<string, McpReport>();
  for (const e of loaded.entries) {
    const d = e.declaration;
    const project = d.source.kind !== "user";
    reports.set(d.name, {
      name: d.name,
      source: d.source.file,
      transport: e.spec?.transport ?? d.type ?? "stdio",
      trust: !project ? "user" : untrusted.has(d.name) ? "untrusted" : "trusted",
      phase: "not_started",
      ...(e.problem ? { detail: e.problem } : {}),
    });
    if (untrusted.has(d.name)) {
      opts.notes.push(
        `MCP server "${d.name}" (${d.source.file}) is not trusted, so it was not started: ` +
          `\`reasonix trust grant ${d.name}\` after reviewing it`,
      );
    } else if (e.problem) {
      opts.problems.push({
        check: "mcp",
        problem: `MCP server "${d.name}" cannot start: ${e.problem}`,
        fix: `correct its declaration in ${d.source.file}`,
      });
    }
  }
  const startable = loaded.entries.filter((e) => e.spec && !e.problem);
  if (startable.length === 0) return [...reports.values()];
  const host = await createMcpHost({
    entries: startable,
    env: opts.env,
    home: opts.home,
    config,
    workspaceRoot: await Deno.realPath(opts.cwd),
  });
  try {
    host.start();
    const wait = opts.mcpWaitMs ?? (Number(opts.env.REASONIX_MCP_WAIT_MS) || 10_000);
    await host.waitForStartup({ timeoutMs: wait, signal: opts.signal });
    for (const s of host.status()) {
      const entry = reports.get(s.name);
      if (!entry) continue;
      entry.phase = s.phase;
      entry.tools = s.tools;
      if (s.error) entry.error = s.error;
      if (s.detail) entry.detail = s.detail;
      if (s.phase === "failed" || s.phase === "starting") {
        opts.problems.push({
          check: "mcp",
          problem: `MCP server "${s.name}" ${
            s.phase === "failed"
              ? `failed to start (${s.error ?? "unknown"})`
              : `did not start within ${wait} ms`
          }${s.detail ? `: ${s.detail.replaceAll("\n", " | ")}` : ""}`,
          fix: `check its command with \`reasonix mcp get ${s.name}\`, or remove it with ` +
            `\`reasonix mcp remove ${s.name}\``,
        });
      } else if (s.phase === "needs_auth") {
        opts.problems.push({
          check: "mcp",
          problem: `MCP server "${s.name}" needs authorization`,
          fix: `run \`reasonix mcp login ${s.name}\``,
        });
      }
    }
  } finally {
    await host.close();
  }
  return [...reports.values()];
}

/** The number and total size of the files under the workspace's sessions directory. */
async function sessionsSize(
  home: string,
  workspace: string,
): Promise<{ dir: string; files: number; bytes: number }> {
  let root = workspace;
  try {
    root = await Deno.realPath(workspace);
  } catch {
    // A missing workspace keeps its path.
  }
  const dir = await sessionsDir(home, root);
  let files = 0;
  let bytes = 0;
  const walk = async (path: string): Promise<void> => {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(path));
    } catch {
      return;
    }
    for (const entry of entries) {
      const child = join(path, entry.name);
      if (entry.isDirectory) await walk(child);
      else if (entry.isFile) {
        files++;
        bytes += (await Deno.lstat(child).catch(() => ({ size: 0 }))).size;
      }
    }
  };
  await walk(dir);
  return { dir, files, bytes };
}
