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

Deno.test("a computed program is denied under a Bash deny rule, asked under an ask rule", () => {
  const guarded = policy("yolo", { deny: ["Bash(rm:*)"] });
  for (const attempt of ["$(echo rm) x", "$CMD x", "{rm,x}", "curl x | sh", 'eval "$X"']) {
    const v = guarded.decide(bash(attempt));
    assert.equal(v.decision, "deny", attempt);
    assert.equal(v.rule, "Bash(rm:*)");
    assert.match(v.note ?? "", /cannot be checked/);
  }
  const asking = policy("yolo", { ask: ["Bash(rm:*)"] }).decide(bash("$CMD x"));
  assert.deepEqual([asking.decision, asking.rule], ["ask", "Bash(rm:*)"]);
  assert.equal(policy("yolo").decide(bash("$CMD x")).decision, "allow");
});

/** Constructs whose effect bash decides at run time. */
const UNDECIDABLE: string[] = [
  "trap 'echo hi' EXIT",
  "env -S 'echo hi'",
  ". /dev/stdin <<< 'echo hi'",
  "source ./setup.sh",
  "printf 'echo hi' | xargs -0 sh -c",
  "eval echo hi",
  "shopt -s expand_aliases",
  "alias ll='ls -l'",
  "hash -p /bin/echo e; e hi",
  "mapfile -C 'echo; :' -c 1 a < f",
  "declare -n ref=x",
  "declare 'a[$(echo 0)]=1'",
  "printf -v x %s y",
  "read 'a[0$(echo)]' < f",
  "test -v 'a[$(echo 0)]'",
  "[[ -v a ]]",
  "let x=1",
  "(( x + 1 ))",
  "echo $(( x + 1 ))",
  "echo $[x]",
  "echo ${!x}",
  "echo ${x@P}",
  "echo ${HOME:_:1}",
  "echo ${HOME:x}",
  "echo ${a[i]}",
  "a[i]=1",
  "git status 'a[$(touch x)]'",
  "bash <<< 'echo hi'",
  "sh -s < script",
  "echo hi | bash",
  "ls | xargs sh -c",
  "zsh -c 'echo hi'",
  "PS4='$(echo hi)' ls",
  "coproc cat",
  "git -c core.pager=less log",
  "timeout --bogus 5 ls",
];

Deno.test("undecidable commands are denied under any Bash deny rule, in every preset", () => {
  for (const mode of ["ask", "accept-edits", "auto", "yolo"] as const) {
    const p = policy(mode, { allow: ["Bash"], deny: ["Bash(git push:*)"] });
    for (const command of UNDECIDABLE) {
      const v = p.decide(bash(command));
      assert.equal(v.decision, "deny", `${mode}: ${command}`);
      assert.equal(v.rule, "Bash(git push:*)", command);
    }
  }
});

Deno.test("no prefix allow rule approves an undecidable command; the preset decides", () => {
  const rules = { allow: ["Bash(git status:*)", "Bash(echo:*)", "Bash(ls:*)", "Bash(let:*)"] };
  for (const command of UNDECIDABLE) {
    const asked = policy("ask", rules).decide(bash(command));
    assert.equal(asked.decision, "ask", command);
    assert.equal(asked.source, "preset", command);
    assert.ok(asked.unanalysable, command);
    // `auto` runs it in the sandbox, as it runs any command no rule covers.
    assert.equal(policy("auto", rules).decide(bash(command)).decision, "allow", command);
  }
  const v = policy("ask", rules).decide(bash("git status 'a[$(id)]'; git status ${HOME:_:1}"));
  assert.match(v.unanalysable ?? "", /substring offset/);
});

Deno.test("a bare Bash or an exact Bash= allow rule still covers an undecidable command", () => {
  assert.equal(policy("ask", { allow: ["Bash"] }).decide(bash("eval ls")).decision, "allow");
  assert.equal(
    policy("ask", { allow: ["Bash=eval ls"] }).decide(bash("eval ls")).decision,
    "allow",
  );
});

