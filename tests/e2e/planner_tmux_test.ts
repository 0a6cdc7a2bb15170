/**
 * End to end: the planner route's approval overlay in the real interactive program, in tmux.
 * An Anthropic-format planner and an OpenAI-format executor share one fake server (each
 * speaks its own wire format). `/plan-approve` runs the planner, its `submit_plan` shows as a
 * rendered plan in the overlay, and approving hands it to the executor, whose request carries
 * the plan and none of the planner's research.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeLlm } from "../fake_llm/mod.ts";
import type { FakeStep, RecordedRequest } from "../fake_llm/mod.ts";
import { interactiveArgv, makeRepo } from "./support.ts";
import { TmuxSession } from "./tmux.ts";

const PLAN = {
  title: "Create b.txt",
  summary: "Write **b.txt** with one line.",
  steps: [{ title: "Write b.txt" }],
  candidates: [{ path: "b.txt" }],
};

function script(req: RecordedRequest): FakeStep {
  if (req.path.endsWith("/messages")) {
    const messages = (req.body as { messages: { content: unknown }[] }).messages;
    return messages.length === 1
      ? { toolCalls: [{ name: "ls", arguments: "{}" }] }
      : { toolCalls: [{ name: "submit_plan", arguments: JSON.stringify(PLAN) }] };
  }
  const last = (req.body as { messages: { role: string; content: string }[] }).messages.at(-1)!;
  if (last.role === "user") {
    return { toolCalls: [{ name: "write_file", arguments: '{"path":"b.txt","content":"b\\n"}' }] };
  }
  return { text: "Finished the plan." };
}

Deno.test({
  name: "tmux: /plan-approve shows the planner's plan in the overlay; approving executes it",
  ignore: !(await TmuxSession.available()),
  async fn() {
    const fake = await startFakeLlm({ script });
    const repo = await makeRepo({ "a.txt": "a\n" });
    const home = await Deno.makeTempDir({ prefix: "reasonix-e2e-home-" });
    await Deno.writeTextFile(
      join(home, "config.toml"),
      `default_model = "exec/exec-model"
[agent]
planner_model = "plan/plan-model"
[permissions]
mode = "accept-edits"
[[providers]]
name = "exec"
kind = "openai"
base_url = "${fake.url}"
models = ["exec-model"]
api_key_env = "REASONIX_E2E_KEY"
context_window = 128000
[[providers]]
name = "plan"
kind = "anthropic"
base_url = "${fake.url}"
models = ["plan-model"]
api_key_env = "REASONIX_E2E_KEY"
context_window = 128000
`,
    );
    const argv = interactiveArgv(home);
    const tmux = await TmuxSession.start(argv, { cwd: repo, width: 110, height: 40 });
    try {
      await tmux.waitFor("Ask anything", 60_000);
      await tmux.type("/plan-approve create b.txt");
      await tmux.keys("Enter");
      const screen = await tmux.waitFor("Approve this plan?");
      assert.match(screen, /Planner: plan approve/);
      assert.match(screen, /Create b\.txt/);
      assert.match(screen, /Candidate touch points/);
      await assert.rejects(Deno.stat(join(repo, "b.txt")), "nothing written before approval");
      await tmux.keys("1");
      await tmux.waitFor("Finished the plan.");
      assert.equal(await Deno.readTextFile(join(repo, "b.txt")), "b\n");
      const executor = fake.requests.filter((r) => r.path.endsWith("/chat/completions"));
      const sent = JSON.stringify((executor[0].body as { messages: unknown[] }).messages);
      assert.match(sent, /<plan id=\\"plan-/);
      assert.doesNotMatch(sent, /submit_plan|\.git\//, "none of the planner's research");
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
