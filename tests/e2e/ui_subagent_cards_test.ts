/**
 * End to end in a real terminal (tmux): the parent calls `task` with two children, each shows
 * as a closed card with its spend; Ctrl-T opens one, which lists the child's own tool calls
 * with ✓ and ✗; the finished task card keeps one line per child with its cost.
 */
import assert from "node:assert/strict";
import { startFakeLlm } from "../fake_llm/mod.ts";
import type { FakeStep, RecordedRequest } from "../fake_llm/mod.ts";
import { interactiveArgv, makeHome, makeRepo } from "./support.ts";
import { TmuxSession } from "./tmux.ts";

interface Msg {
  role: string;
  content: string | null;
}

function messages(req: RecordedRequest): Msg[] {
  return (req.body as { messages: Msg[] }).messages;
}

Deno.test({
  name: "tmux: a running task's children are cards; Ctrl-T opens one with its tools and cost",
  ignore: !(await TmuxSession.available()),
  async fn() {
    let release = false;
    const script = (req: RecordedRequest): FakeStep => {
      const all = messages(req);
      const system = all.find((m) => m.role === "system")?.content ?? "";
      if (!/subagent/.test(system)) {
        return all.at(-1)!.role === "tool" ? { text: "Both children reported back." } : {
          toolCalls: [{
            name: "task",
            arguments: JSON.stringify({
              tasks: [
                { prompt: "alpha: read a.txt", read_only: true },
                { prompt: "beta: read b.txt", read_only: true },
              ],
            }),
          }],
        };
      }
      const alpha = all.some((m) => m.role === "user" && m.content?.includes("alpha:"));
      const tools = all.filter((m) => m.role === "tool").length;
      if (tools === 0) {
        const path = alpha ? "a.txt" : "b.txt";
        return { toolCalls: [{ name: "read_file", arguments: JSON.stringify({ path }) }] };
      }
      if (tools === 1 && alpha) {
        return { toolCalls: [{ name: "read_file", arguments: '{"path":"nope.txt"}' }] };
      }
      // The children keep working until the test has looked at their cards.
      if (!release) return { toolCalls: [{ name: "ls", arguments: "{}" }], delayMs: 50 };
      return { text: alpha ? "alpha done" : "beta done" };
    };
    const fake = await startFakeLlm({ script });
    const repo = await makeRepo({ "a.txt": "a\n", "b.txt": "b\n" });
    const home = await makeHome(
      fake.url,
      'price = { cache_hit = 0.1, input = 1, output = 2, currency = "USD" }\n',
    );
    const tmux = await TmuxSession.start(interactiveArgv(home), {
      cwd: repo,
      width: 100,
      height: 30,
    });
    try {
      await tmux.waitFor("Ask anything", 60_000);
      await tmux.type("look at both files");
      await tmux.keys("Enter");
      // Two closed cards, each with its own spend, and the key in the activity line.
      let screen = await tmux.waitFor(/(▸ .* tok · \$\d[^\n]*\n[^\n]*){2}/, 30_000);
      assert.match(screen, /ctrl-t cards/);
      assert.doesNotMatch(screen, /▾/);
      await tmux.keys("C-t");
      // The open card lists the child's calls with ✓ and ✗ (alpha's second read fails), and
      // follows them as they come.
      screen = await tmux.waitFor(
        /▾ \S+ · [^\n]*\n {6}[✓✗] read_file\n(?: {6}[^\n]*\n)*? {6}[✓◐] ls\n/,
      );
      assert.equal(screen.match(/▾/g)?.length, 1, screen);
      await tmux.keys("C-t");
      screen = await tmux.waitFor(/▸[^\n]*\n(?:[^\n]*\n)*?[^\n]*▾/);
      await tmux.keys("C-t");
      screen = await tmux.waitFor(/▾[\s\S]*▾/);
      assert.match(screen, /✗ read_file/, "alpha's failed read is on its open card");
      release = true;
      screen = await tmux.waitFor("Both children reported back.", 30_000);
      // The finished card: one line per child with its tools, tokens and cost.
      const summary = screen.split("\n").filter((l) =>
        /^ {2}(↳ [0-9a-f]{8}|✓ \S+) · .* tok · \$\d\.\d{4}/.test(l)
      );
      assert.equal(summary.length, 2, screen);
      await tmux.waitFor("Ask anything");
    } finally {
      await tmux.kill();
      await fake.close();
      await Deno.remove(repo, { recursive: true });
      await Deno.remove(home, { recursive: true });
    }
  },
});
