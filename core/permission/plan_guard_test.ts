import assert from "node:assert/strict";
import { plainCommand, planModeRefusal, shellWriteReason } from "./plan_guard.ts";

Deno.test("plan mode counts plain reading commands as read-only", () => {
  for (
    const command of [
      "ls -la",
      "cat a.txt | head -20",
      "git status && git diff --stat",
      "git log --oneline -5",
      "git branch -a",
      "rg -n TODO src 2>/dev/null",
      "grep -rn foo . | sort | uniq -c",
      "sed -n '1,40p' a.txt",
      "find . -name '*.ts' -type f",
      "wc -l < a.txt",
      "cd src && ls",
    ]
  ) {
    assert.equal(shellWriteReason(command), undefined, command);
  }
});

Deno.test("plan mode refuses writers, unknown programs and hidden or nested commands", () => {
  for (
    const [command, why] of [
      ["rm -rf build", /rm is not a read-only command/],
      ["npm test", /npm is not/],
      ["echo x > a.txt", /redirects output/],
      ["echo x >> a.txt", /redirects output/],
      ["cat a | tee b", /tee is not/],
      ["bash -c 'ls'", /nested shell|bash is not/],
      ["sh -c 'ls'", /nested shell|sh is not/],
      ["eval ls", /eval/],
      ["ls | xargs rm", /wrapper|xargs/],
      ["ls $(rm x)", /substitution/],
      ["find . -exec rm {} ;", /wrapper|-exec/],
      ["find . -delete", /-delete/],
      ["sed -i s/a/b/ f", /sed -i/],
      ["sed 's/a/b/w out' f", /print line ranges/],
      ["sort -o out in", /sort -o/],
      ["uniq in out", /uniq with an output file/],
      ["git commit -m x", /git commit is not/],
      ["git branch new-branch", /git branch with arguments/],
      ["git diff --output=x", /--output/],
      ["rg --pre sh x", /--pre/],
      ["FOO=1 ls", /environment variables|assignment/],
      ["$CMD", /computed|dynamic/],
      ["sleep 100 &", /background|sleep is not/],
      ["echo 'open", /syntax/],
    ] as const
  ) {
    const reason = shellWriteReason(command);
    assert.ok(reason, `${command} passed`);
    assert.match(reason, why, command);
  }
});

Deno.test("plan mode refuses built-in writers, memory writes and tools not marked read-only", () => {
  const call = (tool: string, readOnly: boolean, extra: object = {}) => ({
    tool,
    family: tool,
    readOnly,
    reads: [],
    writes: [],
    ...extra,
  });
  // remember may declare itself read-only (it runs unasked); plan mode refuses it anyway.
  assert.match(planModeRefusal(call("remember", true))!, /changes files or memory/);
  assert.match(planModeRefusal(call("forget", false))!, /changes files or memory/);
  assert.match(planModeRefusal(call("memory", false))!, /not a read-only tool/);
  assert.equal(planModeRefusal(call("memory", true)), undefined);
  assert.match(planModeRefusal(call("x", true, { writes: ["/w/a"] }))!, /writes files/);
  assert.match(planModeRefusal(call("mcp__gh__create", false))!, /not marked read-only/);
  assert.match(
    planModeRefusal({ ...call("use_capability", false), family: "mcp__gh__delete" })!,
    /mcp__gh__delete is not marked read-only/,
  );
  assert.equal(planModeRefusal(call("mcp__gh__list", true)), undefined);
  assert.equal(planModeRefusal(call("bash", false, { command: "ls" })), undefined);
  assert.match(
    planModeRefusal(call("bash", false, { command: "ls" }), { extraWriteDirs: true })!,
    /extra write directories/,
  );
});

Deno.test("the approved-plan window takes only plain command lists", () => {
  assert.equal(plainCommand("npm test && git diff"), true);
  assert.equal(plainCommand("echo ok > out.txt"), true);
  for (
    const command of [
      "bash -c 'npm test'",
      "sh -c x",
      "eval x",
      "ls | xargs sh -c 'rm $0'",
      "find . -exec rm {} +",
      "echo $(rm x)",
      "(cd x && rm y)",
      "env rm x",
    ]
  ) {
    assert.equal(plainCommand(command), false, command);
  }
});
