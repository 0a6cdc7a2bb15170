import assert from "node:assert/strict";
import {
  bashRuleCovers,
  bashRuleMatches,
  parseRule,
  pathMatches,
  type Rule,
  toolRuleCovers,
} from "./rules.ts";
import { analyzeShell } from "./shell_parse.ts";

function words(command: string) {
  return analyzeShell(command).commands[0].words;
}

function bash(text: string) {
  const rule = parseRule(text);
  assert.ok(rule.kind === "bash_prefix" || rule.kind === "bash_exact" || rule.kind === "bash_glob");
  return rule;
}

Deno.test("rule syntax parses into tool, Bash prefix/exact/glob/literal, path and specifier", () => {
  const kinds = (text: string) => parseRule(text, { home: "/home/u" }).kind;
  assert.equal(kinds("Bash"), "tool");
  assert.equal(kinds("mcp__github__create_issue"), "tool");
  assert.equal(kinds("mcp__github__*"), "tool");
  assert.equal(kinds("Bash(go test:*)"), "bash_prefix");
  assert.equal(kinds("Bash(npm run build)"), "bash_exact");
  assert.equal(kinds("Bash(rm -rf*)"), "bash_glob");
  assert.equal(kinds("Bash=git status; rm -rf *"), "bash_literal");
  assert.equal(kinds("Edit(docs/**)"), "path");
  assert.equal(kinds("Read(~/.ssh/**)"), "path");
  assert.equal(kinds("WebFetch(domain:*)"), "specifier");
});

Deno.test("malformed rules are refused with the rule in the message", () => {
  for (
    const text of [
      "",
      "Bash()",
      "Bash(git status; rm x:*)",
      "Bash($CMD:*)",
      "Edit(../outside/**)",
      "has space",
      "Bash=",
    ]
  ) {
    assert.throws(() => parseRule(text), RangeError, text);
  }
});

Deno.test("Bash prefix rules match whole words, not string prefixes", () => {
  const rule = bash("Bash(git status:*)");
  assert.ok(bashRuleMatches(rule, words("git status"), true));
  assert.ok(bashRuleMatches(rule, words("git status --short"), true));
  assert.ok(!bashRuleMatches(rule, words("git statusx"), true));
  assert.ok(!bashRuleMatches(rule, words("git"), true));
  assert.ok(!bashRuleMatches(rule, words("git log"), true));
});

Deno.test("Bash exact rules match the same words only", () => {
  const rule = bash("Bash(npm run build)");
  assert.ok(bashRuleMatches(rule, words("npm  run   'build'"), true));
  assert.ok(!bashRuleMatches(rule, words("npm run build --watch"), true));
});

Deno.test("strict matching refuses computed words the rule would cover", () => {
  const rule = bash("Bash(git status:*)");
  assert.ok(!bashRuleMatches(rule, words("git $SUB"), true));
  assert.ok(bashRuleMatches(rule, words("git status $ARGS"), true));
  assert.ok(bashRuleMatches(bash("Bash(rm:*)"), words("rm $X"), false));
});

Deno.test("Bash glob rules treat * as any text", () => {
  const rule = bash("Bash(rm -rf*)");
  assert.ok(bashRuleMatches(rule, words("rm -rf x"), false));
  assert.ok(bashRuleMatches(rule, words("rm -rfv /"), false));
  assert.ok(!bashRuleMatches(rule, words("rm -r x"), false));
  const tail = bash("Bash(git * --force:*)");
  assert.ok(bashRuleMatches(tail, words("git push --force origin"), false));
});

Deno.test("tool rules cover families, tool names, umbrellas and MCP servers", () => {
  const tool = (text: string) => parseRule(text) as Extract<Rule, { kind: "tool" }>;
  assert.ok(toolRuleCovers(tool("Edit"), "Write", "write_file"));
  assert.ok(toolRuleCovers(tool("Read"), "Grep", "grep"));
  assert.ok(!toolRuleCovers(tool("Write"), "Edit", "edit_file"));
  assert.ok(toolRuleCovers(tool("bash"), "Bash", "bash"));
  assert.ok(toolRuleCovers(tool("mcp__github"), "mcp__github__create_issue", "use_capability"));
  assert.ok(!toolRuleCovers(tool("mcp__git"), "mcp__github__create_issue", "use_capability"));
  assert.ok(toolRuleCovers(tool("mcp__github__*"), "mcp__github__create_issue", "use_capability"));
});

