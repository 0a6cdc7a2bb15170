import assert from "node:assert/strict";
import { ReasonixError } from "../../errors.ts";
import type { ShellLauncher, ShellSpawnOptions } from "../types.ts";
import { BASH_HEAD_BYTES, BASH_TAIL_BYTES, bashTool, runBash } from "./bash.ts";
import { callTool, createTestWorkspace } from "./test_context.ts";

/** A `sleep` duration no other process on the machine uses, to find it with pgrep. */
function uniqueSleep(): string {
  return `${900 + Math.floor(Math.random() * 90)}.${Math.floor(Math.random() * 1e6)}`;
}

/** PIDs of processes whose command line contains `needle`. */
async function pgrep(needle: string): Promise<string[]> {
  const out = await new Deno.Command("pgrep", { args: ["-f", needle], stdout: "piped" }).output();
  return new TextDecoder().decode(out.stdout).split("\n").filter((l) => l.trim() !== "");
}

Deno.test("bash returns merged output in arrival order and the exit code", async () => {
  await using ws = await createTestWorkspace();
  const ok = await callTool(
    bashTool,
    { command: "echo one; echo two >&2; echo three" },
    ws.ctx,
  );
  assert.equal(ok.isError, false);
  assert.equal(ok.content, "one\ntwo\nthree\nExit code: 0");
  const failed = await callTool(bashTool, { command: "echo oops >&2; exit 3" }, ws.ctx);
  assert.equal(failed.isError, true);
  assert.equal(failed.content, "oops\nExit code: 3");
  const silent = await callTool(bashTool, { command: "true" }, ws.ctx);
  assert.equal(silent.content, "(no output)\nExit code: 0");
});

Deno.test("bash runs in the workspace root with no stdin and plain-output environment", async () => {
  await using ws = await createTestWorkspace();
  const result = await callTool(
    bashTool,
    { command: 'pwd; cat; echo "$PAGER $GIT_PAGER $TERM $NO_COLOR"; echo "${HOME:+home set}"' },
    ws.ctx,
  );
  assert.equal(result.content, `${ws.root}\ncat cat dumb 1\nhome set\nExit code: 0`);
});

Deno.test("bash makes the command lead its own process group", async () => {
  await using ws = await createTestWorkspace();
  const result = await callTool(
    bashTool,
    { command: 'test "$(ps -o pgid= -p $$ | tr -d " ")" = "$$" && echo leader' },
    ws.ctx,
  );
  assert.equal(result.content, "leader\nExit code: 0");
});

Deno.test("bash timeout kills the whole process group, background children included", async () => {
  await using ws = await createTestWorkspace();
  const sleep = uniqueSleep();
  const started = Date.now();
  const result = await callTool(
    bashTool,
    { command: `echo started; sleep ${sleep} & sleep ${sleep}; wait`, timeout_seconds: 1 },
    ws.ctx,
  );
  assert.equal(result.isError, true);
  assert.equal(result.content, "started\nCommand timed out after 1s");
  assert.ok(Date.now() - started < 5000);
  assert.deepEqual(await pgrep(`sleep ${sleep}`), []);
});

Deno.test("bash kills a child that ignores SIGTERM after the grace period", async () => {
  await using ws = await createTestWorkspace();
  const sleep = uniqueSleep();
  const result = await callTool(
    bashTool,
    { command: `bash -c 'trap "" TERM; sleep ${sleep}' & wait`, timeout_seconds: 0.5 },
    ws.ctx,
  );
  assert.equal(result.isError, true);
  assert.match(result.content, /Command timed out after 0\.5s$/);
  assert.deepEqual(await pgrep(`sleep ${sleep}`), []);
});

Deno.test("bash cancellation kills the process group and says so", async () => {
  await using ws = await createTestWorkspace();
  const sleep = uniqueSleep();
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 300);
  const result = await callTool(
    bashTool,
    { command: `sleep ${sleep} & sleep ${sleep}; wait` },
    ws.context({ signal: controller.signal }),
  );
  assert.equal(result.isError, true);
  assert.equal(result.content, "(no output)\nCommand cancelled");
  assert.deepEqual(await pgrep(`sleep ${sleep}`), []);
});

Deno.test("bash clamps timeout_seconds to the configured maximum", async () => {
  await using ws = await createTestWorkspace({ bashTimeoutMs: 500 });
  const result = await callTool(
    bashTool,
    { command: `sleep ${uniqueSleep()}`, timeout_seconds: 600 },
    ws.ctx,
  );
  assert.equal(result.content, "(no output)\nCommand timed out after 0.5s");
});

