/**
 * Subagent cards: what a running `task` or `fleet` call shows of the children it runs. The
 * call's `tool_progress` details are folded into one card per child (its tool calls with ✓/✗,
 * its tokens and cost) and, for a fleet, one entry per item (waiting, running, done, failed,
 * skipped). A card is one summary line until it is opened (Ctrl-T); the finished tool card
 * keeps a one-line summary per child or item.
 *
 * The details follow the tools' contract: `{ child, event, item? }` for an event of a child
 * (its session id, and the fleet item it runs), `{ fleet: { item, state, status?, child?,
 * usage?, reason? } }` for a fleet item's change of state.
 *
 * @module
 */
import type { AgentEvent, UsageTotals } from "../../core/agent/events.ts";
import { formatCost, formatTokens } from "./status.ts";
import type { Styles } from "./style.ts";

/** One tool call of a child, as its open card lists it. */
export interface ChildTool {
  callId: string;
  name: string;
  state: "running" | "ok" | "error";
}

/** Most tool calls a card keeps; older ones are only counted. */
export const CHILD_TOOLS_KEPT = 50;

/** A subagent of a running call, as its events report it. */
export interface LiveChild {
  /** Its session id. */
  id: string;
  /** The fleet item it runs, when it runs one. */
  item?: string;
  /** Its latest tool activity, e.g. `read_file ✓`. */
  activity: string;
  /** Prompt + completion tokens so far. */
  tokens: number;
  /** Cost so far, when its requests are priced. */
  cost?: number;
  currency?: string;
  /** Its latest tool calls, oldest first (at most {@linkcode CHILD_TOOLS_KEPT}). */
  tools: readonly ChildTool[];
  /** Tool calls started, kept or not. */
  calls: number;
  /** Tool calls that ended with an error. */
  failed: number;
}

/** The states of a fleet item. */
export type FleetState = "waiting" | "running" | "done" | "failed" | "skipped";

const FLEET_STATES: readonly FleetState[] = ["waiting", "running", "done", "failed", "skipped"];

/** A fleet item, as its state changes report it. */
export interface FleetItem {
  id: string;
  state: FleetState;
  /** The host's adjudicated status, e.g. `complete` or `partial`. */
  status?: string;
  /** The session id of the child that runs it. */
  child?: string;
  /** Its usage, once reported. */
  usage?: UsageTotals;
  /** Why it failed or was skipped. */
  reason?: string;
}

/** What a call's progress details say about its children. */
export interface Cards {
  children?: readonly LiveChild[];
  fleet?: readonly FleetItem[];
}

/** Which cards are open: none, one child's (by session id), or all. */
export type OpenCards = { kind: "none" } | { kind: "one"; id: string } | { kind: "all" };

/** No card open. */
export const CLOSED: OpenCards = { kind: "none" };

function record(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return value && typeof value === "object" ? value as Record<string, unknown> : undefined;
}

function withFleet(
  fleet: readonly FleetItem[] | undefined,
  change: unknown,
): FleetItem[] | undefined {
  const c = record(change);
  const id = c?.item;
  const state = c?.state;
  if (typeof id !== "string" || !FLEET_STATES.includes(state as FleetState)) return undefined;
  const list = [...fleet ?? []];
  const at = list.findIndex((f) => f.id === id);
  const next: FleetItem = { ...(at >= 0 ? list[at] : { id }), state: state as FleetState };
  if (typeof c!.status === "string") next.status = c!.status;
  if (typeof c!.child === "string") next.child = c!.child;
  if (typeof c!.reason === "string") next.reason = c!.reason;
  const usage = record(c!.usage);
  if (usage && typeof usage.promptTokens === "number") next.usage = usage as unknown as UsageTotals;
  if (at >= 0) list[at] = next;
  else list.push(next);
  return list;
}

