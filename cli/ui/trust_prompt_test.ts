import assert from "node:assert/strict";
import { join } from "node:path";
import { TrustStore } from "../../core/config/trust.ts";
import { reviewProject } from "../project_trust.ts";
import { askTrust, type PromptIo, promptProjectTrust } from "./trust_prompt.ts";

/** A prompt that answers with `lines` in order and records what it was shown. */
function scripted(lines: string[]): PromptIo & { shown(): string } {
  const out: string[] = [];
  return {
    write: (t) => void out.push(t),
    readLine: () => Promise.resolve(lines.length ? lines.shift()! : null),
    shown: () => out.join(""),
  };
}

async function withProject(fn: (dirs: { home: string; cwd: string }) => Promise<void>) {
  const home = await Deno.makeTempDir({ prefix: "reasonix-prompt-home-" });
  const cwd = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-prompt-cwd-" }));
  await Deno.writeTextFile(
    join(cwd, ".mcp.json"),
    JSON.stringify(
      {
        mcpServers: {
          a: { command: "node", args: ["a.js", "--flag"] },
          b: { command: "python3", args: ["-m", "b"] },
        },
      },
      null,
      2,
    ),
  );
  await Deno.writeTextFile(join(cwd, "reasonix.toml"), `[permissions]\nallow = ["Bash"]\n`);
  try {
    await fn({ home, cwd });
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(cwd, { recursive: true });
  }
}

Deno.test("the prompt shows each untrusted declaration's command, arguments, file and line", async () => {
  await withProject(async ({ home, cwd }) => {
    const review = await reviewProject({ home, cwd });
    const io = scripted(["s", "s", "s"]);
    await askTrust(review.workspace, review.items, io);
    const shown = io.shown();
    assert.match(shown, /untrusted input/);
    assert.match(shown, /MCP server "a" \(\.mcp\.json:3\) would start:\n +transport: stdio\n/);
    assert.match(shown, /command: +node\n +args: +a\.js --flag\n/);
    assert.match(shown, /MCP server "b" \(\.mcp\.json:\d+\) would start:/);
    assert.match(shown, /reasonix\.toml:2 would loosen your permissions:\n +permissions\.allow/);
    assert.equal(shown.match(/\[t\] trust \(remembered\)/g)?.length, 3);
  });
});

Deno.test("trust is remembered, once is for the session, skip and end of input skip", async () => {
  await withProject(async ({ home, cwd }) => {
    const io = scripted(["t", "maybe", "o"]);
    const choices = await promptProjectTrust({ home, cwd, io });
    assert.match(io.shown(), /please answer t, o or s/);
    const review = await reviewProject({ home, cwd });
    const [a, b, settings] = review.items;
    assert.deepEqual(review.items.map((i) => i.stored), [true, false, false]);
    assert.ok(choices.session.has(a.hash));
    assert.ok(choices.session.has(b.hash));
    // Input ended before the settings question: they are skipped.
    assert.ok(choices.skipped.has(settings.hash));
    assert.equal(choices.session.has(settings.hash), false);
  });
});

Deno.test("declarations already trusted are not asked about again", async () => {
  await withProject(async ({ home, cwd }) => {
    const first = await reviewProject({ home, cwd });
    await new TrustStore(home).grant(first.workspace, first.items.map((i) => i.declaration));
    const io = scripted([]);
    const choices = await promptProjectTrust({ home, cwd, io });
    assert.equal(io.shown(), "");
    assert.equal(choices.session.size + choices.skipped.size, 0);
  });
});

Deno.test("an empty answer skips, and a store that cannot be written keeps the trust for the session", async () => {
  await withProject(async ({ home, cwd }) => {
    await Deno.writeTextFile(join(home, "trust.json"), "not json", { mode: 0o600 });
    const io = scripted(["", "yes", "n"]);
    const choices = await promptProjectTrust({ home, cwd, io });
    assert.match(io.shown(), /warning: .*trust\.json is not valid JSON/);
    assert.match(io.shown(), /trusted for this session only; the trust store was not written/);
    assert.equal(choices.skipped.size, 2);
    assert.equal(choices.session.size, 1);
  });
});
