/**
 * Temp-dir fixtures for the configuration tests: a Reasonix home and a project directory.
 *
 * @module
 */
import { join } from "node:path";

/** A home and a project directory, removed by `cleanup`. */
export interface ConfigDirs {
  home: string;
  cwd: string;
  userConfig: string;
  projectConfig: string;
  write(path: string, text: string): Promise<void>;
  cleanup(): Promise<void>;
}

/** Creates fresh temp dirs; pass the returned paths explicitly to the code under test. */
export async function configDirs(): Promise<ConfigDirs> {
  const root = await Deno.makeTempDir({ prefix: "reasonix-config-" });
  const home = join(root, "home");
  const cwd = join(root, "project");
  await Deno.mkdir(home);
  await Deno.mkdir(cwd);
  return {
    home,
    cwd,
    userConfig: join(home, "config.toml"),
    projectConfig: join(cwd, "reasonix.toml"),
    write: (path, text) => Deno.writeTextFile(path, text),
    cleanup: () => Deno.remove(root, { recursive: true }),
  };
}
