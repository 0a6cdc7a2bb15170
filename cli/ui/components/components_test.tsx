import assert from "node:assert/strict";
import { renderToString } from "ink";
import stringWidth from "string-width";
import type { ChatSnapshot } from "../controller.ts";
import { EMPTY_EDITOR } from "../composer_model.ts";
import { type Overlay, OVERLAY_OWNERS, type OverlayKind } from "../overlays.ts";
import { mcpLines } from "../panels.ts";
import { makeStyles, stripAnsi } from "../style.ts";
import type { Item, NewItem } from "../transcript.ts";
import { ItemView } from "./items.tsx";
import { Layout } from "./layout.tsx";
import { LiveTail } from "./live.tsx";
import { OverlayView } from "./overlay_view.tsx";
import { StatusLine } from "./status_line.tsx";

const plain = makeStyles(false);
const color = makeStyles(true);

function item(i: NewItem): Item {
  return { ...i, id: 1 } as Item;
}

function show(i: NewItem, width = 80): string {
  return renderToString(<ItemView item={item(i)} width={width} styles={plain} />, {
    columns: width,
  });
}

function assertFits(output: string, width: number): void {
  for (const line of output.split("\n")) {
    assert.ok(stringWidth(line) <= width, `wider than ${width}: "${stripAnsi(line)}"`);
  }
}

const CALL = { id: "c1", name: "edit_file", arguments: '{"path":"src/a.ts"}' };
const DIFF = "Index: a\n===\n--- a\n+++ a\n@@ -1,2 +1,2 @@\n keep\n-old line\n+new line\n";

Deno.test("items render user text, Markdown answers with code, and notices", () => {
  assert.equal(show({ kind: "user", text: "fix the bug" }), "\n› fix the bug");
  assert.equal(
    show({ kind: "assistant", markdown: "Use **this**:\n\n```js\nlet a = 1;\n```" }),
    "\nUse this:\n\n  js\n  let a = 1;",
  );
  assert.equal(show({ kind: "notice", level: "warning", text: "careful" }), "! careful");
  assert.equal(show({ kind: "notice", level: "error", text: "broken" }), "✗ broken");
  assert.equal(show({ kind: "notice", level: "info", text: "fyi" }), "· fyi");
  assert.equal(show({ kind: "turn_end", status: "cancelled" }), "\n⏹ Cancelled");
  assert.equal(
    show({ kind: "turn_end", status: "error", detail: "401 Unauthorized" }),
    "\n✗ Error: 401 Unauthorized",
  );
  assert.equal(
    show({ kind: "attachments", labels: ["src/a.ts (1.0 KiB)"] }),
    "  + src/a.ts (1.0 KiB)",
  );
  assert.equal(
    show({ kind: "panel", title: "Usage", lines: ["Requests: 2"] }),
    "\nUsage\n  Requests: 2",
  );
  assert.equal(
    show({ kind: "approval", summary: "bash: npm test", choice: "session" }),
    "  ✓ Allowed for this session: bash: npm test",
  );
  assert.equal(show({ kind: "approval", summary: "rm", choice: "deny" }), "  ✗ Denied: rm");
});

Deno.test("tool cards show the call, a short result, and a diff for edits", () => {
  const edited = show({
    kind: "tool",
    call: CALL,
    result: { content: "Edited src/a.ts", meta: { diff: DIFF } },
    durationMs: 1500,
  });
  assert.equal(
    edited,
    "\n● edit_file src/a.ts · 1.5s\n  ⎿ @@ -1,2 +1,2 @@\n     keep\n    -old line\n    +new line",
  );
  const listed = show({
    kind: "tool",
    call: { id: "c2", name: "bash", arguments: '{"command":"ls"}' },
    result: { content: "a\nb\nc\nd\ne\n" },
    durationMs: 10,
  });
  assert.equal(listed, "\n● bash ls\n  ⎿ a\n    b\n    c\n    … +2 lines");
  const failed = show({
    kind: "tool",
    call: CALL,
    result: { content: "old_string not found", isError: true },
    durationMs: 3,
  });
  assert.equal(failed, "\n● edit_file src/a.ts\n  ⎿ old_string not found");
  // Colour marks success and failure.
  const painted = renderToString(
    <ItemView
      item={item({
        kind: "tool",
        call: CALL,
        result: { content: "x", meta: { diff: DIFF } },
        durationMs: 0,
      })}
      width={80}
      styles={color}
    />,
    { columns: 80 },
  );
  assert.ok(painted.includes("\x1b[32m+new line\x1b[39m"), painted);
  assert.ok(painted.includes("\x1b[31m-old line\x1b[39m"), painted);
});

Deno.test("reasoning is one dim line when collapsed and full text when expanded", () => {
  const collapsed = show({ kind: "reasoning", text: "a\nb\nc", durationMs: 2300, expanded: false });
  assert.equal(collapsed, "\n∴ Thought for 2.3s · 3 lines (ctrl-o to show)");
  const expanded = show({ kind: "reasoning", text: "a\nb", durationMs: 400, expanded: true });
  assert.equal(expanded, "\n∴ Thought for 400ms · 2 lines\n  a\n  b");
  const painted = renderToString(
    <ItemView
      item={item({ kind: "reasoning", text: "x", durationMs: 0, expanded: false })}
      width={80}
      styles={color}
    />,
  );
  assert.ok(painted.includes("\x1b[2m"), "reasoning is dimmed");
});

