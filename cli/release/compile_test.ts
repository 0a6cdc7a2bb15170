import assert from "node:assert/strict";
import { installArgs } from "./bundle.ts";
import { entrySource, RUN_FLAGS, TARGETS } from "./compile.ts";

Deno.test("compile covers darwin, linux and windows on x64 and arm64", () => {
  assert.deepEqual(Object.keys(TARGETS).sort(), [
    "darwin-arm64",
    "darwin-x64",
    "linux-arm64",
    "linux-x64",
    "windows-arm64",
    "windows-x64",
  ]);
});

Deno.test("the binary, the task and the installed command share one explicit flag set, never -A", async () => {
  assert.ok(!RUN_FLAGS.includes("-A") && !RUN_FLAGS.includes("--allow-all"));
  const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  const task: string = config.tasks.reasonix;
  for (const flag of RUN_FLAGS) assert.ok(task.includes(flag), `task reasonix lacks ${flag}`);
  assert.doesNotMatch(task, /\s-A\s|--allow-all/);
  // `deno task install` writes its launcher with installArgs(…, RUN_FLAGS).
  assert.match(config.tasks.install, /cli\/release\/install\.ts$/);
  const launcher = installArgs("/root/lib/reasonix", "reasonix", RUN_FLAGS);
  for (const flag of RUN_FLAGS) assert.ok(launcher.includes(flag), `the launcher lacks ${flag}`);
  assert.ok(!launcher.includes("-A") && !launcher.includes("--allow-all"));
});

Deno.test("the generated entry injects the version before the CLI runs", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const entry = `${dir}/entry.ts`;
    const source = entrySource("9.9.9-test").replaceAll(
      "../cli/",
      `${new URL("../", import.meta.url).pathname}`,
    );
    await Deno.writeTextFile(entry, source);
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-lock", "--allow-read", "--allow-env", entry, "--version"],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(new TextDecoder().decode(out.stdout).trim(), "reasonix 9.9.9-test");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
