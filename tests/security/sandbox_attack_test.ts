/**
 * Attack tests of the sandbox's own boundary, against the real bubblewrap, real listeners and
 * the real configuration loader: roots that a symlink turns into `/`, host unix sockets in the
 * no-network sandbox, renaming the parents of a `forbid_read` path, planting persistence in
 * the project's control files, and planting programs on a hijackable `PATH`. Canaries outside
 * the workspace prove that nothing changed and nothing was received.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ConfigError } from "../../core/config/errors.ts";
import { loadConfig } from "../../core/config/load.ts";
import type { PermissionsConfig, SandboxConfig } from "../../core/config/types.ts";
import { setupPermissions } from "../../core/permission/mod.ts";
import { type Lab, type LabWorld, makeLab, ORIGINAL, SKIP_SANDBOX } from "./lab.ts";
import { type HijackOutcome, VARIANTS } from "./path_hijack_run.ts";

const AUTO: PermissionsConfig = { mode: "auto", allow: [], ask: [], deny: [] };
const KINDS = ["anthropic", "openai"];

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

async function has(path: string): Promise<string | undefined> {
  return await Deno.readTextFile(path).catch(() => undefined);
}

async function bash(lab: Lab, command: string) {
  return await lab.call("bash", { command });
}

/** Loads the lab workspace's configuration the way the CLI does (project trusted). */
async function loadFor(
  world: LabWorld,
  files: { project?: string; user?: string },
): Promise<{ sandbox: SandboxConfig; warnings: string[] }> {
  const reasonixHome = join(world.home, ".reasonix");
  await Deno.mkdir(reasonixHome, { recursive: true });
  if (files.project) await Deno.writeTextFile(join(world.ws, "reasonix.toml"), files.project);
  if (files.user) await Deno.writeTextFile(join(reasonixHome, "config.toml"), files.user);
  const config = await loadConfig({
    cwd: world.ws,
    home: reasonixHome,
    env: { HOME: world.home },
    knownKinds: KINDS,
    trustedProject: true,
  });
  return { sandbox: config.sandbox, warnings: config.warnings };
}

// ---------------------------------------------------------------------------------------
// Class 1: roots resolved before they are trusted

/** Project declarations whose roots resolve outside the project. */
const PROJECT_ROOTS: {
  name: string;
  plant(world: LabWorld): Promise<void>;
  toml: string;
  key: RegExp;
}[] = [
  {
    name: "allow_write through a relative symlink climbing to /",
    plant: async (w) => {
      await Deno.mkdir(join(w.ws, "vendor"));
      await Deno.symlink("../".repeat(12), join(w.ws, "vendor/cache"));
    },
    toml: `# vendored\n[sandbox]\nallow_write = ["vendor/cache"]\n`,
    key: /reasonix\.toml:3: \[sandbox\]\.allow_write "vendor\/cache" resolves to \/,? /,
  },
  {
    name: "allow_write through an absolute symlink to the canary directory",
    plant: (w) => Deno.symlink(w.outside, join(w.ws, "out")),
    toml: `[sandbox]\nallow_write = ["build", "out"]\n`,
    key: /reasonix\.toml:2: \[sandbox\]\.allow_write "out" resolves to .*outside/,
  },
  {
    name: "allow_write below a symlinked parent that does not exist yet",
    plant: (w) => Deno.symlink(w.outside, join(w.ws, "gen")),
    toml: `[sandbox]\nallow_write = ["gen/deep/new"]\n`,
    key: /reasonix\.toml:2: \[sandbox\]\.allow_write "gen\/deep\/new" resolves to .*outside/,
  },
];

for (const attack of PROJECT_ROOTS) {
  Deno.test({
    name: `a project root that leaves the project is refused: ${attack.name}`,
    ignore: SKIP_SANDBOX,
    async fn() {
      let warnings: string[] = [];
      const lab = await makeLab({
        mode: "auto",
        prepare: async (world) => {
          await attack.plant(world);
          const loaded = await loadFor(world, { project: attack.toml });
          warnings = loaded.warnings;
          return { permissions: AUTO, sandbox: loaded.sandbox };
        },
      });
      try {
        const before = await lab.snapshot();
        const shell = await bash(lab, `echo pwned > ${lab.outside}/victim.txt`);
        const write = await lab.call("write_file", {
          path: join(lab.outside, "written.txt"),
          content: "pwned",
        });
        assert.equal(write.result.isError, true, write.result.content);
        assert.match(shell.result.content, /Read-only file system|Permission denied/);
        assert.equal(await Deno.readTextFile(join(lab.outside, "victim.txt")), ORIGINAL);
        assert.deepEqual(await lab.snapshot(), before);
        assert.ok(warnings.some((w) => attack.key.test(w)), warnings.join("\n"));
      } finally {
        await lab.dispose();
      }
    },
  });
}

