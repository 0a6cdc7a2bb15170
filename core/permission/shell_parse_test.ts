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

Deno.test("code-running builtins and options make a command undecidable", () => {
  for (
    const text of [
      "eval ls",
      "source x.sh",
      ". x.sh",
      "trap 'rm x' EXIT",
      "alias x='rm y'",
      "shopt -s expand_aliases",
      "hash -p /bin/rm x",
      "mapfile -C cb -c 1 a",
      "readarray -tC cb a",
      "env -S 'rm x'",
      "env --split-string='rm x'",
      "declare -n r=x",
      "typeset -i n",
      "local -n r",
      "export 'a[0$(x)]=1'",
      "readonly a[i]=1",
      "printf -v x %s y",
      "read 'a[$(x)]'",
      "unset 'a[i]'",
      "test -v a",
      "[ -v a ]",
      "let n=1",
      "compgen -W '$(x)' y",
      "enable -f ./x.so x",
      "coproc cat",
      "builtin eval ls",
      "command eval ls",
    ]
  ) {
    const a = analyzeShell(text);
    assert.ok(a.undecidable.length > 0, text);
    assert.ok(a.features.has("undecidable"), text);
  }
});

Deno.test("literal scripts of trap, alias and eval are still parsed for deny rules", () => {
  for (const text of ["trap 'rm x' EXIT", "alias y='rm x'", "eval 'rm x'"]) {
    assert.ok(analyzeShell(text).commands.some((c) => commandText(c) === "rm x"), text);
  }
});

Deno.test("expansions bash evaluates at run time are undecidable", () => {
  for (
    const text of [
      "echo ${!x}",
      "echo ${!_}",
      "echo ${x@P}",
      "echo ${_@P}",
      "echo ${HOME:_:1}",
      "echo ${HOME:0:_}",
      "echo ${HOME:$n}",
      "echo ${a[i]}",
      "echo ${#a[x]}",
      "echo ${a[@]:_}",
      "echo $((x))",
      "echo $(( $x + 1 ))",
      "echo $[x]",
      "(( a[0] ))",
      "for ((i=0; i<3; i++)); do :; done",
      "[[ $x -eq 1 ]]",
      "[[ -v a ]]",
      "a[i]=1",
      "a=([k]=v)",
      "x='a[$(id)]'",
      "git status 'a[$(id)]'",
    ]
  ) {
    assert.ok(analyzeShell(text).undecidable.length > 0, text);
  }
});

Deno.test("ordinary expansions, arithmetic and tests stay decidable", () => {
  for (
    const text of [
      "echo ${HOME} ${x:-d} ${x:=d} ${#x} ${x%.ts} ${x//a/b} ${x^^} ${x@Q}",
      'echo "${a[@]}" ${a[0]} ${a[-1]} ${#a[@]} ${x: -3} ${x:0:3}',
      "echo $((1 + 2 * 3)) $(( $# + 1 )) $((16#ff)) $((0x1f))",
      "[[ -n $x && $y == z* ]] && echo",
      "[[ $# -eq 0 ]] || [[ 3 -gt 2 ]]",
      "[ -f x ] && test -d y",
      "declare -A m; local x=1; export A=b",
      "ls file[0-9].txt",
      "git commit -m 'fix [x] $(y)'",
      "for f in *.ts; do deno fmt $f; done",
      "echo ${!}",
    ]
  ) {
    assert.deepEqual(analyzeShell(text).undecidable, [], text);
  }
});

Deno.test("shells reading standard input are undecidable; scripts and files are followed", () => {
  for (
    const text of [
      "bash",
      "bash <<< 'rm x'",
      "sh -s",
      "bash -",
      "bash /dev/stdin",
      "bash /proc/self/fd/0",
      "curl x | sh",
      "bash -c",
      "xargs sh -c",
      "bash -i",
    ]
  ) {
    assert.ok(analyzeShell(text).features.has("dynamic_command"), text);
  }
  for (const text of ["sh -c -- 'rm x'", "bash -o pipefail -xc 'rm x'", "bash --norc -c 'rm x'"]) {
    assert.ok(analyzeShell(text).commands.some((c) => commandText(c) === "rm x"), text);
  }
  assert.deepEqual(analyzeShell("bash ./build.sh").undecidable, []);
  assert.ok(analyzeShell("zsh -c 'rm x'").undecidable.some((r) => /own syntax/.test(r)));
});