Deno.test("CJK text and narrow terminals never overflow the width", () => {
  const cjk = "这是一段很长的中文回答，包含**粗体**和`代码`，用于检查宽字符在窄终端中的换行。";
  for (const width of [20, 33, 50]) {
    assertFits(show({ kind: "user", text: cjk.repeat(2) }, width), width);
    assertFits(
      show({
        kind: "assistant",
        markdown: `${cjk}\n\n- ${cjk}\n\n| 列 | 值 |\n|---|---|\n| 一 | ${cjk} |`,
      }, width),
      width,
    );
    assertFits(
      show({ kind: "tool", call: CALL, result: { content: cjk.repeat(3) }, durationMs: 0 }, width),
      width,
    );
    assertFits(show({ kind: "notice", level: "warning", text: cjk }, width), width);
  }
  const user = show({ kind: "user", text: "中文中文中文中文中文" }, 12);
  assert.equal(user, "\n› 中文中文中\n  文中文中文");
});

function snapshot(partial: Partial<ChatSnapshot> = {}): ChatSnapshot {
  return {
    items: [],
    epoch: 0,
    live: { text: "", reasoning: "", tools: [] },
    editor: EMPTY_EDITOR,
    status: {
      model: "fake/fake-model",
      contextWindow: 128_000,
      compactRatio: 0.8,
      lastPromptTokens: 12_800,
      totals: {
        promptTokens: 20_000,
        completionTokens: 500,
        cacheHitTokens: 15_000,
        cacheMissTokens: 5_000,
        cost: 0.0042,
        currency: "USD",
      },
      effort: "high",
      mode: "ask",
    },
    queued: [],
    tick: 0,
    now: 10_000,
    exiting: false,
    ...partial,
  };
}

function layout(snap: ChatSnapshot, width = 80, rows = 40): string {
  return renderToString(<Layout snapshot={snap} width={width} rows={rows} styles={plain} />, {
    columns: width,
  });
}

Deno.test("the status line shows model, context of window and of compaction, cache and cost", () => {
  const line = renderToString(
    <StatusLine info={snapshot().status} width={120} styles={plain} />,
    { columns: 120 },
  );
  assert.equal(
    line,
    "fake/fake-model · ctx 12.8k/128k 10% · 13% of compact · cache 75% · $0.0042 · effort high · ask",
  );
  const narrow = renderToString(
    <StatusLine info={snapshot().status} width={40} styles={plain} />,
    { columns: 40 },
  );
  assert.equal(narrow, "fake/fake-model · ctx 10%·13% · $0.0042");
});

Deno.test("the layout shows the composer with its text, the activity line and the status", () => {
  const out = layout(snapshot({
    editor: { text: "first line\nsecond", cursor: 17 },
    busy: { label: "thinking", startedAt: 7_600 },
  }));
  assert.match(out, /⠋ thinking… 2\.4s · ctrl-c to cancel/);
  assert.match(out, /│ › first line\s+│\n│ {3}second▌\s+│/);
  assert.match(out, /fake\/fake-model · ctx/);
});

Deno.test("the layout fits narrow terminals and CJK input", () => {
  for (const width of [24, 40]) {
    const out = layout(
      snapshot({
        editor: { text: "请帮我修复这个函数里的错误，然后运行测试", cursor: 5 },
        live: {
          text: "正在分析代码结构，请稍候……".repeat(4),
          reasoning: "",
          tools: [{ call: CALL, startedAt: 9_000, progress: "reading 中文 file" }],
        },
        queued: ["下一个问题"],
      }),
      width,
    );
    assertFits(out, width);
    assert.match(out, /edit_file/);
    assert.match(out, /queued/);
  }
});

Deno.test("the live tail keeps only its newest lines so a long stream never scrolls", () => {
  const text = Array.from({ length: 200 }, (_, i) => `line ${i}`).join("\n\n");
  const out = renderToString(
    <LiveTail
      live={{ text, reasoning: "", tools: [] }}
      queued={[]}
      width={60}
      maxLines={10}
      now={0}
      styles={plain}
    />,
    { columns: 60 },
  );
  const lines = out.split("\n").filter((l) => l !== "");
  assert.ok(lines.length <= 10, `${lines.length} lines`);
  assert.match(out, /lines above/);
  assert.match(out, /line 199/);
});

