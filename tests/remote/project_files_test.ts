/**
 * With `--remote`, the project's instruction files, subagent profiles and custom commands come
 * from the remote workspace. The sshd fixture runs in a mount namespace of its own
 * (`privateRoot`), so the remote host sees other files at the workspace path than this machine
 * does: a local read of the same path would find the decoys.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeLlm } from "../fake_llm/mod.ts";
import type { RecordedRequest } from "../fake_llm/mod.ts";
import { makeHome, makeRepo, runReasonix } from "../e2e/support.ts";
import { commandSources, loadCustomCommands } from "../../core/commands/mod.ts";
import { type SshdFixture, sshdMissing, startSshd } from "./sshd.ts";
import { openOnFixture } from "./support.ts";

const missing = await sshdMissing();
if (missing) console.warn(`SKIPPED remote project-file tests: ${missing}`);

const skill = (mark: string) =>
  `---\nname: probe\ndescription: probe\nrunAs: subagent\nread-only: true\n---\n${mark}\n`;

/** The same project files with `mark` in each, under `dir`. */
async function projectFiles(dir: string, mark: string): Promise<void> {
  await Deno.writeTextFile(join(dir, "AGENTS.md"), `Agents ${mark}`);
  await Deno.mkdir(join(dir, ".reasonix", "skills", "probe"), { recursive: true });
  await Deno.writeTextFile(join(dir, ".reasonix", "skills", "probe", "SKILL.md"), skill(mark));
  await Deno.mkdir(join(dir, ".reasonix", "commands"), { recursive: true });
  await Deno.writeTextFile(join(dir, ".reasonix", "commands", "hello.md"), `Say ${mark}`);
}

async function sshHome(sshd: SshdFixture): Promise<string> {
  const home = await Deno.makeTempDir({ prefix: "reasonix-ssh-home-" });
  await Deno.mkdir(join(home, ".ssh"), { mode: 0o700 });
  await Deno.copyFile(sshd.identity, join(home, ".ssh", "id_ed25519"));
  await Deno.chmod(join(home, ".ssh", "id_ed25519"), 0o600);
  await Deno.copyFile(sshd.knownHosts, join(home, ".ssh", "known_hosts"));
  return home;
}

const body = (r: RecordedRequest) => JSON.stringify(r.body);

Deno.test({
  name: "run --remote reads AGENTS.md and profiles from the remote workspace, not the local disk",
  ignore: missing !== undefined,
  sanitizeResources: false,
  async fn() {
    await using sshd = await startSshd({ privateRoot: true });
    await projectFiles(sshd.remoteStore, "REMOTE_MARK_7");
    // Locally, the workspace path and the cwd hold other project files.
    await projectFiles(sshd.remoteRoot, "SAME_PATH_DECOY");
    const local = await makeRepo({});
    await projectFiles(local, "LOCAL_CWD_DECOY");
    const sshHomeDir = await sshHome(sshd);
    const fake = await startFakeLlm({
      script: [
        { text: "plain done" },
        { text: "profile done" },
        {
          toolCalls: [{
            name: "task",
            arguments: JSON.stringify({ tasks: [{ prompt: "go", profile: "probe" }] }),
          }],
        },
        { text: "child done" },
        { text: "parent done" },
        { text: "reference done" },
      ],
    });
    const home = await makeHome(fake.url);
    const target = `${sshd.user}@127.0.0.1:${sshd.port}:${sshd.remoteRoot}`;
    const run = (task: string) =>
      runReasonix(["run", "--json", "--remote", target, task], {
        cwd: local,
        home,
        env: { HOME: sshHomeDir, SSH_AUTH_SOCK: "" },
      });
    try {
      const plain = await run("hi");
      assert.equal(plain.code, 0, plain.stderr);
      const first = body(fake.requests[0]);
      assert.match(first, /Agents REMOTE_MARK_7/);
      assert.doesNotMatch(first, /DECOY/);

      // `/<profile> task`: the remote profile is found and its prompt reaches the model.
      const profiled = await run("/probe look around");
      assert.equal(profiled.code, 0, profiled.stderr);
      const profileReq = body(fake.requests[1]);
      assert.match(profileReq, /REMOTE_MARK_7/);
      assert.doesNotMatch(profileReq, /DECOY/);

      // The task tool's `profile` finds it there too.
      const delegated = await run("delegate");
      assert.equal(delegated.code, 0, delegated.stderr);
      const child = body(fake.requests[3]);
      assert.match(child, /REMOTE_MARK_7/);
      assert.doesNotMatch(child, /DECOY/);
      assert.doesNotMatch(body(fake.requests[4]), /no subagent profile/);

      // An `@` reference would read this machine's disk at the remote path: not attached.
      const referenced = await run("summarize @AGENTS.md");
      assert.equal(referenced.code, 0, referenced.stderr);
      const refReq = body(fake.requests[5]);
      assert.match(refReq, /summarize @AGENTS\.md/);
      assert.doesNotMatch(refReq, /DECOY/);
    } finally {
      await fake.close();
      for (const dir of [local, sshHomeDir, home]) {
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    }
  },
});

Deno.test({
  name: "project custom commands load through the remote workspace",
  ignore: missing !== undefined,
  sanitizeResources: false,
  async fn() {
    await using sshd = await startSshd({ privateRoot: true });
    await projectFiles(sshd.remoteStore, "REMOTE_MARK_7");
    await projectFiles(sshd.remoteRoot, "SAME_PATH_DECOY");
    const opened = await openOnFixture(sshd);
    const home = await Deno.makeTempDir({ prefix: "reasonix-home-" });
    try {
      const loaded = await loadCustomCommands(
        commandSources({ workspaceRoot: opened.root, home, workspace: opened.workspace }),
      );
      assert.deepEqual(loaded.notices, []);
      assert.deepEqual(loaded.commands.map((c) => [c.name, c.template]), [
        ["hello", "Say REMOTE_MARK_7"],
      ]);
    } finally {
      await opened.close();
      await Deno.remove(home, { recursive: true });
    }
  },
});
