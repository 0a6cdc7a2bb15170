/**
 * The built-in slash commands as one table: each entry's name, help text and handler. `/help`,
 * completion and dispatch all read this table, so a command cannot be listed without running
 * or run without being listed.
 *
 * @module
 */
import type { ChatBackend } from "./backend.ts";
import { compactionText } from "./compaction_text.ts";
import type { Overlay, PickerItem, PickerPurpose, SlashItem } from "./overlays.ts";
import { costLines, helpLines, mcpLines, replayItems } from "./panels.ts";
import type { NewItem } from "./transcript.ts";
import type { UsageMeter } from "./usage.ts";

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
  /** Runs `work` as the one busy task, with a label for the status line. */
  work(label: string, work: (signal: AbortSignal) => Promise<void>): Promise<void>;
  /** Forgets the shown transcript and clears the terminal (`/clear`). */
  clearScreen(): void;
  /** Leaves the UI. */
  exit(): void;
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
    return ctx.open(picker(
      "model",
      `Model (now: ${current})`,
      ctx.backend.models().map((m) => ({ value: m, label: m, current: m === current })),
    ));
  }
  await ctx.work("switching model", async () => {
    await ctx.backend.switchModel(args);
    ctx.notice("info", `Model: ${ctx.backend.info().model}.`);
  });
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
    name: "resume",
    description: "Continue a saved session of this workspace",
    argumentHint: "[session id]",
    run: resume,
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
