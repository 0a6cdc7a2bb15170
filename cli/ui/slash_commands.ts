/**
 * The built-in slash commands as one table: each entry's name, help text and handler. `/help`,
 * completion and dispatch all read this table, so a command cannot be listed without running
 * or run without being listed.
 *
 * @module
 */
import { findPreset, SESSION_MODES } from "../../core/permission/mod.ts";
import type { ChatBackend, ModelChoice } from "./backend.ts";
import { AGENTS_FILE, type InitOutcome } from "./init_command.ts";
import { compactionText } from "./compaction_text.ts";
import type { Overlay, PickerItem, PickerPurpose, SlashItem } from "./overlays.ts";
import { costLines, helpLines, mcpLines, replayItems } from "./panels.ts";
import type { NewItem } from "./transcript.ts";
import type { UsageMeter } from "./usage.ts";
import { MEMORY_USAGE, memoryCommand } from "./memory_command.ts";

/** Reasoning efforts `/effort` accepts, besides `default`. */
export const EFFORTS = ["low", "medium", "high", "max"] as const;

/** A modal a command opens: the help text, the MCP view or a picker. */
export type SlashModal = Extract<Overlay, { kind: "help" | "mcp" | "picker" }>;

/** What a command's handler may do to the session; the controller implements it. */
export interface SlashContext {
  readonly backend: ChatBackend;
  readonly meter: UsageMeter;
  /** Every command the user can type: these built-ins, custom commands and MCP prompts. */
  catalog(): SlashItem[];
  /** Shows a modal. */
  open(modal: SlashModal): void;
  /** Adds an item to the transcript. */
  add(item: NewItem): void;
  notice(level: "info" | "warning" | "error", text: string): void;
  /** Redraws at once. */
  changed(): void;
  /**
   * Runs a goal round now through the same entry as a user turn (`text`: the first round's
   * user text). Absent: the idle driver runs it with its fixed text.
   */
  runGoal?(text?: string): Promise<void>;
  /** Runs `work` as the one busy task, with a label for the status line. */
  work(label: string, work: (signal: AbortSignal) => Promise<void>): Promise<void>;
  /** Forgets the shown transcript and clears the terminal (`/clear`). */
  clearScreen(): void;
  /** Leaves the UI. */
  exit(): void;
  /** `/plan` without arguments: turns plan mode on or off and says so. */
  togglePlan?(): void;
  /**
   * Runs `text` as an ordinary user turn: the coordinator routes it from the raw text (a
   * `/plan <task>` asks for the planner).
   */
  runTurn?(text: string): Promise<void>;
}

/** A built-in command. */
export interface SlashCommand {
  name: string;
  /** The line `/help` and completion show. */
  description: string;
  argumentHint?: string;
  /** Runs at once even while a turn is running (it does not touch the conversation). */
  immediate?: boolean;
  aliases?: string[];
  /** Runs the command; `args` is everything after the name, trimmed. */
  run(ctx: SlashContext, args: string): void | Promise<void>;
}

function picker(purpose: PickerPurpose, title: string, items: PickerItem[]): SlashModal {
  const current = items.findIndex((i) => i.current);
  return { kind: "picker", purpose, title, items, selected: Math.max(0, current) };
}

function newConversation(ctx: SlashContext, clear: boolean): Promise<void> {
  return ctx.work("starting a new conversation", async () => {
    await ctx.backend.newConversation();
    ctx.meter.reset();
    if (clear) ctx.clearScreen();
    ctx.notice("info", `New conversation (${ctx.backend.info().model}).`);
  });
}

async function effort(ctx: SlashContext, args: string): Promise<void> {
  const current = ctx.backend.info().effort;
  if (!args) {
    return ctx.open(picker("effort", `Reasoning effort (now: ${current ?? "provider default"})`, [
      ...EFFORTS.map((e) => ({ value: e, label: e, current: e === current })),
      { value: "default", label: "default", detail: "the configured value" },
    ]));
  }
  const wanted = args.toLowerCase();
  if (wanted !== "default" && !(EFFORTS as readonly string[]).includes(wanted)) {
    ctx.notice("error", `Unknown effort "${args}". Use one of: ${EFFORTS.join(", ")}, default.`);
    return ctx.changed();
  }
  await ctx.work("changing effort", async () => {
    await ctx.backend.setEffort(wanted === "default" ? undefined : wanted);
    ctx.notice("info", `Reasoning effort: ${ctx.backend.info().effort ?? "provider default"}.`);
  });
}

