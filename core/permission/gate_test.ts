import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type ApprovalBroker,
  type ApprovalChoice,
  type ApprovalRequest,
  StreamApprovals,
} from "../agent/approval.ts";
import type { AgentEvent } from "../agent/events.ts";
import type { Tool, ToolAccess } from "../../tools/types.ts";
import { WriteScope } from "./confine.ts";
import { PermissionGate } from "./gate.ts";
import { Policy } from "./policy.ts";
import { findPreset, type PresetName } from "./presets.ts";
import { parseRule } from "./rules.ts";

/** A broker that answers from a script and records what it was asked. */
class ScriptedBroker implements ApprovalBroker {
  readonly asked: ApprovalRequest[] = [];
  constructor(readonly answers: ApprovalChoice[]) {}
  request(req: ApprovalRequest): Promise<ApprovalChoice> {
    this.asked.push(req);
    const answer = this.answers.shift();
    if (!answer) throw new Error(`unexpected approval request: ${req.summary}`);
    return Promise.resolve(answer);
  }
}

function tool(name: string, readOnly: boolean): Tool {
  return {
    name,
    description: name,
    schema: { type: "object" },
    readOnly,
    execute: () => Promise.resolve({ content: "ran" }),
  };
}
const BASH = tool("bash", false);
const EDIT = tool("edit_file", false);
const GREP = tool("grep", true);

interface Setup {
  base: string;
  ws: string;
  out: string;
  gate: PermissionGate;
  scope: WriteScope;
  events: AgentEvent[];
  check(t: Tool, access: ToolAccess): Promise<{ allow: boolean; reason?: string }>;
}

async function setup(
  mode: PresetName,
  opts: { broker?: ApprovalBroker; allow?: string[]; deny?: string[]; forbid?: string[] } = {},
): Promise<Setup> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-gate-" }));
  const ws = join(base, "ws");
  const out = join(base, "outside");
  await Deno.mkdir(join(ws, "src"), { recursive: true });
  await Deno.mkdir(out);
  await Deno.symlink(out, join(ws, "link"));
  const scope = new WriteScope([ws], (opts.forbid ?? []).map((f) => join(base, f)));
  const preset = findPreset(mode)!;
  const gate = new PermissionGate({
    policy: new Policy({
      preset,
      rules: {
        allow: (opts.allow ?? []).map((r) => parseRule(r)),
        ask: [],
        deny: (opts.deny ?? []).map((r) => parseRule(r)),
      },
      workspaceRoot: ws,
      shellSandbox: true,
    }),
    scope,
    workspaceRoot: ws,
    shellSandboxed: preset.sandbox !== "none",
    broker: opts.broker,
  });
  const events: AgentEvent[] = [];
  let n = 0;
  return {
    base,
    ws,
    out,
    gate,
    scope,
    events,
    check: (t, access) =>
      gate.check({
        tool: t,
        args: {},
        access: access,
        signal: new AbortController().signal,
        callId: `call_${++n}`,
        emit: (e) => events.push(e),
      }),
  };
}

function permissions(events: AgentEvent[]) {
  return events.filter((e) => e.type === "permission") as Extract<
    AgentEvent,
    { type: "permission" }
  >[];
}

Deno.test("headless ask fails closed and names the flag or rule that would allow it", async () => {
  const s = await setup("ask");
  try {
    const bash = await s.check(BASH, { rule: "Bash", command: "npm test -- --watch=false" });
    assert.equal(bash.allow, false);
    assert.match(bash.reason!, /--allow "Bash\(npm test:\*\)"/);
    assert.match(bash.reason!, /--permission-mode auto/);
    const edit = await s.check(EDIT, { rule: "Edit", writes: ["src/a.ts"] });
    assert.match(edit.reason!, /--allow "Edit\(src\/\*\*\)"/);
    assert.match(edit.reason!, /--permission-mode accept-edits/);
    const compound = await s.check(BASH, { rule: "Bash", command: "git status && rm x" });
    assert.match(compound.reason!, /--allow "Bash\(git status:\*\)" --allow "Bash\(rm:\*\)"/);
    assert.deepEqual(
      permissions(s.events).map((e) => [e.tool, e.decision, e.allowed, e.preset, e.rule]),
      [
        ["bash", "ask", false, "ask", "ask mode"],
        ["edit_file", "ask", false, "ask", "ask mode"],
        ["bash", "ask", false, "ask", "ask mode"],
      ],
    );
  } finally {
    await Deno.remove(s.base, { recursive: true });
  }
});

