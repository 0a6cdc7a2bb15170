/**
 * `reasonix mcp` in-process, on real files in temporary directories and with real child
 * processes as servers: what it writes, what it refuses, its exit codes and what it says.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { mcpCommand } from "./mcp.ts";
import { EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";

interface Run {
  code: number;
  out: string;
  err: string;
}

interface Dirs {
  home: string;
  cwd: string;
  run(...argv: string[]): Promise<Run>;
}

async function withDirs(fn: (dirs: Dirs) => Promise<void>): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "reasonix-mcp-home-" });
  const cwd = await Deno.makeTempDir({ prefix: "reasonix-mcp-cwd-" });
  const env = { REASONIX_HOME: home, PATH: Deno.env.get("PATH") ?? "" };
  const run = async (...argv: string[]): Promise<Run> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await mcpCommand(argv, {
      cwd,
      env,
      io: { out: (t) => out.push(t), err: (t) => err.push(t) },
    });
    return { code, out: out.join("\n"), err: err.join("\n") };
  };
  try {
    await fn({ home, cwd, run });
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(cwd, { recursive: true });
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("mcp remove edits .mcp.json in place: other values, formatting and key order stay", async () => {
  await withDirs(async ({ cwd, run }) => {
    const file = join(cwd, ".mcp.json");
    const text = '{\n    "big":12345678901234567890,\n  "mcpServers": {"a": {"command":"echo"}, ' +
      '"b": {"command": "true"}}\n}\n';
    await Deno.writeTextFile(file, text);
    const r = await run("remove", "a");
    assert.equal(r.code, EXIT_OK, r.err);
    assert.equal(
      await Deno.readTextFile(file),
      '{\n    "big":12345678901234567890,\n  "mcpServers": {"b": {"command": "true"}}\n}\n',
    );
  });
});

Deno.test("mcp add refuses a name, header name or ${VAR} the loader would reject, and writes nothing", async () => {
  await withDirs(async ({ home, run }) => {
    const cases: [string[], RegExp][] = [
      [["add", "a b", "echo"], /"a b" cannot be declared: name must be a name without spaces/],
      [
        ["add", "h", "http://127.0.0.1:9/mcp", "-H", "Bad Name: v"],
        /headers key "Bad Name" must be an HTTP header name/,
      ],
      [["add", "-e", "A=${", "e", "echo"], /env\.A: unterminated "\$\{"/],
      [["add", "e", "echo", "x${1BAD}"], /args\[0\]: "\$\{1BAD\}" is not a valid variable/],
      [["add", "u", "https://${HOST:-${}/mcp"], /url: /],
    ];
    for (const [argv, message] of cases) {
      const r = await run(...argv);
      assert.equal(r.code, EXIT_USAGE, `${argv.join(" ")}: ${r.err}`);
      assert.match(r.err, message);
      assert.match(r.err, /\nfix: .*nothing was written/);
      assert.equal(await exists(join(home, "config.toml")), false, argv.join(" "));
    }
    // A reference whose variable is unset now is fine: it is read where the server runs.
    const r = await run("add", "-e", "T=${UNSET_HERE:-x}", "ok", "echo", "${ALSO_UNSET}");
    assert.equal(r.code, EXIT_OK, r.err);
  });
});

Deno.test("mcp add and remove with an invalid config.toml exit 2 with its file, line and fix", async () => {
  await withDirs(async ({ home, run }) => {
    const file = join(home, "config.toml");
    const broken = '[[mcp.servers]]\nname = "a"\ncommand = "echo"\nx = [\n';
    await Deno.writeTextFile(file, broken);
    for (const argv of [["add", "b", "echo"], ["remove", "a"]]) {
      const r = await run(...argv);
      assert.equal(r.code, EXIT_USAGE, `${argv[0]}: ${r.err}`);
      assert.match(r.err, new RegExp(`${file.replace(/[.\\]/g, "\\$&")}:\\d+:\\d+: invalid TOML`));
      assert.match(r.err, /\nfix: correct the TOML syntax on line \d+/);
    }
    assert.equal(await Deno.readTextFile(file), broken);
  });
});

Deno.test("mcp add, list and remove with config.toml a directory exit 2 with one message and a fix", async () => {
  await withDirs(async ({ home, run }) => {
    await Deno.mkdir(join(home, "config.toml"));
    for (const argv of [["add", "a", "echo"], ["list"], ["remove", "a"]]) {
      const r = await run(...argv);
      assert.equal(r.code, EXIT_USAGE, `${argv[0]}: ${r.err}`);
      assert.equal(r.out, "");
      assert.match(r.err, /config\.toml: cannot read the file: .*\nfix: /);
      assert.doesNotMatch(r.err, /warning/);
    }
  });
});

/** A stdio "server" that writes to stderr (its token too) and exits at once with status 3. */
const FAILING = [
  "eval",
  "console.error('starting'); console.error('token ' + Deno.env.get('TOKEN')); " +
  "console.error('boom'); Deno.exit(3)",
];

Deno.test("mcp list and get say why a stdio server failed, without its env values", async () => {
  await withDirs(async ({ cwd, run }) => {
    const missing = join(cwd, "no-such-program");
    let r = await run("add", "-e", "TOKEN=s3cret-value", "dies", Deno.execPath(), ...FAILING);
    assert.equal(r.code, EXIT_OK, r.err);
    r = await run("add", "absent", missing);
    assert.equal(r.code, EXIT_OK, r.err);

    r = await run("list");
    assert.equal(r.code, EXIT_OK, r.err);
    assert.match(
      r.out,
      /^dies: exited with status 3; stderr: starting \| token <redacted> \| boom$/m,
    );
    assert.match(r.out, new RegExp(`^absent: cannot run ${missing}: ENOENT`, "m"));
    assert.doesNotMatch(r.out + r.err, /s3cret-value/);

    r = await run("get", "dies");
    assert.match(
      r.out,
      /state: +failed \(connection_closed\)\n +detail: +exited with status 3; .*boom/,
    );
    assert.doesNotMatch(r.out + r.err, /s3cret-value/);
    r = await run("get", "absent");
    assert.match(
      r.out,
      /state: +failed \(spawn\)\n +detail: +cannot run .*no-such-program: ENOENT/,
    );
    assert.match(r.out, /\n +listener: +none\n +reconnects: +0\n/);

    r = await run("list", "--json");
    const servers = JSON.parse(r.out).servers as { name: string; detail?: string }[];
    assert.match(servers.find((s) => s.name === "dies")?.detail ?? "", /status 3/);
  });
});

Deno.test("mcp add passes everything after the stdio command to the server, options included", async () => {
  await withDirs(async ({ home, run }) => {
    const r = await run("add", "-e", "A=1", "srv", "echo", "-y", "-e", "B=2", "--help");
    assert.equal(r.code, EXIT_OK, r.err);
    const toml = await Deno.readTextFile(join(home, "config.toml"));
    assert.match(toml, /args = \["-y", ?"-e", ?"B=2", ?"--help"\]/);
    assert.match(toml, /A = "1"/);
    assert.doesNotMatch(toml, /B = "2"/);
    // A URL takes no arguments, so options may follow it; `--` ends the options too.
    const url = await run("add", "web", "http://127.0.0.1:9/mcp", "-s", "user", "-H", "X-A: b");
    assert.equal(url.code, EXIT_OK, url.err);
    const dashed = await run("add", "d", "--", "echo", "--version");
    assert.equal(dashed.code, EXIT_OK, dashed.err);
    assert.match(await Deno.readTextFile(join(home, "config.toml")), /args = \["--version"\]/);
  });
});
