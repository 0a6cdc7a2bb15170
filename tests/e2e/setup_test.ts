/**
 * End to end: `reasonix setup` as a subprocess against the fake LLM server, which lists its
 * models at `GET /models` and accepts only one key. The flag form lists the models, tests the
 * key with one request, stores it 0600 in the home `.env` without printing it, edits
 * `config.toml` keeping the user's comments, and prints a `reasonix run` line that works. The
 * interactive form is driven in a real terminal (tmux).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "smol-toml";
import { PROVIDER_PRESETS } from "../../core/config/presets.ts";
import { SETUP_HELP_PRESETS } from "../../cli/commands/setup.ts";
import { startFakeLlm } from "../fake_llm/mod.ts";
import { cliEnv, makeRepo, REASONIX_TASK, runReasonix } from "./support.ts";
import { TmuxSession } from "./tmux.ts";

const KEY = "sk-setup-e2e-0123456789abcdef";
const USER_CONFIG = `# my own notes: keep this line
[agent]
max_turns = 42 # and this comment
`;

async function makeSetupHome(text = USER_CONFIG): Promise<string> {
  const home = await Deno.makeTempDir({ prefix: "reasonix-e2e-setup-home-" });
  await Deno.writeTextFile(join(home, "config.toml"), text);
  return home;
}

function assertNoKey(...texts: string[]): void {
  for (const text of texts) assert.ok(!text.includes(KEY), `the key was printed:\n${text}`);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("setup --yes lists the models, tests and stores the key, keeps comments; run works", async () => {
  const fake = await startFakeLlm({
    script: (req) => ({ text: req.path.endsWith("/chat/completions") ? "OK" : "?" }),
    models: ["fake-a", { id: "fake-b", context_length: 65_536 }],
    apiKey: KEY,
  });
  const repo = await makeRepo({ "a.txt": "alpha\n" });
  const home = await makeSetupHome();
  try {
    const setup = await runReasonix([
      "setup",
      "--preset",
      "openai-compatible",
      "--base-url",
      fake.url,
      "--api-key-env",
      "SETUP_E2E_KEY",
      "--model",
      "fake-b",
      "--yes",
    ], { cwd: repo, home, env: { SETUP_E2E_KEY: KEY } });
    assert.equal(setup.code, 0, setup.stderr);
    assertNoKey(setup.stdout, setup.stderr);
    // The models came from GET /models, the window from its listing.
    assert.match(setup.stdout, /models: 2 listed by .*\/v1\/models \(fake-a, fake-b\)/);
    assert.deepEqual(
      fake.requests.map((r) => `${r.method} ${r.path.split("?")[0]}`),
      ["GET /v1/models", "POST /v1/chat/completions"],
      "one listing and one test request",
    );
    assert.equal(fake.requests[1].headers.authorization, `Bearer ${KEY}`);
    assert.match(setup.stdout, /test request: custom\/fake-b answered \("OK"\)/);

    const dotenv = join(home, ".env");
    assert.equal((await Deno.stat(dotenv)).mode! & 0o777, 0o600);
    assert.equal(await Deno.readTextFile(dotenv), `SETUP_E2E_KEY=${KEY}\n`);

    const text = await Deno.readTextFile(join(home, "config.toml"));
    assert.ok(text.includes("# my own notes: keep this line\n"), text);
    assert.ok(text.includes("max_turns = 42 # and this comment\n"), text);
    const doc = parse(text) as Record<string, unknown> & { providers: Record<string, unknown>[] };
    assert.equal(doc.default_model, "custom");
    assert.deepEqual(JSON.parse(JSON.stringify(doc.providers)), [{
      name: "custom",
      kind: "openai",
      base_url: fake.url,
      api_key_env: "SETUP_E2E_KEY",
      models: ["fake-b"],
      default: "fake-b",
      context_window: 65_536,
    }]);

    const line = /^\s+(reasonix run .*)$/m.exec(setup.stdout)?.[1];
    assert.equal(line, 'reasonix run --model custom/fake-b "Summarize what this repository does"');
    // The printed line, as a user would type it, with the key only in the home .env.
    const run = await runReasonix(["run", "--model", "custom/fake-b", "Summarize it"], {
      cwd: repo,
      home,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /OK/);
    assert.equal(fake.requests.at(-1)?.headers.authorization, `Bearer ${KEY}`);
    assertNoKey(run.stdout, run.stderr);

    // Again with another model: the table is replaced, not duplicated, the comments stay.
    const again = await runReasonix([
      "setup",
      "--preset",
      "openai-compatible",
      "--base-url",
      fake.url,
      "--api-key-env",
      "SETUP_E2E_KEY",
      "--model",
      "fake-a",
      "--context-window",
      "32000",
      "--no-test",
      "--yes",
    ], { cwd: repo, home });
    assert.equal(again.code, 0, again.stderr);
    const second = await Deno.readTextFile(join(home, "config.toml"));
    const redone = parse(second) as { providers: Record<string, unknown>[] };
    assert.equal(redone.providers.length, 1);
    assert.equal(redone.providers[0].default, "fake-a");
    assert.equal(redone.providers[0].context_window, 32_000);
    assert.ok(second.includes("# my own notes: keep this line\n"));
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("setup with a key the endpoint refuses exits 1, names the fix, writes nothing", async () => {
  const fake = await startFakeLlm({ script: [{ text: "OK" }], models: ["m"], apiKey: KEY });
  const repo = await makeRepo({});
  const home = await makeSetupHome();
  const wrong = "sk-wrong-e2e-key-abcdef012345";
  try {
    const result = await runReasonix([
      "setup",
      "--preset",
      "openai-compatible",
      "--base-url",
      fake.url,
      "--api-key-env",
      "SETUP_E2E_KEY",
      "--model",
      "m",
      "--context-window",
      "8000",
      "--yes",
    ], { cwd: repo, home, env: { SETUP_E2E_KEY: wrong } });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /the endpoint refused the key in SETUP_E2E_KEY/);
    assert.match(result.stderr, /HTTP 401/);
    assert.match(result.stderr, /fix: check the key in SETUP_E2E_KEY; nothing was written/);
    for (const text of [result.stdout, result.stderr]) {
      assert.ok(!text.includes(wrong), `the key was printed:\n${text}`);
    }
    assert.equal(await Deno.readTextFile(join(home, "config.toml")), USER_CONFIG);
    assert.equal(await exists(join(home, ".env")), false);
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("setup of an Anthropic-compatible endpoint lists Anthropic-style and tests /v1/messages", async () => {
  const fake = await startFakeLlm({
    script: [{ text: "OK" }],
    models: ["claude-like"],
    apiKey: KEY,
  });
  const repo = await makeRepo({});
  const home = await makeSetupHome("");
  try {
    const base = fake.url.replace(/\/v1$/, "");
    const result = await runReasonix([
      "setup",
      "--preset",
      "anthropic-compatible",
      "--base-url",
      base,
      "--api-key-env",
      "SETUP_E2E_KEY",
      "--name",
      "gateway",
      "--context-window",
      "100000",
      "--yes",
    ], { cwd: repo, home, env: { SETUP_E2E_KEY: KEY } });
    assert.equal(result.code, 0, result.stderr);
    assertNoKey(result.stdout, result.stderr);
    assert.equal(fake.requests[0].headers["x-api-key"], KEY);
    assert.ok(fake.requests[0].headers["anthropic-version"]);
    assert.deepEqual(
      fake.requests.map((r) => `${r.method} ${r.path.split("?")[0]}`),
      ["GET /v1/models", "POST /v1/messages"],
    );
    // The only listed model is taken when the preset has no default.
    assert.match(result.stdout, /reasonix run --model gateway\/claude-like /);
    const doc = parse(await Deno.readTextFile(join(home, "config.toml"))) as {
      providers: { kind: string; base_url: string }[];
    };
    assert.equal(doc.providers[0].kind, "anthropic");
    assert.equal(doc.providers[0].base_url, base);
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("setup --yes without the key, or without a preset, is a usage error (exit 2)", async () => {
  const repo = await makeRepo({});
  const home = await makeSetupHome();
  try {
    const noKey = await runReasonix(
      ["setup", "--preset", "openai", "--model", "gpt-5.5", "--yes"],
      { cwd: repo, home, env: { OPENAI_API_KEY: "" } },
    );
    assert.equal(noKey.code, 2, noKey.stderr);
    assert.match(noKey.stderr, /OPENAI_API_KEY is not set/);
    assert.match(noKey.stderr, /fix: export OPENAI_API_KEY=\.\.\. first, or pipe the key in/);

    const noPreset = await runReasonix(["setup", "--yes"], { cwd: repo, home });
    assert.equal(noPreset.code, 2);
    assert.match(noPreset.stderr, /--yes needs --preset/);

    const unknown = await runReasonix(["setup", "--preset", "nope", "--yes"], { cwd: repo, home });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown preset "nope"/);
    assert.match(unknown.stderr, /openai-compatible/);

    // The key itself where its variable's name belongs: refused, and never echoed.
    const pasted = await runReasonix(
      ["setup", "--preset", "openai", "--api-key-env", KEY, "--yes"],
      { cwd: repo, home },
    );
    assert.equal(pasted.code, 2);
    assert.match(pasted.stderr, /takes the name of a variable .*, not the key itself/);
    assertNoKey(pasted.stdout, pasted.stderr);

    // Without --yes and without a terminal nothing can be asked.
    const noTty = await runReasonix(["setup"], { cwd: repo, home });
    assert.equal(noTty.code, 2);
    assert.match(noTty.stderr, /no terminal to ask on/);
    assert.equal(await Deno.readTextFile(join(home, "config.toml")), USER_CONFIG);
  } finally {
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("setup --api-key-stdin reads the key from standard input and never echoes it", async () => {
  const fake = await startFakeLlm({ script: [{ text: "OK" }], models: ["local-model"] });
  const repo = await makeRepo({});
  const home = await makeSetupHome();
  try {
    const [program, ...taskArgs] = REASONIX_TASK;
    const child = new Deno.Command(program, {
      args: [
        ...taskArgs,
        "setup",
        "--preset",
        "vllm",
        "--base-url",
        fake.url,
        "--api-key-env",
        "VLLM_KEY",
        "--api-key-stdin",
      ],
      cwd: repo,
      clearEnv: true,
      env: cliEnv(home),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(`${KEY}\n`));
    await writer.close();
    const out = await child.output();
    const stdout = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assertNoKey(stdout, stderr);
    // A local server's window is a guess, and setup says so.
    assert.match(stderr, /context window of local-model is not known; assuming 32768/);
    assert.equal(await Deno.readTextFile(join(home, ".env")), `VLLM_KEY=${KEY}\n`);
    assert.equal(fake.requests.at(-1)?.headers.authorization, `Bearer ${KEY}`);
    assert.match(stdout, /reasonix run --model vllm\/local-model /);
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("setup --help names every preset and the exit codes", async () => {
  assert.deepEqual([...SETUP_HELP_PRESETS], PROVIDER_PRESETS.map((p) => p.id));
  const repo = await makeRepo({});
  const home = await makeSetupHome();
  try {
    const help = await runReasonix(["setup", "--help"], { cwd: repo, home });
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /--preset <id>/);
    assert.match(help.stdout, /--api-key-env <name>/);
    assert.match(help.stdout, /Exit codes: 0 configured; 1 the endpoint refused the key/);
    const top = await runReasonix(["--help"], { cwd: repo, home });
    assert.match(top.stdout, /setup \[options\]\s+choose a provider and model/);
  } finally {
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

/** A bare environment for a program in tmux: no keys of this machine leak in. */
function terminalEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {
    HOME: Deno.env.get("HOME") ?? "/root",
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    REASONIX_HOME: home,
    TERM: "xterm-256color",
    LANG: "C.UTF-8",
    NO_COLOR: "1",
  };
  const denoDir = Deno.env.get("DENO_DIR");
  if (denoDir) env.DENO_DIR = denoDir;
  return env;
}

