/**
 * The one place a user turn is assembled (spec §3.4, cache-first invariant 3): project
 * instructions, environment facts (the user's local date, read again every turn), recalled
 * memory, `@` references and images. The system prompt never changes; everything volatile
 * rides the current user message. Every front end gets the same turn, `reasonix run` included.
 *
 * @module
 */
import type { BuiltTurn, TurnSource } from "../agent/agent.ts";
import type { AgentEvent, UserInput } from "../agent/events.ts";
import { instructionBlocks, readInstructionFiles } from "../agent/instructions.ts";
import type { Session } from "../agent/session.ts";
import { decorateUserTurn, type EnvironmentFacts } from "../agent/system_prompt.ts";
import type { ContextManager } from "../context/manager.ts";
import type { FactStore } from "../memory/facts.ts";
import { recallBlock } from "../memory/recall.ts";
import {
  attachedImages,
  attachmentLabel,
  type McpResourceReader,
  resolveReferences,
  withAttachments,
} from "../references/mod.ts";
import type { ImageTurns } from "../vision/mod.ts";
import { workspaceContext } from "../subagent/prompts.ts";
import type { ReadGuard } from "../../tools/types.ts";
import { localWorkspace } from "../../tools/workspace/local.ts";
import type { Workspace } from "../../tools/workspace/types.ts";

/** What {@linkcode TurnBuilder} reads from. */
export interface TurnBuilderOptions {
  /** Canonical workspace root: instruction files and `@` paths are read here. */
  workspaceRoot: string;
  /** Where `workspaceRoot` is (instruction files are read through it); default this machine. */
  workspace?: Workspace;
  /** e.g. `linux x86_64`. */
  platform: string;
  isGitRepo: boolean;
  /**
   * The clock; the date is read from it before every user turn, so a session that runs past
   * midnight learns the new day on its next turn. Default: the system clock.
   */
  now?: () => Date;
  /** Decides what the model sees of the history (a checkpoint may have replaced the facts). */
  context?: ContextManager;
  /** Memory to recall from. */
  facts?: FactStore;
  /** Image handling of the agent's model. */
  vision?: ImageTurns;
  /**
   * Whether `@path` and `@server:uri` references in the text are resolved and attached.
   * Default true.
   */
  references?: boolean;
  /** MCP resources for `@server:uri` references. */
  resources?: McpResourceReader;
  /** The read tools' guard: `@` references obey `forbid_read` and the read rules too. */
  readGuard?: ReadGuard;
  /**
   * Volatile host state for this turn (the collaboration mode, an active goal), as blocks
   * appended after the user's text. Read before every turn; never part of the system prompt.
   */
  states?: () => readonly string[];
  /**
   * A subagent's turn (spec §3.13): the workspace root in a `<workspace-context>` block, the
   * text and the trusted blocks, and nothing else: no instruction files, recalled memory, host
   * state or `@` references.
   */
  isolated?: boolean;
}

/**
 * The user's local calendar date with its UTC offset, `2026-12-01 (UTC+08:00)`: the day as the
 * user lives it (the process time zone, `TZ`), with the offset so "today" and "tomorrow" can
 * be related to UTC timestamps in tool output.
 */
export function localDate(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  // getTimezoneOffset is minutes *behind* UTC: UTC+08:00 reports -480.
  const east = -now.getTimezoneOffset();
  const sign = east < 0 ? "-" : "+";
  const offset = `${pad(Math.floor(Math.abs(east) / 60))}:${pad(Math.abs(east) % 60)}`;
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${
    pad(now.getDate())
  } (UTC${sign}${offset})`;
}

/** Builds user turns; an agent's {@linkcode TurnSource}. */
export class TurnBuilder implements TurnSource {
  readonly #opts: TurnBuilderOptions;

  constructor(opts: TurnBuilderOptions) {
    this.#opts = opts;
  }

  /** The environment facts as of now. */
  environment(): EnvironmentFacts {
    const o = this.#opts;
    return {
      workspaceRoot: o.workspaceRoot,
      platform: o.platform,
      date: localDate(o.now?.() ?? new Date()),
      isGitRepo: o.isGitRepo,
    };
  }

  async build(
    input: UserInput,
    session: Session,
    opts: { signal: AbortSignal },
  ): Promise<BuiltTurn> {
    const o = this.#opts;
    if (o.isolated) {
      const first = !session.messages.some((m) => m.role === "user");
      const content = [
        ...(first ? [workspaceContext(o.workspaceRoot)] : []),
        input.text,
        ...input.blocks ?? [],
      ].join("\n\n");
      return { content, events: [] };
    }
    const events: AgentEvent[] = [];
    let text = input.text;
    let images = [...input.images ?? []];
    // `@` references read this machine's disk; on another machine's workspace they would read
    // the wrong files, so there they stay plain text.
    const here = o.workspace === undefined || o.workspace === localWorkspace();
    if ((o.references ?? true) && here && text.includes("@")) {
      const resolved = await resolveReferences(text, {
        root: o.workspaceRoot,
        signal: opts.signal,
        mcp: o.resources,
        readGuard: o.readGuard,
        supplied: input.supplied,
      });
      for (const message of resolved.notices) {
        events.push({ type: "notice", level: "warning", message });
      }
      if (resolved.attachments.length) {
        events.push({ type: "attachments", labels: resolved.attachments.map(attachmentLabel) });
        text = withAttachments(text, resolved.attachments);
        images = [...images, ...attachedImages(resolved.attachments)];
      }
    }
    // Checked against what the model sees, so a checkpoint that replaced them re-sends them.
    const view = o.context ? o.context.view(session.messages) : session.messages;
    const parts = [
      ...instructionBlocks(await readInstructionFiles(o.workspaceRoot, o.workspace), view),
      decorateUserTurn(text, view, this.environment()),
      ...input.blocks ?? [],
    ];
    for (const block of o.states?.() ?? []) parts.push(block);
    if (o.facts) {
      const recalled = recallBlock(await o.facts.list().catch(() => []), input.text);
      if (recalled) parts.push(recalled);
    }
    const content = parts.join("\n\n");
    if (!images.length) return { content, events };
    if (!o.vision) return { content, images, events };
    const turn = await o.vision.prepare({ content, text: input.text, images }, {
      signal: opts.signal,
    });
    for (const notice of turn.notices) events.push({ type: "notice", ...notice });
    return {
      content: turn.content,
      ...(turn.images?.length ? { images: turn.images } : {}),
      ...(turn.sideRequests?.length ? { sideRequests: turn.sideRequests } : {}),
      events,
    };
  }
}
