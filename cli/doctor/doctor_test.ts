/**
 * `reasonix doctor` through the real CLI, against the fake LLM server, the real sandbox and a
 * real MCP server: a healthy set-up and a broken one (no key, no bubblewrap on PATH, an MCP
 * server that cannot start).
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeLlm } from "../../testing/fake_llm/mod.ts";
import { defineDoctor } from "../commands/doctor.ts";
import { runSubtree } from "../commands/execute.ts";
import { RUN_FLAGS } from "../release/compile.ts";
import type { DoctorReport } from "./mod.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const FIXTURE = join(ROOT, "tests/mcp/fixtures/stdio_server.ts");
const SECRET = "sk-doctor-secret-3f9a1c7e";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function doctor(
  args: string[],
  opts: { cwd: string; home: string; env?: Record<string, string> },
): Promise<Run> {
  const env: Record<string, string> = {
    HOME: Deno.env.get("HOME") ?? "/root",
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    REASONIX_HOME: opts.home,
    REASONIX_MCP_WAIT_MS: "30000",
    NO_COLOR: "1",
    ...opts.env,
  };
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--config",
      join(ROOT, "deno.json"),
      ...RUN_FLAGS,
      join(ROOT, "cli/main.ts"),
      "doctor",
      ...args,
    ],
    cwd: opts.cwd,
    clearEnv: true,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

function providerToml(baseUrl: string): string {
  return `default_model = "fake"

[[providers]]
name = "fake"
kind = "openai"
base_url = "${baseUrl}"
models = ["fake-model"]
api_key_env = "REASONIX_DOCTOR_KEY"
context_window = 128000
`;
}

function serverToml(name: string, command: string, args: string[]): string {
  return `
[[mcp.servers]]
name = "${name}"
command = ${JSON.stringify(command)}
args = ${JSON.stringify(args)}
`;
}

/** The provider the tests configure. */
const fakeOf = (report: DoctorReport) => report.providers.find((p) => p.name === "fake")!;

const fixtureArgs = ["run", "-A", "--quiet", "--config", join(ROOT, "deno.json"), FIXTURE];

async function tempDirs(): Promise<{ home: string; repo: string; done(): Promise<void> }> {
  const home = await Deno.makeTempDir({ prefix: "reasonix-doctor-home-" });
  const repo = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-doctor-repo-" }));
  return {
    home,
    repo,
    done: async () => {
      await Deno.remove(home, { recursive: true });
      await Deno.remove(repo, { recursive: true });
    },
  };
}

Deno.test("doctor --json on a healthy set-up: one JSON document, exit 0, the key never shown", async () => {
  const fake = await startFakeLlm({ script: [], models: ["fake-model"], apiKey: SECRET });
  const { home, repo, done } = await tempDirs();
  try {
    await Deno.writeTextFile(
      join(home, "config.toml"),
      providerToml(fake.url) + serverToml("fixture", Deno.execPath(), fixtureArgs),
    );
    await Deno.writeTextFile(join(repo, "AGENTS.md"), "Run the tests with deno task test.\n");
    // A project server nobody trusted: reported, never started.
    const marker = join(repo, "started");
    await Deno.writeTextFile(
      join(repo, ".mcp.json"),
      JSON.stringify({
        mcpServers: { project: { command: "touch", args: [marker] } },
      }),
    );
    await Deno.mkdir(join(home, "sessions"), { recursive: true });
    const run = await doctor(["--json"], {
      cwd: repo,
      home,
      env: { REASONIX_DOCTOR_KEY: SECRET },
    });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const report: DoctorReport = JSON.parse(run.stdout);
    assert.equal(report.ok, true);
    assert.deepEqual(report.problems, []);
    assert.equal(report.reasonix.deno, Deno.version.deno);
    assert.deepEqual(report.config.files, [join(home, "config.toml")]);
    const provider = report.providers.find((p) => p.name === "fake")!;
    assert.equal(provider.name, "fake");
    assert.equal(provider.default, true);
    assert.deepEqual(provider.key, { env: "REASONIX_DOCTOR_KEY", present: true });
    assert.equal(provider.reachable, "ok");
    assert.ok(
      fake.requests.some((r) => r.method === "GET" && r.path.endsWith("/models")),
      "GET /models was not asked",
    );
    if (Deno.build.os === "linux") {
      assert.equal(report.sandbox?.backend, "bubblewrap");
      assert.equal(report.sandbox?.status, "ok", report.sandbox?.detail);
    }
    const fixture = report.mcp.find((m) => m.name === "fixture");
    assert.equal(fixture?.phase, "ready", JSON.stringify(fixture));
    assert.equal(fixture?.trust, "user");
    const project = report.mcp.find((m) => m.name === "project");
    assert.equal(project?.trust, "untrusted");
    assert.equal(project?.phase, "not_started");
    assert.equal(await Deno.stat(marker).then(() => true, () => false), false);
    assert.deepEqual(report.instructions.map((f) => f.name), ["AGENTS.md"]);
    assert.match(report.sessions.dir, new RegExp(`^${join(home, "sessions")}/`));
    assert.ok(!run.stdout.includes(SECRET) && !run.stderr.includes(SECRET), "the key was shown");

    // The text form says the same and shows no key either.
    const text = await doctor([], { cwd: repo, home, env: { REASONIX_DOCTOR_KEY: SECRET } });
    assert.equal(text.code, 0, text.stdout + text.stderr);
    assert.match(text.stdout, /REASONIX_DOCTOR_KEY set/);
    assert.match(text.stdout, /Everything a run needs works\./);
    assert.ok(!text.stdout.includes(SECRET) && !text.stderr.includes(SECRET));
  } finally {
    await fake.close();
    await done();
  }
});

