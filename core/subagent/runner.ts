/**
 * The one subagent construction primitive (spec §3.15). Every entry that starts a child (the
 * `task` tool and its parallel mode, `/<profile> task`, `reasonix subagent run|try`) compiles
 * its request into a {@linkcode ProfileExecSpec} and hands it to {@linkcode SubagentRunner.run},
 * the only place that resolves nesting depth, tool scope and write claims, takes a scheduling
 * slot, builds the child through the host, records its capsule and collects its receipts.
 *
 * @module
 */
import type { AgentEvent, RunStatus, UsageTotals } from "../agent/events.ts";
import { emptyTotals } from "../agent/cost.ts";
import { canonicalJson } from "../../tools/canonical.ts";
import type { Workspace } from "../../tools/workspace/mod.ts";
import { capsuleHash, type ContextCapsule, NOTHING_INHERITED, sha256 } from "./capsule.ts";
import { WriteClaim } from "./claims.ts";
import {
  CHILD_PLAN_MODE,
  COMPLETION_CONTRACT,
  DEFAULT_READ_ONLY_TASK_PROMPT,
  DEFAULT_TASK_PROMPT,
  delegationHint,
  languageBlock,
} from "./prompts.ts";
import { Scheduler, type Slot } from "./scheduler.ts";
import { shellWriteReason } from "../permission/plan_guard.ts";
import {
  type ContinuedTranscript,
  forkTranscript,
  locateChildTranscript,
  TranscriptRefusal,
} from "./transcripts.ts";
import { observe } from "./complete_subtask.ts";
import type { ChildAgent, ChildMaker } from "./types.ts";

/** A resolved profile: how a worker thinks (spec §3.10). */
export interface Profile {
  /** The name it is called by (`task` `profile`, `/<name>`). */
  name: string;
  /** What it is for, one line. */
  description: string;
  /** The child's whole system prompt. */
  prompt: string;
  /** Its model, below a call's own. */
  model?: string;
  /** Its reasoning effort, below a call's own. */
  effort?: string;
  /** Upper bound: the profile never writes. */
  readOnly?: boolean;
  /** Upper bound: the tools it may have (absent: all the grant allows). */
  allowedTools?: readonly string[];
}

/** One child run, as plain data: what every entry compiles its request into. */
export interface ProfileExecSpec {
  /** What the child is asked to do. */
  task: string;
  /** No writes at all. */
  readOnly?: boolean;
  /** The write claim, relative to the workspace root or absolute; absent: the whole workspace. */
  writePaths?: readonly string[];
  /** The worker: its prompt and bounds; absent, the default task prompts. */
  profile?: Profile;
  /** Per-call model: below `[subagents.<profile>]`, above the profile's frontmatter. */
  model?: string;
  /** Per-call reasoning effort, at the same level as `model`. */
  effort?: string;
  /**
   * Plan mode for this run (absent: the host's, when it tells the runner): the child then
   * researches only, as a read-only child, under the same plan guard as its parent.
   */
  planMode?: boolean;
  /** The language the child reasons and replies in (absent: the host's, when set). */
  language?: string;
  /** A child transcript (session id or unique prefix) this run appends to. */
  continueFrom?: string;
  /** A child transcript (session id or unique prefix) copied into this run's new session. */
  forkFrom?: string;
  /** Requests the child may make. */
  maxTurns?: number;
  /** Persist no transcript (the capsule is still returned). */
  ephemeral?: boolean;
  /** Who started it. */
  parent: { sessionId?: string; toolCallId?: string; depth: number };
}

/** What the host recorded of a child's work. */
export interface Receipts {
  /** Canonical paths written inside the claim. */
  written: string[];
  /** Writes refused outside the claim (each is a write-scope violation). */
  refused: string[];
  /** Commands run, with whether they succeeded and their exit code when the shell gave one. */
  commands: { command: string; ok: boolean; exitCode?: number }[];
  /** Workspace paths the child read (`read_file`), resolved against the root. */
  read?: string[];
  /** The child's tool calls. */
  toolCalls?: number;
  /** The `complete_subtask` report the child handed in (its last), unadjudicated. */
  report?: unknown;
  /** What the child's own children did (`meta.subagents` of its delegation tools). */
  nested?: unknown[];
}

