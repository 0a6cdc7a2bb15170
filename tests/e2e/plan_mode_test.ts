/**
 * End to end: plan mode in the real interactive program (`deno task reasonix`) in a tmux
 * terminal against the fake LLM server. `/plan` (or Shift+Tab) turns it on, the model's write
 * is refused, its `exit_plan_mode` shows the plan in the approval overlay, and once approved
 * the write goes ahead in the same turn. In the `auto` preset the plan still needs the overlay.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeLlm } from "../fake_llm/mod.ts";
import type { FakeStep, RecordedRequest } from "../fake_llm/mod.ts";
import { interactiveArgv, makeHome, makeRepo } from "./support.ts";
import { TmuxSession } from "./tmux.ts";

const PLAN = "## Plan for b.txt\n\n1. Create **b.txt** with one line.\n2. Say what was done.";

function lastMessage(req: RecordedRequest): { role: string; content: string } {
  return (req.body as { messages: { role: string; content: string }[] }).messages.at(-1)!;
}

const WRITE = { name: "write_file", arguments: JSON.stringify({ path: "b.txt", content: "b\n" }) };
const EXIT = {
  name: "use_capability",
  arguments: JSON.stringify({ capability: "exit_plan_mode", arguments: { plan: PLAN } }),
};

/** Writes, hands the plan in when refused (again when kept planning), writes once approved. */
function script(req: RecordedRequest): FakeStep {
  const last = lastMessage(req);
  if (last.role === "user") return { toolCalls: [WRITE] };
  if (last.content.startsWith("Plan mode is on")) return { toolCalls: [EXIT] };
  if (last.content.startsWith("The user did not approve")) return { toolCalls: [EXIT] };
  if (last.content.startsWith("The user approved")) return { toolCalls: [WRITE] };
  return { text: `Finished: ${last.content.split("\n")[0]}` };
}

async function session(args: string[], body: (tmux: TmuxSession, repo: string) => Promise<void>) {
  const fake = await startFakeLlm({ script });
  const repo = await makeRepo({ "a.txt": "a\n" });
  const home = await makeHome(fake.url);
  const argv = interactiveArgv(home, args);
  const tmux = await TmuxSession.start(argv, { cwd: repo, width: 110, height: 40 });
  try {
    await tmux.waitFor("Ask anything", 60_000);
    await body(tmux, repo);
    // Every request of the session carried the same system prompt and tools.
    const heads = fake.requests.map((r) => {
      const { messages: _m, max_tokens: _t, ...rest } = r.body as Record<string, unknown>;
      return JSON.stringify(rest);
    });
    assert.ok(heads.every((h) => h === heads[0]), "the prefix changed");
    await tmux.keys("C-d");
    await tmux.waitFor("[exit 0]");
  } catch (error) {
    throw new Error(
      `${(error as Error).message}\n--- final screen ---\n${await tmux.capture()}`,
      { cause: error },
    );
  } finally {
    await tmux.kill();
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
}

Deno.test({
  name: "tmux: /plan refuses the write, the overlay shows the plan, approving runs the write",
  ignore: !(await TmuxSession.available()),
  fn: () =>
    session([], async (tmux, repo) => {
      await tmux.type("/plan");
      await tmux.keys("Enter");
      await tmux.waitFor(/· ask · plan\s*$/m);
      await tmux.waitFor("Plan mode: on");

      await tmux.type("create b.txt");
      await tmux.keys("Enter");
      const screen = await tmux.waitFor("Approve this plan?");
      assert.match(screen, /Plan mode is on: write_file was not run/);
      // The plan rendered as Markdown: the heading and bold without their markers.
      assert.match(screen, /Plan for b\.txt/);
      assert.match(screen, /1\. Create b\.txt with one line\./);
      assert.doesNotMatch(screen, /## Plan|\*\*b\.txt\*\*/);
      assert.match(screen, /› 1\. Approve the plan and start/);
      assert.match(screen, /2\. Keep planning/);
      await assert.rejects(Deno.stat(join(repo, "b.txt")), "nothing written while planning");

      await tmux.keys("1");
      await tmux.waitFor("Finished: ");
      assert.equal(await Deno.readTextFile(join(repo, "b.txt")), "b\n");
      await tmux.waitFor(/· ask\s*$/m);
    }),
});

Deno.test({
  name: "tmux: in the auto preset exit_plan_mode still shows the overlay; Esc keeps planning",
  ignore: !(await TmuxSession.available()),
  fn: () =>
    session(["--permission-mode", "auto"], async (tmux, repo) => {
      await tmux.waitFor(/· auto\s*$/m);
      // Shift+Tab from auto enters plan mode and keeps the preset.
      await tmux.keys("BTab");
      await tmux.waitFor(/· auto · plan\s*$/m);

      await tmux.type("create b.txt");
      await tmux.keys("Enter");
      await tmux.waitFor("Approve this plan?");
      await tmux.keys("Escape");
      // The model hands the plan in again: asked again, never answered by the preset.
      await tmux.waitFor("✗ Denied: Approve this plan");
      await tmux.waitFor("The user did not approve the plan");
      // The second hand-in shows its own overlay below the first one's result.
      await tmux.waitFor(/did not approve the plan[\s\S]*Approve this plan\?/);
      await assert.rejects(Deno.stat(join(repo, "b.txt")));
      await tmux.keys("Enter");
      await tmux.waitFor("Finished: ");
      assert.equal(await Deno.readTextFile(join(repo, "b.txt")), "b\n");
      await tmux.waitFor(/· auto\s*$/m);
    }),
});