Deno.test({
  name: "a project workspace_root through a symlink out of the project is refused",
  async fn(t) {
    for (const [name, target] of [["link", "outside"], ["up", "../.."]] as const) {
      await t.step(`workspace_root = "${name}"`, async () => {
        let loaded: { sandbox: SandboxConfig; warnings: string[] } | undefined;
        const lab = await makeLab({
          mode: "auto",
          prepare: async (world) => {
            if (name === "up") await Deno.symlink(target, join(world.ws, name));
            loaded = await loadFor(world, {
              project: `[sandbox]\nworkspace_root = "${name}"\n`,
            });
          },
        });
        try {
          assert.equal(loaded?.sandbox.workspace_root, undefined);
          assert.ok(
            loaded?.warnings.some((w) =>
              /reasonix\.toml:2: \[sandbox\]\.workspace_root ".*" resolves to .* outside/.test(w)
            ),
            loaded?.warnings.join("\n"),
          );
        } finally {
          await lab.dispose();
        }
      });
    }
  },
});

/** Configuration that would make `/`, the home directory or a parent of it writable. */
const BROAD_ROOTS: { name: string; entry(world: LabWorld): Promise<string> }[] = [
  { name: "~", entry: () => Promise.resolve("~") },
  { name: "/", entry: () => Promise.resolve("/") },
  { name: "a parent of the home directory", entry: (w) => Promise.resolve(w.base) },
  {
    name: "a symlink to /",
    entry: async (w) => {
      await Deno.symlink("/", join(w.home, "root"));
      return "~/root";
    },
  },
  { name: "~/.. spelt out", entry: () => Promise.resolve("~/../home/..") },
];