/** How a child run ended. */
export interface SubagentResult {
  /** How the child's run ended. */
  status: RunStatus;
  /** The child's final answer. */
  text: string;
  /** Present when it failed. */
  error?: { code: string; message: string };
  /** Its tokens and cost (they count toward the parent's budgets). */
  usage: UsageTotals;
  /** Its model requests. */
  turns: number;
  /** Its session (under `subagents/` of the session folder unless ephemeral). */
  sessionId: string;
  /** What it started from. */
  capsule: ContextCapsule;
  /** The capsule's stable id. */
  capsuleHash: string;
  /** What the host recorded of its work. */
  receipts: Receipts;
}

/** Refusals of a spec before any child starts. */
export class SubagentRefusal extends Error {
  override name = "SubagentRefusal";
}

/** What a runner is built on. */
export interface SubagentRunnerOptions {
  maker: ChildMaker;
  /** Canonical workspace root and the workspace, for claims and capsules. */
  root: string;
  workspace: Workspace;
  /** `[agent] max_subagent_depth` (default 1: children do not delegate further). */
  maxDepth?: number;
  /** `[agent] max_subagent_concurrency` (default 6). */
  concurrency?: number;
  /** `[agent] max_parallel_writers` (default 3). */
  writers?: number;
  /** `[agent] subagent_model` / `subagent_effort`: below frontmatter, above the executor's. */
  defaults?: { model?: string; effort?: string };
  /** The model and effort the parent session runs on now (the executor's), lowest of all. */
  executor?: (
    parentSessionId: string | undefined,
  ) => { model?: string; effort?: string } | undefined;
  /** `[subagents.<name>]`: a profile's configured model and effort, above everything else. */
  profileConfig?: (name: string) => { model?: string; effort?: string } | undefined;
  /** The host's run options now (its plan mode, `[agent] reasoning_language`). */
  runOptions?: () => { planMode?: boolean; language?: string };
  /** Where child transcripts live, for `continueFrom` / `forkFrom`. */
  transcripts?: string;
  /** Where child transcripts' capsules are written beside them. */
  writeCapsule?: (sessionPath: string, capsule: ContextCapsule, hash: string) => Promise<void>;
}

/** Runs children for every agent of a host; holds the session's scheduler. */
export class SubagentRunner {
  readonly #opts: SubagentRunnerOptions;
  readonly scheduler: Scheduler;

  constructor(opts: SubagentRunnerOptions) {
    this.#opts = opts;
    this.scheduler = new Scheduler({
      concurrency: opts.concurrency ?? 6,
      writers: opts.writers ?? 3,
    });
  }

  /** The deepest a child may be. */
  get maxDepth(): number {
    return this.#opts.maxDepth ?? 1;
  }

