import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { render } from "ink";
import { render as renderForTest } from "ink-testing-library";
import xterm from "@xterm/headless";
import { startUiSession } from "../../tests/support/ui_session.ts";
import { ChatApp } from "./app.tsx";
import { makeStyles } from "./style.ts";

/** A terminal-sized output stream that records every write. */
class TerminalOut extends EventEmitter {
  readonly isTTY = true;
  readonly columns: number;
  readonly rows: number;
  readonly writes: string[] = [];
  constructor(columns: number, rows: number) {
    super();
    this.columns = columns;
    this.rows = rows;
  }
  write = (chunk: string): boolean => {
    this.writes.push(chunk);
    return true;
  };
}

/** A keyboard that never types (input goes straight to the controller in this test). */
class QuietIn extends EventEmitter {
  readonly isTTY = true;
  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
  read(): null {
    return null;
  }
}

/** What a real terminal shows after `writes`: screen plus scrollback, one string per row. */
async function terminalRows(writes: string[], cols: number, rows: number): Promise<string[]> {
  const term = new xterm.Terminal({
    cols,
    rows,
    scrollback: 10_000,
    convertEol: true,
    allowProposedApi: true,
  });
  for (const chunk of writes) await new Promise<void>((resolve) => term.write(chunk, resolve));
  const buffer = term.buffer.active;
  const out: string[] = [];
  for (let i = 0; i < buffer.length; i++) {
    out.push(buffer.getLine(i)?.translateToString(true) ?? "");
  }
  term.dispose();
  return out;
}

Deno.test("a long streamed answer prints finished blocks once and never clears the screen", async () => {
  const paragraphs = Array.from(
    { length: 12 },
    (_, i) => `Paragraph ${i} explains step ${i} of the plan in a few words.`,
  );
  const s = await startUiSession({
    script: [{ text: paragraphs.join("\n\n"), chunkBytes: 24, delayMs: 3 }],
  });
  const out = new TerminalOut(60, 16);
  const instance = render(<ChatApp controller={s.controller} styles={makeStyles(true)} />, {
    stdout: out as unknown as NodeJS.WriteStream,
    stdin: new QuietIn() as unknown as NodeJS.ReadStream,
    interactive: true,
    patchConsole: false,
    exitOnCtrlC: false,
    maxFps: 60,
  });
  try {
    s.type("plan it");
    s.press({ return: true });
    await s.controller.idle();
    await new Promise((r) => setTimeout(r, 50));
    const all = out.writes.join("");
    // The answer streamed over many frames in a terminal shorter than the answer, and the
    // terminal (screen and scrollback) ends up with every paragraph exactly once.
    assert.ok(out.writes.length > 10, `only ${out.writes.length} writes`);
    const rows = await terminalRows(out.writes, 60, 16);
    for (const p of paragraphs) {
      const n = rows.filter((row) => row.includes(p)).length;
      assert.equal(n, 1, `"${p}" shows ${n} times:\n${rows.join("\n")}`);
    }
    assert.ok(!all.includes("\x1b[2J") && !all.includes("\x1b[3J"), "the screen was cleared");
  } finally {
    instance.unmount();
    await s.close();
  }
});

Deno.test("keys typed in the terminal reach the composer and Enter submits", async () => {
  const s = await startUiSession({ script: [{ text: "Pong from the model." }] });
  const app = renderForTest(<ChatApp controller={s.controller} styles={makeStyles(false)} />);
  try {
    await new Promise((r) => setTimeout(r, 20));
    app.stdin.write("ping");
    await new Promise((r) => setTimeout(r, 20));
    assert.match(app.lastFrame() ?? "", /│ › ping/);
    app.stdin.write("\r");
    await s.controller.idle();
    await new Promise((r) => setTimeout(r, 20));
    const frame = app.lastFrame() ?? "";
    assert.match(frame, /› ping/);
    assert.match(frame, /Pong from the model\./);
    assert.match(frame, /fake\/fake-model · ctx/);
    // Leaving drops the composer and status, keeping the scrollback.
    s.controller.exit();
    await new Promise((r) => setTimeout(r, 20));
    assert.doesNotMatch(app.lastFrame() ?? "", /Ask anything/);
  } finally {
    app.unmount();
    app.cleanup();
    await s.close();
  }
});
