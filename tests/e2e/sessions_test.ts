/**
 * Sessions end to end: a run killed with SIGKILL mid-turn, then `--continue`; `sessions list`;
 * `config compact-ratio`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeLlm } from "../fake_llm/mod.ts";
import type { FakeStep } from "../fake_llm/mod.ts";
import { sessionsDir } from "../../core/store/sessions.ts";
import { decodeHistory } from "../../core/memory/history_store.ts";
import type { ToolContext } from "../../tools/types.ts";
import { openTestAgent } from "../support/host_agent.ts";
import { cliEnv, makeHome, makeRepo, runReasonix, spawnReasonix } from "./support.ts";

interface WireMessage {
  role: string;
  content: string | null;
  tool_calls?: { id: string }[];
  tool_call_id?: string;
}

function messagesOf(body: unknown): WireMessage[] {
  return (body as { messages: WireMessage[] }).messages;
}

async function waitFor(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

Deno.test("SIGKILL mid-turn then --continue loses nothing that was acknowledged", async () => {
  const steps: FakeStep[] = [
    { toolCalls: [{ name: "read_file", arguments: '{"path":"a.txt"}' }] },
    { text: "Reading b.", toolCalls: [{ name: "read_file", arguments: '{"path":"b.txt"}' }] },
    {
      toolCalls: [{
        name: "bash",
        arguments: JSON.stringify({ command: "touch started.marker && sleep 30" }),
      }],
    },
  ];
  const first = await startFakeLlm({ script: steps });
  const repo = await makeRepo({ "a.txt": "alpha\n", "b.txt": "beta\n" });
  const home = await makeHome(first.url);
  const marker = join(repo, "started.marker");
  const child = spawnReasonix(
    ["run", "--permission-mode", "auto", "look at the files"],
    repo,
    home,
  );
  try {
    // The third request asked for a long command; once it runs, kill the process outright.
    await waitFor(() => {
      try {
        Deno.statSync(marker);
        return true;
      } catch {
        return false;
      }
    }, "the bash tool to start");
    child.kill("SIGKILL");
    const status = await child.status;
    assert.equal(status.signal, "SIGKILL");
    await child.stdout.cancel();
    await child.stderr.cancel();

    const acknowledged = messagesOf(first.requests[2].body);
    const second = await startFakeLlm({ script: [{ text: "Continuing where we left off." }] });
    try {
      await Deno.writeTextFile(
        join(home, "config.toml"),
        (await Deno.readTextFile(join(home, "config.toml"))).replace(first.url, second.url),
      );
      const result = await runReasonix(["run", "--continue", "go on"], { cwd: repo, home });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /1 tool call\(s\) were interrupted/);
      const resumed = messagesOf(second.requests[0].body);
      // Everything the first run had acknowledged, in order, byte for byte…
      assert.deepEqual(resumed.slice(0, acknowledged.length), acknowledged);
      // …then the assistant turn whose tool was running, its repaired result, and the new task.
      const rest = resumed.slice(acknowledged.length);
      assert.equal(rest[0].role, "assistant");
      assert.equal(rest[1].role, "tool");
      assert.equal(rest[1].tool_call_id, rest[0].tool_calls?.[0].id);
      assert.match(rest[1].content ?? "", /ended before this tool call finished/);
      assert.deepEqual(rest.slice(2).map((m) => [m.role, m.content]), [["user", "go on"]]);
      // The continued request extends the killed run's last request.
      const prev = first.requests[2].bodyText;
      assert.ok(second.requests[0].bodyText.startsWith(prev.slice(0, prev.lastIndexOf("]"))));
    } finally {
      await second.close();
    }
  } finally {
    await first.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test({
  name: "SIGTERM winds a run down like Ctrl-C: exit 143, every tool call answered",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const fake = await startFakeLlm({
      script: [{
        toolCalls: [{
          name: "bash",
          arguments: JSON.stringify({ command: "touch started.marker && sleep 30" }),
        }],
      }],
    });
    const repo = await makeRepo({});
    const home = await makeHome(fake.url);
    const child = spawnReasonix(["run", "--permission-mode", "auto", "wait"], repo, home);
    try {
      await waitFor(() => {
        try {
          Deno.statSync(join(repo, "started.marker"));
          return true;
        } catch {
          return false;
        }
      }, "the bash tool to start");
      const sent = Date.now();
      child.kill("SIGTERM");
      const out = await child.output();
      assert.equal(out.code, 143, new TextDecoder().decode(out.stderr));
      assert.equal(out.signal, null, "it exited by itself rather than being killed");
      assert.ok(Date.now() - sent < 10_000, "it stopped without waiting for the command");
      const sessions = JSON.parse(
        (await runReasonix(["sessions", "list", "--json"], { cwd: repo, home })).stdout,
      );
      const resumed = await runReasonix(["run", "--continue", "--json", "go on"], {
        cwd: repo,
        home,
      });
      assert.equal(sessions.length, 1);
      // The bash call got its cancellation result in the transcript, so nothing is repaired.
      assert.doesNotMatch(resumed.stderr, /were interrupted/);
    } finally {
      await fake.close();
      await Deno.remove(repo, { recursive: true });
      await Deno.remove(home, { recursive: true });
    }
  },
});

Deno.test("sessions list shows this workspace's sessions and --resume takes an id prefix", async () => {
  const fake = await startFakeLlm({ script: [{ text: "one" }, { text: "two" }] });
  const repo = await makeRepo({});
  const home = await makeHome(fake.url);
  try {
    assert.equal((await runReasonix(["run", "first task"], { cwd: repo, home })).code, 0);
    const listed = await runReasonix(["sessions", "list", "--json"], { cwd: repo, home });
    assert.equal(listed.code, 0, listed.stderr);
    const sessions = JSON.parse(listed.stdout);
    assert.equal(sessions.length, 1);
    assert.equal(sessions[0].title, "first task");
    assert.equal(sessions[0].messages, 2);
    const id: string = sessions[0].id;
    const resumed = await runReasonix(
      ["run", "--json", "--resume", id.slice(0, 8), "second task"],
      {
        cwd: repo,
        home,
      },
    );
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(JSON.parse(resumed.stdout).session_id, id);
    assert.deepEqual(messagesOf(fake.requests[1].body).slice(1).map((m) => m.content), [
      fake.requests[0].body && messagesOf(fake.requests[0].body)[1].content,
      "one",
      "second task",
    ]);
    const text = await runReasonix(["sessions", "list"], { cwd: repo, home });
    assert.match(text.stdout, new RegExp(`^${id.slice(0, 8)} .* 4 msgs  first task$`, "m"));
    const unknown = await runReasonix(["run", "--resume", "nope", "x"], { cwd: repo, home });
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no session "nope"/);
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("history finds earlier sessions through the index kept beside them", async () => {
  const query = JSON.stringify({ query: "zebrafish" });
  const fake = await startFakeLlm({
    script: [
      { text: "noted" },
      { toolCalls: [{ name: "history", arguments: query }] },
      { text: "found it" },
      { toolCalls: [{ name: "history", arguments: query }] },
      { text: "found it again" },
    ],
  });
  const repo = await makeRepo({});
  const home = await makeHome(fake.url);
  try {
    const first = await runReasonix(["run", "--json", "the zebrafish tank leaks"], {
      cwd: repo,
      home,
    });
    assert.equal(first.code, 0, first.stderr);
    const id: string = JSON.parse(first.stdout).session_id;
    const index = join(await sessionsDir(home, repo), ".index", "history.bin");
    for (const request of [2, 4]) {
      const run = await runReasonix(["run", "what leaked?"], { cwd: repo, home });
      assert.equal(run.code, 0, run.stderr);
      const result = messagesOf(fake.requests[request].body).at(-1)!;
      assert.equal(result.role, "tool");
      assert.ok(
        result.content?.split("\n").includes(
          `[session ${id.slice(0, 8)} #0 user] the zebrafish tank leaks`,
        ),
        result.content ?? "",
      );
      // Written before the process exits, and read by the next one.
      assert.ok((await Deno.stat(index)).size > 0);
    }
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("closing an agent waits for the history index it is writing", async () => {
  const repo = await makeRepo({});
  const home = await makeHome("http://127.0.0.1:9/v1");
  try {
    const dir = await sessionsDir(home, repo);
    await Deno.mkdir(dir, { recursive: true });
    const meta = { id: "old", created: "2026-11-01T00:00:00.000Z", workspace: repo, model: "f/m" };
    await Deno.writeTextFile(
      join(dir, "old.jsonl"),
      [
        JSON.stringify({ t: "session", v: 1, meta }),
        JSON.stringify({ t: "msg", i: 0, m: { role: "user", content: "zebrafish" } }),
      ].join("\n") + "\n",
    );
    const { agent, dispose } = await openTestAgent({ cwd: repo, env: cliEnv(home), flags: {} });
    try {
      const result = await agent.registry.get("history")!.execute(
        { query: "zebrafish" },
        {} as ToolContext,
      );
      assert.match(result.content, /\[session old #0 user\] zebrafish/);
      await agent.close();
      assert.ok(decodeHistory(await Deno.readFile(join(dir, ".index", "history.bin"))));
    } finally {
      await dispose();
    }
  } finally {
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("sessions list pages: --limit, --offset and a pointer to the next page", async () => {
  const repo = await makeRepo({});
  const home = await makeHome("http://127.0.0.1:9/v1");
  try {
    const dir = await sessionsDir(home, repo);
    await Deno.mkdir(dir, { recursive: true });
    const ids = ["aaaa1111", "bbbb2222", "cccc3333"].map((p) => `${p}-0000-4000-8000-000000000000`);
    for (const [i, id] of ids.entries()) {
      const meta = { id, created: "2026-11-01T00:00:00.000Z", workspace: repo, model: "fake/m" };
      const path = join(dir, `${id}.jsonl`);
      await Deno.writeTextFile(
        path,
        [
          JSON.stringify({ t: "session", v: 1, meta }),
          JSON.stringify({ t: "msg", i: 0, m: { role: "user", content: `task ${i}` } }),
        ].join("\n") + "\n",
      );
      const when = new Date(Date.UTC(2026, 10, 1, 10 + i));
      await Deno.utime(path, when, when);
    }
    const first = await runReasonix(["sessions", "list", "--limit", "2"], { cwd: repo, home });
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(first.stdout.trim().split("\n"), [
      "cccc3333  2026-11-01 12:00      1 msgs  task 2",
      "bbbb2222  2026-11-01 11:00      1 msgs  task 1",
      "… more: reasonix sessions list --offset 2",
    ]);
    const rest = await runReasonix(["sessions", "list", "--json", "--offset", "2"], {
      cwd: repo,
      home,
    });
    assert.deepEqual(JSON.parse(rest.stdout).map((s: { id: string }) => s.id), [ids[0]]);
    const bad = await runReasonix(["sessions", "list", "--limit", "0"], { cwd: repo, home });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--limit must be a whole number/);
  } finally {
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("config compact-ratio shows and sets the effective value, project beating user", async () => {
  const repo = await makeRepo({});
  const home = await makeHome("http://127.0.0.1:9/v1");
  try {
    const shown = await runReasonix(["config", "compact-ratio"], { cwd: repo, home });
    assert.equal(shown.stdout.trim(), "compact_ratio = 0.80 (from built-in default)");
    const setUser = await runReasonix(["config", "compact-ratio", "0.7"], { cwd: repo, home });
    assert.equal(setUser.code, 0, setUser.stderr);
    assert.match(
      await Deno.readTextFile(join(home, "config.toml")),
      /\[agent\]\ncompact_ratio = 0\.7\n/,
    );
    const setLocal = await runReasonix(["config", "compact-ratio", "--local", "0.85"], {
      cwd: repo,
      home,
    });
    assert.equal(setLocal.code, 0, setLocal.stderr);
    const effective = await runReasonix(["config", "compact-ratio"], { cwd: repo, home });
    assert.match(effective.stdout, /compact_ratio = 0\.85 \(from .*reasonix\.toml\)/);
    const again = await runReasonix(["config", "compact-ratio", "0.75"], { cwd: repo, home });
    assert.match(again.stdout, /reasonix\.toml sets 0\.85, which takes precedence/);
    const bad = await runReasonix(["config", "compact-ratio", "0.95"], { cwd: repo, home });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /between 0\.30 and 0\.85/);
  } finally {
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("retired context keys are removed from config files on startup", async () => {
  const fake = await startFakeLlm({ script: [{ text: "ok" }] });
  const repo = await makeRepo({
    "reasonix.toml": "[agent]\nsoft_compact_ratio = 0.5 # old\nmax_turns = 5\n",
  });
  const home = await makeHome(fake.url);
  try {
    const result = await runReasonix(["run", "hi"], { cwd: repo, home });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /removed retired context setting\(s\) soft_compact_ratio/);
    assert.equal(await Deno.readTextFile(join(repo, "reasonix.toml")), "[agent]\nmax_turns = 5\n");
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
