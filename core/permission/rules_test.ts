import assert from "node:assert/strict";
import { bashRuleMatches, parseRule, pathMatches, type Rule, toolRuleCovers } from "./rules.ts";
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