/** Answers the interactive setup for an OpenAI-compatible `url` with `KEY`, model fake-b. */
async function answerSetup(tmux: TmuxSession, url: string, keyEnv: string): Promise<void> {
  await tmux.waitFor("Which provider?", 60_000);
  await tmux.type("Any OpenAI");
  await tmux.waitFor("Any OpenAI-compatible endpoint");
  await tmux.keys("Enter");
  await tmux.waitFor("Base URL");
  await tmux.keys("C-u");
  await tmux.type(url);
  await tmux.keys("Enter");
  await tmux.waitFor("Environment variable that holds the key");
  await tmux.keys("C-u");
  await tmux.type(keyEnv);
  await tmux.keys("Enter");
  await tmux.waitFor(`Paste the API key for ${keyEnv}`);
  await tmux.type(KEY);
  await tmux.keys("Enter");
  await tmux.waitFor("Which model?");
  await tmux.keys("Down");
  await tmux.keys("Enter");
}

Deno.test({
  name: "the first bare reasonix without a usable key offers setup, then the session works",
  ignore: !(await TmuxSession.available()),
  fn: async () => {
    const fake = await startFakeLlm({
      script: (req) =>
        req.path.endsWith("/chat/completions") ? { text: "OK from setup" } : undefined,
      models: ["fake-a", { id: "fake-b", context_length: 65_536 }],
      apiKey: KEY,
    });
    const repo = await makeRepo({});
    const home = await Deno.makeTempDir({ prefix: "reasonix-e2e-setup-home-" });
    const env = terminalEnv(home);
    const tmux = await TmuxSession.start(
      ["env", "-i", ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...REASONIX_TASK],
      { cwd: repo, width: 110, height: 45 },
    );
    try {
      await tmux.waitFor(/No usable provider: provider "deepseek" needs DEEPSEEK_API_KEY/, 60_000);
      await tmux.keys("Enter");
      await answerSetup(tmux, fake.url, "FIRST_RUN_KEY");
      // The session opens on the new provider and reads the keyboard after the prompts.
      await tmux.waitFor("Ask anything", 60_000);
      await tmux.type("hi");
      await tmux.keys("Enter");
      await tmux.waitFor("OK from setup");
      await tmux.keys("C-c");
      await tmux.keys("C-c");
      const screen = await tmux.waitFor("[exit 0]");
      assertNoKey(screen);
      assert.equal(await Deno.readTextFile(join(home, ".env")), `FIRST_RUN_KEY=${KEY}\n`);
    } finally {
      await tmux.kill();
      await fake.close();
      await Deno.remove(repo, { recursive: true });
      await Deno.remove(home, { recursive: true });
    }
  },
});