Deno.test("wrappers expose exactly the command they run", () => {
  const cases: [string, string][] = [
    ["timeout -s KILL -k 1 5 rm x", "rm x"],
    ["timeout --signal=KILL 5 rm x", "rm x"],
    ["nice -n 5 rm x", "rm x"],
    ["nice -5 rm x", "rm x"],
    ["env -i -u A B=1 rm x", "rm x"],
    ["env - rm x", "rm x"],
    ["stdbuf -oL rm x", "rm x"],
    ["setsid -w rm x", "rm x"],
    ["nohup rm x", "rm x"],
    ["ionice -c 3 rm x", "rm x"],
    ["taskset -c 0 rm x", "rm x"],
    ["chrt -o 0 rm x", "rm x"],
    ["flock -w 3 lk rm x", "rm x"],
    ["sudo -u root -E A=1 rm x", "rm x"],
    ["chroot --skip-chdir / rm x", "rm x"],
    ["unshare -r --fork rm x", "rm x"],
    ["nsenter -t 1 -m rm x", "rm x"],
    ["strace -f -o log rm x", "rm x"],
    ["xargs -0 -n1 -I{} rm x", "rm x"],
    ["command -p rm x", "rm x"],
    ["exec -a y rm x", "rm x"],
    ["busybox rm x", "rm x"],
    ["runuser -u root -- rm x", "rm x"],
    ["watch -x rm x", "rm x"],
    ["git bisect run rm x", "rm x"],
  ];
  for (const [text, inner] of cases) {
    const a = analyzeShell(text);
    assert.ok(a.commands.some((c) => c.derived && commandText(c) === inner), text);
    assert.deepEqual(a.undecidable, [], text);
  }
  // Only the real inner command, not every suffix: `timeout 5 echo rm` runs echo.
  assert.ok(!analyzeShell("timeout 5 echo rm").commands.some((c) => commandText(c) === "rm"));
});

Deno.test("wrappers that run a shell script have it parsed", () => {
  for (
    const text of [
      "flock lk -c 'rm x'",
      "flock -c 'rm x' lk",
      "script -qc 'rm x' /dev/null",
      "su -c 'rm x'",
      "su root -c 'rm x'",
      "su --command='rm x'",
      "watch -n 1 rm x",
      "git rebase -x 'rm x' main",
    ]
  ) {
    const a = analyzeShell(text);
    assert.ok(a.commands.some((c) => commandText(c) === "rm x" && c.depth === 1), text);
  }
});

Deno.test("wrappers whose command cannot be found are undecidable and every suffix is a guess", () => {
  for (
    const text of [
      "timeout --bogus 5 rm x",
      "env -S 'rm x'",
      "parallel rm ::: x",
      "firejail --quiet rm x",
      "timeout $T rm x",
    ]
  ) {
    const a = analyzeShell(text);
    assert.ok(a.undecidable.length > 0, text);
    assert.ok(a.commands.some((c) => c.derived && commandText(c).startsWith("rm")), text);
  }
  for (const text of ["su", "script -q log", "chroot /", "sudo -s", "unshare -r"]) {
    assert.ok(analyzeShell(text).undecidable.length > 0, text);
  }
  const replace = analyzeShell("xargs -I{} sh -c 'echo {}'");
  assert.match(replace.undecidable.join(), /input into a shell script/);
  assert.ok(analyzeShell("xargs -I% % x").features.has("dynamic_command"));
});

Deno.test("the time keyword's -p is not the program", () => {
  assert.deepEqual(runs(analyzeShell("time -p rm t")), ["rm t"]);
  assert.deepEqual(runs(analyzeShell("time -- rm t")), ["rm t"]);
});

Deno.test("git -c keys that may run a command are undecidable, harmless ones are not", () => {
  for (
    const text of [
      "git -c alias.x='!rm y' x",
      "git -c core.fsmonitor=x status",
      "git -c core.pager=less log",
      "git -c diff.external=x diff",
      "git --config-env=core.pager=P log",
      "git --exec-path=/tmp log",
      "git config alias.x '!rm y'",
      "GIT_PAGER=x git log",
      "GIT_CONFIG_COUNT=1 git status",
    ]
  ) {
    assert.ok(analyzeShell(text).undecidable.length > 0, text);
  }
  for (
    const text of [
      "git -c color.ui=never log",
      "git -c user.name=x -c user.email=y commit -m z",
      "git -c pager.log=false log",
      "git config user.email x@y",
      "git config --get remote.origin.url",
    ]
  ) {
    assert.deepEqual(analyzeShell(text).undecidable, [], text);
  }
});

Deno.test("assignments to variables that hold code are undecidable", () => {
  for (
    const text of [
      "PS4='$(x)'; set -x",
      "BASH_ENV=x bash -c :",
      "env LD_PRELOAD=x ls",
      "export PROMPT_COMMAND=x",
      "read PS4",
      "BASH_CMDS[x]=/bin/rm",
      "env 'BASH_FUNC_ls%%=() { x; }' bash -c ls",
    ]
  ) {
    assert.ok(analyzeShell(text).undecidable.length > 0, text);
  }
  assert.deepEqual(analyzeShell("NODE_ENV=test FOO=1 npm test").undecidable, []);
});

Deno.test("input substituted into a program name or a shell script is undecidable", () => {
  for (
    const text of [
      "find . -exec {} \\;",
      "find . -exec sh -c 'echo {}' \\;",
      "xargs -I{} sh -c 'echo {}'",
      "xargs -I{} bash {}",
      "xargs -I% % x",
    ]
  ) {
    assert.ok(analyzeShell(text).undecidable.length > 0, text);
  }
  for (
    const text of [
      "find . -exec sh -c 'echo \"$1\"' _ {} \\;",
      "xargs -I{} sh -c 'echo \"$1\"' _ {}",
      "find . -name '*.ts' -exec grep -l x {} +",
      "xargs -I{} cp {} /tmp",
    ]
  ) {
    assert.deepEqual(analyzeShell(text).undecidable, [], text);
  }
});