async function model(ctx: SlashContext, args: string): Promise<void> {
  const current = ctx.backend.info().model;
  if (!args) {
    let choices: ModelChoice[] = ctx.backend.models().map((name) => ({ name }));
    if (ctx.backend.modelChoices) {
      await ctx.work("listing models", async () => {
        choices = await ctx.backend.modelChoices!();
      });
    }
    return ctx.open(picker(
      "model",
      `Model (now: ${current})`,
      choices.map((m) => ({
        value: m.name,
        // A model that cannot be used now says so on its row; choosing it shows the fix.
        label: m.unavailable ? `${m.name} ✗ no key` : m.name,
        ...(m.unavailable ? { detail: m.unavailable } : {}),
        current: m.name === current,
      })),
    ));
  }
  await ctx.work("switching model", async () => {
    await ctx.backend.switchModel(args);
    ctx.notice("info", `Model: ${ctx.backend.info().model}.`);
  });
}

function modeLabel(name: string): string {
  return `${name} — ${findPreset(name)?.summary ?? ""}`;
}

function permissions(ctx: SlashContext, args: string): void {
  const current = ctx.backend.info().mode ?? "";
  const switchable = ctx.backend.setPermissionMode !== undefined &&
    (SESSION_MODES as readonly string[]).includes(current);
  if (!args) {
    if (!switchable) {
      ctx.notice(
        "info",
        `Permission mode: ${modeLabel(current)}. It cannot be changed in this session; ` +
          `start Reasonix with --permission-mode to use another.`,
      );
      return ctx.changed();
    }
    return ctx.open(picker(
      "permissions",
      `Permission mode (now: ${current}) · Shift+Tab cycles`,
      SESSION_MODES.map((m) => ({
        value: m,
        label: m,
        detail: findPreset(m)?.summary,
        current: m === current,
      })),
    ));
  }
  if (!ctx.backend.setPermissionMode) {
    ctx.notice("error", "The permission mode cannot be changed in this session.");
    return ctx.changed();
  }
  try {
    const now = ctx.backend.setPermissionMode(args);
    ctx.notice("info", `Permission mode: ${modeLabel(now)}.`);
  } catch (error) {
    ctx.notice("error", (error as Error)?.message ?? String(error));
  }
  ctx.changed();
}

async function init(ctx: SlashContext, args: string): Promise<void> {
  const backend = ctx.backend;
  if (!backend.initAgents) {
    ctx.notice("info", "/init is not available in this session.");
    return ctx.changed();
  }
  const wanted = args.toLowerCase();
  if (wanted === "keep") {
    ctx.notice("info", `${AGENTS_FILE} was left as it is.`);
    return ctx.changed();
  }
  if (wanted && wanted !== "replace") {
    ctx.notice("error", `Unknown /init argument "${args}". Use /init, or /init replace.`);
    return ctx.changed();
  }
  let outcome: InitOutcome | undefined;
  await ctx.work("drafting AGENTS.md", async (signal) => {
    outcome = await backend.initAgents!({ replace: wanted === "replace", signal });
  });
  if (!outcome) return;
  switch (outcome.kind) {
    case "exists":
      // Never replaced without asking: the picker's answer comes back as /init replace|keep.
      return ctx.open(picker("init", `${AGENTS_FILE} already exists. Replace it?`, [
        { value: "keep", label: "Keep it", detail: "change nothing" },
        { value: "replace", label: "Replace it", detail: "with a new draft from this repository" },
      ]));
    case "read_only":
      ctx.add({
        kind: "panel",
        title: `${AGENTS_FILE} draft (read-only mode: nothing was written)`,
        lines: outcome.text.split("\n"),
      });
      return ctx.changed();
    case "written": {
      const f = outcome.facts;
      const found = [
        f.languages.length ? f.languages.slice(0, 3).map((l) => l.name).join(", ") : "",
        `${f.commands.length} command${f.commands.length === 1 ? "" : "s"}`,
      ].filter(Boolean).join("; ");
      const others = f.instructionFiles.filter((n) => n !== AGENTS_FILE);
      ctx.notice(
        "info",
        `${outcome.replaced ? "Replaced" : "Wrote"} ${outcome.path} (${found}). Edit it: it is ` +
          `read at the start of every session${
            others.length ? `, after ${others.join(" and ")}` : ""
          }.`,
      );
      return ctx.changed();
    }
  }
}