/** One example of every overlay kind. The type makes a new kind a compile error here. */
const SAMPLES: { [K in OverlayKind]: Extract<Overlay, { kind: K }> } = {
  approval: {
    kind: "approval",
    request: {
      id: "r1",
      kind: "tool",
      tool: "edit_file",
      summary: "edit_file src/a.ts",
      detail: DIFF,
      sessionScope: "edits under src/",
    },
    selected: 1,
  },
  help: {
    kind: "help",
    lines: ["Commands", "  /help  —  Show commands and keys"],
    offset: 0,
  },
  mcp: {
    kind: "mcp",
    lines: mcpLines(
      [{ name: "docs", phase: "ready", tools: 2, prompts: 1, resources: 3 }],
      [{ command: "mcp__docs__review", server: "docs", prompt: "review", arguments: [] }],
      [{ server: "docs", uri: "mem://a" }],
    ),
    offset: 0,
  },
  picker: {
    kind: "picker",
    purpose: "model",
    title: "Model (now: fake/a)",
    items: [{ value: "fake/a", label: "fake/a", current: true }, {
      value: "fake/b",
      label: "fake/b",
    }],
    selected: 1,
  },
  slash: {
    kind: "slash",
    items: [{ name: "help", description: "Show commands and keys", source: "builtin" }],
    selected: 0,
  },
  mention: {
    kind: "mention",
    items: [{ value: "src/", label: "src/", partial: true }],
    selected: 0,
  },
};

/**
 * The rule written out, not read from the table under test: the prompts that answer a
 * question own the keyboard, the completion menus leave the composer in place.
 */
const COMPOSER_SHOWN: Record<OverlayKind, boolean> = {
  approval: false,
  help: false,
  mcp: false,
  picker: false,
  slash: true,
  mention: true,
};

Deno.test("modal overlays hide the composer; slash and @ completion keep it (every kind)", () => {
  assert.deepEqual(Object.keys(SAMPLES).sort(), Object.keys(OVERLAY_OWNERS).sort());
  assert.deepEqual(Object.keys(COMPOSER_SHOWN).sort(), Object.keys(OVERLAY_OWNERS).sort());
  for (const kind of Object.keys(OVERLAY_OWNERS) as OverlayKind[]) {
    const out = layout(snapshot({ overlay: SAMPLES[kind], editor: { text: "DRAFT", cursor: 5 } }));
    const composerShown = /│ › DRAFT/.test(out);
    assert.equal(
      composerShown,
      COMPOSER_SHOWN[kind],
      `${kind}: composer ${composerShown ? "shown" : "hidden"}\n${out}`,
    );
    assert.match(out, /fake\/fake-model/, `${kind}: the status line stays`);
  }
  assert.match(layout(snapshot({ editor: { text: "DRAFT", cursor: 5 } })), /│ › DRAFT/);
});

Deno.test("each overlay shows its content", () => {
  const view = (overlay: Overlay) =>
    renderToString(<OverlayView overlay={overlay} width={70} maxLines={30} styles={plain} />, {
      columns: 70,
    });
  const approval = view(SAMPLES.approval);
  assert.match(approval, /Allow this\?/);
  assert.match(approval, /edit_file src\/a\.ts/);
  assert.match(approval, /-old line/);
  assert.match(approval, /For this session: edits under src\//);
  assert.match(approval, /│ {3}1\. Allow once/);
  assert.match(approval, /│ › 2\. Allow for this session/);
  assert.match(approval, /│ {3}3\. Deny/);
  assert.match(view(SAMPLES.help), /Help[\s\S]*\/help {2}— {2}Show commands/);
  const mcp = view(SAMPLES.mcp);
  assert.match(mcp, /● docs ready · 2 tools · 1 prompts · 3 resources/);
  assert.match(mcp, /\/mcp__docs__review/);
  assert.match(mcp, /@docs:mem:\/\/a/);
  assert.match(view(SAMPLES.picker), /│ {3}fake\/a \(current\)\s+│\n│ › fake\/b/);
  assert.match(view(SAMPLES.slash), /› \/help {2}Show commands and keys/);
  assert.match(view(SAMPLES.mention), /› @src\//);
  const scoped = view({
    ...SAMPLES.approval,
    request: { id: "w", kind: "write_scope", tool: "bash", summary: "write /tmp/x" },
  });
  assert.match(scoped, /Allow writing outside the workspace\?/);
});

Deno.test("long help scrolls with markers for what is above and below", () => {
  const lines = Array.from({ length: 40 }, (_, i) => `help line ${i}`);
  const out = renderToString(
    <OverlayView
      overlay={{ kind: "help", lines, offset: 10 }}
      width={50}
      maxLines={16}
      styles={plain}
    />,
    { columns: 50 },
  );
  assert.match(out, /↑ 10 more/);
  assert.match(out, /help line 10\b/);
  assert.match(out, /help line 19\b/);
  assert.doesNotMatch(out, /help line 20\b/);
  assert.match(out, /↓ 20 more/);
});

Deno.test("long lists scroll around the selection", () => {
  const items = Array.from({ length: 30 }, (_, i) => ({ value: `m${i}`, label: `model-${i}` }));
  const out = renderToString(
    <OverlayView
      overlay={{ kind: "picker", purpose: "model", title: "Model", items, selected: 20 }}
      width={50}
      maxLines={30}
      styles={plain}
    />,
    { columns: 50 },
  );
  assert.match(out, /↑ 16 more/);
  assert.match(out, /› model-20/);
  assert.match(out, /↓ 6 more/);
  assert.doesNotMatch(out, /model-3\b/);
});