Deno.test("every decision is an event of the call, readers included", async () => {
  const s = await setup("ask", { allow: ["Bash(git status:*)"] });
  try {
    assert.equal((await s.check(GREP, { rule: "Grep", reads: ["."] })).allow, true);
    assert.equal((await s.check(BASH, { rule: "Bash", command: "git status" })).allow, true);
    await s.check(GREP, { rule: "Grep", reads: ["src"] });
    assert.deepEqual(
      permissions(s.events).map((e) => [e.decision, e.allowed, e.rule]),
      [["allow", true, "read-only tool"], ["allow", true, "Bash(git status:*)"], [
        "allow",
        true,
        "read-only tool",
      ]],
    );
  } finally {
    await Deno.remove(s.base, { recursive: true });
  }
});

Deno.test("deny rules refuse with the rule named, even in yolo", async () => {
  const s = await setup("yolo", { deny: ["Bash(git push:*)"] });
  try {
    const r = await s.check(BASH, { rule: "Bash", command: "git add . && git push --force" });
    assert.equal(r.allow, false);
    assert.match(r.reason!, /deny rule "Bash\(git push:\*\)"/);
    assert.equal(permissions(s.events)[0].decision, "deny");
  } finally {
    await Deno.remove(s.base, { recursive: true });
  }
});

Deno.test("allow once asks again; allow for the session binds to the exact command", async () => {
  const broker = new ScriptedBroker(["once", "session", "deny"]);
  const s = await setup("ask", { broker });
  try {
    assert.equal((await s.check(BASH, { rule: "Bash", command: "npm test" })).allow, true);
    assert.equal((await s.check(BASH, { rule: "Bash", command: "npm test" })).allow, true);
    assert.equal((await s.check(BASH, { rule: "Bash", command: " npm test " })).allow, true);
    const other = await s.check(BASH, { rule: "Bash", command: "npm test; rm x" });
    assert.equal(other.allow, false);
    assert.match(other.reason!, /The user denied/);
    assert.equal(broker.asked.length, 3);
    assert.equal(broker.asked[1].sessionScope, "this exact command: npm test");
    assert.equal(permissions(s.events)[2].rule, "session grant: command npm test");
    const kinds = s.events.map((e) => e.type);
    assert.deepEqual(kinds.slice(0, 3), ["approval_request", "approval_answer", "permission"]);
  } finally {
    await Deno.remove(s.base, { recursive: true });
  }
});

Deno.test("an edit approved for the session covers its directory only", async () => {
  const broker = new ScriptedBroker(["session", "once"]);
  const s = await setup("ask", { broker });
  try {
    await Deno.writeTextFile(join(s.ws, "reasonix.toml"), "# project\n");
    assert.equal((await s.check(EDIT, { rule: "Edit", writes: ["src/a.ts"] })).allow, true);
    assert.equal((await s.check(EDIT, { rule: "Edit", writes: ["src/deep/b.ts"] })).allow, true);
    assert.equal((await s.check(EDIT, { rule: "Edit", writes: ["README.md"] })).allow, true);
    assert.equal(broker.asked.length, 2);
    assert.equal(broker.asked[0].sessionScope, "edits under src");
    // Session grants live in memory: the project config is untouched.
    assert.equal(await Deno.readTextFile(join(s.ws, "reasonix.toml")), "# project\n");
  } finally {
    await Deno.remove(s.base, { recursive: true });
  }
});

Deno.test("writes outside the roots ask to extend the write scope; headless fails closed", async () => {
  const s = await setup("accept-edits");
  try {
    for (const path of ["../outside/a", "link/b", "/proc/self/root" + "/etc/hostname"]) {
      const r = await s.check(EDIT, { rule: "Edit", writes: [path] });
      assert.equal(r.allow, false, path);
      if (path.startsWith("/proc/") && /cannot resolve the paths/.test(r.reason!)) continue;
      assert.match(r.reason!, /outside the writable roots/, path);
      assert.match(r.reason!, /\[sandbox\]\.allow_write/, path);
    }
    assert.equal((await s.check(EDIT, { rule: "Edit", writes: ["src/ok.ts"] })).allow, true);
  } finally {
    await Deno.remove(s.base, { recursive: true });
  }
});

Deno.test("a write-scope grant for the session makes the directory writable", async () => {
  const broker = new ScriptedBroker(["session"]);
  const s = await setup("accept-edits", { broker });
  try {
    assert.equal((await s.check(EDIT, { rule: "Edit", writes: ["../outside/a"] })).allow, true);
    assert.equal(broker.asked[0].kind, "write_scope");
    assert.ok(s.scope.allowsWrite(join(s.out, "b")));
    assert.equal((await s.check(EDIT, { rule: "Edit", writes: ["link/c"] })).allow, true);
    assert.equal(broker.asked.length, 1);
  } finally {
    await Deno.remove(s.base, { recursive: true });
  }
});