  /**
   * Runs one child to its end: its events (tagged `agent: "subagent"`) as they happen, then its
   * result. Refuses (throws {@linkcode SubagentRefusal}) before anything starts when the spec
   * goes deeper than allowed or claims outside the workspace.
   */
  async *run(
    spec: ProfileExecSpec,
    opts: { signal: AbortSignal },
  ): AsyncGenerator<AgentEvent, SubagentResult> {
    const o = this.#opts;
    const depth = spec.parent.depth + 1;
    if (depth > this.maxDepth) {
      throw new SubagentRefusal(
        `subagents may nest ${this.maxDepth} level(s) deep ([agent] max_subagent_depth); do this task yourself`,
      );
    }
    const host = o.runOptions?.() ?? {};
    // Run options are explicit (spec §3.13): the call's, else the host's at the start.
    const planMode = spec.planMode ?? host.planMode === true;
    const language = spec.language ?? host.language;
    // Profiles are upper bounds: a read-only profile stays read-only whatever the call says.
    // In plan mode nothing changes, so the child is a read-only one.
    const readOnly = spec.readOnly === true || spec.profile?.readOnly === true || planMode;
    let roots: readonly string[] | undefined;
    if (!readOnly && spec.writePaths?.length) {
      try {
        roots = (await WriteClaim.resolve(spec.writePaths, {
          root: o.root,
          workspace: o.workspace,
          signal: opts.signal,
        })).roots;
      } catch (error) {
        throw new SubagentRefusal((error as Error).message);
      }
    }
    const systemPrompt = spec.profile?.prompt ??
      (readOnly ? DEFAULT_READ_ONLY_TASK_PROMPT : DEFAULT_TASK_PROMPT);
    const source = spec.profile
      ? `profile:${spec.profile.name}`
      : readOnly
      ? "default_read_only_task"
      : "default_task";
    // Model and effort (spec §3.10): `[subagents.<profile>]` > call arguments > frontmatter >
    // `[agent] subagent_*` > the executor's (the parent's; without one, the host's defaults).
    const configured = spec.profile ? o.profileConfig?.(spec.profile.name) : undefined;
    const executor = o.executor?.(spec.parent.sessionId);
    const model = configured?.model ?? spec.model ?? spec.profile?.model ?? o.defaults?.model ??
      executor?.model;
    const effort = configured?.effort ?? spec.effort ?? spec.profile?.effort ??
      o.defaults?.effort ?? executor?.effort;
    const from = await this.#startingPoint(spec);

    const slot = await this.scheduler.acquire(
      readOnly ? { kind: "read" } : roots ? { kind: "claim", roots } : { kind: "workspace" },
      { signal: opts.signal },
    );
    let child: ChildAgent | undefined;
    try {
      const resume = from?.mode === "fork"
        ? await forkTranscript(o.transcripts!, from.path)
        : from?.id;
      child = await this.#create(from, {
        ...(model ? { model } : {}),
        systemPrompt,
        role: "subagent",
        grant: { readOnly, ...(roots ? { writeRoots: roots } : {}), depth },
        ...(spec.profile?.allowedTools ? { tools: { allow: spec.profile.allowedTools } } : {}),
        parent: { sessionId: spec.parent.sessionId, agentId: spec.parent.toolCallId },
        ...(spec.ephemeral
          ? { transcript: "ephemeral" as const }
          : resume
          ? { transcript: { resume } }
          : {}),
        context: {
          ...(spec.maxTurns ? { maxTurns: spec.maxTurns } : {}),
          ...(effort ? { reasoningEffort: effort } : {}),
        },
      });
      if (child.claim) {
        child.claim.guard = (file) => slot.touch(file);
        child.claim.unconfined = () => slot.widen();
      }
      const schemas = canonicalJson(child.registry.schemas());
      const capsule: ContextCapsule = {
        workspace: o.root,
        systemPrompt: { source, sha256: await sha256(systemPrompt) },
        tools: { names: child.registry.names(), schemaSha256: await sha256(schemas) },
        model: `${child.model.resolved.provider.name}/${child.model.resolved.model}`,
        effort: effort ?? null,
        writePaths: readOnly ? [] : roots ? [...roots] : null,
        parent: {
          sessionId: spec.parent.sessionId ?? null,
          toolCallId: spec.parent.toolCallId ?? null,
        },
        continued: from ? { mode: from.mode, from: from.id } : null,
        runOptions: { planMode, language: language ?? null },
        inherited: NOTHING_INHERITED,
      };
      const hash = await capsuleHash(capsule);
      if (child.sessionPath) await o.writeCapsule?.(child.sessionPath, capsule, hash);

