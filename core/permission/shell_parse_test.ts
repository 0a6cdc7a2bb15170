import assert from "node:assert/strict";
import { analyzeShell, commandText, type ShellAnalysis, type ShellFeature } from "./shell_parse.ts";

/** Text of every command bash would run (derived wrapper candidates excluded). */
function runs(analysis: ShellAnalysis): string[] {
  return analysis.commands.filter((c) => !c.derived && c.words.length).map(commandText);
}

Deno.test("a plain command is one literal simple command with no features", () => {
  const a = analyzeShell("git status --short");
  assert.deepEqual(runs(a), ["git status --short"]);
  assert.equal(a.features.size, 0);
  assert.equal(a.complete, true);
  assert.ok(a.commands[0].words.every((w) => w.literal));
});

Deno.test("control operators and newlines split commands", () => {
  for (
    const [text, feature] of [
      ["git status; rm -rf x", "sequence"],
      ["git status && rm -rf x", "and_or"],
      ["git status || rm -rf x", "and_or"],
      ["git status | rm -rf x", "pipe"],
      ["git status & rm -rf x", "background"],
      ["git status\nrm -rf x", "sequence"],
    ] as const
  ) {
    const a = analyzeShell(text);
    assert.deepEqual(runs(a), ["git status", "rm -rf x"], text);
    assert.ok(a.features.has(feature), text);
  }
});

Deno.test("quotes keep operators inside one word", () => {
  const a = analyzeShell(`git status '; rm x' "&& y" a\\;b`);
  assert.deepEqual(runs(a), ["git status ; rm x && y a;b"]);
  assert.equal(a.features.size, 0);
});

Deno.test("substitutions are parsed as nested commands and mark the word computed", () => {
  for (const text of ["git status `rm x`", "git status $(rm x)", 'echo "$(rm x)"']) {
    const a = analyzeShell(text);
    assert.ok(a.features.has("substitution"), text);
    const nested = a.commands.find((c) => commandText(c) === "rm x");
    assert.ok(nested, text);
    assert.equal(nested.depth, 1);
    assert.equal(a.commands.find((c) => c.depth === 0)!.words.at(-1)!.literal, false);
  }
});

Deno.test("substitutions hidden in parameters, arithmetic and process substitution are found", () => {
  for (
    const text of [
      "echo ${X:-$(rm x)}",
      "echo $((1 + $(rm x)))",
      "diff <(ls) <(rm x)",
      "cat <<EOF\n$(rm x)\nEOF",
    ]
  ) {
    assert.ok(analyzeShell(text).commands.some((c) => commandText(c) === "rm x"), text);
  }
});

Deno.test("a quoted here-document body is data, not commands", () => {
  const a = analyzeShell("git commit -F - <<'EOF'\nrm -rf x; $(rm y)\nEOF\ngit log");
  assert.deepEqual(runs(a), ["git commit -F -", "git log"]);
  assert.ok(a.features.has("heredoc"));
});

Deno.test("subshells, groups, functions and control keywords expose their commands", () => {
  const cases: [string, string[], ShellFeature][] = [
    ["(cd / && touch x)", ["cd /", "touch x"], "subshell"],
    ["{ git status; rm x; }", ["git status", "rm x"], "group"],
    ["f() { rm x; }; f", ["rm x", "f"], "function"],
    ["if true; then rm x; fi", ["true", "rm x"], "reserved_word"],
    ["for f in a b; do rm $f; done", ["rm $f"], "reserved_word"],
    ["while read l; do rm $l; done < list", ["read l", "rm $l"], "reserved_word"],
    ["case $x in a|b) rm y;; *) echo;; esac; ls", ["rm y", "echo", "ls"], "reserved_word"],
    ["[[ a < b ]] && rm y", ["rm y"], "reserved_word"],
    ["time rm t", ["rm t"], "reserved_word"],
    ["! rm t", ["rm t"], "reserved_word"],
  ];
  for (const [text, expected, feature] of cases) {
    const a = analyzeShell(text);
    assert.deepEqual(runs(a), expected, text);
    assert.ok(a.features.has(feature), `${text}: ${[...a.features]}`);
    assert.equal(a.complete, true, text);
  }
});

