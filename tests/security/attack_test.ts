/**
 * Attack tests against the real permission layer, the real built-in tools and the real
 * bubblewrap sandbox. Every case must be blocked or asked (which fails closed here: there is
 * no broker), must be reported as such, and must leave everything outside the allowed roots
 * byte-for-byte unchanged (the lab snapshots the canary directory and the fake home around
 * each case).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Lab, makeLab, ORIGINAL, SECRET, SKIP_SANDBOX } from "./lab.ts";

/** How a sandboxed command reports a refused write. */
const REFUSED =
  /Read-only file system|Permission denied|Operation not permitted|Invalid cross-device link|No such file or directory/i;

interface Attack {
  name: string;
  command(lab: Lab): string;
  /** What the output must show; default {@linkcode REFUSED}. */
  expect?: RegExp;
}

/** Commands that try to write outside the workspace from inside the `auto` sandbox. */
const SANDBOX_ATTACKS: Attack[] = [
  { name: "`..` traversal in a redirect", command: () => "echo pwned > ../outside/victim.txt" },
  { name: "absolute path", command: (l) => `touch ${l.outside}/absolute` },
  { name: "write through a symlinked directory", command: () => "echo pwned > link/victim.txt" },
  { name: "write through a symlinked file", command: () => "echo pwned > file-link" },
  { name: "create through a dangling symlink", command: () => "echo pwned > dangling" },
  { name: "cd / && touch", command: (l) => `cd / && touch ${l.outside}/from-root` },
  { name: "cd .. && touch", command: () => "cd .. && touch outside/from-parent" },
  { name: "sh -c", command: (l) => `sh -c 'echo pwned > ${l.outside}/victim.txt'` },
  { name: "bash -lc", command: (l) => `bash -lc "touch ${l.outside}/bash-lc"` },
  { name: "subshell", command: (l) => `(touch ${l.outside}/subshell)` },
  { name: "command substitution", command: (l) => `echo "$(touch ${l.outside}/subst 2>&1)"` },
  { name: "backticks", command: (l) => `echo \`touch ${l.outside}/backtick 2>&1\`` },
  { name: "env wrapper", command: (l) => `env touch ${l.outside}/env` },
  { name: "xargs wrapper", command: (l) => `echo ${l.outside}/xargs | xargs touch` },
  {
    name: "find -exec wrapper",
    command: (l) => `find . -maxdepth 0 -exec touch ${l.outside}/find \\;`,
  },
  { name: "exec fd redirect", command: (l) => `exec 3>${l.outside}/fd` },
  { name: "through /proc/self/cwd", command: () => "touch /proc/self/cwd/../outside/proc-cwd" },
  {
    name: "through /proc/self/root",
    command: (l) => `touch /proc/self/root${l.outside}/proc-root`,
  },
  { name: "move a file out of the canary", command: (l) => `mv ${l.outside}/victim.txt ./stolen` },
  { name: "delete the canary", command: (l) => `rm -rf ${l.outside}` },
  {
    name: "hard link across the mount",
    command: (l) => `ln ${l.outside}/victim.txt hardlink && echo pwned >> hardlink`,
  },
  {
    name: "symlink created in the workspace, then written through",
    command: (l) => `ln -sfn ${l.outside} d2 && echo pwned > d2/victim.txt`,
  },
  {
    name: "symlink swapped while writing (race loop)",
    command: (l) =>
      `mkdir -p race; (for i in $(seq 60); do rm -rf race; ln -sfn ${l.outside} race; ` +
      `rm -f race; mkdir -p race; done) & for i in $(seq 3000); do { echo pwned > race/r; } ` +
      `2>/dev/null; done; wait; echo finished`,
    expect: /finished/,
  },
  {
    name: "inline interpreter code",
    command: (l) => `perl -e 'open(F, ">", "${l.outside}/perl") or die "$!\\n"'`,
  },
  { name: "write into the home directory", command: (l) => `touch ${l.home}/.bashrc-pwned` },
  { name: "remount the root read-write", command: () => "mount -o remount,rw / && touch /pwned" },
  { name: "read a forbid_read secret", command: (l) => `cat ${l.home}/.ssh/id_rsa` },
];

/** File-tool calls that try to write outside the writable roots (or read forbidden files). */
interface FileAttack {
  name: string;
  tool: string;
  args(lab: Lab): Record<string, unknown>;
  reason: RegExp;
}