function withChild(
  children: readonly LiveChild[] | undefined,
  id: string,
  event: AgentEvent,
  item: string | undefined,
): LiveChild[] {
  const list = [...children ?? []];
  let at = list.findIndex((c) => c.id === id);
  if (at < 0) {
    at = list.push({ id, activity: "starting", tokens: 0, tools: [], calls: 0, failed: 0 }) - 1;
  }
  const child = { ...list[at] };
  if (item !== undefined) child.item = item;
  if (event.type === "tool_start") {
    child.activity = event.call.name;
    child.calls++;
    const tools = [...child.tools, {
      callId: event.call.id,
      name: event.call.name,
      state: "running" as const,
    }];
    child.tools = tools.length > CHILD_TOOLS_KEPT ? tools.slice(-CHILD_TOOLS_KEPT) : tools;
  } else if (event.type === "tool_end") {
    const failed = event.result.isError === true;
    child.activity = `${event.call.name} ${failed ? "✗" : "✓"}`;
    if (failed) child.failed++;
    const state = failed ? "error" as const : "ok" as const;
    const i = child.tools.findLastIndex((t) => t.callId === event.call.id);
    child.tools = i >= 0
      ? child.tools.map((t, k) => k === i ? { ...t, state } : t)
      : [...child.tools, { callId: event.call.id, name: event.call.name, state }].slice(
        -CHILD_TOOLS_KEPT,
      );
  } else if (event.type === "usage") {
    child.tokens += event.usage.promptTokens + event.usage.completionTokens;
    if (event.cost !== undefined) {
      child.cost = (child.cost ?? 0) + event.cost;
      if (event.currency) child.currency = event.currency;
    }
  }
  list[at] = child;
  return list;
}

/**
 * Folds one `tool_progress` detail into a call's cards; returns `cards` itself when the detail
 * says nothing about children.
 */
export function foldCards(
  cards: Cards,
  detail: Readonly<Record<string, unknown>> | undefined,
): Cards {
  if (!detail) return cards;
  if ("fleet" in detail) {
    const fleet = withFleet(cards.fleet, detail.fleet);
    return fleet ? { ...cards, fleet } : cards;
  }
  const id = detail.child;
  const event = record(detail.event) as AgentEvent | undefined;
  if (typeof id !== "string" || !event || typeof event.type !== "string") return cards;
  const item = typeof detail.item === "string" ? detail.item : undefined;
  return { ...cards, children: withChild(cards.children, id, event, item) };
}

/** The children that have a card, in the order they are shown. */
export function cardIds(cards: Cards): string[] {
  const children = cards.children ?? [];
  if (!cards.fleet?.length) return children.map((c) => c.id);
  // A fleet shows its children under their items, in the items' order.
  const ids: string[] = [];
  for (const item of cards.fleet) {
    const child = childOf(item, children);
    if (child) ids.push(child.id);
  }
  for (const c of children) if (!ids.includes(c.id)) ids.push(c.id);
  return ids;
}

/**
 * Ctrl-T: opens the next card, after the last one all of them (when there are several), then
 * none.
 */
export function nextOpen(open: OpenCards, ids: readonly string[]): OpenCards {
  if (ids.length === 0) return CLOSED;
  if (open.kind === "none") return { kind: "one", id: ids[0] };
  if (open.kind === "all") return CLOSED;
  const at = ids.indexOf(open.id);
  if (at < 0) return { kind: "one", id: ids[0] };
  if (at + 1 < ids.length) return { kind: "one", id: ids[at + 1] };
  return ids.length > 1 ? { kind: "all" } : CLOSED;
}

function isOpen(open: OpenCards, id: string): boolean {
  return open.kind === "all" || (open.kind === "one" && open.id === id);
}

function childOf(item: FleetItem, children: readonly LiveChild[]): LiveChild | undefined {
  return children.find((c) => c.id === item.child) ?? children.find((c) => c.item === item.id);
}

/** `1.2k tok · $0.0012`: tokens and, when priced, cost. */
function spend(tokens: number, cost: number | undefined, currency: string | undefined): string {
  return `${formatTokens(tokens)} tok${
    cost !== undefined ? ` · ${formatCost(cost, currency)}` : ""
  }`;
}

