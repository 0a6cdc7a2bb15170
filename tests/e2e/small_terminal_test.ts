/**
 * End to end in small real terminals (tmux): while an answer streams and the `/` menu is open,
 * the redrawn part of the screen stays shorter than the terminal, so redraws never push copies
 * of it into the scrollback. Counts status lines in the scrollback at 60×16 and 30×12.
 */
import assert from "node:assert/strict";
import { startFakeLlm } from "../fake_llm/mod.ts";
import { interactiveArgv, makeHome, makeRepo } from "./support.ts";
import { TmuxSession } from "./tmux.ts";

/** A long answer of short paragraphs, streamed slowly: the live tail wants every row. */
const STORY = Array.from({ length: 400 }, (_, i) => `para ${i}`).join("\n\n");

async function tmuxText(session: TmuxSession, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("tmux", {
    args: ["-u", "-L", session.socket, "-f", "/dev/null", ...args],
    env: { LANG: "C.UTF-8", LC_ALL: "C.UTF-8" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout);
}

/** Status lines: they start with the model; the banner's line goes on with the workspace. */
function statusLines(text: string): string[] {
  return text.split("\n").filter((l) => /^fake\/fake-model(?! · \/)/.test(l));
}

for (const [width, height] of [[60, 16], [30, 12]] as const) {
  Deno.test({
    name: `a ${width}×${height} terminal keeps one status line while a menu is open mid-stream`,
    ignore: !(await TmuxSession.available()),
    fn: async () => {
      const fake = await startFakeLlm({
        script: () => ({ text: STORY, chunkBytes: 12, delayMs: 15 }),
      });
      const repo = await makeRepo({});
      const home = await makeHome(fake.url);
      const argv = interactiveArgv(home);
      const tmux = await TmuxSession.start(argv, { cwd: repo, width, height });
      try {
        await tmux.waitFor("Ask anything", 60_000);
        await tmux.type("tell me a long story");
        await tmux.keys("Enter");
        await tmux.waitFor(/para \d+/);
        // The menu opens under the composer while the answer keeps streaming.
        await tmux.type("/");
        await tmux.waitFor("/help");
        const screens: string[] = [];
        for (let i = 0; i < 15; i++) {
          await new Promise((r) => setTimeout(r, 200));
          screens.push(await tmux.capture(0));
        }
        const history = await tmuxText(
          tmux,
          "capture-pane",
          "-p",
          "-t",
          tmux.name,
          "-S",
          "-5000",
          "-E",
          "-1",
        );
        const visible = await tmux.capture(0);
        assert.ok(fake.requests.length === 1, "the answer was still streaming");
        assert.match(visible, /\/help/, "the menu is still open");
        for (const screen of [...screens, visible]) {
          assert.ok(statusLines(screen).length <= 1, `more than one status line:\n${screen}`);
        }
        assert.deepEqual(
          statusLines(history),
          [],
          `status lines in the scrollback:\n${history.split("\n").slice(-40).join("\n")}`,
        );
        await tmux.keys("Escape");
        await tmux.keys("C-c");
        await tmux.waitFor("Cancelled", 30_000);
      } catch (error) {
        throw new Error(
          `${(error as Error).message}\n--- final screen ---\n${await tmux.capture()}`,
          {
            cause: error,
          },
        );
      } finally {
        await tmux.kill();
        await fake.close();
        await Deno.remove(repo, { recursive: true });
        await Deno.remove(home, { recursive: true });
      }
    },
  });
}