const OUTSIDE = /outside the writable roots/;
const FILE_ATTACKS: FileAttack[] = [
  {
    name: "write_file via ..",
    tool: "write_file",
    args: () => ({ path: "../outside/victim.txt", content: "pwned" }),
    reason: OUTSIDE,
  },
  {
    name: "write_file absolute",
    tool: "write_file",
    args: (l) => ({ path: `${l.outside}/abs.txt`, content: "pwned" }),
    reason: OUTSIDE,
  },
  {
    name: "write_file via a symlinked directory",
    tool: "write_file",
    args: () => ({ path: "link/victim.txt", content: "pwned" }),
    reason: OUTSIDE,
  },
  {
    name: "edit_file via a symlinked file",
    tool: "edit_file",
    args: () => ({ path: "file-link", old_string: "original", new_string: "pwned" }),
    reason: OUTSIDE,
  },
  {
    name: "write_file via a dangling symlink",
    tool: "write_file",
    args: () => ({ path: "dangling", content: "pwned" }),
    reason: OUTSIDE,
  },
  {
    name: "write_file via /proc/self/root",
    tool: "write_file",
    args: (l) => ({ path: `/proc/self/root${l.outside}/proc.txt`, content: "pwned" }),
    // Without --allow-all (the CLI's case) Deno may not even stat /proc: refused unresolved.
    reason: /outside the writable roots|cannot resolve the paths/,
  },
  {
    name: "multi_edit via a symlinked directory",
    tool: "multi_edit",
    args: () => ({
      path: "link/victim.txt",
      edits: [{ old_string: "original", new_string: "pwned" }],
    }),
    reason: OUTSIDE,
  },
  {
    name: "move_file out of the workspace",
    tool: "move_file",
    args: () => ({ source: "notes.txt", destination: "../outside/moved.txt" }),
    reason: OUTSIDE,
  },
  {
    name: "move_file from the canary into the workspace",
    tool: "move_file",
    args: () => ({ source: "link/victim.txt", destination: "stolen.txt" }),
    reason: OUTSIDE,
  },
  {
    name: "read_file of a forbid_read secret",
    tool: "read_file",
    args: (l) => ({ path: `${l.home}/.ssh/id_rsa` }),
    reason: /forbid_read/,
  },
  {
    name: "grep over a directory holding a forbid_read path",
    tool: "grep",
    args: (l) => ({ pattern: "PRIVATE", path: l.home }),
    reason: /forbid_read/,
  },
  {
    name: "bash additional_write_dirs without approval",
    tool: "bash",
    args: (l) => ({
      command: `touch ${l.outside}/extra`,
      additional_write_dirs: [l.outside],
      justification: "need it",
    }),
    reason: /\[sandbox\]\.allow_write/,
  },
];

/** Attempts to ride a `Bash(git status:*)` allow rule. */
const RULE_BYPASSES: string[] = [
  "git status; touch pwned",
  "git status && touch pwned",
  "git status || touch pwned",
  "git status | touch pwned",
  "git status\ntouch pwned",
  "git status\r\ntouch pwned",
  "git status # comment\ntouch pwned",
  "git status `touch pwned`",
  "git status $(touch pwned)",
  'git status "$(touch pwned)"',
  "git status ${X:-$(touch pwned)}",
  "git status <(touch pwned)",
  "git status & touch pwned",
  "git status > pwned",
  "{ git status; touch pwned; }",
  "(git status; touch pwned)",
  "GIT_PAGER='touch pwned' git status",
  "eval 'git status; touch pwned'",
  "git status; sh -c 'touch pwned'",
  "git status\\\n; touch pwned",
];

/** Attempts to get around a `Bash(rm:*)` deny rule. */
const DENY_BYPASSES: string[] = [
  "/bin/rm keep.txt",
  "\\rm keep.txt",
  'r""m keep.txt',
  "$'\\x72m' keep.txt",
  "env rm keep.txt",
  "echo keep.txt | xargs rm",
  "find . -name keep.txt -exec rm {} \\;",
  "sh -c 'rm keep.txt'",
  'bash -lc "rm keep.txt"',
  "$(echo rm) keep.txt",
  "command rm keep.txt",
  "true; rm keep.txt",
  "nice -n 5 rm keep.txt",
  "timeout 5 rm keep.txt",
  "eval rm keep.txt",
  "{rm,keep.txt}",
  "X=rm; $X keep.txt",
  "echo cm0ga2VlcC50eHQ= | base64 -d | sh",
  "if true; then rm keep.txt; fi",
];

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

