/**
 * Golden snapshots of what the model sees: the system prompt, the tool schemas and the first
 * request body. A change here changes every user's prompt-cache prefix, so it must be
 * deliberate: regenerate with `UPDATE_GOLDEN=1 deno task test tests/golden/`.
 */
import assert from "node:assert/strict";
import { SYSTEM_PROMPT } from "../../core/agent/system_prompt.ts";
import { decorateUserTurn } from "../../core/agent/system_prompt.ts";
import { buildRequestBody } from "../../providers/openai/request.ts";
import { buildMessagesBody } from "../../providers/anthropic/request.ts";
import { openTestAgent } from "../support/host_agent.ts";
import { PLANNER_PROMPT, submitPlanTool } from "../../core/coordinator/mod.ts";

const DIR = new URL("./snapshots/", import.meta.url);
const UPDATE = Deno.env.get("UPDATE_GOLDEN") === "1";

async function golden(name: string, actual: string): Promise<void> {
  const file = new URL(name, DIR);
  if (UPDATE) {
    await Deno.mkdir(DIR, { recursive: true });
    await Deno.writeTextFile(file, actual);
    return;
  }
  let expected: string;
  try {
    expected = await Deno.readTextFile(file);
  } catch {
    throw new Error(`missing snapshot ${name}; run UPDATE_GOLDEN=1 deno task test tests/golden/`);
  }
  assert.equal(
    actual,
    expected,
    `${name} changed: this moves every cached prompt prefix. If intended, run ` +
      "UPDATE_GOLDEN=1 deno task test tests/golden/ and commit the snapshot.",
  );
}

/** The tool registry a real run offers, built the way the CLI builds it. */
async function offeredRegistry() {
  const home = await Deno.makeTempDir();
  const cwd = await Deno.makeTempDir();
  try {
    const runtime = await openTestAgent({
      cwd,
      env: { REASONIX_HOME: home, DEEPSEEK_API_KEY: "sk-golden" },
    });
    await runtime.dispose();
    return runtime.agent.registry;
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(cwd, { recursive: true });
  }
}

const registry = await offeredRegistry();

Deno.test("the system prompt bytes are pinned", async () => {
  await golden("system_prompt.txt", SYSTEM_PROMPT);
});

Deno.test("the tool schemas are pinned, canonical and sorted by name", async () => {
  const schemas = registry.schemas();
  assert.deepEqual(schemas.map((s) => s.name), [...schemas.map((s) => s.name)].sort());
  await golden("tools.json", JSON.stringify(schemas, null, 2) + "\n");
});

Deno.test("the first request body is pinned and stays under 32 KiB", async () => {
  const user = decorateUserTurn("fix the failing test", [], {
    workspaceRoot: "/home/user/project",
    platform: "linux x86_64",
    date: "2026-11-30",
    isGitRepo: true,
  });
  const body = buildRequestBody({
    model: "deepseek-v4-flash",
    system: SYSTEM_PROMPT,
    messages: [{ role: "user", content: user }],
    tools: registry.schemas(),
  });
  assert.ok(
    new TextEncoder().encode(body).length <= 32 * 1024,
    `first request is ${body.length} bytes`,
  );
  await golden("first_request.json", body + "\n");
});

Deno.test("the first Anthropic-format request body (the default wire format) is pinned", async () => {
  const user = decorateUserTurn("fix the failing test", [], {
    workspaceRoot: "/home/user/project",
    platform: "linux x86_64",
    date: "2026-11-30",
    isGitRepo: true,
  });
  // Official DeepSeek's automatic budget, which the Anthropic layer must send.
  const body = buildMessagesBody({
    model: "deepseek-v4-flash",
    system: SYSTEM_PROMPT,
    messages: [{ role: "user", content: user }],
    tools: registry.schemas(),
  }, { maxTokens: 393216 });
  assert.ok(
    new TextEncoder().encode(body).length <= 32 * 1024,
    `first request is ${body.length} bytes`,
  );
  await golden("first_request_anthropic.json", body + "\n");
});

Deno.test("the planner's prompt and its delivery tool are pinned", async () => {
  const submit = submitPlanTool();
  await golden("planner_prompt.txt", PLANNER_PROMPT);
  await golden(
    "submit_plan.json",
    JSON.stringify(
      { name: submit.name, description: submit.description, schema: submit.schema },
      null,
      2,
    ) +
      "\n",
  );
});