      const blocks = [
        ...(planMode ? [CHILD_PLAN_MODE] : []),
        ...(language ? [languageBlock(language)] : []),
        ...(readOnly ? [] : [COMPLETION_CONTRACT]),
        ...(depth < this.maxDepth ? [delegationHint(depth, this.maxDepth)] : []),
      ];
      const commands: Receipts["commands"] = [];
      const read: string[] = [];
      const nested: unknown[] = [];
      let report: unknown;
      let toolCalls = 0;
      const started = new Map<string, string>();
      let done: Extract<AgentEvent, { type: "done" }> | undefined;
      for await (const event of widening(child.run({ text: spec.task, blocks }, opts), slot)) {
        if (event.type === "done") {
          done = event;
          continue;
        }
        if (event.type === "tool_start" && event.call.name === "bash") {
          started.set(event.call.id, commandOf(event.call.arguments));
        }
        if (event.type === "tool_end" && started.has(event.call.id)) {
          const code = event.result.meta?.exitCode;
          commands.push({
            command: started.get(event.call.id)!,
            ok: !event.result.isError,
            ...(typeof code === "number" ? { exitCode: code } : {}),
          });
        }
        if (event.type === "tool_end") {
          const seen = observe(event, o.root);
          toolCalls++;
          if (seen.read) read.push(seen.read);
          if (seen.report !== undefined) report = seen.report;
          nested.push(...seen.nested);
        }
        yield { ...event, agent: "subagent", agentId: child.session.id };
      }
      const record = child.claim?.record ?? { written: [], refused: [] };
      return {
        status: done?.status ?? "error",
        text: done?.text ?? "",
        ...(done?.error ? { error: done.error } : {}),
        usage: done?.usage ?? emptyTotals(),
        turns: done?.turns ?? 0,
        sessionId: child.session.id,
        capsule,
        capsuleHash: hash,
        receipts: {
          written: unique(record.written),
          refused: unique(record.refused),
          commands,
          read: unique(read),
          toolCalls,
          ...(report !== undefined ? { report } : {}),
          nested,
        },
      };
    } finally {
      await child?.close();
      slot.release();
    }
  }

  /** Builds the child; a transcript another run is appending to is a refusal. */
  async #create(
    from: { id: string } | undefined,
    spec: Parameters<ChildMaker["createAgent"]>[0],
  ): Promise<ChildAgent> {
    try {
      return await this.#opts.maker.createAgent(spec);
    } catch (error) {
      if (from && (error as { code?: unknown }).code === "transcript_locked") {
        throw new SubagentRefusal(`subagent session ${from.id} is in use by another run`);
      }
      throw error;
    }
  }

  /** The transcript `continueFrom` / `forkFrom` names, resolved before any slot is taken. */
  async #startingPoint(
    spec: ProfileExecSpec,
  ): Promise<(ContinuedTranscript & { id: string; path: string }) | undefined> {
    const name = spec.continueFrom ?? spec.forkFrom;
    if (name === undefined) return undefined;
    if (spec.continueFrom !== undefined && spec.forkFrom !== undefined) {
      throw new SubagentRefusal("give continue_from or fork_from, not both");
    }
    const dir = this.#opts.transcripts;
    if (!dir || spec.ephemeral) {
      throw new SubagentRefusal("this session keeps no subagent transcripts to start from");
    }
    try {
      const found = await locateChildTranscript(dir, name);
      return {
        mode: spec.continueFrom !== undefined ? "continue" : "fork",
        from: found.id,
        ...found,
      };
    } catch (error) {
      if (error instanceof TranscriptRefusal) throw new SubagentRefusal(error.message);
      throw error;
    }
  }
}

/**
 * Passes a child's events through, keeping its reservation whole from its first `bash` call
 * that is not plainly read-only (the plan-mode analysis): a command's changes cannot be
 * attributed to paths.
 */
async function* widening(events: AsyncIterable<AgentEvent>, slot: Slot): AsyncIterable<AgentEvent> {
  for await (const event of events) {
    if (
      event.type === "tool_start" && event.call.name === "bash" &&
      shellWriteReason(commandOf(event.call.arguments)) !== undefined
    ) slot.widen();
    yield event;
  }
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}

function commandOf(args: string): string {
  try {
    const value = JSON.parse(args) as { command?: unknown };
    return typeof value.command === "string" ? value.command : "";
  } catch {
    return "";
  }
}