async function resume(ctx: SlashContext, args: string): Promise<void> {
  if (!args) {
    let sessions: Awaited<ReturnType<ChatBackend["sessions"]>> = [];
    await ctx.work("listing sessions", async () => {
      const here = ctx.backend.info().sessionId;
      sessions = (await ctx.backend.sessions()).filter((s) => s.id !== here && s.messages > 0);
    });
    if (!sessions.length) {
      ctx.notice("info", "No other saved sessions in this workspace.");
      return ctx.changed();
    }
    return ctx.open(picker(
      "resume",
      "Resume a session",
      sessions.slice(0, 30).map((s) => ({
        value: s.id,
        label: s.title || "(no request)",
        detail: `${s.id.slice(0, 8)} · ${s.messages} messages · ${s.updated.toLocaleString()}`,
      })),
    ));
  }
  await ctx.work("opening session", async () => {
    await ctx.backend.resume(args);
    ctx.meter.reset();
    ctx.notice("info", `Resumed session ${ctx.backend.info().sessionId.slice(0, 8)}.`);
    for (const item of replayItems(ctx.backend.history())) ctx.add(item);
  });
}

/** `/goal [objective|status|pause|resume|clear]` (Goal mode, docs/GOAL.md). */
async function goal(ctx: SlashContext, args: string): Promise<void> {
  const goals = ctx.backend.goals?.();
  if (!goals) {
    ctx.notice("info", "Goal mode is not available in this session.");
    return ctx.changed();
  }
  const word = args.toLowerCase();
  try {
    if (!args || word === "status") {
      const g = goals.state;
      if (!g) {
        ctx.notice("info", "No goal. /goal <objective> starts one.");
        return ctx.changed();
      }
      const { maxRounds, tokenBudget } = goals.bounds;
      const disarmed = g.status === "active" && !goals.armed ? " (disarmed: /goal resume)" : "";
      const rounds = maxRounds ? ` (pauses every ${maxRounds})` : "";
      const budget = tokenBudget ? ` (budget ${tokenBudget} per activation)` : "";
      ctx.add({
        kind: "panel",
        title: `Goal ${g.id} · revision ${g.revision}`,
        lines: [
          `Objective: ${g.objective}`,
          `Status: ${g.status}${disarmed}${g.reason ? ` — ${g.reason}` : ""}`,
          `Rounds: ${g.rounds}${rounds} · tokens: ${g.tokens}${budget} · ` +
          `provider requests: ${g.requests}`,
        ],
      });
      return ctx.changed();
    }
    if (word === "pause") {
      const g = goals.pause("user", "Goal paused by /goal pause; resume with /goal resume.");
      ctx.notice("info", g ? `Goal ${g.id} is ${g.status}.` : "No goal to pause.");
      goals.drain();
      return ctx.changed();
    }
    if (word === "resume") {
      const g = goals.resume();
      goals.drain();
      ctx.notice("info", `Goal ${g.id} resumed: ${g.objective}`);
      ctx.changed();
      return await ctx.runGoal?.();
    }
    if (word === "clear") {
      const had = goals.state;
      goals.clear();
      goals.drain();
      ctx.notice("info", had ? `Goal ${had.id} cleared.` : "No goal to clear.");
      return ctx.changed();
    }
    const g = goals.start(args);
    goals.drain();
    ctx.notice("info", `Goal ${g.id} started: rounds run until it is complete, blocked or paused.`);
    ctx.changed();
    return await ctx.runGoal?.(args);
  } catch (error) {
    ctx.notice("error", (error as Error)?.message ?? String(error));
    return ctx.changed();
  }
}

