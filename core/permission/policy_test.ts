import assert from "node:assert/strict";
import { Policy, type PolicyCall } from "./policy.ts";
import { findPreset, type PresetName } from "./presets.ts";
import { parseRule } from "./rules.ts";

const ROOT = "/ws";

function policy(
  mode: PresetName,
  rules: { allow?: string[]; ask?: string[]; deny?: string[] } = {},
  shellSandbox = true,
): Policy {
  const parse = (list?: string[]) => (list ?? []).map((r) => parseRule(r, { home: "/home/u" }));
  return new Policy({
    preset: findPreset(mode)!,
    rules: { allow: parse(rules.allow), ask: parse(rules.ask), deny: parse(rules.deny) },
    workspaceRoot: ROOT,
    shellSandbox,
  });
}

const bash = (command: string): PolicyCall => ({
  tool: "bash",
  family: "Bash",
  readOnly: false,
  command,
  reads: [],
  writes: [],
});
const edit = (...writes: string[]): PolicyCall => ({
  tool: "edit_file",
  family: "Edit",
  readOnly: false,
  reads: [],
  writes,
});
const read = (...reads: string[]): PolicyCall => ({
  tool: "read_file",
  family: "Read",
  readOnly: true,
  reads,
  writes: [],
});
const capability = (family: string, readOnly: boolean): PolicyCall => ({
  tool: "use_capability",
  family,
  readOnly,
  reads: [],
  writes: [],
});

Deno.test("readers fall back to allow and writers to the preset", () => {
  assert.equal(policy("ask").decide(read("/ws/a")).decision, "allow");
  assert.equal(policy("ask").decide(edit("/ws/a")).decision, "ask");
  assert.equal(policy("ask").decide(bash("ls")).decision, "ask");
  assert.equal(policy("accept-edits").decide(edit("/ws/a")).decision, "allow");
  assert.equal(policy("accept-edits").decide(bash("ls")).decision, "ask");
  assert.equal(policy("auto").decide(bash("ls")).decision, "allow");
  assert.equal(policy("yolo").decide(bash("ls")).decision, "allow");
  assert.equal(policy("read-only").decide(edit("/ws/a")).decision, "deny");
  assert.equal(policy("read-only").decide(bash("ls")).decision, "deny");
});

Deno.test("precedence is deny > ask > allow > fallback", () => {
  const p = policy("yolo", {
    allow: ["Bash(git:*)"],
    ask: ["Bash(git push:*)"],
    deny: ["Bash(git push --force:*)"],
  });
  assert.deepEqual(
    [p.decide(bash("git status")), p.decide(bash("git push")), p.decide(bash("git push --force"))]
      .map((v) => [v.decision, v.rule]),
    [["allow", "Bash(git:*)"], ["ask", "Bash(git push:*)"], [
      "deny",
      "Bash(git push --force:*)",
    ]],
  );
});

Deno.test("an explicit deny is never bypassed, in any preset", () => {
  for (const mode of ["read-only", "ask", "accept-edits", "auto", "yolo"] as const) {
    const p = policy(mode, { allow: ["Bash", "Edit"], deny: ["Bash(rm:*)", "Edit(secrets/**)"] });
    assert.equal(p.decide(bash("rm -f x")).decision, "deny", mode);
    assert.equal(p.decide(edit("/ws/secrets/key")).decision, "deny", mode);
    assert.equal(p.decide(read("/ws/x")).decision, "allow", mode);
  }
  const reads = policy("yolo", { deny: ["Read(**/.env)"] });
  assert.equal(reads.decide(read("/ws/app/.env")).decision, "deny");
});

Deno.test("a prefix allow never approves a compound command", () => {
  const p = policy("ask", { allow: ["Bash(git status:*)"] });
  assert.equal(p.decide(bash("git status")).decision, "allow");
  assert.equal(p.decide(bash("git status --short; git status")).decision, "allow");
  for (
    const attempt of [
      "git status; rm -rf x",
      "git status && curl http://example.invalid",
      "git status || rm x",
      "git status | sh",
      "git status\nrm -rf x",
      "git status `rm x`",
      "git status $(rm x)",
      "git status > /etc/passwd",
      "git status <(rm x)",
      "GIT_EXTERNAL_DIFF=evil git status",
      "{ git status; }",
      "(git status)",
      "git status & rm x",
      "git status 'unterminated",
    ]
  ) {
    const v = p.decide(bash(attempt));
    assert.equal(v.decision, "ask", attempt);
    assert.equal(v.source, "preset", attempt);
  }
  assert.equal(p.decide(bash("git status 2>&1 >/dev/null")).decision, "allow");
  assert.equal(p.decide(bash("git status '; rm x'")).decision, "allow");
});