Deno.test("bash additional_write_dirs go through approval and become one-time grants", async () => {
  const broker = new ScriptedBroker(["once"]);
  const s = await setup("auto", { broker });
  try {
    const cache = join(s.base, "cache");
    const r = await s.check(BASH, {
      rule: "Bash",
      command: "make",
      extraWriteDirs: { dirs: [cache], justification: "build cache" },
    });
    assert.equal(r.allow, true);
    assert.match(broker.asked[0].detail!, /Justification: build cache/);
    assert.ok(s.scope.takeOnce(cache));
    const headless = await setup("auto");
    try {
      const refused = await headless.check(BASH, {
        rule: "Bash",
        command: "make",
        extraWriteDirs: { dirs: [cache], justification: "build cache" },
      });
      assert.equal(refused.allow, false);
      assert.match(refused.reason!, /allow_write/);
    } finally {
      await Deno.remove(headless.base, { recursive: true });
    }
  } finally {
    await Deno.remove(s.base, { recursive: true });
  }
});

Deno.test("read-only mode refuses writers, commands and additional write dirs", async () => {
  const s = await setup("read-only", { allow: ["Edit"] });
  try {
    const edit = await s.check(EDIT, { rule: "Edit", writes: ["src/a.ts"] });
    assert.match(edit.reason!, /read-only permission mode never runs writers/);
    const bash = await s.check(BASH, {
      rule: "Bash",
      command: "ls",
      extraWriteDirs: { dirs: ["/tmp/x"], justification: "x" },
    });
    assert.equal(bash.allow, false);
    const plain = await s.check(BASH, { rule: "Bash", command: "ls" });
    assert.equal(plain.allow, false);
    assert.match(plain.reason!, /runs no commands/);
  } finally {
    await Deno.remove(s.base, { recursive: true });
  }
});

Deno.test("forbid_read blocks reads of the path and searches of a parent", async () => {
  const s = await setup("yolo", { forbid: ["ws/secrets"] });
  try {
    await Deno.mkdir(join(s.ws, "secrets"));
    const read = await s.check(tool("read_file", true), { rule: "Read", reads: ["secrets/key"] });
    assert.equal(read.allow, false);
    assert.match(read.reason!, /forbid_read/);
    assert.equal((await s.check(GREP, { rule: "Grep", reads: ["."] })).allow, false);
    assert.equal((await s.check(GREP, { rule: "Grep", reads: ["src"] })).allow, true);
    assert.equal(
      (await s.check(tool("read_file", true), { rule: "Read", reads: ["src/a"] })).allow,
      true,
    );
  } finally {
    await Deno.remove(s.base, { recursive: true });
  }
});

Deno.test("a headless copy keeps the session grants but never asks", async () => {
  const broker = new ScriptedBroker(["session"]);
  const s = await setup("ask", { broker });
  try {
    assert.equal((await s.check(BASH, { rule: "Bash", command: "npm test" })).allow, true);
    const sub = s.gate.headless();
    const check = (command: string) =>
      sub.check({
        tool: BASH,
        args: {},
        access: { rule: "Bash", command },
        signal: new AbortController().signal,
        callId: "sub",
        emit: () => {},
      });
    assert.equal((await check("npm test")).allow, true);
    const other = await check("npm run lint");
    assert.equal(other.allow, false);
    assert.match(other.reason!, /no one to ask/);
    assert.equal(broker.asked.length, 1);
  } finally {
    await Deno.remove(s.base, { recursive: true });
  }
});

const WRITE = tool("write_file", false);
const MOVE = tool("move_file", false);
const move = (from: string, to: string): ToolAccess => ({
  rule: "Edit",
  writes: [from, to],
  moves: [{ from, to }],
});

Deno.test("control-file writes are refused headless in accept-edits, naming what allows them", async () => {
  const s = await setup("accept-edits", { allow: ["Edit"] });
  try {
    const r = await s.check(WRITE, { rule: "Write", writes: [".mcp.json"] });
    assert.equal(r.allow, false);
    assert.match(r.reason!, /control file \.mcp\.json/);
    assert.match(r.reason!, /--permission-mode yolo/);
    assert.match(r.reason!, /themselves/);
    const event = permissions(s.events)[0];
    assert.deepEqual([event.decision, event.allowed, event.rule], ["ask", false, "control files"]);
  } finally {
    await Deno.remove(s.base, { recursive: true });
  }
});

