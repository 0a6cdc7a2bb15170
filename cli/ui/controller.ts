/**
 * The interactive session's state machine, independent of the renderer: keys in, a snapshot
 * out. It owns the composer, the transcript, overlays, the running turn and the queue, and
 * talks to the harness only through `ChatBackend` and the approval broker.
 *
 * @module
 */
import { relative } from "node:path";
import type { ApprovalChoice } from "../../core/agent/approval.ts";
import type { AgentEvent, Runner } from "../../core/agent/events.ts";
import { CONTINUE_TEXT, GoalDriver, RESUME_HINT } from "../../core/goal/mod.ts";
import {
  findPreset,
  nextSessionMode,
  type PresetName,
  SESSION_MODES,
} from "../../core/permission/mod.ts";
import type { ToolCall } from "../../providers/types.ts";
import type { ApprovalPreview } from "./approval_preview.ts";
import {
  type CustomCommand,
  expandTemplateParts,
  splitArguments,
} from "../../core/commands/mod.ts";
import { completeReferencePath, type SuppliedText } from "../../core/references/mod.ts";
import type { ChatBackend } from "./backend.ts";
import type { UiApprovalBroker } from "./broker.ts";
import * as ed from "./composer_model.ts";
import { InputHistory } from "./history.ts";
import type { McpView } from "./hooks.ts";
import {
  approvalChoices,
  type MentionItem,
  type Overlay,
  OVERLAY_OWNERS,
  type PickerPurpose,
  type SlashItem,
} from "./overlays.ts";
import { replayItems } from "./panels.ts";
import {
  completeSlash,
  findBuiltin,
  parseSlash,
  type ProfileCommand,
  slashCatalog,
} from "./slash.ts";
import type { SlashContext } from "./slash_commands.ts";
import type { StatusInfo } from "./status.ts";
import { type Item, type LiveState, type NewItem, Transcript } from "./transcript.ts";
import { UsageMeter } from "./usage.ts";

/** The keys the controller reads; Ink's `Key` has all of them. */
export interface KeyInfo {
  upArrow: boolean;
  downArrow: boolean;
  leftArrow: boolean;
  rightArrow: boolean;
  return: boolean;
  escape: boolean;
  ctrl: boolean;
  meta: boolean;
  tab: boolean;
  /** Shift held (Shift+Tab cycles the permission mode). */
  shift?: boolean;
  backspace: boolean;
  delete: boolean;
  home?: boolean;
  end?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
}

/** A key with no modifiers and no special key, for typed text. */
export const NO_KEY: KeyInfo = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  return: false,
  escape: false,
  ctrl: false,
  meta: false,
  tab: false,
  backspace: false,
  delete: false,
};

/** Everything the view renders. A new object whenever something changed. */
export interface ChatSnapshot {
  items: readonly Item[];
  /** Changes when the screen was cleared, so the printed-once region restarts. */
  epoch: number;
  live: LiveState;
  editor: ed.EditorState;
  overlay?: Overlay;
  status: StatusInfo;
  /** What the harness is doing, while busy. */
  busy?: { label: string; startedAt: number };
  queued: readonly string[];
  /** A transient hint, e.g. "Press Ctrl-C again to exit". */
  hint?: string;
  /** Advances while busy, for the spinner. */
  tick: number;
  /** The clock when this snapshot was made, for elapsed times. */
  now: number;
  /** Set while leaving: the view drops everything but the scrollback. */
  exiting: boolean;
}

/** What the controller needs. */
export interface ChatControllerOptions {
  backend: ChatBackend;
  broker: UiApprovalBroker;
  commands?: readonly CustomCommand[];
  /** Shown once at the start (e.g. skipped command files). */
  notices?: readonly string[];
  history?: InputHistory;
  /** Leaves the UI; the entry point then disposes the backend. */
  exit(): void;
  /** Clears the terminal (for `/clear`). */
  clearScreen?(): void;
  version?: string;
  now?(): number;
  /** Delay before a streamed change is shown; keys are always shown at once. */
  frameMs?: number;
}

const EXIT_WINDOW_MS = 2000;

/** What entering plan mode says. */
function planHint(mode: string | undefined): string {
  return `Plan mode: on — writers are refused until you approve a plan${
    mode ? ` (permission mode ${mode} stays)` : ""
  } · /plan or Shift+Tab leaves`;
}
const TICK_MS = 120;

function cancelled(): DOMException {
  return new DOMException("Cancelled by the user", "AbortError");
}

