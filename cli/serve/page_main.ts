/// <reference lib="dom" />
/**
 * The page of `reasonix serve`, bundled into `assets.generated.ts` by
 * `deno task serve:assets`. It renders the server's event stream: every model or tool text is
 * set as text or as the inert Markdown of `page_markdown.ts`, never as HTML of its own.
 *
 * @module
 */
import { escapeText, highlight, renderMarkdown } from "./page_markdown.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const csrf = document.querySelector<HTMLMetaElement>('meta[name="reasonix-csrf"]')?.content ?? "";
const canLogout =
  document.querySelector<HTMLMetaElement>('meta[name="reasonix-logout"]')?.content === "1";

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else node.setAttribute(k, v);
  }
  for (const child of children) node.append(child);
  return node;
}

async function api(path: string, body?: unknown): Promise<Json> {
  const res = await fetch(
    path,
    body === undefined ? { credentials: "same-origin" } : {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json", "x-reasonix-csrf": csrf },
      body: JSON.stringify(body),
    },
  );
  if (res.status === 401) {
    location.href = "/login";
    throw new Error("logged out");
  }
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.error ?? `HTTP ${res.status}`);
  return data;
}

// ---------------------------------------------------------------------------------------
// Layout

const status = el("div", { class: "status", id: "status" });
const modelSelect = el("select", { id: "model", "aria-label": "Model" });
const modeSelect = el("select", { id: "mode", "aria-label": "Permission mode" });
const sessionsButton = el("button", { id: "sessions-button", type: "button" }, "Sessions");
const newButton = el("button", { id: "new-session", type: "button" }, "New");
const logoutButton = el("button", { id: "logout", type: "button" }, "Log out");
const header = el(
  "header",
  {},
  el("div", { class: "brand" }, "Reasonix"),
  status,
  el("div", { class: "controls" }, modelSelect, modeSelect, sessionsButton, newButton),
);
if (canLogout) header.querySelector(".controls")!.append(logoutButton);
const transcript = el("main", { id: "transcript", "aria-live": "polite" });
const approvals = el("section", { id: "approvals", "aria-label": "Approvals" });
const completion = el("ul", { id: "completion", class: "completion", role: "listbox" });
const input = el("textarea", {
  id: "prompt",
  rows: "2",
  placeholder: "Message, /command or @file — Enter sends, Shift+Enter breaks the line",
});
const send = el("button", { id: "send", type: "submit" }, "Send");
const cancel = el("button", { id: "cancel", type: "button", class: "danger" }, "Cancel");
const composer = el("form", { id: "composer" }, completion, input, send, cancel);
const drawer = el("aside", { id: "drawer", hidden: "" });
document.body.append(header, transcript, approvals, composer, drawer);

// ---------------------------------------------------------------------------------------
// State

let sessionId = "";
let info: Json = {};
let running = false;
let source: EventSource | undefined;
let current: { node: HTMLElement; text: string; reasoning?: HTMLElement } | undefined;
const cards = new Map<string, HTMLElement>();
const usage = { context: 0, cache: 0, cost: undefined as number | undefined, currency: "" };

function scrollDown(): void {
  transcript.scrollTop = transcript.scrollHeight;
}

function renderStatus(): void {
  const parts = [
    info.model ?? "",
    info.mode ? `mode ${info.mode}${info.planMode ? " · plan" : ""}` : "",
    `context ${Math.round(usage.context * 100)}%`,
    `cache ${Math.round(usage.cache * 100)}%`,
    usage.cost !== undefined
      ? `${usage.currency === "USD" ? "$" : ""}${usage.cost.toFixed(4)}`
      : "",
    running ? "running…" : "",
  ].filter(Boolean);
  status.textContent = parts.join(" · ");
  cancel.hidden = !running;
  document.body.classList.toggle("running", running);
}

function addNotice(text: string, level = "info"): void {
  current = undefined;
  transcript.append(el("div", { class: `notice ${level}`, "data-kind": "notice" }, text));
  scrollDown();
}

function addUser(text: string): void {
  current = undefined;
  transcript.append(el("div", { class: "msg user", "data-kind": "user" }, text));
  scrollDown();
}

/** The assistant block whose Markdown waits for the next frame. */
let dirty: NonNullable<typeof current> | undefined;

function assistant(): NonNullable<typeof current> {
  if (!current) {
    const node = el("div", { class: "msg assistant", "data-kind": "assistant" });
    transcript.append(node);
    current = { node, text: "" };
  }
  return current;
}

function paintBlock(block: NonNullable<typeof current>): void {
  let body = block.node.querySelector<HTMLElement>(".md");
  if (!body) {
    body = el("div", { class: "md" });
    block.node.append(body);
  }
  body.innerHTML = renderMarkdown(block.text);
}