Deno.test({
  name: "the auto sandbox keeps every write inside the workspace",
  ignore: SKIP_SANDBOX,
  async fn(t) {
    const lab = await makeLab({ mode: "auto" });
    try {
      for (const attack of SANDBOX_ATTACKS) {
        await t.step(attack.name, async () => {
          const before = await lab.snapshot();
          const { result, permission } = await lab.call("bash", { command: attack.command(lab) });
          // `auto` runs commands without asking: the OS sandbox is the wall, and says so.
          assert.equal(permission?.allowed, true);
          assert.match(result.content, attack.expect ?? REFUSED);
          assert.ok(!result.content.includes(SECRET), "forbid_read leaked");
          assert.deepEqual(await lab.snapshot(), before);
          assert.equal(await Deno.readTextFile(join(lab.outside, "victim.txt")), ORIGINAL);
        });
      }
    } finally {
      await lab.dispose();
    }
  },
});

Deno.test({
  name: "a background process cannot outlive its command to swap a symlink in later",
  ignore: SKIP_SANDBOX,
  async fn() {
    const lab = await makeLab({ mode: "auto" });
    try {
      const before = await lab.snapshot();
      const { result } = await lab.call("bash", {
        command: `(sleep 1; rm -rf ${lab.ws}/d; ln -s ${lab.outside} ${lab.ws}/d; ` +
          `touch ${lab.ws}/late) > /dev/null 2>&1 & echo started`,
      });
      assert.match(result.content, /started/);
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(await exists(join(lab.ws, "late")), false);
      assert.ok((await Deno.lstat(join(lab.ws, "d"))).isDirectory);
      const write = await lab.call("write_file", { path: "d/after.txt", content: "inside" });
      assert.equal(write.result.isError, undefined, write.result.content);
      assert.equal(await Deno.readTextFile(join(lab.ws, "d/after.txt")), "inside");
      assert.deepEqual(await lab.snapshot(), before);
    } finally {
      await lab.dispose();
    }
  },
});

Deno.test({
  name: "a sandboxed command is still stopped at its timeout",
  ignore: SKIP_SANDBOX,
  async fn() {
    const lab = await makeLab({ mode: "auto" });
    try {
      const started = Date.now();
      const { result } = await lab.call("bash", {
        command: "sleep 60 & sleep 60",
        timeout_seconds: 1,
      });
      assert.match(result.content, /timed out after 1s/);
      assert.ok(Date.now() - started < 15_000);
    } finally {
      await lab.dispose();
    }
  },
});

Deno.test({
  name: "sandboxed commands in auto have no network",
  ignore: SKIP_SANDBOX,
  async fn() {
    const lab = await makeLab({ mode: "auto" });
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    let connections = 0;
    const accepting = (async () => {
      for await (const conn of listener) {
        connections++;
        conn.close();
      }
    })();
    try {
      const port = (listener.addr as Deno.NetAddr).port;
      const { result } = await lab.call("bash", {
        command: `exec 3<>/dev/tcp/127.0.0.1/${port} && echo leaked >&3`,
      });
      assert.match(result.content, /Connection refused|Network is unreachable|Cannot assign/);
      assert.equal(connections, 0);
    } finally {
      listener.close();
      await accepting.catch(() => {});
      await lab.dispose();
    }
  },
});

Deno.test("file tools cannot write outside the writable roots or read forbid_read", async (t) => {
  const lab = await makeLab({ mode: "auto" });
  try {
    for (const attack of FILE_ATTACKS) {
      await t.step(attack.name, async () => {
        const before = await lab.snapshot();
        const { result, permission } = await lab.call(attack.tool, attack.args(lab));
        assert.equal(result.isError, true);
        assert.equal(permission?.allowed, false);
        assert.match(result.content, attack.reason);
        assert.ok(!result.content.includes(SECRET));
        assert.deepEqual(await lab.snapshot(), before);
      });
    }
    await t.step("a directory swapped for a symlink after an earlier check", async () => {
      const before = await lab.snapshot();
      const first = await lab.call("write_file", { path: "d/one.txt", content: "inside" });
      assert.equal(first.permission?.allowed, true);
      await Deno.remove(join(lab.ws, "d"), { recursive: true });
      await Deno.symlink(lab.outside, join(lab.ws, "d"));
      const second = await lab.call("write_file", { path: "d/two.txt", content: "pwned" });
      assert.equal(second.permission?.allowed, false);
      assert.match(second.result.content, OUTSIDE);
      assert.deepEqual(await lab.snapshot(), before);
    });
  } finally {
    await lab.dispose();
  }
});