Deno.test("path rules are workspace-relative unless absolute or under ~", () => {
  const root = "/ws";
  const path = (text: string) =>
    parseRule(text, { home: "/home/u" }) as Extract<Rule, { kind: "path" }>;
  assert.ok(pathMatches(path("Edit(docs/**)"), "/ws/docs/a/b.md", root));
  assert.ok(pathMatches(path("Edit(./docs/**)"), "/ws/docs", root));
  assert.ok(!pathMatches(path("Edit(docs/**)"), "/ws/src/a.ts", root));
  assert.ok(!pathMatches(path("Edit(**)"), "/elsewhere/x", root));
  assert.ok(pathMatches(path("Read(~/.ssh/**)"), "/home/u/.ssh/id_rsa", root));
  assert.ok(pathMatches(path("Edit(//etc/hosts)"), "/etc/hosts", root));
  assert.ok(pathMatches(path("Read(**/.env)"), "/ws/.env", root));
  assert.ok(pathMatches(path("Read(**/.env)"), "/ws/a/.env", root));
});

Deno.test("deny matching takes options as a set, whatever their order and spelling", () => {
  for (const text of ["Bash(rm -rf:*)", "Bash(rm -rf*)", "Bash(rm -fr:*)", "Bash(rm -r -f:*)"]) {
    const rule = bash(text);
    for (
      const command of [
        "rm -rf x",
        "rm -fr x",
        "rm -r -f x",
        "rm -R -f x",
        "rm -Rf x",
        "rm --recursive --force x",
        "rm --force -r x",
        "rm --recur --for x",
        "rm -rfv x",
        "rm x -rf",
        "/bin/rm -rf x",
      ]
    ) {
      assert.ok(bashRuleCovers(rule, words(command)), `${text}: ${command}`);
    }
    for (const command of ["rm -r x", "rm -f x", "rm x", "rm -- -rf", "rmdir -p x"]) {
      assert.ok(!bashRuleCovers(rule, words(command)), `${text}: ${command}`);
    }
  }
});

Deno.test("deny matching finds the subcommand after global options", () => {
  const rule = bash("Bash(git push:*)");
  for (
    const command of [
      "git push",
      "git -C . push",
      "git -c a.b=c push origin",
      "git --git-dir=.git push",
      "git --git-dir .git --work-tree . push",
      "git --no-pager -p push",
      "git push --force",
    ]
  ) {
    assert.ok(bashRuleCovers(rule, words(command)), command);
  }
  for (const command of ["git log push", "git status", "git -C . pull", "gitx push"]) {
    assert.ok(!bashRuleCovers(rule, words(command)), command);
  }
  const force = bash("Bash(git push --force:*)");
  assert.ok(bashRuleCovers(force, words("git push -f origin main")));
  assert.ok(bashRuleCovers(force, words("git -C . push origin --force")));
  assert.ok(!bashRuleCovers(force, words("git push --force-with-lease")));
  const branch = bash("Bash(git branch -D:*)");
  assert.ok(bashRuleCovers(branch, words("git branch --delete --force x")));
});

Deno.test("a computed word may stand for what the deny rule names", () => {
  assert.ok(bashRuleCovers(bash("Bash(git push:*)"), words("git $SUB origin")));
  assert.ok(bashRuleCovers(bash("Bash(rm -rf:*)"), words('rm "$FLAGS" x')));
  assert.ok(!bashRuleCovers(bash("Bash(git push:*)"), words("git log $X")));
});

Deno.test("exact deny rules match the same operands and options in any order", () => {
  const rule = bash("Bash(npm run build)");
  assert.ok(bashRuleCovers(rule, words("npm run build")));
  assert.ok(!bashRuleCovers(rule, words("npm run build --watch")));
  assert.ok(!bashRuleCovers(rule, words("npm run build extra")));
  assert.ok(bashRuleCovers(bash("Bash(rm -f x)"), words("rm x --force")));
});

Deno.test("glob deny rules that end in * keep their regular-expression meaning", () => {
  assert.ok(bashRuleCovers(bash("Bash(git pu*)"), words("git -C . push")));
  assert.ok(bashRuleCovers(bash("Bash(git * --force:*)"), words("git push --force x")));
  assert.ok(bashRuleCovers(bash("Bash(rm*)"), words("rmdir x")));
});

Deno.test("allow matching stays literal: reordering never widens an allow rule", () => {
  const rule = bash("Bash(git status:*)");
  assert.ok(!bashRuleMatches(rule, words("git -C / status"), true));
  assert.ok(!bashRuleMatches(bash("Bash(rm -rf:*)"), words("rm -fr x"), true));
});

Deno.test("rules may name programs that run code", () => {
  for (const text of ["Bash(eval:*)", "Bash(xargs:*)", "Bash(sudo:*)", "Bash(timeout 5 rm:*)"]) {
    assert.equal(parseRule(text).kind, "bash_prefix", text);
  }
});