Deno.test("bash keeps the head and tail of large output and the whole of it as raw", async () => {
  await using ws = await createTestWorkspace();
  const result = await callTool(bashTool, { command: "seq 1 200000" }, ws.ctx);
  assert.equal(result.isError, false);
  const full = Array.from({ length: 200000 }, (_, i) => String(i + 1)).join("\n") + "\n";
  const bytes = new TextEncoder().encode(result.content).length;
  assert.ok(bytes <= BASH_HEAD_BYTES + BASH_TAIL_BYTES + 500, `${bytes} bytes`);
  assert.ok(result.content.startsWith("1\n2\n3\n"));
  assert.match(result.content, /\n\[\.\.\. \d+ bytes omitted \.\.\.\]\n/);
  assert.match(
    result.content,
    /\n199999\n200000\n\[the full output \(1288895 bytes\) is kept with this result: read it with `use_capability` "session:tool_result"/,
  );
  assert.ok(result.content.endsWith("\nExit code: 0"));
  const omitted = Number(result.content.match(/\[\.\.\. (\d+) bytes omitted/)![1]);
  assert.equal(omitted, full.length - BASH_HEAD_BYTES - BASH_TAIL_BYTES);
  // The raw text is the complete output with the same ending, and no file is named.
  assert.equal(result.raw, full + "Exit code: 0");
  assert.equal(result.meta?.keptBytes, full.length);
  assert.doesNotMatch(result.content, /saved to|\.log\b/);
  assert.ok(!result.content.includes(ws.ctx.tempDir));
  assert.deepEqual(await Array.fromAsync(Deno.readDir(ws.ctx.tempDir)).catch(() => []), []);
});

Deno.test("bash stops background processes that keep its output open", async () => {
  await using ws = await createTestWorkspace();
  const sleep = uniqueSleep();
  const started = Date.now();
  const result = await callTool(bashTool, { command: `sleep ${sleep} & echo done` }, ws.ctx);
  assert.ok(Date.now() - started < 5000);
  assert.match(result.content, /^done\n\[background processes that kept the output open/);
  assert.ok(result.content.endsWith("Exit code: 0"));
  assert.deepEqual(await pgrep(`sleep ${sleep}`), []);
});

Deno.test("bash leaves background processes with redirected output running", async () => {
  await using ws = await createTestWorkspace();
  const sleep = uniqueSleep();
  const result = await callTool(
    bashTool,
    { command: `nohup sleep ${sleep} > /dev/null 2>&1 & echo started` },
    ws.ctx,
  );
  try {
    assert.equal(result.content, "started\nExit code: 0");
    assert.equal((await pgrep(`sleep ${sleep}`)).length, 1);
  } finally {
    for (const pid of await pgrep(`sleep ${sleep}`)) Deno.kill(Number(pid), "SIGKILL");
  }
});

Deno.test("bash reports progress with the latest output line while a command runs", async () => {
  await using ws = await createTestWorkspace();
  const result = await runBash(
    { command: "echo compiling; sleep 0.6; echo done" },
    ws.ctx,
    { progressIntervalMs: 100 },
  );
  assert.equal(result.content, "compiling\ndone\nExit code: 0");
  assert.ok(ws.progress.length >= 2, `${ws.progress.length} progress reports`);
  assert.ok(ws.progress.some((p) => /^\d+s: compiling$/.test(p)), ws.progress.join(" | "));
});

Deno.test("bash launches through the context's shell launcher with resolved write dirs", async () => {
  await using ws = await createTestWorkspace();
  const calls: { command: string; opts: ShellSpawnOptions }[] = [];
  const launcher: ShellLauncher = {
    launch(command, opts) {
      calls.push({ command, opts });
      return Promise.resolve({ program: "bash", args: ["-c", `echo launched: ${command}`] });
    },
  };
  const result = await callTool(bashTool, {
    command: "make",
    additional_write_dirs: ["out", "/var/tmp/x"],
    justification: "build output",
  }, ws.context({ shell: launcher }));
  assert.equal(result.content, "launched: make\nExit code: 0");
  assert.deepEqual(calls, [{
    command: "make",
    opts: { cwd: ws.root, writeDirs: [ws.path("out"), "/var/tmp/x"] },
  }]);
});

Deno.test("bash starts the launcher's own bash and setsid, not what PATH holds now", async () => {
  await using ws = await createTestWorkspace();
  // Stand-ins that note they ran, then hand over to the real programs.
  const log = ws.path("used.log");
  const stand = async (name: string, real: string) => {
    await Deno.writeTextFile(
      ws.path(name),
      `#!/bin/sh\necho ${name} >> ${log}\nexec ${real} "$@"\n`,
    );
    await Deno.chmod(ws.path(name), 0o755);
    return ws.path(name);
  };
  const launcher: ShellLauncher = {
    programs: {
      bash: await stand("my-bash", "/bin/bash"),
      setsid: await stand("my-setsid", "/usr/bin/setsid"),
    },
    launch: (command) => Promise.resolve({ program: "/bin/bash", args: ["-c", command] }),
  };
  const result = await callTool(bashTool, { command: "echo hi" }, ws.context({ shell: launcher }));
  assert.equal(result.content, "hi\nExit code: 0");
  assert.equal(await Deno.readTextFile(log), "my-setsid\nmy-bash\n");
});

Deno.test("what the launcher undoes after the command is reported and fails the call", async () => {
  await using ws = await createTestWorkspace();
  let settled = 0;
  const launcher: ShellLauncher = {
    launch: (command) =>
      Promise.resolve({
        program: "/bin/bash",
        args: ["-c", command],
        settle: () => Promise.resolve([`[undone ${++settled}]`]),
      }),
  };
  const result = await callTool(bashTool, { command: "echo hi" }, ws.context({ shell: launcher }));
  assert.equal(result.isError, true);
  assert.equal(result.content, "hi\nExit code: 0\n[undone 1]");
  const timedOut = await callTool(
    bashTool,
    { command: "sleep 5", timeout_seconds: 0.2 },
    ws.context({ shell: launcher }),
  );
  assert.match(timedOut.content, /timed out after 0\.2s\n\[undone 2\]$/);
});

Deno.test("bash turns a refused launch into an error result", async () => {
  await using ws = await createTestWorkspace();
  const launcher: ShellLauncher = {
    launch: () => Promise.reject(new ReasonixError("sandbox_unavailable", "bubblewrap is missing")),
  };
  const result = await callTool(bashTool, { command: "ls" }, ws.context({ shell: launcher }));
  assert.equal(result.isError, true);
  assert.equal(result.content, "Cannot run the command: bubblewrap is missing");
});

Deno.test("bash declares its command and extra write dirs, which need a justification", () => {
  assert.deepEqual(bashTool.access?.({ command: "ls -la" }), { rule: "Bash", command: "ls -la" });
  const parsed = bashTool.parse!({ command: "make", additional_write_dirs: ["/opt/out"] });
  assert.equal(parsed.ok, false);
  const withReason = bashTool.parse!({
    command: "make",
    additional_write_dirs: ["/opt/out"],
    justification: "install target",
  });
  assert.ok(withReason.ok);
  assert.deepEqual(bashTool.access?.(withReason.value), {
    rule: "Bash",
    command: "make",
    extraWriteDirs: { dirs: ["/opt/out"], justification: "install target" },
  });
  assert.equal(bashTool.parse!({ command: "x", timeout_seconds: 0 }).ok, false);
});

Deno.test("bash says how much of an output over the raw cap it kept", async () => {
  await using ws = await createTestWorkspace();
  const parsed = bashTool.parse!({ command: "seq 1 200000" });
  assert.ok(parsed.ok);
  const result = await runBash(parsed.value as Parameters<typeof runBash>[0], ws.ctx, {
    rawMaxBytes: 104_096,
  });
  assert.equal(result.isError, false);
  assert.match(
    result.content,
    /\[the first 100000 bytes of the output \(1288895 bytes in all\) are kept with this result: read them with `use_capability` "session:tool_result" and this call's id; to see the rest, rerun/,
  );
  assert.doesNotMatch(result.content, /full output/);
  const full = Array.from({ length: 200000 }, (_, i) => String(i + 1)).join("\n") + "\n";
  assert.equal(
    result.raw,
    full.slice(0, 100_000).replace(/\n$/, "") +
      "\n[output cut here: the remaining 1188895 bytes were not kept]\nExit code: 0",
  );
  assert.ok(new TextEncoder().encode(result.raw).length <= 104_096);
});