/** The built-in commands, in `/help` order. */
export const SLASH_COMMANDS: readonly SlashCommand[] = [
  {
    name: "help",
    description: "Show commands and keys",
    immediate: true,
    run: (ctx) => ctx.open({ kind: "help", lines: helpLines(ctx.catalog()), offset: 0 }),
  },
  {
    name: "new",
    description: "Start a new conversation",
    run: (ctx) => newConversation(ctx, false),
  },
  {
    name: "clear",
    description: "Start a new conversation and clear the screen",
    run: (ctx) => newConversation(ctx, true),
  },
  {
    name: "compact",
    description: "Summarize the conversation now to free context",
    argumentHint: "[what the summary must keep]",
    run: (ctx, args) =>
      ctx.work("compacting", async (signal) => {
        const reports = await ctx.backend.compact({ signal, instructions: args || undefined });
        if (!reports.length) ctx.notice("info", "Nothing to compact yet.");
        for (const r of reports) {
          ctx.notice(r.phase === "failed" ? "warning" : "info", compactionText(r));
        }
      }),
  },
  {
    name: "effort",
    description: "Show or set the reasoning effort",
    argumentHint: `[${EFFORTS.join("|")}|default]`,
    run: effort,
  },
  {
    name: "model",
    description: "Switch the model, keeping the conversation",
    argumentHint: "[provider/model]",
    run: model,
  },
  {
    name: "permissions",
    description: "Show or set the permission mode (Shift+Tab cycles it)",
    argumentHint: `[${SESSION_MODES.join("|")}]`,
    immediate: true,
    run: permissions,
  },
  {
    name: "plan",
    description: "Turn plan mode on or off: writers wait until you approve a plan",
    immediate: true,
    run: (ctx, args) => {
      // `/plan <task>`: plan first (the planner when one is configured, else Plan mode).
      if (args && ctx.runTurn) return ctx.runTurn(`/plan ${args}`);
      if (args) {
        ctx.notice("warning", "Type /plan alone to turn plan mode on or off, then ask.");
        return ctx.changed();
      }
      if (ctx.togglePlan) return ctx.togglePlan();
      ctx.notice("warning", "Plan mode is not available in this session.");
      ctx.changed();
    },
  },
  ...(["plan-first", "plan-approve", "plan-only"] as const).map((name): SlashCommand => ({
    name,
    description: name === "plan-first"
      ? "Plan the task, then carry the plan out at once"
      : name === "plan-approve"
      ? "Plan the task and wait for your approval before any change"
      : "Plan the task only; nothing is changed",
    argumentHint: "<task>",
    run: (ctx, args) => {
      if (!args || !ctx.runTurn) {
        ctx.notice("warning", `Type /${name} followed by the task.`);
        return ctx.changed();
      }
      return ctx.runTurn(`/${name} ${args}`);
    },
  })),
  {
    name: "init",
    description: "Draft an AGENTS.md from this repository for you to edit",
    argumentHint: "[replace]",
    run: init,
  },
  {
    name: "resume",
    description: "Continue a saved session of this workspace",
    argumentHint: "[session id]",
    run: resume,
  },
  {
    name: "goal",
    description: "Work toward a goal in rounds; show, pause, resume or clear it",
    argumentHint: "[objective|status|pause|resume|clear]",
    run: goal,
  },
  {
    name: "mcp",
    description: "Show MCP servers, prompts and resources",
    immediate: true,
    run: (ctx) => {
      const mcp = ctx.backend.mcp();
      if (!mcp) {
        ctx.notice("info", "MCP is not connected in this session.");
        return ctx.changed();
      }
      ctx.open({
        kind: "mcp",
        lines: mcpLines(mcp.servers(), mcp.prompts(), mcp.resources()),
        offset: 0,
      });
    },
  },
  {
    name: "memory",
    description: "List remembered, forgotten and earlier versions of facts; restore one",
    argumentHint: MEMORY_USAGE,
    run: (ctx, args) => {
      const store = ctx.backend.memory?.();
      if (!store) {
        ctx.notice("info", "Memory is not available in this session.");
        return ctx.changed();
      }
      return ctx.work("reading memory", async () => {
        const result = await memoryCommand(store, args);
        if (result.kind === "panel") {
          ctx.add({ kind: "panel", title: result.title, lines: result.lines });
        } else ctx.notice(result.level, result.text);
      });
    },
  },
  {
    name: "cost",
    description: "Show token usage, cache hits and cost",
    immediate: true,
    run: (ctx) => {
      ctx.add({ kind: "panel", title: "Usage", lines: costLines(ctx.meter, ctx.backend.info()) });
      ctx.changed();
    },
  },
  {
    name: "exit",
    description: "Quit Reasonix",
    immediate: true,
    aliases: ["quit"],
    run: (ctx) => ctx.exit(),
  },
];
