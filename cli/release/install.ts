/**
 * `deno task install` and `deno task uninstall`. Install bundles the program, copies the
 * bundle into the install root (`$DENO_INSTALL_ROOT`, default `~/.deno`) as
 * `lib/reasonix/`, and puts a `reasonix` launcher for that copy into `<root>/bin`. The
 * installed program does not depend on the clone: moving or deleting the clone leaves it
 * working. When `<root>/bin` is not on `PATH`, it prints the exact line to add for the user's
 * shell and the file to add it to. Uninstall removes the launcher and the copy.
 *
 * @module
 */
import { basename, dirname, join } from "node:path";
import { RUN_FLAGS } from "./compile.ts";
import { buildBundle, installArgs } from "./bundle.ts";

/** The command name the launcher gets. */
export const COMMAND = "reasonix";

/** Where an install puts its files. */
export interface InstallLayout {
  /** The install root: `$DENO_INSTALL_ROOT`, else `~/.deno`. */
  root: string;
  /** The launcher directory, `<root>/bin`. */
  bin: string;
  /** The installed copy of the bundle, `<root>/lib/reasonix`. */
  lib: string;
}

/** The layout for an environment. */
export function installLayout(env: Record<string, string | undefined>): InstallLayout {
  const home = env.HOME ?? env.USERPROFILE;
  const root = env.DENO_INSTALL_ROOT ?? (home ? join(home, ".deno") : undefined);
  if (!root) {
    throw new Error(
      "neither DENO_INSTALL_ROOT nor HOME is set; set one to choose the install root",
    );
  }
  return { root, bin: join(root, "bin"), lib: join(root, "lib", COMMAND) };
}

/**
 * What to run so that `bin` is on `PATH` in new shells, for the user's shell (`$SHELL`), or
 * undefined when it already is.
 */
export function pathAdvice(
  bin: string,
  env: Record<string, string | undefined>,
): { file: string; line: string } | undefined {
  const path = (env.PATH ?? "").split(":").map((p) => p.replace(/\/+$/, ""));
  if (path.includes(bin.replace(/\/+$/, ""))) return undefined;
  const shell = basename(env.SHELL ?? "sh");
  const home = env.HOME ?? "~";
  const shown = env.HOME && bin.startsWith(`${env.HOME}/`) ? `$HOME${bin.slice(home.length)}` : bin;
  if (shell === "fish") {
    return { file: "~/.config/fish/config.fish", line: `fish_add_path ${shown}` };
  }
  const file = shell === "zsh" ? "~/.zshrc" : shell === "bash" ? "~/.bashrc" : "~/.profile";
  return { file, line: `export PATH="${shown}:$PATH"` };
}

async function run(args: string[], env: Record<string, string>): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    const text = new TextDecoder().decode(out.stderr) + new TextDecoder().decode(out.stdout);
    throw new Error(`deno ${args[0]} failed:\n${text.trim()}`);
  }
}

/** Bundles the program and installs a copy of it with its launcher. Returns the launcher. */
export async function install(env: Record<string, string> = Deno.env.toObject()): Promise<string> {
  const layout = installLayout(env);
  await Deno.mkdir(dirname(layout.lib), { recursive: true });
  // Built beside its final place, then swapped in: a failed build leaves the old install alone.
  const fresh = `${layout.lib}.new`;
  await buildBundle(fresh);
  const old = `${layout.lib}.old`;
  await Deno.remove(old, { recursive: true }).catch(() => {});
  await Deno.rename(layout.lib, old).catch(() => {});
  await Deno.rename(fresh, layout.lib);
  await Deno.remove(old, { recursive: true }).catch(() => {});
  await run(installArgs(layout.lib, COMMAND, RUN_FLAGS), {
    ...env,
    DENO_INSTALL_ROOT: layout.root,
  });
  return join(layout.bin, COMMAND);
}

/** Removes the launcher and the installed copy; says what was removed. */
export async function uninstall(
  env: Record<string, string> = Deno.env.toObject(),
): Promise<string[]> {
  const layout = installLayout(env);
  const removed: string[] = [];
  const launcher = join(layout.bin, COMMAND);
  if (await Deno.lstat(launcher).then(() => true, () => false)) {
    await run(["uninstall", "-g", COMMAND], { ...env, DENO_INSTALL_ROOT: layout.root });
    removed.push(launcher);
  }
  if (await Deno.lstat(layout.lib).then(() => true, () => false)) {
    await Deno.remove(layout.lib, { recursive: true });
    removed.push(layout.lib);
  }
  return removed;
}

if (import.meta.main) {
  const env = Deno.env.toObject();
  try {
    if (Deno.args[0] === "uninstall") {
      const removed = await uninstall(env);
      console.log(
        removed.length ? `removed ${removed.join(" and ")}` : "reasonix is not installed",
      );
    } else {
      const launcher = await install(env);
      console.log(`installed ${launcher} (the program is in ${installLayout(env).lib})`);
      const advice = pathAdvice(installLayout(env).bin, env);
      if (advice) {
        console.log(
          `${dirname(launcher)} is not on your PATH. Add it for new shells with:\n\n` +
            `  echo '${advice.line}' >> ${advice.file}\n\nthen open a new shell (or run: ${advice.line}).`,
        );
      } else {
        console.log("run `reasonix --version` to check, or `reasonix setup` to choose a provider.");
      }
    }
  } catch (error) {
    console.error(`reasonix install: ${(error as Error).message}`);
    Deno.exit(1);
  }
}
