import assert from "node:assert/strict";
import { renderToString } from "ink";
import type { ChatSnapshot } from "../controller.ts";
import type { Overlay } from "../overlays.ts";
import { makeStyles, stripAnsi } from "../style.ts";
import { layoutBudget, listRows, MIN_LAYOUT_ROWS } from "./budget.ts";
import { Layout } from "./layout.tsx";

const plain = makeStyles(false);
const color = makeStyles(true);

Deno.test("the row budget stays below the terminal height from 10 to 40 rows", () => {
  const overlays = [
    undefined,
    { modal: false, rows: listRows(3) },
    { modal: false, rows: listRows(40) },
    { modal: true, rows: Number.POSITIVE_INFINITY },
    { modal: true, rows: 5 },
  ];
  for (let rows = MIN_LAYOUT_ROWS; rows <= 40; rows++) {
    for (const overlay of overlays) {
      for (const composerLines of [1, 3, 8, 30]) {
        for (const activity of [false, true]) {
          const b = layoutBudget({ rows, overlay, composerLines, activity });
          const what = JSON.stringify({ rows, overlay, composerLines, activity, b });
          assert.ok(b.total <= rows - 1, `over the terminal: ${what}`);
          assert.equal(b.total, b.live + b.overlay + b.composer + b.fixed, what);
          assert.ok(b.live === 0 || b.live >= 3, `a live tail too small to show: ${what}`);
          if (overlay?.modal) {
            assert.equal(b.composer, 0, what);
            assert.ok(b.overlay >= Math.min(overlay.rows, 7), `modal squeezed: ${what}`);
          } else {
            assert.ok(b.composer >= 3, `no composer: ${what}`);
            if (overlay) assert.ok(b.overlay >= Math.min(overlay.rows, 3), `menu: ${what}`);
          }
        }
      }
    }
  }
  // Below the floor the terminal gets the floor's budget; a big terminal keeps the old split.
  assert.deepEqual(
    layoutBudget({ rows: 6, composerLines: 1, activity: true }),
    layoutBudget({ rows: 10, composerLines: 1, activity: true }),
  );
  assert.equal(layoutBudget({ rows: 40, composerLines: 1, activity: true }).live, 33);
});

const LIVE = {
  text: Array.from({ length: 80 }, (_, i) => `streamed line ${i} of a long answer`).join("\n\n"),
  reasoning: "",
  tools: [{
    call: { id: "c1", name: "bash", arguments: '{"command":"make test"}' },
    startedAt: 9_000,
    progress: "running",
  }],
};

const SLASH: Overlay = {
  kind: "slash",
  items: Array.from({ length: 30 }, (_, i) => ({
    name: `command-${i}`,
    description: `does thing ${i}`,
    source: "builtin" as const,
  })),
  selected: 12,
};

const DIFF = [
  "--- a",
  "+++ a",
  "@@ -1,20 +1,20 @@",
  ...Array.from({ length: 40 }, (_, i) => `${i % 2 ? "+" : "-"}line ${i}`),
].join("\n");

const OVERLAYS: Record<string, Overlay | undefined> = {
  none: undefined,
  slash: SLASH,
  mention: {
    kind: "mention",
    items: Array.from(
      { length: 12 },
      (_, i) => ({ value: `src/f${i}.ts`, label: `f${i}.ts`, partial: false }),
    ),
    selected: 0,
  },
  approval: {
    kind: "approval",
    request: { id: "r", kind: "tool", tool: "edit_file", summary: "edit_file a", detail: "why" },
    selected: 0,
    preview: { diff: DIFF },
  },
  help: { kind: "help", lines: Array.from({ length: 60 }, (_, i) => `help line ${i}`), offset: 3 },
  picker: {
    kind: "picker",
    purpose: "model",
    title: "Model",
    items: Array.from({ length: 20 }, (_, i) => ({ value: `m${i}`, label: `model ${i}` })),
    selected: 10,
  },
};

function snapshot(overlay: Overlay | undefined, text: string): ChatSnapshot {
  return {
    items: [],
    epoch: 0,
    live: LIVE,
    editor: { text, cursor: Math.floor(text.length / 2) },
    overlay,
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
      mode: "ask",
    },
    // Idle with an empty composer, so its placeholder shows; busy otherwise.
    busy: text === "" ? undefined : { label: "thinking", startedAt: 7_000 },
    queued: ["a queued prompt"],
    tick: 0,
    now: 10_000,
    exiting: false,
  };
}

Deno.test("the rendered layout fits the budget at every size down to 10 rows", () => {
  const texts = [
    "",
    "/com",
    "a prompt long enough to wrap several times in a narrow terminal, ".repeat(4),
    Array.from({ length: 14 }, (_, i) => `line ${i}`).join("\n"),
  ];
  for (const [width, styles] of [[30, plain], [60, color]] as const) {
    for (const rows of [MIN_LAYOUT_ROWS, 11, 12, 16, 24, 40]) {
      for (const [name, overlay] of Object.entries(OVERLAYS)) {
        for (const text of texts) {
          const out = renderToString(
            <Layout snapshot={snapshot(overlay, text)} width={width} rows={rows} styles={styles} />,
            { columns: width },
          );
          const lines = out.split("\n");
          const shown = stripAnsi(out);
          const what = `${width}×${rows} ${name} ${JSON.stringify(text.slice(0, 20))}`;
          assert.ok(lines.length <= rows - 1, `${what}: ${lines.length} rows\n${shown}`);
          assert.equal(
            lines.at(-1)!.includes("fake/fake-model"),
            true,
            `${what}: the status line is the last row\n${shown}`,
          );
          if (name === "approval") assert.match(shown, /Deny/, `${what}: the choices stay`);
          // From 16 rows an approval is whole: what it asks, some diff and the choices.
          if (name === "approval" && rows >= 16) {
            assert.match(shown, /Allow this\?[\s\S]*@@[\s\S]*Deny/, `${what}\n${shown}`);
          }
          // A cut list still shows its selection.
          const selected = {
            slash: "› /command-12",
            mention: "› @src/f0.ts",
            picker: "› model 10",
          };
          const mark = selected[name as keyof typeof selected];
          if (mark) assert.ok(shown.includes(mark), `${what}: no ${mark}\n${shown}`);
        }
      }
    }
  }
});
