import assert from "node:assert/strict";
import { directShell } from "./shell.ts";

Deno.test("directShell runs commands with bash -c and no sandbox", async () => {
  const argv = await directShell.launch("echo hi | wc -c", { cwd: "/tmp" });
  assert.deepEqual(argv, { program: "bash", args: ["-c", "echo hi | wc -c"] });
  const out = await new Deno.Command(argv.program, { args: argv.args, stdout: "piped" }).output();
  assert.equal(new TextDecoder().decode(out.stdout).trim(), "3");
});
