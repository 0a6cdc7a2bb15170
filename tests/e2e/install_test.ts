/**
 * `deno task install` as a newcomer runs it: from a clone, into an install root that is not on
 * `PATH`. It must say the exact line to add for the user's shell, print no alarming warning,
 * and leave a program that keeps working after the clone is gone; `deno task uninstall`
 * removes it again.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { pathAdvice } from "../../cli/release/install.ts";
import { startFakeLlm } from "../fake_llm/mod.ts";
import { makeHome, makeRepo } from "./support.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");

async function denoDir(): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir;
}

/** A copy of this checkout's files (tracked and new, not ignored), like a fresh clone. */
async function cloneInto(dest: string): Promise<void> {
  const out = await new Deno.Command("git", {
    args: ["ls-files", "-co", "--exclude-standard", "-z"],
    cwd: ROOT,
  }).output();
  for (const file of new TextDecoder().decode(out.stdout).split("\0").filter(Boolean)) {
    const from = join(ROOT, file);
    if (!(await Deno.lstat(from).then((i) => i.isFile, () => false))) continue;
    await Deno.mkdir(dirname(join(dest, file)), { recursive: true });
    await Deno.copyFile(from, join(dest, file));
  }
}

Deno.test("install leaves a program that outlives its clone, says the PATH line, uninstalls", async () => {
  const base = await Deno.makeTempDir({ prefix: "reasonix-install-e2e-" });
  const clone = join(base, "clone");
  const root = join(base, "root");
  const env = {
    HOME: join(base, "home"),
    DENO_INSTALL_ROOT: root,
    DENO_DIR: await denoDir(),
    SHELL: "/usr/bin/fish",
    PATH: `${dirname(Deno.execPath())}:/usr/bin:/bin`,
  };
  const fake = await startFakeLlm({ script: [{ text: "Installed and answering." }] });
  const repo = await makeRepo({ "a.txt": "a\n" });
  const home = await makeHome(fake.url);
  try {
    await Deno.mkdir(env.HOME);
    await cloneInto(clone);
    const task = (name: string, cwd: string) =>
      new Deno.Command(Deno.execPath(), { args: ["task", name], cwd, clearEnv: true, env })
        .output();
    const installed = await task("install", clone);
    const text = new TextDecoder().decode(installed.stdout) +
      new TextDecoder().decode(installed.stderr);
    assert.equal(installed.code, 0, text);
    assert.doesNotMatch(text, /warning/i);
    assert.ok(
      text.includes(`echo 'fish_add_path ${root}/bin' >> ~/.config/fish/config.fish`),
      text,
    );
    const launcher = join(root, "bin", "reasonix");
    assert.doesNotMatch(await Deno.readTextFile(launcher), new RegExp(clone));

    // The clone is gone; the installed program still runs, lazy modules and all.
    await Deno.remove(clone, { recursive: true });
    const run = await new Deno.Command(launcher, {
      args: ["run", "say hi"],
      cwd: repo,
      clearEnv: true,
      env: { ...env, REASONIX_HOME: home, REASONIX_E2E_KEY: "sk-e2e-test", NO_COLOR: "1" },
    }).output();
    const stdout = new TextDecoder().decode(run.stdout);
    assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
    assert.match(stdout, /Installed and answering\./);

    const removed = await task("uninstall", ROOT);
    assert.equal(removed.code, 0, new TextDecoder().decode(removed.stderr));
    assert.equal(await Deno.lstat(launcher).then(() => true, () => false), false);
    assert.equal(
      await Deno.lstat(join(root, "lib", "reasonix")).then(() => true, () => false),
      false,
    );
  } finally {
    await fake.close();
    await Deno.remove(base, { recursive: true }).catch(() => {});
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("the PATH advice names the line and the file for each shell", () => {
  const bin = "/home/u/.deno/bin";
  const at = (shell: string, path = "/usr/bin") =>
    pathAdvice(bin, { HOME: "/home/u", SHELL: shell, PATH: path });
  assert.deepEqual(at("/bin/bash"), {
    file: "~/.bashrc",
    line: 'export PATH="$HOME/.deno/bin:$PATH"',
  });
  assert.deepEqual(at("/usr/bin/zsh"), {
    file: "~/.zshrc",
    line: 'export PATH="$HOME/.deno/bin:$PATH"',
  });
  assert.deepEqual(at("/usr/bin/fish"), {
    file: "~/.config/fish/config.fish",
    line: "fish_add_path $HOME/.deno/bin",
  });
  assert.deepEqual(at("/bin/dash"), {
    file: "~/.profile",
    line: 'export PATH="$HOME/.deno/bin:$PATH"',
  });
  assert.equal(at("/bin/bash", `/usr/bin:${bin}/`), undefined);
});
