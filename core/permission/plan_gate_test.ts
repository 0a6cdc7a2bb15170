/**
 * Plan mode at the permission gate, through the real pipeline (`executeToolCall`) with the
 * real built-in tools, the real `use_capability` proxy and the `exit_plan_mode` capability,
 * on permissions built by `setupPermissions`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { ApprovalBroker, ApprovalChoice, ApprovalRequest } from "../agent/approval.ts";
import type { AgentEvent } from "../agent/events.ts";
import { executeToolCall } from "../agent/tool_exec.ts";
import { exitPlanModeCapability } from "../plan/mod.ts";
import { CapabilityHub, useCapabilityTool } from "../../tools/capability.ts";
import {
  bashTool,
  editFileTool,
  moveFileTool,
  multiEditTool,
  readFileTool,
  writeFileTool,
} from "../../tools/builtin/mod.ts";
import { ToolRegistry } from "../../tools/registry.ts";
import type { Tool } from "../../tools/types.ts";
import { localWorkspace } from "../../tools/workspace/local.ts";
import { setupPermissions } from "./setup.ts";
import type { PresetName } from "./presets.ts";

/** A broker that answers from a script and records what it was asked. */
class ScriptedBroker implements ApprovalBroker {
  readonly asked: ApprovalRequest[] = [];
  constructor(readonly answers: ApprovalChoice[]) {}
  request(req: ApprovalRequest): Promise<ApprovalChoice> {
    this.asked.push(req);
    const answer = this.answers.shift();
    if (!answer) return Promise.resolve("deny");
    return Promise.resolve(answer);
  }
}

/** A stand-in for an MCP tool as the adapter builds it (readOnly from `readOnlyHint`). */
function mcpLike(name: string, readOnly: boolean): Tool {
  return {
    name,
    description: name,
    schema: { type: "object" },
    readOnly,
    access: () => ({ rule: name, readOnly }),
    execute: () => Promise.resolve({ content: `${name} ran` }),
  };
}

async function rig(
  mode: PresetName,
  opts: { broker?: ApprovalBroker; allow?: string[]; deny?: string[]; ask?: string[] } = {},
) {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-plan-gate-" }));
  const ws = join(base, "ws");
  const temp = join(base, "tmp");
  await Deno.mkdir(ws);
  await Deno.mkdir(temp);
  await Deno.writeTextFile(join(ws, "a.txt"), "one\n");
  const perms = await setupPermissions({
    permissions: { mode, allow: opts.allow ?? [], ask: opts.ask ?? [], deny: opts.deny ?? [] },
    sandbox: { allow_write: [], forbid_read: [] },
    workspaceRoot: ws,
    tempDir: temp,
    env: { HOME: join(base, "home"), PATH: Deno.env.get("PATH") },
    broker: opts.broker,
  });
  const hub = new CapabilityHub();
  hub.register(exitPlanModeCapability(perms.gate.plan));
  hub.register({
    id: "mcp:fx:delete_everything",
    description: "destroys",
    schema: { type: "object" },
    readOnly: false,
    destructive: true,
    rule: "mcp__fx__delete_everything",
    invoke: () => Promise.resolve({ content: "deleted everything" }),
  });
  hub.register({
    id: "mcp:fx:echo",
    description: "echo",
    schema: { type: "object" },
    readOnly: true,
    rule: "mcp__fx__echo",
    invoke: () => Promise.resolve({ content: "echoed" }),
  });
  const registry = new ToolRegistry([
    bashTool,
    editFileTool,
    moveFileTool,
    multiEditTool,
    readFileTool,
    writeFileTool,
    useCapabilityTool(hub),
    mcpLike("mcp__fx__pid", false),
    mcpLike("mcp__fx__echo", true),
    mcpLike("remember", true),
  ] as Tool[]);
  const events: AgentEvent[] = [];
  let n = 0;
  return {
    ws,
    perms,
    plan: perms.gate.plan,
    events,
    run: (name: string, args: unknown) =>
      executeToolCall({ id: `c${++n}`, name, arguments: JSON.stringify(args) }, {
        registry,
        context: {
          root: ws,
          tempDir: temp,
          shell: perms.shell,
          settings: { bashTimeoutMs: 20_000 },
          readGuard: perms.readGuard,
          workspace: localWorkspace(),
        },
        signal: AbortSignal.timeout(30_000),
        gate: perms.gate,
        timeoutMs: 30_000,
        onEvent: (e) => events.push(e),
      }),
    dispose: () => Deno.remove(base, { recursive: true }),
  };
}

const PLAN = "## Plan\n\n1. Change `a.txt`.\n2. Run the tests.";