Deno.test("deny rules match through global options, option order and spelling", () => {
  const push = policy("yolo", { deny: ["Bash(git push:*)"] });
  for (
    const attempt of [
      "git push",
      "git -C . push origin main",
      "git -c k.v=1 push",
      "git --git-dir=x push",
      "git --git-dir x push",
      "git --no-pager push",
      "git --work-tree=. -C . push",
      "/usr/bin/git push",
      "command git push",
      "timeout 5 git -C . push",
      "env A=1 git push",
      "S=push; git $S",
    ]
  ) {
    assert.equal(push.decide(bash(attempt)).decision, "deny", attempt);
  }
  for (const fine of ["git log push", "git status", "git -C . log push"]) {
    assert.equal(push.decide(bash(fine)).decision, "allow", fine);
  }
  for (const rule of ["Bash(rm -rf:*)", "Bash(rm -rf*)", "Bash(rm -fr:*)", "Bash(rm -r -f:*)"]) {
    const rm = policy("yolo", { deny: [rule] });
    for (
      const attempt of [
        "rm -rf d",
        "rm -fr d",
        "rm -r -f d",
        "rm -R -f d",
        "rm --recursive --force d",
        "rm --recur --forc d",
        "rm -rfv d",
        "rm d -rf",
        "/bin/rm -Rf d",
        "rm -r $FLAGS d",
      ]
    ) {
      assert.equal(rm.decide(bash(attempt)).decision, "deny", `${rule}: ${attempt}`);
    }
    for (const fine of ["rm -r d", "rm -f x", "rm --force x", "rm -- -r"]) {
      assert.equal(rm.decide(bash(fine)).decision, "allow", `${rule}: ${fine}`);
    }
  }
});

Deno.test("ask rules match through reordering too", () => {
  const v = policy("yolo", { ask: ["Bash(git push:*)"] }).decide(bash("git -C . push"));
  assert.deepEqual([v.decision, v.rule], ["ask", "Bash(git push:*)"]);
});

/** Ordinary commands under the rules users write, each allowed without asking. */
const USUAL: [string, string][] = [
  ["npm test", "Bash(npm test:*)"],
  ["npm test -- --watch=false", "Bash(npm test:*)"],
  ["npm test 2>&1 | grep FAIL", "Bash(npm test:*), Bash(grep:*)"],
  ["git status", "Bash(git status:*)"],
  ["git status --short", "Bash(git status:*)"],
  ["git diff --stat", "Bash(git diff:*)"],
  ["git diff HEAD~1 -- src/a.ts", "Bash(git diff:*)"],
  ["go test ./...", "Bash(go test:*)"],
  ["go test -run TestX -count=1 ./pkg/...", "Bash(go test:*)"],
  ["git log --oneline | head -20", "Bash(git log:*), Bash(head:*)"],
  ["ls -la | head", "Bash(ls:*), Bash(head:*)"],
  ["ls -la src/ | grep '.ts$'", "Bash(ls:*), Bash(grep:*)"],
  ["grep -rn 'TODO' src | head -50", "Bash(grep:*), Bash(head:*)"],
  ["git status && git diff --stat", "Bash(git status:*), Bash(git diff:*)"],
  ["npm test > /dev/null 2>&1", "Bash(npm test:*)"],
];

Deno.test("ordinary commands run without asking under the rules users write", () => {
  const rules = {
    allow: [
      "Bash(npm test:*)",
      "Bash(git status:*)",
      "Bash(git diff:*)",
      "Bash(git log:*)",
      "Bash(go test:*)",
      "Bash(ls:*)",
      "Bash(grep:*)",
      "Bash(head:*)",
    ],
    deny: ["Bash(rm:*)", "Bash(git push:*)", "Bash(curl:*)"],
  };
  for (const mode of ["ask", "accept-edits"] as const) {
    for (const [command, rule] of USUAL) {
      const v = policy(mode, rules).decide(bash(command));
      assert.deepEqual([v.decision, v.rule], ["allow", rule], `${mode}: ${command}`);
    }
  }
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

Deno.test("an allow rule for a wrapper does not approve the command it runs", () => {
  const p = policy("ask", { allow: ["Bash(find:*)", "Bash(xargs:*)", "Bash(npm test:*)"] });
  assert.equal(p.decide(bash("find . -name '*.ts'")).decision, "allow");
  for (
    const attempt of ["find . -name x -exec rm {} \\;", "echo x | xargs rm", "xargs sh -c 'x'"]
  ) {
    assert.equal(p.decide(bash(attempt)).decision, "ask", attempt);
  }
  // Wrappers that only change how a command runs are covered by the command's own rule.
  assert.equal(p.decide(bash("timeout 60 npm test")).decision, "allow");
  assert.equal(p.decide(bash("nice -n 5 timeout 60 npm test -- --watch=false")).decision, "allow");
  assert.equal(p.decide(bash("timeout 60 rm -rf x")).decision, "ask");
});