function paint(): void {
  const block = dirty;
  dirty = undefined;
  if (!block) return;
  paintBlock(block);
  scrollDown();
}

function addText(text: string): void {
  const block = assistant();
  // Another block waiting for its frame is finished: show it now.
  if (dirty && dirty !== block) paint();
  block.text += text;
  if (!dirty) requestAnimationFrame(paint);
  dirty = block;
}

function addReasoning(text: string): void {
  const a = assistant();
  if (!a.reasoning) {
    const details = el("details", { class: "reasoning" }, el("summary", {}, "Reasoning"));
    a.reasoning = el("div", { class: "reasoning-text" });
    details.append(a.reasoning);
    a.node.prepend(details);
  }
  a.reasoning.textContent += text;
}

function argsSummary(name: string, args: string): string {
  try {
    const a = JSON.parse(args || "{}");
    const main = a.command ?? a.path ?? a.file_path ?? a.pattern ?? a.url ?? a.query;
    return main !== undefined ? `${name} ${String(main)}` : `${name} ${args.slice(0, 120)}`;
  } catch {
    return `${name} ${args.slice(0, 120)}`;
  }
}

function diffBlock(diff: string): HTMLElement {
  const pre = el("pre", { class: "code diff" });
  const code = el("code", { class: "hljs language-diff" });
  code.innerHTML = highlight(diff, "diff");
  pre.append(code);
  return pre;
}

function toolCard(callId: string, name: string, args: string): HTMLElement {
  current = undefined;
  const card = el(
    "div",
    { class: "tool", "data-kind": "tool", "data-call": callId },
    el("div", { class: "tool-head" }, argsSummary(name, args)),
    el("div", { class: "tool-progress" }),
  );
  cards.set(callId, card);
  transcript.append(card);
  scrollDown();
  return card;
}

function toolResult(callId: string, content: string, isError: boolean, diff?: string): void {
  const card = cards.get(callId) ?? toolCard(callId, "tool", "");
  card.classList.add(isError ? "error" : "ok");
  card.querySelector(".tool-progress")!.textContent = "";
  if (diff) card.append(diffBlock(diff));
  const details = el(
    "details",
    { class: "tool-result" },
    el("summary", {}, isError ? "failed" : "result"),
    el("pre", {}, content),
  );
  card.append(details);
  scrollDown();
}

function showApproval(e: Json): void {
  const r = e.request;
  const box = el("div", { class: "approval", "data-approval": r.id, role: "dialog" });
  box.append(el("div", { class: "approval-title" }, r.summary));
  const p = e.preview ?? {};
  if (p.diff) box.append(diffBlock(p.diff));
  else if (p.note) box.append(el("div", { class: "note" }, p.note));
  if (p.command) box.append(el("pre", { class: "command" }, p.command));
  if (p.cwd || p.sandbox) {
    box.append(el("div", { class: "note" }, [p.cwd, p.sandbox].filter(Boolean).join(" · ")));
  }
  if (!p.diff && !p.command && r.detail) box.append(el("pre", { class: "detail" }, r.detail));
  if (r.sessionScope) box.append(el("div", { class: "note" }, `This session: ${r.sessionScope}`));
  const buttons = el("div", { class: "approval-buttons" });
  const choices: [string, string][] = r.kind === "plan"
    ? [["once", "Approve plan"], ["deny", "Keep planning"]]
    : [["once", "Allow once"], ["session", "Allow this session"], ["deny", "Deny"]];
  for (const [choice, label] of choices) {
    const b = el("button", { type: "button", "data-choice": choice }, label);
    b.addEventListener("click", () => {
      for (const x of buttons.querySelectorAll("button")) (x as HTMLButtonElement).disabled = true;
      api("/api/approve", { id: r.id, choice }).catch((err) => addNotice(err.message, "warning"));
    });
    buttons.append(b);
  }
  box.append(buttons);
  approvals.append(box);
}

