/**
 * `reasonix trust` in-process, on real files in temporary directories: what it shows, what it
 * stores in the trust file, its errors and exit codes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { TrustStore } from "../core/config/trust.ts";
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";
import { reviewProject } from "./project_trust.ts";
import { trustCommand } from "./trust.ts";

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
  const home = await Deno.makeTempDir({ prefix: "reasonix-trust-home-" });
  const cwd = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-trust-cwd-" }));
  const run = async (...argv: string[]): Promise<Run> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await trustCommand(argv, {
      cwd,
      env: { REASONIX_HOME: home },
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

const MCP_JSON = JSON.stringify(
  {
    mcpServers: {
      build: { command: "node", args: ["tools/server.js", "--port", "0"], env: { MODE: "dev" } },
      docs: { type: "http", url: "https://docs.example/mcp" },
    },
  },
  null,
  2,
);

Deno.test("trust with no command shows each declaration with its file, line and state", async () => {
  await withDirs(async ({ cwd, run }) => {
    await Deno.writeTextFile(join(cwd, ".mcp.json"), MCP_JSON);
    await Deno.writeTextFile(join(cwd, "reasonix.toml"), `[permissions]\nallow = ["Bash"]\n`);
    const r = await run();
    assert.equal(r.code, EXIT_OK, r.err);
    assert.match(r.out, new RegExp(`^Workspace ${cwd}`));
    assert.match(r.out, /MCP server "build" \(\.mcp\.json:3\): not trusted/);
    assert.match(r.out, /command: +node\n +args: +tools\/server\.js --port 0\n +env: +MODE=dev/);
    assert.match(r.out, /MCP server "docs" \(\.mcp\.json:\d+\): not trusted\n.*\n +url: +https:/);
    assert.match(r.out, /loosening settings \(reasonix\.toml:2\): not trusted/);
    assert.match(r.out, /reasonix trust grant build docs settings/);
  });
});

Deno.test("trust lists a project provider endpoint as something to trust", async () => {
  await withDirs(async ({ cwd, run }) => {
    await Deno.writeTextFile(
      join(cwd, "reasonix.toml"),
      `[[providers]]\nname = "gw"\nkind = "openai"\nbase_url = "https://gw.example/v1"\n`,
    );
    const r = await run();
    assert.match(
      r.out,
      /provider "gw" \(reasonix\.toml:1\): not trusted\n +kind: +openai\n +base_url: +https:\/\/gw\.example\/v1/,
    );
    const grant = await run("grant", "gw");
    assert.equal(grant.code, EXIT_OK, grant.err);
    assert.match(
      (await run("list")).out,
      /provider "gw" \(reasonix\.toml\), granted .*\n +base_url = https:/,
    );
  });
});

Deno.test("trust on a project that declares nothing says nothing needs trust", async () => {
  await withDirs(async ({ run }) => {
    const r = await run("status");
    assert.equal(r.code, EXIT_OK);
    assert.match(r.out, /nothing needs trust/);
  });
});

Deno.test("trust grant NAME stores that declaration only and shows what it trusts", async () => {
  await withDirs(async ({ home, cwd, run }) => {
    await Deno.writeTextFile(join(cwd, ".mcp.json"), MCP_JSON);
    const r = await run("grant", "build");
    assert.equal(r.code, EXIT_OK, r.err);
    assert.match(r.out, /^trusted MCP server "build" \(\.mcp\.json:3\)\n +transport: +stdio/);
    assert.match(r.out, /args: +tools\/server\.js --port 0/);
    assert.match(r.out, new RegExp(`stored in ${join(home, "trust.json")}`));
    const review = await reviewProject({ home, cwd });
    assert.deepEqual(
      review.items.map((i) => [i.declaration.name, i.stored]),
      [["build", true], ["docs", false]],
    );
    const again = await run("grant", "build");
    assert.match(again.out, /^already trusted: MCP server "build"/);
    if (Deno.build.os !== "windows") {
      assert.equal((await Deno.stat(join(home, "trust.json"))).mode! & 0o777, 0o600);
    }
  });
});

Deno.test("trust grant --all trusts every declaration, settings included", async () => {
  await withDirs(async ({ home, cwd, run }) => {
    await Deno.writeTextFile(join(cwd, ".mcp.json"), MCP_JSON);
    await Deno.writeTextFile(join(cwd, "reasonix.toml"), `[permissions]\nallow = ["Edit"]\n`);
    const r = await run("grant", "--all");
    assert.equal(r.code, EXIT_OK, r.err);
    assert.match(r.out, /trusted loosening settings \(reasonix\.toml:2\)\n +permissions\.allow/);
    const review = await reviewProject({ home, cwd });
    assert.ok(review.items.every((i) => i.stored));
  });
});

Deno.test("a changed declaration is shown as not trusted, with the stale grant named", async () => {
  await withDirs(async ({ cwd, run }) => {
    const file = join(cwd, ".mcp.json");
    await Deno.writeTextFile(file, MCP_JSON);
    await run("grant", "build");
    await Deno.writeTextFile(file, MCP_JSON.replace("--port", "--host"));
    const r = await run("status");
    assert.match(r.out, /MCP server "build" \(\.mcp\.json:3\): not trusted/);
    assert.match(r.out, /1 earlier grant\(s\) no longer match.*: build;/);
  });
});

Deno.test("trust grant of an undeclared name fails and lists what is declared", async () => {
  await withDirs(async ({ home, cwd, run }) => {
    await Deno.writeTextFile(join(cwd, ".mcp.json"), MCP_JSON);
    const r = await run("grant", "nope");
    assert.equal(r.code, EXIT_FAILURE);
    assert.match(r.err, /"nope" is not declared in this workspace; it declares: build, docs/);
    assert.deepEqual((await new TrustStore(home).read()).workspaces, []);
  });
});

Deno.test("trust grant and revoke without names or --all are usage errors with the help", async () => {
  await withDirs(async ({ run }) => {
    for (const sub of ["grant", "revoke"]) {
      const r = await run(sub);
      assert.equal(r.code, EXIT_USAGE);
      assert.match(r.err, new RegExp(`${sub} needs --all or the name`));
      assert.match(r.err, /Usage: reasonix trust/);
    }
    const both = await run("grant", "--all", "x");
    assert.equal(both.code, EXIT_USAGE);
    assert.match(both.err, /either --all or names/);
    const unknown = await run("frobnicate");
    assert.equal(unknown.code, EXIT_USAGE);
    assert.match(unknown.err, /unknown command 'frobnicate'/);
  });
});

Deno.test("trust --help and grant --help print the help", async () => {
  await withDirs(async ({ run }) => {
    for (const argv of [["--help"], ["help"]]) {
      const r = await run(...argv);
      assert.equal(r.code, EXIT_OK);
      assert.match(r.out, /Usage: reasonix trust \[options\] \[command\]/);
      assert.match(r.out, /untrusted input/);
    }
    const grant = await run("grant", "--help");
    assert.equal(grant.code, EXIT_OK);
    assert.match(grant.out, /Usage: reasonix trust grant \[options\] \[names\.\.\.\]/);
    assert.match(grant.out, /--all/);
  });
});

Deno.test("trust list shows every workspace and its grants; --json gives the same data", async () => {
  await withDirs(async ({ cwd, run }) => {
    const empty = await run("list");
    assert.match(empty.out, /No workspace is trusted/);
    await Deno.writeTextFile(join(cwd, ".mcp.json"), MCP_JSON);
    await run("grant", "--all");
    const r = await run("list");
    assert.equal(r.code, EXIT_OK, r.err);
    assert.match(r.out, new RegExp(`^${cwd}\n  MCP server "build" \\(\\.mcp\\.json\\), granted`));
    assert.match(r.out, /\n {4}node tools\/server\.js --port 0\n/);
    const json = JSON.parse((await run("list", "--json")).out);
    assert.equal(json.workspaces[0].workspace, cwd);
    assert.deepEqual(json.workspaces[0].grants.map((g: { name: string }) => g.name), [
      "build",
      "docs",
    ]);
  });
});

Deno.test("trust revoke removes named grants or all, and names what is not trusted", async () => {
  await withDirs(async ({ home, cwd, run }) => {
    await Deno.writeTextFile(join(cwd, ".mcp.json"), MCP_JSON);
    await run("grant", "--all");
    const one = await run("revoke", "docs");
    assert.equal(one.code, EXIT_OK, one.err);
    assert.match(one.out, /^revoked MCP server "docs" \(\.mcp\.json\): https:\/\/docs\.example/);
    const missing = await run("revoke", "docs");
    assert.equal(missing.code, EXIT_FAILURE);
    assert.match(missing.err, /nothing named "docs" is trusted in/);
    const all = await run("revoke", "--all");
    assert.match(all.out, /revoked MCP server "build"/);
    assert.deepEqual((await new TrustStore(home).read()).workspaces, []);
    const none = await run("revoke", "--all");
    assert.equal(none.code, EXIT_OK);
    assert.match(none.out, /Nothing was trusted/);
  });
});

Deno.test("trust revoke --workspace forgets a workspace that no longer exists", async () => {
  await withDirs(async ({ home, run }) => {
    const gone = "/nonexistent/reasonix-trust-gone";
    await new TrustStore(home).grant(gone, [{
      kind: "mcp_server",
      name: "x",
      file: `${gone}/.mcp.json`,
      content: { command: "x" },
    }]);
    const r = await run("revoke", "--all", "--workspace", gone);
    assert.equal(r.code, EXIT_OK, r.err);
    assert.match(r.out, /revoked MCP server "x"/);
  });
});

Deno.test("a damaged trust file is a warning for status and a clear error for grant", async () => {
  await withDirs(async ({ home, cwd, run }) => {
    await Deno.writeTextFile(join(cwd, ".mcp.json"), MCP_JSON);
    await Deno.writeTextFile(join(home, "trust.json"), "{ broken", { mode: 0o600 });
    const status = await run();
    assert.equal(status.code, EXIT_OK);
    assert.match(status.err, /warning: .*trust\.json is not valid JSON .*nothing in it is trusted/);
    const grant = await run("grant", "build");
    assert.equal(grant.code, EXIT_USAGE);
    assert.match(
      grant.err,
      /trust\.json: the trust store is not valid JSON .*left as it is\nfix: /,
    );
    assert.equal(await Deno.readTextFile(join(home, "trust.json")), "{ broken");
  });
});

Deno.test("control characters in a declaration are escaped in what trust prints", async () => {
  await withDirs(async ({ cwd, run }) => {
    await Deno.writeTextFile(
      join(cwd, ".mcp.json"),
      JSON.stringify({ mcpServers: { x: { command: "node", args: ["\u001b[2Jsafe"] } } }),
    );
    const r = await run();
    assert.ok(!r.out.includes("\u001b"), r.out);
    assert.match(r.out, /\\u001b\[2Jsafe/);
  });
});