/** The interactive session. */
export class ChatController {
  readonly #o: ChatControllerOptions;
  readonly #backend: ChatBackend;
  readonly #broker: UiApprovalBroker;
  readonly #transcript = new Transcript();
  readonly #meter = new UsageMeter();
  readonly #history: InputHistory;
  readonly #now: () => number;
  readonly #listeners = new Set<() => void>();
  #editor: ed.EditorState = ed.EMPTY_EDITOR;
  /** A modal the user opened (help, MCP, a picker); approvals come from the broker. */
  #modal?: Exclude<Overlay, { kind: "approval" | "slash" | "mention" }>;
  /** The highlighted choice of the approval prompt on screen, and how far its diff scrolled. */
  #approvalChoice?: { id: string; selected: number; offset?: number };
  /** Calls that started and have not ended, so an approval can show what its call would do. */
  readonly #calls = new Map<string, ToolCall>();
  /** What each approval prompt shows of its call, by request id, once computed. */
  readonly #previews = new Map<string, ApprovalPreview>();
  /** A request denied with Ctrl-C: its turn stops once the denial has gone through. */
  #stopAfter?: string;
  #hintTimer?: ReturnType<typeof setTimeout>;
  #slashSelected = 0;
  #mention?: { query: string; items: readonly MentionItem[]; selected: number };
  #mentionGeneration = 0;
  /** Subagent profiles offered as `/<profile>`, as last read. */
  #profiles: readonly ProfileCommand[] = [];
  #profilesGeneration = 0;
  /** Completion is hidden for exactly this text after Esc. */
  #dismissedFor?: string;
  #busy?: { label: string; startedAt: number; abort: AbortController };
  #queue: string[] = [];
  #hint?: string;
  #armedAt?: number;
  #epoch = 0;
  #tick = 0;
  #ticker?: ReturnType<typeof setInterval>;
  #frameTimer?: ReturnType<typeof setTimeout>;
  #snapshot: ChatSnapshot;
  #disposed = false;
  #exiting = false;
  readonly #unsubscribeBroker: () => void;
  readonly #unsubscribePlan: () => void;