Deno.test("doctor --json on a broken set-up: no key, no bubblewrap, a failing MCP server", async () => {
  const fake = await startFakeLlm({ script: [], models: ["fake-model"] });
  const { home, repo, done } = await tempDirs();
  // A PATH with bash and setsid but without bwrap.
  const bin = await Deno.makeTempDir({ prefix: "reasonix-doctor-bin-" });
  try {
    for (const program of ["bash", "setsid"]) {
      const found = new TextDecoder().decode(
        (await new Deno.Command("sh", { args: ["-c", `command -v ${program}`], stdout: "piped" })
          .output()).stdout,
      ).trim();
      if (found) await Deno.symlink(found, join(bin, program));
    }
    await Deno.writeTextFile(
      join(home, "config.toml"),
      providerToml(fake.url) + serverToml("broken", "/nonexistent/mcp-server", []),
    );
    const run = await doctor(["--json"], { cwd: repo, home, env: { PATH: bin } });
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const report: DoctorReport = JSON.parse(run.stdout);
    assert.equal(report.ok, false);
    const checks = report.problems.map((p) => p.check);

    const key = report.problems.find((p) => p.check === "provider");
    assert.match(key?.problem ?? "", /REASONIX_DOCTOR_KEY is not set/);
    assert.match(key?.fix ?? "", /export REASONIX_DOCTOR_KEY=/);
    assert.deepEqual(fakeOf(report).key, { env: "REASONIX_DOCTOR_KEY", present: false });
    assert.equal(fakeOf(report).reachable, "skipped");

    if (Deno.build.os === "linux") {
      assert.equal(report.sandbox?.status, "broken");
      const sandbox = report.problems.find((p) => p.check === "sandbox");
      assert.match(sandbox?.fix ?? "", /install the bubblewrap package/);
    }

    assert.ok(checks.includes("mcp"), JSON.stringify(report.problems));
    const mcp = report.problems.find((p) => p.check === "mcp");
    assert.match(mcp?.problem ?? "", /MCP server "broken"/);
    assert.match(mcp?.fix ?? "", /reasonix mcp (get|remove) broken/);
    assert.equal(report.mcp.find((m) => m.name === "broken")?.phase, "failed");
    for (const p of report.problems) assert.ok(p.fix.length > 0, `no fix for ${p.problem}`);

    const text = await doctor([], { cwd: repo, home, env: { PATH: bin } });
    assert.equal(text.code, 1);
    assert.match(text.stdout, /problem\(s\) stop a run here:/);
    assert.match(text.stdout, /fix: export REASONIX_DOCTOR_KEY=/);
  } finally {
    await fake.close();
    await done();
    await Deno.remove(bin, { recursive: true });
  }
});

Deno.test("doctor reports a key the endpoint refuses without showing it", async () => {
  const fake = await startFakeLlm({
    script: [],
    models: ["fake-model"],
    apiKey: "sk-the-right-one",
  });
  const { home, repo, done } = await tempDirs();
  try {
    await Deno.writeTextFile(join(home, "config.toml"), providerToml(fake.url));
    const run = await doctor(["--json"], {
      cwd: repo,
      home,
      env: { REASONIX_DOCTOR_KEY: SECRET },
    });
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const report: DoctorReport = JSON.parse(run.stdout);
    assert.equal(fakeOf(report).reachable, "refused");
    assert.match(report.problems[0].problem, /refused the key in REASONIX_DOCTOR_KEY \(HTTP 401\)/);
    assert.ok(!run.stdout.includes(SECRET) && !run.stderr.includes(SECRET), "the key was shown");
  } finally {
    await fake.close();
    await done();
  }
});

Deno.test("doctor names an unreachable endpoint and a configuration that does not load", async () => {
  const { home, repo, done } = await tempDirs();
  try {
    // Nothing listens on port 1.
    await Deno.writeTextFile(join(home, "config.toml"), providerToml("http://127.0.0.1:1/v1"));
    let run = await doctor(["--json", "--timeout", "2"], {
      cwd: repo,
      home,
      env: { REASONIX_DOCTOR_KEY: SECRET },
    });
    assert.equal(run.code, 1, run.stdout + run.stderr);
    let report: DoctorReport = JSON.parse(run.stdout);
    assert.equal(fakeOf(report).reachable, "unreachable");
    assert.match(report.problems[0].fix, /base_url of provider "fake"/);

    await Deno.writeTextFile(join(home, "config.toml"), "default_model = [\n");
    run = await doctor(["--json"], { cwd: repo, home });
    assert.equal(run.code, 1, run.stdout + run.stderr);
    report = JSON.parse(run.stdout);
    assert.equal(report.problems[0].check, "config");
    assert.ok(report.problems[0].problem.includes(join(home, "config.toml")));
  } finally {
    await done();
  }
});

Deno.test("doctor --timeout takes a positive number of seconds", async () => {
  const err: string[] = [];
  const out: string[] = [];
  for (const bad of ["0", "soon", "-3"]) {
    const code = await runSubtree(defineDoctor, ["doctor", "--timeout", bad], {
      io: { out: (t) => out.push(t), err: (t) => err.push(t) },
      env: {},
    });
    assert.equal(code, 2, bad);
  }
  assert.match(err.join("\n"), /--timeout needs a positive number of seconds, got "soon"/);
  assert.deepEqual(out, []);
});
