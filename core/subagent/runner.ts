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
  COMPLETION_CONTRACT,
  DEFAULT_READ_ONLY_TASK_PROMPT,
  DEFAULT_TASK_PROMPT,
  delegationHint,
} from "./prompts.ts";
import { Scheduler } from "./scheduler.ts";
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
  /** Per-call model (a profile's own comes after it). */
  model?: string;
  /** Per-call reasoning effort. */
  effort?: string;
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
  /** Commands run, with whether they succeeded. */
  commands: { command: string; ok: boolean }[];
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
  /** Defaults below per-call values and profiles. */
  defaults?: { model?: string; effort?: string };
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
    // Profiles are upper bounds: a read-only profile stays read-only whatever the call says.
    const readOnly = spec.readOnly === true || spec.profile?.readOnly === true;
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
    // Model and effort: call arguments > the profile's frontmatter > the agent defaults.
    const model = spec.model ?? spec.profile?.model ?? o.defaults?.model;
    const effort = spec.effort ?? spec.profile?.effort ?? o.defaults?.effort;

    const slot = await this.scheduler.acquire(
      readOnly ? { kind: "read" } : roots ? { kind: "claim", roots } : { kind: "workspace" },
      { signal: opts.signal },
    );
    let child: ChildAgent | undefined;
    try {
      child = await o.maker.createAgent({
        ...(model ? { model } : {}),
        systemPrompt,
        role: "subagent",
        grant: { readOnly, ...(roots ? { writeRoots: roots } : {}), depth },
        ...(spec.profile?.allowedTools ? { tools: { allow: spec.profile.allowedTools } } : {}),
        parent: { sessionId: spec.parent.sessionId, agentId: spec.parent.toolCallId },
        ...(spec.ephemeral ? { transcript: "ephemeral" as const } : {}),
        context: {
          ...(spec.maxTurns ? { maxTurns: spec.maxTurns } : {}),
          ...(effort ? { reasoningEffort: effort } : {}),
        },
      });
      if (child.claim) child.claim.guard = (file) => slot.touch(file);
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
        continued: null,
        inherited: NOTHING_INHERITED,
      };
      const hash = await capsuleHash(capsule);
      if (child.sessionPath) await o.writeCapsule?.(child.sessionPath, capsule, hash);

      const blocks = [
        ...(readOnly ? [] : [COMPLETION_CONTRACT]),
        ...(depth < this.maxDepth ? [delegationHint(depth, this.maxDepth)] : []),
      ];
      const commands: Receipts["commands"] = [];
      const started = new Map<string, string>();
      let done: Extract<AgentEvent, { type: "done" }> | undefined;
      for await (const event of child.run({ text: spec.task, blocks }, opts)) {
        if (event.type === "done") {
          done = event;
          continue;
        }
        if (event.type === "tool_start" && event.call.name === "bash") {
          started.set(event.call.id, commandOf(event.call.arguments));
        }
        if (event.type === "tool_end" && started.has(event.call.id)) {
          commands.push({ command: started.get(event.call.id)!, ok: !event.result.isError });
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
        receipts: { written: unique(record.written), refused: unique(record.refused), commands },
      };
    } finally {
      await child?.close();
      slot.release();
    }
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