Deno.test("a control-file approval covers one call: no session grant extends to it", async () => {
  const broker = new ScriptedBroker(["session", "session", "once", "deny"]);
  const s = await setup("ask", { broker });
  try {
    // An edit grant for the workspace root does not cover the control files in it.
    assert.equal((await s.check(EDIT, { rule: "Edit", writes: ["README.md"] })).allow, true);
    assert.equal(broker.asked[0].sessionScope, "edits anywhere in the workspace");
    assert.equal((await s.check(EDIT, { rule: "Edit", writes: ["notes.md"] })).allow, true);
    assert.equal(broker.asked.length, 1);
    const first = await s.check(EDIT, { rule: "Edit", writes: ["reasonix.toml"] });
    assert.equal(first.allow, true);
    assert.match(broker.asked[1].sessionScope!, /this call only/);
    assert.equal((await s.check(EDIT, { rule: "Edit", writes: ["reasonix.toml"] })).allow, true);
    const third = await s.check(EDIT, { rule: "Edit", writes: ["reasonix.toml"] });
    assert.equal(third.allow, false);
    assert.equal(broker.asked.length, 4);
  } finally {
    await Deno.remove(s.base, { recursive: true });
  }
});

Deno.test("a symlinked control file protects what it points at", async () => {
  const s = await setup("auto");
  try {
    await Deno.writeTextFile(join(s.ws, "servers.json"), "{}");
    await Deno.symlink("servers.json", join(s.ws, ".mcp.json"));
    const r = await s.check(WRITE, { rule: "Write", writes: ["servers.json"] });
    assert.equal(r.allow, false);
    assert.match(r.reason!, /control file servers\.json/);
    // A rename replaces the link itself, which is the control file.
    const over = await s.check(MOVE, move("src", ".mcp.json"));
    assert.equal(over.allow, false);
    assert.match(over.reason!, /control file/);
  } finally {
    await Deno.remove(s.base, { recursive: true });
  }
});

Deno.test("renaming a directory above a forbid_read path is refused, in yolo too", async () => {
  const s = await setup("yolo", { forbid: ["ws/config/secret.env"] });
  try {
    await Deno.mkdir(join(s.ws, "config"));
    await Deno.writeTextFile(join(s.ws, "config/secret.env"), "k");
    const r = await s.check(MOVE, move("config", "c2"));
    assert.equal(r.allow, false);
    assert.match(r.reason!, /would move config\/secret\.env, which is in \[sandbox\]\.forbid_read/);
    assert.equal(permissions(s.events)[0].rule, "[sandbox].forbid_read");
    assert.equal((await s.check(MOVE, move("src", "src2"))).allow, true);
  } finally {
    await Deno.remove(s.base, { recursive: true });
  }
});

Deno.test("renaming a read-denied file, or a directory a rule is anchored in, is refused", async () => {
  const s = await setup("accept-edits", { deny: ["Read(**/.env)", "Read(keys/**)"] });
  try {
    await Deno.mkdir(join(s.ws, "app"));
    await Deno.writeTextFile(join(s.ws, "app/.env"), "k");
    const file = await s.check(MOVE, move("app/.env", "app/env.txt"));
    assert.equal(file.allow, false);
    assert.match(file.reason!, /read rule "Read\(\*\*\/\.env\)" protects/);
    assert.equal((await s.check(MOVE, move("app", "application"))).allow, true);
    const anchored = await s.check(MOVE, move("keys", "open"));
    assert.equal(anchored.allow, false);
    assert.match(anchored.reason!, /"Read\(keys\/\*\*\)"/);
  } finally {
    await Deno.remove(s.base, { recursive: true });
  }
});

Deno.test("views of one gate share the session grants and answer from the stream", async () => {
  const s = await setup("ask");
  try {
    const stream = new StreamApprovals();
    const view = s.gate.view(stream);
    const events: AgentEvent[] = [];
    const check = (gate: PermissionGate, command: string) =>
      gate.check({
        tool: BASH,
        args: {},
        access: { rule: "Bash", command },
        signal: new AbortController().signal,
        callId: "c",
        emit: (event) => {
          events.push(event);
          if (event.type === "approval_request") event.respond?.("session");
        },
      });
    assert.equal((await check(view, "npm test")).allow, true);
    assert.ok(events.some((e) => e.type === "approval_answer" && e.choice === "session"));
    assert.deepEqual(stream.pending(), []);
    // Another view without any broker: the grant made through the first one still holds.
    assert.equal((await check(s.gate.view(undefined), "npm test")).allow, true);
    assert.equal((await check(s.gate.view(undefined), "npm run lint")).allow, false);
  } finally {
    await Deno.remove(s.base, { recursive: true });
  }
});