Deno.test({
  name: "interactive setup in a terminal: pick, paste the key masked, choose a model, done",
  ignore: !(await TmuxSession.available()),
  fn: async () => {
    const fake = await startFakeLlm({
      script: [{ text: "OK" }],
      models: ["fake-a", { id: "fake-b", context_length: 65_536 }],
      apiKey: KEY,
    });
    const repo = await makeRepo({});
    const home = await makeSetupHome();
    const env = terminalEnv(home);
    const tmux = await TmuxSession.start(
      ["env", "-i", ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...REASONIX_TASK, "setup"],
      { cwd: repo, width: 110, height: 45 },
    );
    try {
      await answerSetup(tmux, fake.url, "TMUX_SETUP_KEY");
      const screen = await tmux.waitFor("[exit 0]", 30_000);
      assertNoKey(screen);
      assert.match(screen, /reasonix run --model custom\/fake-b /);
      const doc = parse(await Deno.readTextFile(join(home, "config.toml"))) as {
        providers: Record<string, unknown>[];
      };
      assert.equal(doc.providers[0].api_key_env, "TMUX_SETUP_KEY");
      assert.equal(doc.providers[0].context_window, 65_536);
      assert.equal(await Deno.readTextFile(join(home, ".env")), `TMUX_SETUP_KEY=${KEY}\n`);
      assert.ok((await Deno.readTextFile(join(home, "config.toml"))).includes("# my own notes"));
    } finally {
      await tmux.kill();
      await fake.close();
      await Deno.remove(repo, { recursive: true });
      await Deno.remove(home, { recursive: true });
    }
  },
});
