/**
 * `reasonix serve` through the real CLI: it prints the login address once (token in it),
 * the address logs in, Ctrl-C stops it; `--hash-password` reads stdin and prints a hash that
 * verifies.
 */
import assert from "node:assert/strict";
import { verifyPassword } from "../../cli/serve/password.ts";
import { startFakeLlm } from "../fake_llm/mod.ts";
import {
  cliEnv,
  interactiveArgv,
  makeHome,
  makeRepo,
  REASONIX_TASK,
  reasonixProgram,
} from "./support.ts";
import { TmuxSession } from "./tmux.ts";

Deno.test("reasonix serve prints its address once, logs in with it and stops on Ctrl-C", async () => {
  const fake = await startFakeLlm({ script: [{ text: "hi" }] });
  const repo = await makeRepo({});
  const home = await makeHome(fake.url);
  // The program itself, not `deno task`: the test's Ctrl-C must reach it directly.
  const [program, ...args] = reasonixProgram();
  const child = new Deno.Command(program, {
    args: [...args, "serve", "--port", "0"],
    cwd: repo,
    clearEnv: true,
    env: cliEnv(home),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let out = "";
    while (!out.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      out += value;
    }
    const url = out.trim();
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/login\?token=[\w-]{32}$/);
    const res = await fetch(url, { redirect: "manual" });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.match(res.headers.get("set-cookie") ?? "", /^reasonix_session=/);
    const page = await fetch(new URL("/", url), {
      headers: { cookie: res.headers.get("set-cookie")!.split(";")[0] },
    });
    assert.match(await page.text(), /reasonix-csrf/);
    child.kill("SIGINT");
    const status = await child.status;
    assert.equal(status.code, 0);
    out += await reader.read().then(async function rest(r): Promise<string> {
      return r.done ? "" : r.value + await reader.read().then(rest);
    });
    assert.equal(out.trim(), url, "the address is printed once, and nothing else on stdout");
    const err = await stderr;
    assert.match(err, /auth: token/);
    assert.ok(!err.includes(new URL(url).searchParams.get("token")!), "the token only on stdout");
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* ended */ }
    await child.status;
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("reasonix serve --hash-password hashes the first line of stdin", async () => {
  const repo = await makeRepo({});
  const home = await makeHome("http://127.0.0.1:9/v1");
  const [program, ...args] = REASONIX_TASK;
  try {
    const run = async (input: string) => {
      const child = new Deno.Command(program, {
        args: [...args, "serve", "--hash-password"],
        cwd: repo,
        clearEnv: true,
        env: cliEnv(home),
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const w = child.stdin.getWriter();
      await w.write(new TextEncoder().encode(input));
      await w.close();
      const o = await child.output();
      return { code: o.code, out: new TextDecoder().decode(o.stdout).trim() };
    };
    const ok = await run("correct horse\nignored\n");
    assert.equal(ok.code, 0);
    assert.match(ok.out, /^pbkdf2-sha256\$600000\$/);
    assert.equal(await verifyPassword("correct horse", ok.out), true);
    assert.equal(await verifyPassword("ignored", ok.out), false);
    const short = await run("short\n");
    assert.equal(short.code, 2);
    assert.equal(short.out, "");
  } finally {
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test({
  name: "on a terminal --hash-password asks twice and never shows the password",
  ignore: !(await TmuxSession.available()),
}, async () => {
  const repo = await makeRepo({});
  const home = await makeHome("http://127.0.0.1:9/v1");
  const tmux = await TmuxSession.start(interactiveArgv(home, ["serve", "--hash-password"]), {
    cwd: repo,
  });
  try {
    await tmux.waitFor("Password (not shown):", 60_000);
    await tmux.type("tty secret 42");
    await tmux.keys("Enter");
    await tmux.waitFor("Again:");
    await tmux.type("tty secret 42");
    await tmux.keys("Enter");
    const screen = await tmux.waitFor("[exit 0]");
    assert.ok(!screen.includes("tty secret"), screen);
    const hash = screen.split("\n").find((l) => l.startsWith("pbkdf2-sha256$"))!.trim();
    assert.equal(await verifyPassword("tty secret 42", hash), true);
  } finally {
    await tmux.kill();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