Deno.test("a Bash(git status:*) allow rule approves nothing riding along", async (t) => {
  const lab = await makeLab({ mode: "ask", allow: ["Bash(git status:*)"], git: true });
  try {
    await t.step("control: git status itself is allowed", async () => {
      const { permission } = await lab.call("bash", { command: "git status" });
      assert.equal(permission?.allowed, true);
      assert.equal(permission?.rule, "Bash(git status:*)");
    });
    await t.step("control: a quoted argument is only an argument", async () => {
      const { permission } = await lab.call("bash", { command: "git status '; touch pwned'" });
      assert.equal(permission?.allowed, true);
      assert.equal(await exists(join(lab.ws, "pwned")), false);
    });
    for (const command of RULE_BYPASSES) {
      await t.step(JSON.stringify(command), async () => {
        const before = await lab.snapshot();
        const { result, permission } = await lab.call("bash", { command });
        assert.equal(permission?.decision, "ask");
        assert.equal(permission?.allowed, false);
        assert.match(result.content, /^Not run: .* needs approval in the "ask" permission mode/);
        assert.equal(await exists(join(lab.ws, "pwned")), false);
        assert.deepEqual(await lab.snapshot(), before);
      });
    }
  } finally {
    await lab.dispose();
  }
});

Deno.test("a Bash(rm:*) deny rule holds against wrappers, quoting and computed names", async (t) => {
  const lab = await makeLab({ mode: "yolo", deny: ["Bash(rm:*)"] });
  try {
    for (const command of DENY_BYPASSES) {
      await t.step(JSON.stringify(command), async () => {
        const before = await lab.snapshot();
        const { result, permission } = await lab.call("bash", { command });
        assert.equal(permission?.allowed, false);
        assert.ok(permission?.decision === "deny" || permission?.decision === "ask");
        assert.equal(permission?.rule, "Bash(rm:*)");
        assert.equal(result.isError, true);
        assert.ok(await exists(join(lab.ws, "keep.txt")), "keep.txt was removed");
        assert.deepEqual(await lab.snapshot(), before);
      });
    }
  } finally {
    await lab.dispose();
  }
});

Deno.test("a restricted preset refuses to run bash when bubblewrap is missing", async () => {
  const lab = await makeLab({
    mode: "auto",
    which: (name) => Promise.resolve(name === "bwrap" ? undefined : `/usr/bin/${name}`),
  });
  try {
    if (Deno.build.os !== "linux") return;
    const { result } = await lab.call("bash", { command: "touch created" });
    assert.equal(result.isError, true);
    assert.match(result.content, /bubblewrap \(bwrap\) is not installed/);
    assert.match(result.content, /never falls back to running it unconfined/);
    assert.equal(await exists(join(lab.ws, "created")), false);
  } finally {
    await lab.dispose();
  }
});

Deno.test({
  name: "read-only mode: bash and writers are refused, nothing changes",
  ignore: SKIP_SANDBOX,
  async fn() {
    const lab = await makeLab({ mode: "read-only", allow: ["Edit"] });
    try {
      const before = await lab.snapshot();
      const bash = await lab.call("bash", { command: "touch created" });
      assert.equal(bash.permission?.allowed, false);
      assert.match(bash.result.content, /read-only permission mode runs no commands/);
      assert.equal(await exists(join(lab.ws, "created")), false);
      const write = await lab.call("write_file", { path: "created", content: "x" });
      assert.equal(write.permission?.allowed, false);
      assert.match(write.result.content, /read-only permission mode never runs writers/);
      assert.deepEqual(await lab.snapshot(), before);
    } finally {
      await lab.dispose();
    }
  },
});