function usageSpend(usage: UsageTotals): string {
  return spend(usage.promptTokens + usage.completionTokens, usage.cost, usage.currency);
}

function toolCount(child: LiveChild): string {
  const n = `${child.calls} tool${child.calls === 1 ? "" : "s"}`;
  return child.failed ? `${n}, ${child.failed} failed` : n;
}

const MARKS: Record<FleetState, string> = {
  waiting: "○",
  running: "◐",
  done: "✓",
  failed: "✗",
  skipped: "⊘",
};

function fleetMark(state: FleetState, s: Styles): string {
  const mark = MARKS[state];
  return state === "done"
    ? s.green(mark)
    : state === "failed"
    ? s.red(mark)
    : state === "running"
    ? s.yellow(mark)
    : s.dim(mark);
}

/**
 * One fleet item: mark, id, state (and adjudicated status), activity, spend, reason; `open`
 * says whether its child's card is open (undefined: the finished card, with no fold marker).
 */
function fleetLine(
  item: FleetItem,
  child: LiveChild | undefined,
  open: boolean | undefined,
  s: Styles,
): string {
  const parts = [
    item.status && item.status !== item.state ? `${item.state} (${item.status})` : item.state,
  ];
  if (item.state === "running" && child && open !== undefined) parts.push(child.activity);
  // The finished card has nothing to open: it says how much each child did instead.
  if (open === undefined && child) parts.push(toolCount(child));
  if (item.usage) parts.push(usageSpend(item.usage));
  else if (child) parts.push(spend(child.tokens, child.cost, child.currency));
  if (item.reason) parts.push(item.reason);
  const fold = child && open !== undefined ? (open ? "▾ " : "▸ ") : "";
  return `  ${fleetMark(item.state, s)} ${fold}${item.id} ${s.dim(`· ${parts.join(" · ")}`)}`;
}

function childLine(child: LiveChild, open: boolean, s: Styles): string {
  const label = child.item ?? child.id.slice(0, 8);
  const what = open ? toolCount(child) : child.activity;
  return s.dim(
    `  ${open ? "▾" : "▸"} ${label} · ${what} · ${spend(child.tokens, child.cost, child.currency)}`,
  );
}

/** The open card's tool lines, the newest `room` of them, a marker for the rest. */
function toolLines(child: LiveChild, room: number, s: Styles): string[] {
  if (room <= 0) return [];
  const marks = { running: s.yellow("◐"), ok: s.green("✓"), error: s.red("✗") };
  const lines = child.tools.map((t) => `      ${marks[t.state]} ${t.name}`);
  const earlier = child.calls - child.tools.length;
  if (lines.length === 0) return [s.dim("      no tool calls yet")];
  if (earlier <= 0 && lines.length <= room) return lines;
  const keep = Math.max(0, room - 1);
  const hidden = earlier + lines.length - keep;
  return [s.dim(`      … ${hidden} earlier`), ...(keep ? lines.slice(-keep) : [])];
}

/** Lower is shown first when a fleet has more items than rows. */
const FLEET_PRIORITY: Record<FleetState, number> = {
  running: 0,
  failed: 1,
  waiting: 2,
  skipped: 3,
  done: 4,
};

/** The counts line of a fleet: `2 done · 1 running · 3 waiting · $0.0123`. */
function fleetSummary(
  fleet: readonly FleetItem[],
  children: readonly LiveChild[],
  s: Styles,
): string {
  const counts = FLEET_STATES.map((state) =>
    [state, fleet.filter((f) => f.state === state).length] as const
  )
    .filter(([, n]) => n > 0)
    .map(([state, n]) => `${n} ${state}`);
  let tokens = 0;
  let cost: number | undefined;
  let currency: string | undefined;
  for (const item of fleet) {
    const child = childOf(item, children);
    const t = item.usage
      ? item.usage.promptTokens + item.usage.completionTokens
      : child?.tokens ?? 0;
    const c = item.usage ? item.usage.cost : child?.cost;
    tokens += t;
    if (c !== undefined) cost = (cost ?? 0) + c;
    currency ??= item.usage?.currency ?? child?.currency;
  }
  return s.dim(`  fleet: ${counts.join(" · ")} · ${spend(tokens, cost, currency)}`);
}