  constructor(opts: ChatControllerOptions) {
    this.#o = opts;
    this.#backend = opts.backend;
    this.#broker = opts.broker;
    this.#history = opts.history ?? new InputHistory();
    this.#now = opts.now ?? (() => performance.now());
    this.#unsubscribeBroker = this.#broker.subscribe(() => this.#changed(true));
    // An approved plan ends plan mode mid-turn: the status line follows.
    this.#unsubscribePlan = this.#backend.planMode?.()?.subscribe(() => this.#changed(true)) ??
      (() => {});
    const info = this.#backend.info();
    this.#transcript.add({
      kind: "banner",
      title: `reasonix${opts.version ? ` ${opts.version}` : ""}`,
      lines: [
        `${info.model} · ${info.workspaceRoot}`,
        "Enter sends · \\ Enter adds a line · / commands · @ files · Ctrl-C cancels · /help",
      ],
    });
    for (const warning of this.#backend.warnings()) this.#notice("warning", warning);
    for (const notice of opts.notices ?? []) this.#notice("warning", notice);
    const history = this.#backend.history();
    if (history.length) {
      this.#notice("info", `Resumed session ${info.sessionId.slice(0, 8)}.`);
      for (const item of replayItems(history)) this.#add(item);
      const goal = this.#backend.goals?.()?.state;
      // Activation is never restored: the user re-arms a resumed goal.
      if (goal && (goal.status === "active" || goal.status === "paused")) {
        this.#notice(
          "info",
          `This session has a ${goal.status} goal (${goal.rounds} rounds): ${goal.objective} — ` +
            "/goal resume continues it, /goal clear forgets it.",
        );
      }
    }
    this.#snapshot = this.#build();
    this.#refreshProfiles();
  }

  // ── Subscription ────────────────────────────────────────────────────────────

  /** Subscribes to changes (for `useSyncExternalStore`). */
  subscribe = (listener: () => void): () => void => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /** The current snapshot; the same object until something changes. */
  getSnapshot = (): ChatSnapshot => this.#snapshot;

  /** Stops timers and withdraws from the broker. Aborts a running turn. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#busy?.abort.abort(cancelled());
    this.#queue = [];
    this.#unsubscribeBroker();
    this.#unsubscribePlan();
    clearInterval(this.#ticker);
    clearTimeout(this.#frameTimer);
    clearTimeout(this.#hintTimer);
    this.#listeners.clear();
  }

  /** Resolves when nothing is running or queued (for tests and orderly exit). */
  async idle(): Promise<void> {
    while ((this.#busy || this.#queue.length) && !this.#disposed) {
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  #build(): ChatSnapshot {
    const info = this.#backend.info();
    return {
      items: this.#transcript.items,
      epoch: this.#epoch,
      live: this.#transcript.live,
      editor: this.#editor,
      overlay: this.#overlay(),
      status: {
        model: info.model,
        contextWindow: info.contextWindow,
        compactRatio: info.compactRatio,
        lastPromptTokens: this.#meter.lastPromptTokens,
        totals: this.#meter.totals,
        cache: this.#meter.cache,
        effort: info.effort,
        mode: info.mode,
        plan: this.#backend.planMode?.()?.active,
        goal: goalStatus(this.#backend),
      },
      busy: this.#busy ? { label: this.#busy.label, startedAt: this.#busy.startedAt } : undefined,
      queued: [...this.#queue],
      hint: this.#hint,
      tick: this.#tick,
      now: this.#now(),
      exiting: this.#exiting,
    };
  }

  #notify(): void {
    clearTimeout(this.#frameTimer);
    this.#frameTimer = undefined;
    for (const listener of this.#listeners) listener();
  }

  /** Rebuilds the snapshot; shows it at once or with the next frame. */
  #changed(immediate = false): void {
    if (this.#disposed) return;
    this.#snapshot = this.#build();
    if (immediate || !this.#o.frameMs) {
      this.#notify();
    } else if (this.#frameTimer === undefined) {
      this.#frameTimer = setTimeout(() => this.#notify(), this.#o.frameMs);
    }
  }

  #add(item: NewItem): void {
    this.#transcript.add(item);
  }

  #notice(level: "info" | "warning" | "error", text: string): void {
    this.#transcript.add({ kind: "notice", level, text });
  }

  // ── Overlays ────────────────────────────────────────────────────────────────

  #catalog(): SlashItem[] {
    return slashCatalog(this.#o.commands ?? [], this.#mcp()?.prompts() ?? [], this.#profiles);
  }

  /**
   * Reads the subagent profiles for completion: at the start and whenever a slash command is
   * begun, so a profile written during the session shows up.
   */
  #refreshProfiles(): void {
    if (!this.#backend.profiles) return;
    const generation = ++this.#profilesGeneration;
    void this.#backend.profiles().then((profiles) => {
      if (generation !== this.#profilesGeneration || this.#disposed) return;
      const same = profiles.length === this.#profiles.length &&
        profiles.every((p, i) =>
          p.name === this.#profiles[i].name && p.description === this.#profiles[i].description
        );
      if (same) return;
      this.#profiles = profiles;
      this.#changed(true);
    }, () => {});
  }

  #mcp(): McpView | undefined {
    return this.#backend.mcp();
  }

  #slashItems(): SlashItem[] {
    const text = this.#editor.text;
    if (!text.startsWith("/") || /\s/.test(text) || this.#editor.cursor !== text.length) return [];
    if (!ed.completionAllowed(this.#editor)) return [];
    if (this.#dismissedFor === text) return [];
    const items = completeSlash(text.slice(1), this.#catalog());
    // Nothing to complete once the name is typed in full and is the only match.
    if (items.length === 1 && items[0].name === text.slice(1)) return [];
    return items;
  }

  #overlay(): Overlay | undefined {
    const request = this.#broker.current();
    if (request) {
      const mine = this.#approvalChoice?.id === request.id ? this.#approvalChoice : undefined;
      const preview = this.#previews.get(request.id);
      return {
        kind: "approval",
        request,
        selected: mine?.selected ?? 0,
        ...(preview ? { preview } : {}),
        offset: mine?.offset ?? 0,
      };
    }
    if (this.#modal) return this.#modal;
    const slash = this.#slashItems();
    if (slash.length) {
      return {
        kind: "slash",
        items: slash,
        selected: Math.min(this.#slashSelected, slash.length - 1),
      };
    }
    const mention = this.#mention;
    const complete = mention?.items.length === 1 && !mention.items[0].partial &&
      mention.items[0].value === mention.query;
    if (
      mention && mention.items.length && !complete &&
      this.#dismissedFor !== this.#editor.text && ed.completionAllowed(this.#editor) &&
      ed.wordAtCursor(this.#editor).word === `@${mention.query}`
    ) {
      return { kind: "mention", items: mention.items, selected: mention.selected };
    }
    return undefined;
  }

  /** Starts completing the `@` word at the cursor, one directory level at a time. */
  #refreshMention(): void {
    const { word } = ed.wordAtCursor(this.#editor);
    if (!word.startsWith("@") || word.startsWith('@"')) {
      this.#mention = undefined;
      return;
    }
    const query = word.slice(1);
    if (this.#mention?.query === query) return;
    const generation = ++this.#mentionGeneration;
    const root = this.#backend.info().workspaceRoot;
    void this.#mentionItems(query, root).then((items) => {
      if (generation !== this.#mentionGeneration || this.#disposed) return;
      this.#mention = { query, items, selected: 0 };
      this.#changed(true);
    });
  }

  async #mentionItems(query: string, root: string): Promise<MentionItem[]> {
    const out: MentionItem[] = [];
    const mcp = this.#mcp();
    if (mcp) {
      const servers = mcp.servers().map((s) => s.name);
      const colon = query.indexOf(":");
      const server = colon > 0 ? query.slice(0, colon) : undefined;
      if (server && servers.includes(server)) {
        const rest = query.slice(colon + 1);
        for (const r of mcp.resources()) {
          if (r.server === server && r.uri.startsWith(rest)) {
            out.push({ value: `${server}:${r.uri}`, label: r.uri, detail: r.name, partial: false });
          }
        }
        return out.slice(0, 50);
      }
      for (const name of servers) {
        if (name.startsWith(query) && mcp.resources().some((r) => r.server === name)) {
          out.push({
            value: `${name}:`,
            label: `${name}:`,
            detail: "MCP resources",
            partial: true,
          });
        }
      }
    }
    try {
      for (const c of await completeReferencePath(query, { root })) {
        out.push({ value: c.value, label: c.label, partial: c.isDirectory });
      }
    } catch {
      // Completion is a convenience; an unreadable directory just offers nothing.
    }
    return out;
  }

  // ── Keys ────────────────────────────────────────────────────────────────────

  /** Handles one key press or typed text. */
  handleInput(input: string, key: KeyInfo): void {
    if (this.#disposed) return;
    if (key.ctrl && input === "c") {
      this.#ctrlC();
      return;
    }
    if (this.#hint) this.#setHint(undefined);
    this.#armedAt = undefined;
    const overlay = this.#overlay();
    if (overlay?.kind === "approval") return this.#approvalKey(overlay, input, key);
    if (key.tab && key.shift && !(overlay && OVERLAY_OWNERS[overlay.kind] === "modal")) {
      return this.#cycleMode();
    }
    if (overlay && OVERLAY_OWNERS[overlay.kind] === "modal") return this.#modalKey(overlay, key);
    if (overlay && this.#completionKey(overlay, key)) return;
    this.#composerKey(input, key);
  }

  /** Inserts pasted text into the composer (ignored while a modal overlay is open). */
  handlePaste(text: string): void {
    const overlay = this.#overlay();
    if (overlay && OVERLAY_OWNERS[overlay.kind] === "modal") return;
    this.#edit(ed.insert(this.#editor, text.replace(/\r\n?/g, "\n")));
  }

  #ctrlC(): void {
    const now = this.#now();
    const armed = this.#armedAt !== undefined && now - this.#armedAt < EXIT_WINDOW_MS;
    if (armed) {
      this.exit();
      return;
    }
    const request = this.#broker.current();
    if (request && this.#busy) {
      // At an approval Ctrl-C is an answer: deny the call, then stop the turn once the denial
      // reached the agent (aborting first would withdraw the request as "cancelled" instead).
      this.#armedAt = undefined;
      this.#queue = [];
      this.#pauseGoal();
      this.#stopAfter = request.id;
      this.#approvalChoice = undefined;
      this.#broker.answer(request.id, "deny");
      this.#changed(true);
      return;
    }
    this.#armedAt = now;
    if (this.#modal) this.#modal = undefined;
    if (this.#busy) {
      this.#queue = [];
      this.#pauseGoal();
      this.#busy.abort.abort(cancelled());
      this.#setHint("Cancelling… press Ctrl-C again to exit");
    } else {
      if (this.#editor.text) this.#editor = ed.EMPTY_EDITOR;
      this.#setHint("Press Ctrl-C again to exit");
    }
    this.#changed(true);
  }

  /** Shows a transient hint; it clears itself when the double-press window has passed. */
  #setHint(hint: string | undefined, ms = EXIT_WINDOW_MS): void {
    this.#hint = hint;
    clearTimeout(this.#hintTimer);
    this.#hintTimer = undefined;
    if (hint === undefined) return;
    this.#hintTimer = setTimeout(() => {
      this.#hintTimer = undefined;
      if (this.#hint !== hint) return;
      this.#hint = undefined;
      this.#armedAt = undefined;
      this.#changed(true);
    }, ms);
  }

  /**
   * Shift+Tab: the next of the session modes, through the backend's permission API, with plan
   * mode after the last of them (ask → accept-edits → auto → plan → ask). Plan mode keeps the
   * permission mode it was entered from; a mode a session cannot leave (yolo, read-only)
   * toggles plan mode alone.
   */
  #cycleMode(): void {
    const current = this.#backend.info().mode;
    const plan = this.#backend.planMode?.();
    const next = current ? nextSessionMode(current as PresetName) : undefined;
    if (plan && (plan.active || !next || next === SESSION_MODES[0])) {
      if (plan.active) {
        plan.exit();
        if (next) this.#setMode(SESSION_MODES[0]);
        else this.#setHint(`Plan mode: off — permission mode ${current ?? "unchanged"}`);
      } else {
        plan.enter();
        this.#setHint(planHint(current));
      }
    } else if (!this.#backend.setPermissionMode || !next) {
      this.#notice(
        "warning",
        `The permission mode${current ? ` "${current}"` : ""} cannot be changed in a session; ` +
          `Shift+Tab moves between ${SESSION_MODES.join(", ")}.`,
      );
    } else {
      this.#setMode(next);
    }
    this.#changed(true);
  }

  /** Sets the mode; says what it does now or why it could not change. */
  #setMode(mode: string): void {
    try {
      const now = this.#backend.setPermissionMode!(mode);
      this.#setHint(
        `Permission mode: ${now} — ${findPreset(now)?.summary ?? ""}`.replace(/ — $/, ""),
      );
    } catch (error) {
      this.#notice("error", (error as Error)?.message ?? String(error));
    }
  }

  /** `/plan` without arguments: plan mode on when off, off when on; says what it does now. */
  togglePlan(): void {
    const plan = this.#backend.planMode?.();
    if (!plan) {
      this.#notice("warning", "Plan mode is not available in this session.");
    } else if (plan.toggle()) {
      this.#notice("info", planHint(this.#backend.info().mode));
    } else {
      this.#notice(
        "info",
        `Plan mode: off — permission mode ${this.#backend.info().mode ?? "unchanged"}.`,
      );
    }
    this.#changed(true);
  }

  /** Leaves the session: cancels the running turn and asks the view to unmount. */
  exit(): void {
    if (this.#disposed || this.#exiting) return;
    this.#busy?.abort.abort(cancelled());
    this.#exiting = true;
    this.#changed(true);
    this.#o.exit();
  }

  #approvalKey(overlay: Extract<Overlay, { kind: "approval" }>, input: string, key: KeyInfo): void {
    const answer = (choice: ApprovalChoice) => {
      this.#approvalChoice = undefined;
      this.#broker.answer(overlay.request.id, choice);
    };
    if (key.escape) return answer("deny");
    const choices = approvalChoices(overlay.request);
    if (key.upArrow || key.downArrow) {
      const n = choices.length;
      const selected = (overlay.selected + (key.upArrow ? n - 1 : 1)) % n;
      this.#approvalChoice = { id: overlay.request.id, selected, offset: overlay.offset };
      this.#changed(true);
      return;
    }
    if (key.pageUp || key.pageDown) {
      // The view clamps the window; the offset only has to stay within the diff.
      // A plan scrolls its Markdown (as many lines as the source has, at most).
      const scrolled = overlay.request.kind === "plan"
        ? overlay.request.detail
        : overlay.preview?.diff;
      const lines = scrolled?.split("\n").length ?? 0;
      const offset = Math.min(
        Math.max(0, lines - 1),
        Math.max(0, (overlay.offset ?? 0) + (key.pageUp ? -10 : 10)),
      );
      this.#approvalChoice = { id: overlay.request.id, selected: overlay.selected, offset };
      this.#changed(true);
      return;
    }
    if (key.return) return answer(choices[overlay.selected].choice);
    const direct = choices.find((c) => c.keys.includes(input));
    if (direct) answer(direct.choice);
  }

  #modalKey(overlay: Overlay, key: KeyInfo): void {
    if (key.escape) {
      this.#modal = undefined;
      this.#changed(true);
      return;
    }
    if (overlay.kind === "help" || overlay.kind === "mcp") {
      if (key.return) {
        this.#modal = undefined;
      } else {
        const step = key.upArrow
          ? -1
          : key.downArrow
          ? 1
          : key.pageUp
          ? -10
          : key.pageDown
          ? 10
          : 0;
        if (!step) return;
        const last = Math.max(0, overlay.lines.length - 1);
        this.#modal = { ...overlay, offset: Math.min(last, Math.max(0, overlay.offset + step)) };
      }
      this.#changed(true);
      return;
    }
    if (overlay.kind !== "picker") return;
    if (key.upArrow || key.downArrow) {
      const n = overlay.items.length;
      this.#modal = { ...overlay, selected: (overlay.selected + (key.upArrow ? n - 1 : 1)) % n };
      this.#changed(true);
      return;
    }
    if (key.return) {
      const item = overlay.items[overlay.selected];
      this.#modal = undefined;
      this.#changed(true);
      if (item) this.#pick(overlay.purpose, item.value);
    }
  }

  /** Keys for slash and `@` completion. Returns false to let the composer have the key. */
  #completionKey(overlay: Overlay, key: KeyInfo): boolean {
    if (overlay.kind !== "slash" && overlay.kind !== "mention") return false;
    const n = overlay.items.length;
    if (key.upArrow || key.downArrow) {
      const selected = (overlay.selected + (key.upArrow ? n - 1 : 1)) % n;
      if (overlay.kind === "slash") this.#slashSelected = selected;
      else if (this.#mention) this.#mention = { ...this.#mention, selected };
      this.#changed(true);
      return true;
    }
    if (key.escape) {
      this.#dismissedFor = this.#editor.text;
      this.#changed(true);
      return true;
    }
    if (!key.tab && !key.return) return false;
    if (overlay.kind === "slash") {
      const item = overlay.items[overlay.selected];
      // Enter runs the command, unless it is a custom or MCP one that takes arguments: then
      // it completes the name so the arguments can be typed.
      const wantsArguments = item.source !== "builtin" && item.argumentHint !== undefined;
      if (key.tab || wantsArguments) {
        this.#edit(ed.setText(`/${item.name} `));
      } else {
        this.#editor = ed.setText(`/${item.name}`);
        this.#submitEditor();
      }
      return true;
    }
    const item = overlay.items[overlay.selected];
    const value = /\s/.test(item.value) ? `"${item.value}"` : item.value;
    this.#edit(ed.replaceWordAtCursor(this.#editor, `@${value}${item.partial ? "" : " "}`));
    return true;
  }

  #edit(next: ed.EditorState): void {
    const textChanged = next.text !== this.#editor.text;
    this.#editor = next;
    if (textChanged) {
      this.#slashSelected = 0;
      if (next.text === "/") this.#refreshProfiles();
      if (this.#dismissedFor !== undefined && this.#dismissedFor !== next.text) {
        this.#dismissedFor = undefined;
      }
    }
    this.#refreshMention();
    this.#changed(true);
  }

  #composerKey(input: string, key: KeyInfo): void {
    const s = this.#editor;
    if (key.return) {
      if (key.meta) return this.#edit(ed.insert(s, "\n"));
      if (s.text.slice(0, s.cursor).endsWith("\\")) {
        return this.#edit(ed.insert(ed.backspace(s), "\n"));
      }
      return this.#submitEditor();
    }
    if (key.backspace) return this.#edit(ed.backspace(s));
    if (key.delete) return this.#edit(ed.deleteForward(s));
    if (key.leftArrow) return this.#edit(ed.left(s));
    if (key.rightArrow) return this.#edit(ed.right(s));
    if (key.home) return this.#edit(ed.home(s));
    if (key.end) return this.#edit(ed.end(s));
    if (key.upArrow) {
      const moved = ed.up(s);
      if (moved) return this.#edit(moved);
      const older = this.#history.previous(s.text);
      if (older !== undefined) this.#edit(ed.recall(older));
      return;
    }
    if (key.downArrow) {
      const moved = ed.down(s);
      if (moved) return this.#edit(moved);
      const newer = this.#history.next();
      if (newer !== undefined) this.#edit(ed.recall(newer));
      return;
    }
    if (key.ctrl) {
      switch (input) {
        case "a":
          return this.#edit(ed.home(s));
        case "e":
          return this.#edit(ed.end(s));
        case "u":
          return this.#edit(ed.killToLineStart(s));
        case "k":
          return this.#edit(ed.killToLineEnd(s));
        case "w":
          return this.#edit(ed.deleteWordBack(s));
        case "j":
          return this.#edit(ed.insert(s, "\n"));
        case "d":
          if (s.text === "") {
            if (!this.#busy) this.exit();
            return;
          }
          return this.#edit(ed.deleteForward(s));
        case "o":
          this.#transcript.toggleReasoning();
          this.#changed(true);
          return;
        case "t":
          if (!this.#transcript.toggleCards()) {
            this.#setHint("Ctrl-T opens a subagent's card while a task or fleet runs", 3000);
          }
          this.#changed(true);
          return;
      }
      return;
    }
    if (key.escape || key.tab || key.meta || input === "") return;
    // Terminals deliver Ctrl-J as a bare line feed.
    if (input === "\n") return this.#edit(ed.insert(s, "\n"));
    // deno-lint-ignore no-control-regex
    const clean = input.replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g, "");
    // Text and Enter can arrive in one read (fast typing, tmux): a final CR submits.
    if (clean.length > 1 && clean.endsWith("\r") && !clean.slice(0, -1).includes("\r")) {
      this.#editor = ed.insert(s, clean.slice(0, -1));
      return this.#submitEditor();
    }
    if (clean) this.#edit(ed.insert(s, clean));
  }

  // ── Submitting ──────────────────────────────────────────────────────────────

  #submitEditor(): void {
    const text = this.#editor.text;
    this.#editor = ed.EMPTY_EDITOR;
    this.#mention = undefined;
    this.#dismissedFor = undefined;
    this.#slashSelected = 0;
    if (!text.trim()) {
      this.#changed(true);
      return;
    }
    this.#history.add(text);
    const slash = parseSlash(text);
    if (this.#busy && !(slash && findBuiltin(slash.name)?.immediate)) {
      this.#queue.push(text);
      this.#changed(true);
      return;
    }
    this.#changed(true);
    void this.submit(text);
  }

  /** Runs a prompt or command as if typed; resolves when it finished. */
  async submit(text: string): Promise<void> {
    const slash = parseSlash(text);
    if (slash) await this.#runSlash(slash.name, slash.args, text.trim());
    else await this.#runTurn(text, text);
    this.#drain();
  }

  #drain(): void {
    if (this.#busy || this.#disposed) return;
    const next = this.#queue.shift();
    if (next !== undefined) void this.submit(next);
    // Idle with an active, armed goal: the driver admits its next round (the user's typed
    // turns always go first).
    else if (this.#backend.goals?.()?.due) void this.#runGoal().then(() => this.#drain());
  }

  /** Ctrl-C: a running goal stops with its turn, until `/goal resume`. */
  #pauseGoal(): void {
    const goals = this.#backend.goals?.();
    if (goals?.due) goals.pause("user", `Goal paused: cancelled by the user; ${RESUME_HINT}.`);
  }

  /**
   * One goal round through the same entry as a user turn: `text` for the first round of a
   * goal the user just started, the driver's fixed text afterwards.
   */
  #runGoal(text?: string): Promise<void> {
    const goals = this.#backend.goals?.();
    if (!goals?.due) return Promise.resolve();
    const runner: Runner = {
      run: (input, opts) =>
        this.#backend.run(input.text, {
          signal: opts.signal,
          ...(input.route ? { route: input.route } : {}),
        }),
    };
    const driver = new GoalDriver({ runner, goals });
    return this.#work(`goal round ${(goals.state?.rounds ?? 0) + 1}`, async (signal) => {
      const input = text === undefined ? undefined : { text };
      for await (const event of driver.round({ signal, input })) {
        if (event.type === "goal" && event.change === "round") {
          this.#add({ kind: "user", text: text ?? CONTINUE_TEXT });
        }
        this.#onEvent(event);
      }
    });
  }

  /** Marks the harness busy for `work`; one thing runs at a time. */
  async #work(label: string, work: (signal: AbortSignal) => Promise<void>): Promise<void> {
    const abort = new AbortController();
    this.#busy = { label, startedAt: this.#now(), abort };
    this.#ticker = setInterval(() => {
      this.#tick++;
      this.#changed();
    }, TICK_MS);
    this.#changed(true);
    try {
      await work(abort.signal);
    } catch (error) {
      if (abort.signal.aborted) {
        this.#transcript.flush(this.#now());
        this.#add({ kind: "turn_end", status: "cancelled" });
      } else {
        this.#notice("error", (error as Error)?.message ?? String(error));
      }
    } finally {
      clearInterval(this.#ticker);
      this.#ticker = undefined;
      this.#transcript.flush(this.#now());
      this.#busy = undefined;
      this.#stopAfter = undefined;
      this.#calls.clear();
      this.#previews.clear();
      // "Cancelling…" is about this turn and must not outlive it; while a second Ctrl-C
      // would still exit, the hint says just that, for what is left of the window.
      if (this.#hint?.startsWith("Cancelling")) {
        const left = this.#armedAt === undefined
          ? 0
          : EXIT_WINDOW_MS - (this.#now() - this.#armedAt);
        this.#setHint(left > 0 ? "Press Ctrl-C again to exit" : undefined, left);
      }
      this.#changed(true);
    }
  }

  #setBusyLabel(label: string): void {
    if (this.#busy) this.#busy.label = label;
    this.#changed();
  }

  /**
   * One user turn. The agent's turn builder resolves `@` references (as for `reasonix run`);
   * what it attached arrives as an `attachments` event before the first request.
   */
  #runTurn(display: string, text: string, supplied?: readonly SuppliedText[]): Promise<void> {
    this.#add({ kind: "user", text: display });
    return this.#work("thinking", async (signal) => {
      for await (const event of this.#backend.run(text, { signal, supplied })) {
        this.#onEvent(event);
      }
    });
  }

  #onEvent(event: AgentEvent): void {
    // The activity line names the phase: the planner's research, then the executor's work.
    if (this.#busy && (event.type === "route" || event.type === "plan")) {
      const planning = event.type === "route" && event.route !== "executor";
      const label = planning ? `planning (${event.route.replace("_", " ")})` : "thinking";
      if (event.type === "route" || event.status === "approved") {
        this.#busy = { ...this.#busy, label };
      }
    }
    if (event.type === "goal" && event.change !== "round") {
      const g = event.goal;
      const level = event.change === "bound" || event.change === "blocked" ? "warning" : "info";
      this.#notice(
        level,
        event.message ?? `Goal ${g.id} ${event.change} (revision ${g.revision}): ${g.objective}`,
      );
    }
    this.#transcript.apply(event, this.#now());
    this.#meter.apply(event);
    this.#track(event);
    if (event.type === "tool_start") this.#setBusyLabel(`running ${event.call.name}`);
    else if (event.type === "request_start") this.#setBusyLabel("thinking");
    // Agent events show with the next frame (one render per frame, however many events a
    // fast turn brings); an approval is shown at once, and so are keys and a turn's end.
    this.#changed(event.type === "approval_request");
  }

  /** Keeps what approval prompts show, and stops a turn whose approval Ctrl-C denied. */
  #track(event: AgentEvent): void {
    switch (event.type) {
      case "tool_start":
        this.#calls.set(event.call.id, event.call);
        break;
      case "tool_end":
        this.#calls.delete(event.call.id);
        break;
      case "approval_request": {
        const call = event.request.callId ? this.#calls.get(event.request.callId) : undefined;
        const signal = this.#busy?.abort.signal;
        if (!call || !signal || !this.#backend.preview) break;
        const id = event.request.id;
        void this.#backend.preview(call, { signal }).then((preview) => {
          if (this.#disposed || this.#broker.current()?.id !== id) return;
          this.#previews.set(id, preview);
          this.#changed(true);
        }, () => {});
        break;
      }
      case "approval_answer":
        this.#previews.delete(event.id);
        if (this.#stopAfter === event.id) {
          this.#stopAfter = undefined;
          this.#notice("info", "Ctrl-C denied the call and stopped the turn.");
          this.#busy?.abort.abort(cancelled());
        }
        break;
    }
  }

  /**
   * `/<profile> task`: the subagent profile runs the task in its own session; its tool calls
   * and answer show here. False when there is no such profile.
   */
  async #runProfile(name: string, task: string, raw: string): Promise<boolean> {
    let found = false;
    await this.#work(`subagent ${name}`, async (signal) => {
      const events = await this.#backend.runProfile!(name, task, { signal });
      if (!events) return;
      found = true;
      if (!task.trim()) {
        this.#notice("warning", `Type /${name} followed by the task for the subagent.`);
        return;
      }
      this.#add({ kind: "user", text: raw });
      for await (const event of events) {
        // The child's prompt says nothing about how full this conversation's window is.
        this.#onEvent(event.type === "usage" ? { ...event, purpose: "subagent" } : event);
      }
    });
    return found;
  }

  async #runSlash(name: string, args: string, raw: string): Promise<void> {
    const builtin = findBuiltin(name);
    if (builtin) return await builtin.run(this.#slashContext(), args);
    const custom = this.#o.commands?.find((c) => c.name === name);
    if (custom) {
      const { text, fromTemplate } = expandTemplateParts(custom.template, args);
      // A project's command file is the repository's text; the user's own commands are theirs.
      const source = relative(this.#backend.info().workspaceRoot, custom.path);
      const supplied = custom.scope === "project"
        ? fromTemplate.map((span) => ({ ...span, source }))
        : undefined;
      return await this.#runTurn(raw, text, supplied);
    }
    const prompt = this.#mcp()?.prompts().find((p) => p.command === name);
    if (prompt) return await this.#runMcpPrompt(prompt, args, raw);
    if (this.#backend.runProfile && await this.#runProfile(name, args, raw)) return;
    this.#notice("warning", `Unknown command /${name}. Type /help to see the commands.`);
    this.#changed(true);
  }

  async #runMcpPrompt(
    prompt: ReturnType<McpView["prompts"]>[number],
    args: string,
    raw: string,
  ): Promise<void> {
    const words = splitArguments(args);
    const named: Record<string, string> = {};
    prompt.arguments.forEach((a, i) => {
      const last = i === prompt.arguments.length - 1;
      const value = last ? words.slice(i).join(" ") : words[i];
      if (value !== undefined && value !== "") named[a.name] = value;
    });
    const missing = prompt.arguments.filter((a) => a.required && !(a.name in named));
    if (missing.length) {
      const usage = prompt.arguments.map((a) => a.required ? `<${a.name}>` : `[${a.name}]`);
      this.#notice(
        "error",
        `/${prompt.command} needs ${missing.map((a) => a.name).join(", ")}: ` +
          `/${prompt.command} ${usage.join(" ")}`,
      );
      this.#changed(true);
      return;
    }
    let text = "";
    await this.#work("loading prompt", async (signal) => {
      text = await this.#mcp()!.getPrompt({
        server: prompt.server,
        prompt: prompt.prompt,
        args: named,
        signal,
      });
    });
    // The server wrote the whole text (the arguments are inside it wherever it put them).
    const source = `MCP prompt /${prompt.command}`;
    if (text.trim()) await this.#runTurn(raw, text, [{ start: 0, end: text.length, source }]);
  }

  #pick(purpose: PickerPurpose, value: string): void {
    // Each purpose is named after the command that takes the chosen value.
    void this.submit(`/${purpose} ${value}`);
  }

  /** What the built-in commands of `slash_commands.ts` may do to this session. */
  #slashContext(): SlashContext {
    return {
      backend: this.#backend,
      meter: this.#meter,
      catalog: () => this.#catalog(),
      open: (modal) => {
        this.#modal = modal;
        this.#changed(true);
      },
      add: (item) => this.#add(item),
      notice: (level, text) => this.#notice(level, text),
      changed: () => this.#changed(true),
      togglePlan: () => this.togglePlan(),
      // A turn typed while another runs waits its turn, like any prompt.
      runTurn: (text) => {
        if (!this.#busy) return this.#runTurn(text, text);
        this.#queue.push(text);
        this.#changed(true);
        return Promise.resolve();
      },
      runGoal: (text) => this.#runGoal(text),
      work: (label, work) => this.#work(label, work),
      clearScreen: () => {
        this.#transcript.clear();
        this.#epoch++;
        this.#o.clearScreen?.();
      },
      exit: () => this.exit(),
    };
  }
}

/** The goal part of the status line. */
function goalStatus(backend: ChatBackend): StatusInfo["goal"] {
  const goals = backend.goals?.();
  const goal = goals?.state;
  if (!goals || !goal) return undefined;
  const { status, rounds, tokens, requests } = goal;
  return { status, rounds, tokens, requests, armed: goals.armed };
}