function onEvent(e: Json): void {
  switch (e.type) {
    case "user":
      addUser(e.text);
      running = true;
      break;
    case "text":
      if (!e.agent) addText(e.text);
      break;
    case "reasoning":
      if (!e.agent) addReasoning(e.text);
      break;
    case "tool_start":
      if (!e.agent) toolCard(e.call.id, e.call.name, e.call.arguments);
      break;
    case "tool_progress": {
      const card = cards.get(e.callId);
      if (card) card.querySelector(".tool-progress")!.textContent = e.message;
      break;
    }
    case "tool_end":
      if (!e.agent) {
        toolResult(
          e.call.id,
          e.result.content,
          e.result.isError === true,
          typeof e.result.meta?.diff === "string" ? e.result.meta.diff : undefined,
        );
      }
      break;
    case "permission":
      if (!e.allowed) addNotice(`${e.tool}: denied${e.reason ? ` (${e.reason})` : ""}`, "warning");
      break;
    case "approval_request":
      showApproval(e);
      break;
    case "approval_settled":
      approvals.querySelector(`[data-approval="${CSS.escape(e.id)}"]`)?.remove();
      break;
    case "usage":
      if (!e.agent && e.purpose === undefined && info.contextWindow) {
        usage.context = e.usage.promptTokens / info.contextWindow;
      }
      usage.cache = e.totals.promptTokens
        ? e.totals.cacheHitTokens / e.totals.promptTokens
        : e.cacheHitRatio;
      if (e.totals.cost !== undefined) {
        usage.cost = e.totals.cost;
        usage.currency = e.totals.currency ?? "";
      }
      break;
    case "compaction":
      addNotice(
        `Context ${e.report.phase} (${e.report.cause}): ${e.report.beforeTokens} → ` +
          `${e.report.afterTokens} tokens${e.report.reason ? ` — ${e.report.reason}` : ""}`,
        e.report.phase === "failed" ? "warning" : "info",
      );
      break;
    case "notice":
      addNotice(e.message, e.level);
      break;
    case "route":
      if (e.route !== "executor") addNotice(`Route: ${e.route} (${e.reason})`);
      break;
    case "plan":
      addNotice(`Plan ${e.status}: ${e.plan.title}`);
      break;
    case "goal":
      addNotice(`Goal ${e.change}: ${e.goal.objective ?? ""}`);
      break;
    case "attachments":
      addNotice(`Attached: ${e.labels.join(", ")}`);
      break;
    case "done":
      current = undefined;
      if (e.status === "cancelled") addNotice("Cancelled.", "warning");
      else if (e.status === "error") addNotice(e.error?.message ?? "The turn failed.", "error");
      else if (e.status !== "completed") {
        addNotice(`Stopped: ${e.status}${e.detail ? ` — ${e.detail}` : ""}`, "warning");
      }
      break;
    case "idle":
      running = false;
      approvals.replaceChildren();
      break;
    case "info":
      info = e.info;
      fillSelects();
      break;
    case "session_switched":
      void load();
      break;
  }
  renderStatus();
}

function renderItems(items: Json[]): void {
  transcript.replaceChildren();
  cards.clear();
  current = undefined;
  for (const item of items) {
    if (item.kind === "user") addUser(item.text);
    else if (item.kind === "assistant") {
      if (item.reasoning) addReasoning(item.reasoning);
      const block = assistant();
      block.text = item.text;
      paintBlock(block);
    } else if (item.kind === "tool") toolCard(item.callId, item.name, item.arguments);
    else if (item.kind === "tool_result") {
      toolResult(item.callId, item.content, item.isError === true);
    }
  }
}

let models: Json[] = [];
let modes: string[] = [];
function fillSelects(): void {
  modelSelect.replaceChildren(
    ...models.map((m) => {
      const o = el(
        "option",
        { value: m.name },
        m.unavailable ? `${m.name} (${m.unavailable})` : m.name,
      );
      if (m.unavailable) o.disabled = true;
      if (m.name === info.model) o.selected = true;
      return o;
    }),
  );
  modeSelect.replaceChildren(
    ...modes.map((m) => {
      const o = el("option", { value: m }, m);
      if (m === info.mode) o.selected = true;
      return o;
    }),
  );
}

/** Loads the stored conversation, then follows the stream from where it ends. */
async function load(): Promise<void> {
  source?.close();
  const state = await api("/api/state");
  sessionId = state.info.sessionId;
  info = state.info;
  modes = state.modes;
  running = state.running;
  approvals.replaceChildren();
  renderItems(state.items);
  for (const w of state.warnings ?? []) addNotice(w, "warning");
  document.body.dataset.session = sessionId;
  renderStatus();
  connect(state.after);
  api("/api/models").then((m) => {
    models = m;
    fillSelects();
  }).catch(() => {});
  fillSelects();
}

function connect(after: string): void {
  const es = new EventSource(
    `/api/sessions/${encodeURIComponent(sessionId)}/events?after=${encodeURIComponent(after)}`,
  );
  source = es;
  es.onmessage = (m) => onEvent(JSON.parse(m.data));
  es.addEventListener("resync", () => {
    // The events after our id are gone: start again from the stored session.
    es.close();
    void load();
  });
  es.onopen = () => document.body.classList.remove("offline");
  es.onerror = () => document.body.classList.add("offline");
}

// ---------------------------------------------------------------------------------------
// Composer, completion and controls

let items: Json[] = [];
let selected = 0;
let completeKind: "slash" | "file" | undefined;

function closeCompletion(): void {
  items = [];
  completion.replaceChildren();
  completion.hidden = true;
}

function wordAtCursor(): { start: number; word: string } {
  const upto = input.value.slice(0, input.selectionStart);
  const m = /(^|\s)(\S*)$/.exec(upto)!;
  return { start: upto.length - m[2].length, word: m[2] };
}