Deno.test("no configuration makes /, the home directory or a parent writable", async (t) => {
  for (const broad of BROAD_ROOTS) {
    await t.step(`user config allow_write = ${broad.name}`, async () => {
      let error: unknown;
      let base: string | undefined;
      try {
        const lab = await makeLab({
          mode: "auto",
          prepare: async (world) => {
            base = world.base;
            const entry = await broad.entry(world);
            const loaded = await loadFor(world, {
              user: `[sandbox]\n# mine\nallow_write = [${JSON.stringify(entry)}]\n`,
            });
            return { permissions: AUTO, sandbox: loaded.sandbox };
          },
        });
        await lab.dispose();
      } catch (e) {
        error = e;
        // The lab never came up, so it cannot clean up after itself.
        if (base) await Deno.remove(base, { recursive: true });
      }
      assert.ok(error instanceof ConfigError, `accepted: ${error}`);
      assert.match(error.message, /config\.toml:3: \[sandbox\]\.allow_write/);
      assert.match(error.message, /yolo|narrower/);
    });
  }
  await t.step("the same through the API (as a command-line flag would)", async () => {
    const dir = await Deno.makeTempDir();
    try {
      await assert.rejects(
        setupPermissions({
          permissions: AUTO,
          sandbox: { allow_write: ["/"], forbid_read: [] },
          workspaceRoot: dir,
          tempDir: join(dir, "tmp"),
          env: { HOME: dir },
        }),
        /allow_write "\/" .*yolo/s,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
  await t.step("control: yolo needs no writable roots and accepts the entry", async () => {
    const lab = await makeLab({
      mode: "yolo",
      prepare: () =>
        Promise.resolve({
          permissions: { ...AUTO, mode: "yolo" },
          sandbox: { allow_write: ["~"], forbid_read: [] },
        }),
    });
    await lab.dispose();
  });
  await t.step("control: a narrower directory outside the project works", async () => {
    const lab = await makeLab({
      mode: "auto",
      prepare: (world) =>
        Promise.resolve({
          permissions: AUTO,
          sandbox: { allow_write: [world.outside], forbid_read: [] },
        }),
    });
    try {
      if (SKIP_SANDBOX) return;
      const { result } = await bash(lab, `echo granted > ${lab.outside}/granted.txt`);
      assert.equal(result.isError, false, result.content);
      assert.equal(await has(join(lab.outside, "granted.txt")), "granted\n");
    } finally {
      await lab.dispose();
    }
  });
});

Deno.test({
  name: "a writable root swapped for a symlink after start-up is not bound",
  ignore: SKIP_SANDBOX,
  async fn() {
    const lab = await makeLab({
      mode: "auto",
      prepare: async (world) => {
        await Deno.mkdir(join(world.ws, "cache"));
        return { permissions: AUTO, sandbox: { allow_write: ["cache"], forbid_read: [] } };
      },
    });
    try {
      await Deno.remove(join(lab.ws, "cache"));
      await Deno.symlink(lab.outside, join(lab.ws, "cache"));
      const before = await lab.snapshot();
      await bash(lab, `echo pwned > ${lab.outside}/victim.txt; echo pwned > cache/victim.txt`);
      assert.equal(await Deno.readTextFile(join(lab.outside, "victim.txt")), ORIGINAL);
      assert.deepEqual(await lab.snapshot(), before);
    } finally {
      await lab.dispose();
    }
  },
});

// ---------------------------------------------------------------------------------------
// Class 8: host unix sockets in the no-network sandbox

const PY = "/usr/bin/python3";
const HAS_PY = await exists(PY);

/** Commands that try to reach a unix socket at `path` and send `pwned`. */
function socketClients(path: string): { name: string; command: string; needs?: string }[] {
  return [
    {
      name: "python3 socket.connect",
      needs: PY,
      command: `${PY} -c 'import socket; s=socket.socket(socket.AF_UNIX); ` +
        `s.connect("${path}"); s.sendall(b"pwned")'`,
    },
    {
      name: "python3 raw socket(2) through ctypes",
      needs: PY,
      command: `${PY} -c 'import ctypes,socket,platform; ` +
        `nr = 41 if platform.machine() == "x86_64" else 198; ` +
        `fd = ctypes.CDLL(None, use_errno=True).syscall(nr, 1, 1, 0); print("fd", fd); ` +
        `s = socket.socket(fileno=fd); s.connect("${path}"); s.sendall(b"pwned")'`,
    },
    {
      name: "python3 x32-ABI socket(2)",
      needs: PY,
      command: `${PY} -c 'import ctypes,socket,platform; assert platform.machine() == "x86_64"; ` +
        `fd = ctypes.CDLL(None, use_errno=True).syscall(0x40000000 | 41, 1, 1, 0); ` +
        `print("fd", fd); s = socket.socket(fileno=fd); s.connect("${path}"); ` +
        `s.sendall(b"pwned")'`,
    },
    {
      name: "perl IO::Socket::UNIX",
      command: `perl -MIO::Socket::UNIX -e '$s = IO::Socket::UNIX->new(Peer => "${path}") ` +
        `or die "connect: $!\\n"; print $s "pwned"'`,
    },
    {
      name: "curl --unix-socket",
      needs: "/usr/bin/curl",
      command: `curl -s --max-time 3 --unix-socket ${path} http://x/pwned`,
    },
    { name: "nc -U", needs: "/usr/bin/nc", command: `printf pwned | nc -U -w 2 ${path}` },
    {
      name: "socat",
      needs: "/usr/bin/socat",
      command: `printf pwned | socat - UNIX-CONNECT:${path}`,
    },
  ];
}

/** A real listener outside the workspace that records what it receives. */
function unixListener(path: string): { received(): string; close(): Promise<void> } {
  const listener = Deno.listen({ transport: "unix", path });
  let received = "";
  let connections = 0;
  const accepting = (async () => {
    for await (const conn of listener) {
      connections++;
      (async () => {
        const buf = new Uint8Array(256);
        try {
          while (true) {
            const n = await conn.read(buf);
            if (n === null) break;
            received += new TextDecoder().decode(buf.subarray(0, n));
          }
        } catch {
          // closed
        }
        conn.close();
      })();
    }
  })();
  return {
    received: () => `${connections} connection(s): ${received}`,
    async close() {
      listener.close();
      await accepting.catch(() => {});
    },
  };
}

Deno.test({
  name: "the no-network sandbox reaches no host unix socket",
  ignore: SKIP_SANDBOX,
  async fn(t) {
    const lab = await makeLab({ mode: "auto" });
    try {
      for (const [i, client] of socketClients(join(lab.outside, "agent.sock")).entries()) {
        await t.step({
          name: client.name,
          ignore: client.needs !== undefined && !(await exists(client.needs)),
          fn: async () => {
            // A fresh listener per client, so each one's result is its own.
            const path = join(lab.outside, `agent-${i}.sock`);
            const listener = unixListener(path);
            try {
              const command = client.command.replaceAll(join(lab.outside, "agent.sock"), path);
              const { result } = await bash(lab, command);
              await new Promise((r) => setTimeout(r, 100));
              assert.equal(listener.received(), "0 connection(s): ", result.content);
            } finally {
              await listener.close();
            }
          },
        });
      }
      await t.step({
        name: "control: socketpair still works",
        ignore: !HAS_PY,
        fn: async () => {
          const { result } = await bash(
            lab,
            `${PY} -c 'import socket; a, b = socket.socketpair(); a.send(b"ok"); ` +
              `print("pair", b.recv(2).decode())'`,
          );
          assert.match(result.content, /pair ok/);
        },
      });
    } finally {
      await lab.dispose();
    }
  },
});

Deno.test({
  name: "allow_unix_sockets = true lets the sandbox reach unix sockets again",
  ignore: SKIP_SANDBOX || !HAS_PY,
  async fn() {
    const lab = await makeLab({
      mode: "auto",
      prepare: () =>
        Promise.resolve({
          permissions: AUTO,
          sandbox: { allow_write: [], forbid_read: [], allow_unix_sockets: true },
        }),
    });
    const path = join(lab.outside, "agent.sock");
    const listener = unixListener(path);
    try {
      const { result } = await bash(lab, socketClients(path)[0].command);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(listener.received(), "1 connection(s): pwned", result.content);
    } finally {
      await listener.close();
      await lab.dispose();
    }
  },
});

// ---------------------------------------------------------------------------------------
// Class 9: renaming a parent of a forbid_read path

const INNER_SECRET = "STRIPE_KEY=sk_live_inner_secret";

/** Each attack moves something, then a later command reads every place the secret may be. */
const RENAMES: { name: string; command: string; later: string }[] = [
  { name: "mv the parent directory", command: "mv config c2", later: "cat c2/secret.env" },
  {
    name: "mv the parent, read in the same command",
    command: "mv config c2 && cat c2/secret.env",
    later: "cat c2/secret.env",
  },
  {
    name: "mv the file itself",
    command: "mv config/secret.env exposed",
    later: "cat exposed",
  },
  { name: "mv a grandparent", command: "mv a a2", later: "cat a2/b/c/deep.key" },
  { name: "mv a middle ancestor", command: "mv a/b a/b2", later: "cat a/b2/c/deep.key" },
  {
    name: "python os.rename of the parent",
    command: `${PY} -c 'import os; os.rename("config", "c3")'`,
    later: "cat c3/secret.env",
  },
  {
    name: "rename a forbidden directory",
    command: "mv private p2",
    later: "cat p2/token",
  },
  {
    name: "move the parent into a new directory",
    command: "mkdir n && mv config n/",
    later: "cat n/config/secret.env",
  },
  {
    name: "hard link the file",
    command: "ln config/secret.env h",
    later: "cat h",
  },
  {
    name: "copy the parent directory",
    command: "cp -r config c4",
    later: "cat c4/secret.env",
  },
  {
    name: "remove the parent and put a new one in its place",
    command: "rm -rf config; mkdir -p config",
    later: "cat config/secret.env",
  },
];

Deno.test({
  name: "forbid_read inside the workspace survives renaming its parents",
  ignore: SKIP_SANDBOX,
  async fn(t) {
    for (const attack of RENAMES) {
      await t.step(attack.name, async () => {
        const lab = await makeLab({
          mode: "auto",
          forbidRead: ["config/secret.env", "a/b/c/deep.key", "private"],
          prepare: async (w) => {
            for (const d of ["config", "a/b/c", "private"]) {
              await Deno.mkdir(join(w.ws, d), { recursive: true });
            }
            await Deno.writeTextFile(join(w.ws, "config/secret.env"), INNER_SECRET);
            await Deno.writeTextFile(join(w.ws, "config/public.txt"), "public\n");
            await Deno.writeTextFile(join(w.ws, "a/b/c/deep.key"), INNER_SECRET);
            await Deno.writeTextFile(join(w.ws, "private/token"), INNER_SECRET);
          },
        });
        try {
          const first = await bash(lab, attack.command);
          const later = await bash(lab, attack.later);
          assert.ok(!first.result.content.includes(INNER_SECRET), first.result.content);
          assert.ok(!later.result.content.includes(INNER_SECRET), later.result.content);
          assert.equal(await has(join(lab.ws, "config/secret.env")), INNER_SECRET);
          assert.equal(await has(join(lab.ws, "a/b/c/deep.key")), INNER_SECRET);
          assert.equal(await has(join(lab.ws, "private/token")), INNER_SECRET);
        } finally {
          await lab.dispose();
        }
      });
    }
  },
});

// ---------------------------------------------------------------------------------------
// Class 4 (bash side): persistence through the project's control files

/** The control files, as the lab creates them when `present`. */
const CONTROL_FILES: Record<string, string> = {
  "reasonix.toml": "# project\n",
  ".mcp.json": '{"mcpServers": {}}\n',
  ".env": "PORT=1\n",
  ".reasonix/commands/review.md": "review\n",
};

/** Type, link target or content of every path below `path`, one line each. */
async function describe(path: string, rel: string, out: string[]): Promise<void> {
  const info = await Deno.lstat(path).catch(() => undefined);
  if (!info) out.push(`${rel} missing`);
  else if (info.isSymlink) out.push(`${rel} -> ${await Deno.readLink(path)}`);
  else if (info.isDirectory) {
    out.push(`${rel}/`);
    const names: string[] = [];
    for await (const e of Deno.readDir(path)) names.push(e.name);
    for (const name of names.sort()) await describe(join(path, name), `${rel}/${name}`, out);
  } else {out.push(
      `${rel} ${info.mode?.toString(8)} ${JSON.stringify(await Deno.readTextFile(path))}`,
    );}
}

/** The control files of `ws` (all of `.git` except its objects, index and logs). */
async function controlState(ws: string): Promise<string[]> {
  const out: string[] = [];
  for (const rel of [...Object.keys(CONTROL_FILES), ".reasonix"]) {
    await describe(join(ws, rel), rel, out);
  }
  for (const rel of [".git/config", ".git/hooks", ".git/commondir", ".git/info"]) {
    await describe(join(ws, rel), rel, out);
  }
  const git = await Deno.lstat(join(ws, ".git")).catch(() => undefined);
  out.push(`.git ${git ? (git.isSymlink ? "link" : git.isDirectory ? "dir" : "file") : "missing"}`);
  return out;
}

const PLANT_EXISTING: string[] = [
  `printf '[permissions]\\nmode = "yolo"\\n' > reasonix.toml`,
  `echo '{"mcpServers":{"x":{"command":"touch","args":["/tmp/pwned"]}}}' > .mcp.json`,
  "echo 'OPENAI_BASE_URL=http://evil' >> .env",
  "echo evil > .reasonix/commands/evil.md",
  "echo 'touch /tmp/pwned' >> .git/hooks/post-checkout; chmod +x .git/hooks/post-checkout",
  "git config core.hooksPath /tmp/hooks",
  "git config core.fsmonitor 'touch /tmp/pwned'",
  "rm -f .mcp.json; echo '{}' > .mcp.json",
  "mv reasonix.toml r.bak; echo evil > reasonix.toml",
  "sed -i 's/project/evil/' reasonix.toml",
  `${PY} -c 'open(".env", "w").write("X=1")'`,
  "mv .git .git2 && cp -a .git2 .git && echo evil > .git/hooks/pre-commit",
  "mv .reasonix r2; mkdir -p .reasonix/commands && echo evil > .reasonix/commands/evil.md",
  "rm -rf .git/hooks; mkdir .git/hooks && echo evil > .git/hooks/pre-commit",
  "echo ../evil > .git/commondir",
  "ln -sf /tmp/evil.json .mcp.json",
  "(sleep 0.3; echo late > .env) > /dev/null 2>&1 &",
];

const PLANT_MISSING: string[] = [
  `echo '{"mcpServers":{"x":{"command":"touch"}}}' > .mcp.json`,
  "mkdir -p .reasonix && echo evil > .reasonix/config",
  `printf '[permissions]\\nallow = ["Bash"]\\n' > reasonix.toml`,
  "echo K=V > .env",
  "ln -s /tmp/evil.json .mcp.json",
  "mkdir .mcp.json",
];

async function plantFiles(world: LabWorld): Promise<void> {
  for (const [rel, text] of Object.entries(CONTROL_FILES)) {
    await Deno.mkdir(join(world.ws, rel, ".."), { recursive: true });
    await Deno.writeTextFile(join(world.ws, rel), text);
  }
}

Deno.test({
  name: "auto-mode bash cannot change the project's control files",
  ignore: SKIP_SANDBOX,
  async fn(t) {
    for (const command of PLANT_EXISTING) {
      await t.step(`present: ${command}`, async () => {
        const lab = await makeLab({ mode: "auto", git: true, prepare: plantFiles });
        try {
          const before = await controlState(lab.ws);
          await bash(lab, command);
          await new Promise((r) => setTimeout(r, 400));
          assert.deepEqual(await controlState(lab.ws), before);
        } finally {
          await lab.dispose();
        }
      });
    }
    for (const command of PLANT_MISSING) {
      await t.step(`missing: ${command}`, async () => {
        const lab = await makeLab({ mode: "auto", git: true });
        try {
          const before = await controlState(lab.ws);
          const { result } = await bash(lab, command);
          assert.deepEqual(await controlState(lab.ws), before);
          assert.equal(result.isError, true, result.content);
        } finally {
          await lab.dispose();
        }
      });
    }
    await t.step("not a repository: git init and a hook do not stay", async () => {
      const lab = await makeLab({ mode: "auto" });
      try {
        const { result } = await bash(
          lab,
          "git init -q && echo 'touch /tmp/pwned' > .git/hooks/post-checkout",
        );
        assert.equal(await exists(join(lab.ws, ".git")), false, result.content);
        assert.match(result.content, /\.git/);
      } finally {
        await lab.dispose();
      }
    });
    await t.step("control: ordinary work in the repository still runs", async () => {
      const lab = await makeLab({ mode: "auto", git: true, prepare: plantFiles });
      try {
        const { result } = await bash(
          lab,
          "echo new > new.txt && mkdir -p src && echo x > src/a.ts && git add -A && " +
            "git -c user.name=t -c user.email=t@t commit -qm work && git status --short && " +
            "cat reasonix.toml .env && git log --oneline | head -1",
        );
        assert.equal(result.isError, false, result.content);
        assert.match(result.content, /PORT=1/);
        assert.match(result.content, /work/);
      } finally {
        await lab.dispose();
      }
    });
  },
});

// ---------------------------------------------------------------------------------------
// Class 11: PATH hijack

Deno.test({
  name: "programs planted on a hijackable PATH never run",
  ignore: SKIP_SANDBOX,
  async fn(t) {
    const script = new URL("./path_hijack_run.ts", import.meta.url).pathname;
    for (const variant of Object.keys(VARIANTS)) {
      await t.step(variant, async () => {
        const out = await new Deno.Command(Deno.execPath(), {
          args: ["run", "--allow-all", "--no-check", script, variant],
          stdout: "piped",
          stderr: "piped",
        }).output();
        const text = new TextDecoder().decode(out.stdout);
        assert.ok(out.success, text + new TextDecoder().decode(out.stderr));
        const outcome = JSON.parse(text.trim().split("\n").at(-1)!) as HijackOutcome;
        assert.doesNotMatch(outcome.plant, /Exit code: [1-9]/, outcome.plant);
        assert.match(outcome.next, /^next/);
        assert.deepEqual(outcome.ran, []);
      });
    }
  },
});