/**
 * The lines a running call shows under its header for its children: at most `max` (at least
 * one), so a card never pushes the rest of the screen out of the row budget.
 */
export function liveCardLines(cards: Cards, open: OpenCards, max: number, s: Styles): string[] {
  const children = cards.children ?? [];
  const limit = Math.max(1, max);
  if (cards.fleet?.length) return fleetLines(cards.fleet, children, open, limit, s);
  if (!children.length) return [];
  const heads = children.map((c) => ({ child: c, line: childLine(c, isOpen(open, c.id), s) }));
  return withTools(heads, open, limit, s, children.length);
}

/** Entity lines first; open cards share the rows left for their tool lists. */
function withTools(
  heads: { child?: LiveChild; line: string }[],
  open: OpenCards,
  limit: number,
  s: Styles,
  total: number,
  prefix: string[] = [],
): string[] {
  let shown = heads;
  const room = limit - prefix.length;
  if (shown.length > room) {
    const keep = Math.max(0, room - 1);
    shown = heads.slice(0, keep);
    return [...prefix, ...shown.map((h) => h.line), s.dim(`  … ${total - keep} more`)].slice(
      0,
      limit,
    );
  }
  const opened = shown.filter((h) => h.child && isOpen(open, h.child.id));
  let left = room - shown.length;
  const out = [...prefix];
  let k = opened.length;
  for (const h of shown) {
    out.push(h.line);
    if (h.child && isOpen(open, h.child.id)) {
      const share = Math.floor(left / k--);
      const lines = toolLines(h.child, share, s);
      left -= lines.length;
      out.push(...lines);
    }
  }
  return out;
}

function fleetLines(
  fleet: readonly FleetItem[],
  children: readonly LiveChild[],
  open: OpenCards,
  limit: number,
  s: Styles,
): string[] {
  const summary = fleetSummary(fleet, children, s);
  if (limit === 1) return [summary];
  let items = [...fleet];
  const room = limit - 1;
  let more = 0;
  if (items.length > room) {
    // The running and failed items matter most; the order on screen stays the fleet's.
    const keep = Math.max(0, room - 1);
    const chosen = new Set(
      [...items].map((f, i) => ({ f, i }))
        .sort((a, b) => FLEET_PRIORITY[a.f.state] - FLEET_PRIORITY[b.f.state] || a.i - b.i)
        .slice(0, keep)
        .map((x) => x.f.id),
    );
    more = items.length - keep;
    items = items.filter((f) => chosen.has(f.id));
  }
  const heads = items.map((item) => {
    const child = childOf(item, children);
    return { child, line: fleetLine(item, child, child ? isOpen(open, child.id) : false, s) };
  });
  const out = withTools(heads, open, limit - (more ? 1 : 0), s, heads.length, [summary]);
  if (more) out.push(s.dim(`  … ${more} more`));
  return out;
}

/** A child's or item's line on the finished tool card. */
export function finishedCardLines(
  cards: Cards,
  statuses: ReadonlyMap<string, string>,
  s: Styles,
): string[] {
  const children = cards.children ?? [];
  if (cards.fleet?.length) {
    return [
      fleetSummary(cards.fleet, children, s),
      ...cards.fleet.map((item) => fleetLine(item, childOf(item, children), undefined, s)),
    ];
  }
  return children.map((c) => {
    const status = statuses.get(c.id);
    return s.dim(
      `  ↳ ${c.id.slice(0, 8)} · ${toolCount(c)} · ${spend(c.tokens, c.cost, c.currency)}${
        status ? ` · ${status}` : ""
      }`,
    );
  });
}