function exitCall(plan: string = PLAN) {
  return { capability: "exit_plan_mode", arguments: { plan } };
}

Deno.test("plan mode refuses every writer at the gate, whatever the preset, and says how to leave", async () => {
  const r = await rig("yolo", { allow: ["Edit", "Write", "Bash", "mcp__fx__pid"] });
  try {
    r.plan.enter();
    const refused: [string, unknown][] = [
      ["write_file", { path: "b.txt", content: "x" }],
      ["edit_file", { path: "a.txt", old_string: "one", new_string: "two" }],
      ["multi_edit", { path: "a.txt", edits: [{ old_string: "one", new_string: "two" }] }],
      ["move_file", { source: "a.txt", destination: "c.txt" }],
      ["remember", { text: "x" }],
      ["mcp__fx__pid", {}],
      ["use_capability", { capability: "mcp:fx:delete_everything", arguments: {} }],
      ["bash", { command: "touch b.txt" }],
      ["bash", { command: "echo x > b.txt" }],
      ["bash", { command: "bash -c 'ls'" }],
      ["bash", { command: "sh -c 'cat a.txt'" }],
      ["bash", { command: "eval ls" }],
      ["bash", { command: "ls | xargs sh -c 'rm $0'" }],
      ["bash", { command: "cat $(echo a.txt)" }],
      ["bash", { command: "find . -delete" }],
      ["bash", { command: "sed -i s/one/two/ a.txt" }],
      ["bash", { command: "git commit -m x" }],
    ];
    for (const [name, args] of refused) {
      const result = await r.run(name, args);
      assert.equal(result.isError, true, `${name} ${JSON.stringify(args)}: ${result.content}`);
      assert.equal(result.code, "permission_denied", name);
      assert.match(result.content, /^Plan mode is on: /, name);
      assert.match(result.content, /exit_plan_mode/);
      assert.match(result.content, /\/plan or Shift\+Tab/);
    }
    assert.equal(await Deno.readTextFile(join(r.ws, "a.txt")), "one\n");
    await assert.rejects(Deno.stat(join(r.ws, "b.txt")));
    const denials = r.events.filter((e) => e.type === "permission" && e.rule === "plan mode");
    assert.equal(denials.length, refused.length);

    // Readers run: files, read-only MCP tools direct and proxied, read-only commands.
    for (
      const [name, args] of [
        ["read_file", { path: "a.txt" }],
        ["mcp__fx__echo", {}],
        ["use_capability", { capability: "mcp:fx:echo", arguments: {} }],
        ["use_capability", {}],
        ["bash", { command: "cat a.txt | wc -l && git status 2>/dev/null; ls" }],
        ["bash", { command: "sed -n '1,2p' a.txt" }],
      ] as [string, unknown][]
    ) {
      const result = await r.run(name, args);
      assert.doesNotMatch(result.content, /Plan mode is on/, `${name}: ${result.content}`);
    }

    // Leaving plan mode lifts the block and the preset is what it was.
    r.plan.exit();
    assert.equal(r.perms.preset.name, "yolo");
    const written = await r.run("write_file", { path: "b.txt", content: "x" });
    assert.equal(written.isError, undefined, written.content);
  } finally {
    await r.dispose();
  }
});

for (const mode of ["ask", "accept-edits", "auto", "yolo"] as const) {
  Deno.test(`a ${mode} preset and allow rules never approve exit_plan_mode: a person is asked`, async () => {
    const broker = new ScriptedBroker(["deny", "once"]);
    const r = await rig(mode, {
      broker,
      allow: ["use_capability", "exit_plan_mode", "mcp__exit_plan_mode"],
    });
    try {
      r.plan.enter();
      const kept = await r.run("use_capability", exitCall());
      assert.equal(broker.asked.length, 1);
      assert.equal(broker.asked[0].kind, "plan");
      assert.equal(broker.asked[0].detail, PLAN);
      assert.equal(kept.code, "permission_denied");
      assert.match(kept.content, /did not approve the plan .* keep planning: plan mode stays on/);
      assert.equal(r.plan.active, true);

      const approved = await r.run("use_capability", exitCall());
      assert.equal(broker.asked.length, 2);
      assert.equal(approved.isError, undefined, approved.content);
      assert.match(approved.content, /^The user approved the plan\. Plan mode is off/);
      assert.deepEqual(approved.meta?.plan, { status: "approved", plan: PLAN });
      assert.equal(r.plan.active, false);
      assert.equal(r.plan.approvedPlan, PLAN);
      assert.equal(r.perms.preset.name, mode);
    } finally {
      await r.dispose();
    }
  });
}