async function updateCompletion(): Promise<void> {
  const { start, word } = wordAtCursor();
  let kind: "slash" | "file" | undefined;
  let q = "";
  if (word.startsWith("/") && start === 0) [kind, q] = ["slash", word.slice(1)];
  else if (word.startsWith("@")) [kind, q] = ["file", word.slice(1)];
  if (!kind) return closeCompletion();
  const found: Json[] = await api(`/api/complete?kind=${kind}&q=${encodeURIComponent(q)}`)
    .catch(() => []);
  completeKind = kind;
  items = found;
  selected = 0;
  completion.replaceChildren(
    ...found.map((it, i) => {
      const li = el(
        "li",
        { role: "option", "data-value": kind === "slash" ? it.name : it.value },
        kind === "slash" ? `/${it.name}` : it.label,
      );
      if (kind === "slash" && it.description) {
        li.append(el("span", { class: "hint" }, ` ${it.argumentHint ?? ""} ${it.description}`));
      }
      li.addEventListener("mousedown", (ev) => {
        ev.preventDefault();
        selected = i;
        accept();
      });
      return li;
    }),
  );
  completion.hidden = found.length === 0;
  highlightSelected();
}

function highlightSelected(): void {
  completion.querySelectorAll("li").forEach((li, i) =>
    li.classList.toggle("selected", i === selected)
  );
}

function accept(): void {
  const it = items[selected];
  if (!it) return;
  const { start, word } = wordAtCursor();
  const value = completeKind === "slash"
    ? `/${it.name} `
    : `@${it.value}${it.isDirectory ? "" : " "}`;
  input.value = input.value.slice(0, start) + value + input.value.slice(start + word.length);
  const at = start + value.length;
  input.setSelectionRange(at, at);
  closeCompletion();
  input.focus();
  if (completeKind === "file" && it.isDirectory) void updateCompletion();
}

input.addEventListener("input", () => void updateCompletion());
input.addEventListener("keydown", (ev) => {
  if (items.length) {
    if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      selected = (selected + (ev.key === "ArrowDown" ? 1 : items.length - 1)) % items.length;
      highlightSelected();
      ev.preventDefault();
      return;
    }
    if (ev.key === "Tab" || (ev.key === "Enter" && !ev.shiftKey)) {
      ev.preventDefault();
      accept();
      return;
    }
    if (ev.key === "Escape") return closeCompletion();
  }
  if (ev.key === "Enter" && !ev.shiftKey) {
    ev.preventDefault();
    composer.requestSubmit();
  }
});

composer.addEventListener("submit", (ev) => {
  ev.preventDefault();
  const text = input.value;
  if (!text.trim()) return;
  api("/api/turn", { text, sessionId }).then(() => {
    input.value = "";
    closeCompletion();
  }).catch((err) => addNotice(err.message, "warning"));
});

cancel.addEventListener("click", () => {
  api("/api/cancel", {}).catch((err) => addNotice(err.message, "warning"));
});

modelSelect.addEventListener("change", () => {
  api("/api/model", { name: modelSelect.value }).catch((err) => {
    addNotice(err.message, "warning");
    fillSelects();
  });
});

modeSelect.addEventListener("change", () => {
  api("/api/mode", { mode: modeSelect.value }).catch((err) => {
    addNotice(err.message, "warning");
    fillSelects();
  });
});

newButton.addEventListener("click", () => {
  api("/api/sessions/new", {}).then(() => load()).catch((err) => addNotice(err.message, "warning"));
});

logoutButton.addEventListener("click", () => {
  api("/logout", {}).finally(() => location.href = "/login");
});

sessionsButton.addEventListener("click", async () => {
  if (!drawer.hidden) {
    drawer.hidden = true;
    return;
  }
  const list: Json[] = await api("/api/sessions").catch(() => []);
  drawer.replaceChildren(
    el("h2", {}, "Sessions"),
    el(
      "ul",
      {},
      ...list.map((s) => {
        const b = el(
          "button",
          { type: "button", class: "session", "data-session": s.id },
          el("span", { class: "title" }, s.title || "(empty)"),
          el(
            "span",
            { class: "meta" },
            `${new Date(s.updated).toLocaleString()} · ${s.messages} messages`,
          ),
        );
        if (s.id === sessionId) b.classList.add("current");
        b.addEventListener("click", () => {
          drawer.hidden = true;
          api("/api/sessions/resume", { id: s.id }).then(() => load()).catch((err) =>
            addNotice(err.message, "warning")
          );
        });
        return el("li", {}, b);
      }),
    ),
  );
  drawer.hidden = false;
});

// Exported for the escape test: the page sets model text through these two only.
export { escapeText };

closeCompletion();
void load();
