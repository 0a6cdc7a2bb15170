import assert from "node:assert/strict";
import { guardStdout } from "./stdout_guard.ts";

const MODULE = new URL("./stdout_guard.ts", import.meta.url).href;

/** Runs `code` in a fresh Deno with the guard module imported as `guardStdout`. */
async function run(code: string): Promise<{ stdout: string; stderr: string }> {
  const program = `import { guardStdout } from ${JSON.stringify(MODULE)};\n${code}`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", program],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  assert.equal(out.code, 0, decode(out.stderr));
  return { stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

Deno.test("while guarded, only the protocol stream reaches stdout; the rest goes to stderr", async () => {
  const { stdout, stderr } = await run(`
    const guard = guardStdout();
    const bytes = (s: string) => new TextEncoder().encode(s);
    console.log("log"); console.info("info"); console.debug("debug");
    console.dir({ dir: 1 }); console.table(["table"]);
    Deno.stdout.writeSync(bytes("writeSync\\n"));
    await Deno.stdout.write(bytes("write\\n"));
    const w = Deno.stdout.writable.getWriter();
    await w.write(bytes("writable\\n"));
    w.releaseLock();
    const p = guard.protocol.getWriter();
    await p.write(bytes('{"jsonrpc":"2.0"}\\n'));
    p.releaseLock();
    guard.restore();
    console.log("restored");
  `);
  assert.equal(stdout, '{"jsonrpc":"2.0"}\nrestored\n');
  for (const word of ["log", "info", "debug", "dir", "table", "writeSync", "write", "writable"]) {
    assert.match(stderr, new RegExp(`\\b${word}\\b`), `${word} went to stderr`);
  }
});

Deno.test("restore puts console.log and Deno.stdout back", () => {
  const log = console.log;
  const write = Deno.stdout.write;
  const guard = guardStdout();
  assert.notEqual(console.log, log);
  guard.restore();
  assert.equal(console.log, log);
  assert.equal(Deno.stdout.write, write);
});