Deno.test("without a broker (headless, subagents) a plan is refused and says a person must approve", async () => {
  const r = await rig("yolo", { allow: ["use_capability", "exit_plan_mode"] });
  try {
    r.plan.enter();
    const result = await r.run("use_capability", exitCall());
    assert.equal(result.code, "permission_denied");
    assert.match(result.content, /^A person must approve the plan/);
    assert.match(result.content, /interactive session/);
    assert.equal(r.plan.active, true);
    // A subagent's gate shares plan mode: writers are refused there too.
    const sub = r.perms.gate.headless();
    assert.equal(sub.plan, r.plan);
  } finally {
    await r.dispose();
  }
});

Deno.test("exit_plan_mode outside plan mode, or without a plan, asks no one", async () => {
  const broker = new ScriptedBroker([]);
  const r = await rig("auto", { broker });
  try {
    const off = await r.run("use_capability", exitCall());
    assert.match(off.content, /Plan mode is not on/);
    r.plan.enter();
    const empty = await r.run("use_capability", exitCall("  "));
    assert.match(empty.content, /needs the plan as Markdown/);
    assert.equal(broker.asked.length, 0);
    // The capability itself refuses a plan no person approved.
    assert.equal(r.plan.takeApproval(PLAN), false);
  } finally {
    await r.dispose();
  }
});

Deno.test("an explicit deny rule refuses exit_plan_mode before anyone is asked", async () => {
  const broker = new ScriptedBroker([]);
  const r = await rig("auto", { broker, deny: ["exit_plan_mode"] });
  try {
    r.plan.enter();
    const result = await r.run("use_capability", exitCall());
    assert.equal(result.code, "permission_denied");
    assert.equal(broker.asked.length, 0);
  } finally {
    await r.dispose();
  }
});

Deno.test("the approved plan's window runs its edits and plain commands, never a further plan or nested bash", async () => {
  // ask preset: outside the window each of these would ask.
  const broker = new ScriptedBroker(["once", "deny", "deny", "deny", "deny", "once"]);
  const r = await rig("ask", { broker });
  try {
    r.plan.enter();
    const approved = await r.run("use_capability", exitCall());
    assert.match(approved.content, /approved/);
    assert.equal(broker.asked.length, 1);

    const edit = await r.run("edit_file", { path: "a.txt", old_string: "one", new_string: "two" });
    assert.equal(edit.isError, undefined, edit.content);
    const plain = await r.run("bash", { command: "echo ran > out.txt && cat out.txt" });
    assert.equal(broker.asked.length, 1, "the window answered the edit and the plain command");
    assert.match(plain.content, /ran/);
    assert.ok(
      r.events.some((e) => e.type === "permission" && e.rule === "approved plan"),
    );

    // Nested or indirect commands still ask (and are denied here).
    for (
      const command of [
        "bash -c 'echo x'",
        "sh -c 'echo x'",
        "eval echo x",
        "ls | xargs sh -c 'echo $0'",
      ]
    ) {
      const before: number = broker.asked.length;
      const result = await r.run("bash", { command });
      assert.equal(broker.asked.length, before + 1, command);
      assert.equal(broker.asked.at(-1)!.kind, "tool", command);
      assert.equal(result.code, "permission_denied", command);
    }

    // A further plan in the window asks again.
    const again = await r.run("use_capability", exitCall("## Revised\n\n1. More."));
    assert.equal(broker.asked.length, 6);
    assert.equal(broker.asked.at(-1)!.kind, "plan");
    assert.match(again.content, /approved/);

    // The window ends with the next user turn.
    r.plan.turnBlock();
    assert.equal(r.plan.windowOpen, false);
    const later = await r.run("edit_file", {
      path: "a.txt",
      old_string: "two",
      new_string: "three",
    });
    assert.equal(broker.asked.length, 7, "outside the window the edit asks");
    assert.equal(later.code, "permission_denied");
  } finally {
    await r.dispose();
  }
});

Deno.test("the approved plan's window never answers an ask rule the user wrote", async () => {
  const broker = new ScriptedBroker(["once", "deny"]);
  const r = await rig("auto", { broker, ask: ["Edit"] });
  try {
    r.plan.enter();
    await r.run("use_capability", exitCall());
    assert.equal(r.plan.windowOpen, true);
    const edit = await r.run("edit_file", { path: "a.txt", old_string: "one", new_string: "two" });
    assert.equal(broker.asked.length, 2);
    assert.equal(broker.asked[1].kind, "tool");
    assert.equal(edit.code, "permission_denied");
    assert.equal(await Deno.readTextFile(join(r.ws, "a.txt")), "one\n");
  } finally {
    await r.dispose();
  }
});
