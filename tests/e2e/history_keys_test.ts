/**
 * End to end in a real terminal (tmux): ↑/↓ walk the prompt history past `/mcp…` entries
 * while an MCP server offers prompts, and the completion menu only opens when the user types.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeLlm } from "../fake_llm/mod.ts";
import { fixtureServerToml } from "../mcp/servers.ts";
import { interactiveArgv, makeHome, makeRepo } from "./support.ts";
import { TmuxSession } from "./tmux.ts";

const MCP_SERVER = fixtureServerToml();

Deno.test({
  name: "↑/↓ reach every history entry past /mcp entries while MCP prompts exist",
  ignore: !(await TmuxSession.available()),
  fn: async () => {
    const fake = await startFakeLlm({ script: () => ({ text: "ok" }) });
    const repo = await makeRepo({});
    const home = await makeHome(fake.url, MCP_SERVER);
    const entries = ["first entry", "/mcp", "/mcp__fx__greet Bob", "last entry"];
    await Deno.writeTextFile(
      join(home, "prompt_history.jsonl"),
      entries.map((e) => `${JSON.stringify(e)}\n`).join(""),
    );
    const argv = interactiveArgv(home);
    const tmux = await TmuxSession.start(argv, { cwd: repo, width: 80, height: 24 });
    const composer = async () => /│ › (.*?)\s*│/.exec(await tmux.capture(0))?.[1] ?? "";
    try {
      await tmux.waitFor("Ask anything", 60_000);
      // Typing opens the menu; the server's prompts are in it once it is connected.
      await tmux.type("/mcp_");
      await tmux.waitFor("/mcp__fx__p2", 30_000);
      await tmux.keys("Escape", "C-u");
      await tmux.waitFor("Ask anything");

      const walk: string[] = [];
      for (const key of ["Up", "Up", "Up", "Up", "Down", "Down", "Down", "Down"]) {
        await tmux.keys(key);
        await new Promise((r) => setTimeout(r, 250));
        const screen = await tmux.capture(0);
        assert.doesNotMatch(screen, /\/mcp__fx__p2/, `a menu opened:\n${screen}`);
        walk.push((await composer()).replace(/Ask anything.*/, "").trim());
      }
      assert.deepEqual(walk, [
        "last entry",
        "/mcp__fx__greet Bob",
        "/mcp",
        "first entry",
        "/mcp",
        "/mcp__fx__greet Bob",
        "last entry",
        "",
      ]);
      await tmux.keys("C-d");
      await tmux.waitFor("[exit 0]");
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