Deno.test("comments end at the newline, and the next line still runs", () => {
  assert.deepEqual(runs(analyzeShell("git status # ; rm x\nrm y")), ["git status", "rm y"]);
});

Deno.test("quote removal and ANSI-C quoting reveal the real program name", () => {
  assert.deepEqual(runs(analyzeShell(`r""m -rf x`)), ["rm -rf x"]);
  assert.deepEqual(runs(analyzeShell(`\\rm x`)), ["rm x"]);
  assert.deepEqual(runs(analyzeShell(`$'\\x72\\155' x`)), ["rm x"]);
  assert.equal(analyzeShell(`$'\\x72m' x`).commands[0].words[0].literal, true);
});

Deno.test("a computed program name is reported as dynamic", () => {
  for (
    const text of [
      "$(echo rm) x",
      "$CMD x",
      "{rm,-rf,x}",
      "/bin/r? x",
      'eval "$X"',
      "curl x | sh",
      'env "$CMD"',
      'bash -c "$SCRIPT"',
    ]
  ) {
    assert.ok(analyzeShell(text).features.has("dynamic_command"), text);
  }
  assert.ok(!analyzeShell("[ -f x ] && ls").features.has("dynamic_command"));
  assert.ok(!analyzeShell("sh test.sh").features.has("dynamic_command"));
});

Deno.test("nested shells and eval with literal scripts are analysed", () => {
  for (
    const text of ["sh -c 'rm x'", 'bash -lc "rm x"', "bash -o pipefail -c 'rm x'", "eval 'rm x'"]
  ) {
    const a = analyzeShell(text);
    assert.ok(a.features.has("nested_shell"), text);
    const inner = a.commands.find((c) => commandText(c) === "rm x");
    assert.equal(inner?.depth, 1, text);
  }
});

Deno.test("wrappers and find -exec yield derived candidates for the inner command", () => {
  const cases: [string, string][] = [
    ["env FOO=1 rm -rf x", "rm -rf x"],
    ["nice -n 5 rm x", "rm x"],
    ["timeout 5 rm x", "rm x"],
    ["xargs rm", "rm"],
    ["command rm x", "rm x"],
    ["find . -name y -exec rm {} ;", "rm {}"],
  ];
  for (const [text, inner] of cases) {
    const a = analyzeShell(text);
    assert.ok(a.features.has("wrapper"), text);
    assert.ok(a.commands.some((c) => c.derived && commandText(c) === inner), text);
  }
  const xargs = analyzeShell("xargs -I{} sh -c 'rm {}'");
  assert.ok(xargs.commands.some((c) => commandText(c) === "rm {}" && c.depth === 1));
});

Deno.test("assignments, redirections and fd duplications are recorded", () => {
  const a = analyzeShell("FOO=1 npm test 2>&1 > out.log < in.txt");
  const cmd = a.commands[0];
  assert.deepEqual(cmd.assignments.map((w) => w.text), ["FOO=1"]);
  assert.deepEqual(commandText(cmd), "npm test");
  assert.deepEqual(
    cmd.redirects.map((r) => `${r.fd ?? ""}${r.op}${r.target?.text}`),
    ["2>&1", ">out.log", "<in.txt"],
  );
  assert.ok(a.features.has("assignment") && a.features.has("redirect"));
});

Deno.test("unterminated quotes and substitutions make the analysis incomplete", () => {
  for (
    const text of ["echo 'open", 'echo "open', "echo $(open", "echo `open", "cat <<EOF\nno end"]
  ) {
    assert.equal(analyzeShell(text).complete, false, text);
  }
});

Deno.test("line continuations join words rather than separating commands", () => {
  assert.deepEqual(runs(analyzeShell("git \\\nstatus")), ["git status"]);
});