Deno.test("deny rules match any simple command inside a compound one", () => {
  const p = policy("yolo", { deny: ["Bash(rm:*)"] });
  for (
    const attempt of [
      "echo a; rm x",
      "ls && rm x",
      "echo $(rm x)",
      "echo `rm x`",
      "(rm x)",
      "sh -c 'rm x'",
      'bash -lc "echo; rm x"',
      "eval 'rm x'",
      "env rm x",
      "xargs rm",
      "find . -exec rm {} +",
      "/bin/rm x",
      "\\rm x",
      'r""m x',
      "nice -n 5 timeout 3 rm x",
      "if true; then rm x; fi",
    ]
  ) {
    assert.equal(p.decide(bash(attempt)).decision, "deny", attempt);
  }
});

Deno.test("a computed program asks when Bash deny rules exist, and runs when none do", () => {
  const guarded = policy("yolo", { deny: ["Bash(rm:*)"] });
  for (const attempt of ["$(echo rm) x", "$CMD x", "{rm,x}", "curl x | sh", 'eval "$X"']) {
    const v = guarded.decide(bash(attempt));
    assert.equal(v.decision, "ask", attempt);
    assert.equal(v.rule, "Bash(rm:*)");
  }
  assert.equal(policy("yolo").decide(bash("$CMD x")).decision, "allow");
});

Deno.test("Bash= allows exactly one command line, metacharacters included", () => {
  const p = policy("ask", { allow: ["Bash=npm test && npm run lint"] });
  assert.equal(p.decide(bash("npm test && npm run lint")).decision, "allow");
  assert.equal(p.decide(bash("npm test && npm run lint; rm x")).decision, "ask");
  const deny = policy("yolo", { deny: ["Bash=make *"] });
  assert.equal(deny.decide(bash("make *")).decision, "deny");
  assert.equal(deny.decide(bash("make all")).decision, "allow");
});

Deno.test("path allow rules cover a call only when every path matches", () => {
  const p = policy("ask", { allow: ["Edit(docs/**)"] });
  assert.equal(p.decide(edit("/ws/docs/a.md")).decision, "allow");
  assert.equal(p.decide(edit("/ws/docs/a.md", "/ws/src/b.ts")).decision, "ask");
  assert.equal(
    p.decide({ ...edit("/ws/docs/a.md"), tool: "write_file", family: "Write" }).decision,
    "allow",
  );
});

Deno.test("the read-only preset refuses writers even when an allow rule matches", () => {
  const p = policy("read-only", { allow: ["Edit", "mcp__github"] });
  assert.equal(p.decide(edit("/ws/a")).decision, "deny");
  assert.equal(p.decide(capability("mcp__github__create_issue", false)).decision, "deny");
  assert.equal(p.decide(capability("mcp__github__list_issues", true)).decision, "allow");
});

Deno.test("installed MCP capabilities are allowed unless a rule says otherwise", () => {
  assert.equal(policy("ask").decide(capability("mcp__db__drop", false)).decision, "allow");
  assert.equal(
    policy("ask", { ask: ["mcp__db__drop"] }).decide(capability("mcp__db__drop", false)).decision,
    "ask",
  );
  assert.equal(
    policy("yolo", { deny: ["mcp__db"] }).decide(capability("mcp__db__drop", false)).decision,
    "deny",
  );
});

Deno.test("without a shell sandbox, auto asks for commands and read-only refuses them", () => {
  assert.equal(policy("auto", {}, false).decide(bash("ls")).decision, "ask");
  assert.equal(policy("read-only", {}, false).decide(bash("ls")).decision, "deny");
  assert.equal(policy("yolo", {}, false).decide(bash("ls")).decision, "allow");
});

Deno.test("the verdict lists the simple commands no allow rule covered", () => {
  const v = policy("ask", { allow: ["Bash(git status:*)"] }).decide(bash("git status; npm test"));
  assert.deepEqual(v.uncovered, ["npm test"]);
  const hidden = policy("ask", { allow: ["Bash(git status:*)"] }).decide(bash("git status $(x)"));
  assert.match(hidden.unanalysable ?? "", /substitution/);
});
