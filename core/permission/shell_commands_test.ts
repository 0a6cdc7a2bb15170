import assert from "node:assert/strict";
import {
  codeVariable,
  gitConfigRisk,
  optionTokens,
  parseOptions,
  plainArithmetic,
  shellRun,
  wrapperInner,
} from "./shell_commands.ts";

const w = (...texts: string[]) => texts.map((text) => ({ text, literal: true }));

Deno.test("options are read getopt-style up to the first operand", () => {
  const spec = { short: "fk:ps:v", long: { signal: 1, "kill-after": 1, verbose: 0 } as const };
  const parsed = parseOptions(w("timeout", "-vk1", "-s", "KILL", "--sig=TERM", "5", "-x"), 1, spec);
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.options.map((o) => [o.name, o.value]), [
    ["-v", undefined],
    ["-k", "1"],
    ["-s", "KILL"],
    ["--signal", "TERM"],
  ]);
  assert.equal(parsed.next, 5);
  const dashes = parseOptions(w("t", "--", "-v"), 1, spec);
  assert.ok(dashes.ok);
  assert.equal(dashes.next, 2);
});

Deno.test("unknown, ambiguous or computed options are reported, not guessed", () => {
  const spec = { short: "a", long: { alpha: 0, also: 0 } as const };
  for (const args of [["-b"], ["--bogus"], ["--al"], ["--alpha=1"]]) {
    const parsed = parseOptions(w("x", ...args), 1, spec);
    assert.equal(parsed.ok, false, args.join(" "));
  }
  const computed = parseOptions([{ text: "$X", literal: false }], 0, spec);
  assert.equal(computed.ok, false);
});

Deno.test("wrappers name where their command starts, or why it cannot be found", () => {
  assert.deepEqual(wrapperInner("timeout", w("timeout", "5", "rm")), { kind: "command", start: 2 });
  assert.deepEqual(wrapperInner("env", w("env", "A=1", "rm")), { kind: "command", start: 2 });
  assert.deepEqual(wrapperInner("ionice", w("ionice", "-p", "1")), { kind: "none" });
  assert.deepEqual(wrapperInner("env", w("env")), { kind: "none" });
  assert.equal(wrapperInner("env", w("env", "-S", "rm x")).kind, "undecidable");
  assert.equal(wrapperInner("env", w("env", "LD_PRELOAD=x", "ls")).kind, "undecidable");
  assert.equal(wrapperInner("chroot", w("chroot", "/")).kind, "undecidable");
  assert.equal(wrapperInner("parallel", w("parallel", "rm")).kind, "undecidable");
  assert.deepEqual(wrapperInner("xargs", w("xargs", "-I{}", "rm", "{}")), {
    kind: "command",
    start: 2,
    replace: "{}",
  });
  assert.deepEqual(wrapperInner("xargs", w("xargs", "-i", "rm")), {
    kind: "command",
    start: 2,
    replace: "{}",
  });
  assert.deepEqual(wrapperInner("flock", w("flock", "lk", "-c", "rm x")), {
    kind: "script",
    script: { text: "rm x", literal: true },
  });
  assert.deepEqual(wrapperInner("su", w("su", "-lcrm x")), {
    kind: "script",
    script: { text: "rm x", literal: true },
  });
  assert.deepEqual(wrapperInner("watch", w("watch", "-n1", "ls", "x")), {
    kind: "joined",
    start: 2,
  });
});

Deno.test("shell invocations run a -c script, a file, or standard input", () => {
  assert.deepEqual(shellRun(w("bash", "-ec", "x")), { kind: "script", index: 2 });
  assert.deepEqual(shellRun(w("bash", "-c", "-x", "x")), { kind: "script", index: 3 });
  assert.deepEqual(shellRun(w("bash", "-O", "extglob", "-c", "x")), { kind: "script", index: 4 });
  assert.deepEqual(shellRun(w("bash", "--rcfile", "r", "f.sh")), { kind: "file", index: 3 });
  for (const args of [[], ["-s"], ["-"], ["/dev/stdin"], ["-c"], ["-i"]]) {
    assert.equal(shellRun(w("sh", ...args)).kind, "undecidable", args.join(" "));
  }
});

Deno.test("only numbers and operators count as plain arithmetic", () => {
  for (
    const text of ["1 + 2", " -1", "(3*4)%5", "16#ff + 0x1F", "$# + 1", "${#x} > 2", "1 ? 2 : 3"]
  ) {
    assert.ok(plainArithmetic(text), text);
  }
  for (const text of ["x", "_", "a[0]", "$x", "$(id)", "1 + y", "`id`", "'1'"]) {
    assert.ok(!plainArithmetic(text), text);
  }
});

Deno.test("code-holding variables and git keys are recognised", () => {
  for (const name of ["PS4", "BASH_ENV", "GIT_CONFIG_KEY_0", "BASH_FUNC_ls%%", "PAGER", "PS4+"]) {
    assert.ok(codeVariable(name), name);
  }
  for (const name of ["NODE_ENV", "FOO", "CI"]) assert.equal(codeVariable(name), undefined, name);
  for (const kv of ["alias.x=!rm", "core.pager=less", "core.fsmonitor=x", "pager.log=rm x"]) {
    assert.ok(gitConfigRisk(kv), kv);
  }
  for (const kv of ["user.name=x", "color.ui=never", "pager.log=false", "core.quotepath=off"]) {
    assert.equal(gitConfigRisk(kv), undefined, kv);
  }
});

Deno.test("option tokens canonicalise letters, long names and abbreviations", () => {
  assert.deepEqual(optionTokens("rm", "-Rf"), ["r", "f"]);
  assert.deepEqual(optionTokens("rm", "--recursive"), ["r"]);
  assert.deepEqual(optionTokens("rm", "--rec"), ["r"]);
  assert.deepEqual(optionTokens("git", "-D"), ["d", "f"]);
  assert.deepEqual(optionTokens("foo", "-xy"), ["x", "y"]);
  assert.deepEqual(optionTokens("foo", "--long=v"), ["--long"]);
  assert.deepEqual(optionTokens("find", "-delete"), ["-delete"]);
});
