/**
 * The README's "Use as a library" program, exactly as printed (en and zh-CN carry the same
 * code), run as a user would run it against the fake OpenAI-compatible server.
 */
import assert from "node:assert/strict";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { AgentEvent } from "../../core/agent/events.ts";
import { startFakeLlm } from "../fake_llm/mod.ts";
import { CONFIG_PATH, makeRepo } from "./support.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The first TypeScript block of the section titled `heading`. */
async function example(readme: string, heading: string): Promise<string> {
  const text = await Deno.readTextFile(join(ROOT, readme));
  const section = text.slice(text.indexOf(`## ${heading}`));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  assert.ok(block, `${readme} has no example under "${heading}"`);
  return block[1];
}

Deno.test("the README library example runs against an OpenAI-compatible endpoint", async () => {
  const code = await example("README.md", "Use as a library");
  assert.equal(
    await example("README.zh-CN.md", "作为库使用"),
    code,
    "both READMEs show one program",
  );
  assert.ok(code.trim().split("\n").length <= 20, "the example stays about 15 lines");

  const fake = await startFakeLlm({
    script: [
      { toolCalls: [{ name: "shout", arguments: JSON.stringify({ text: "hello" }) }] },
      { text: "HELLO it is." },
    ],
  });
  const repo = await makeRepo({});
  const home = await Deno.makeTempDir({ prefix: "reasonix-lib-home-" });
  try {
    // The published names, pointed at this checkout.
    const program = join(repo, "example.ts");
    await Deno.writeTextFile(
      program,
      code
        .replace(
          '"@reasonix/reasonix/builtins"',
          JSON.stringify(pathToFileURL(join(ROOT, "builtins.ts")).href),
        )
        .replace('"@reasonix/reasonix"', JSON.stringify(pathToFileURL(join(ROOT, "mod.ts")).href)),
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", "--config", CONFIG_PATH, program],
      cwd: repo,
      clearEnv: true,
      env: {
        PATH: Deno.env.get("PATH") ?? "",
        // The real HOME keeps Deno's module cache; REASONIX_HOME isolates Reasonix.
        HOME: Deno.env.get("HOME") ?? home,
        ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
        REASONIX_HOME: home,
        LLM_BASE_URL: fake.url,
        LLM_MODEL: "fake-model",
        LLM_API_KEY: "sk-library",
        NO_COLOR: "1",
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    const events = new TextDecoder().decode(out.stdout).trim().split("\n")
      .map((line) => JSON.parse(line) as AgentEvent);
    const end = events.find((e) => e.type === "tool_end");
    assert.equal(end?.type === "tool_end" && end.result.content, "HELLO", "the custom tool ran");
    const done = events.at(-1);
    assert.equal(done?.type === "done" && done.status, "completed");
    assert.equal(done?.type === "done" && done.text, "HELLO it is.");
    assert.equal(fake.requests.length, 2);
    assert.equal(fake.requests[0].headers.authorization, "Bearer sk-library");
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
