/**
 * The unsandboxed shell launcher. The permission layer supplies a sandboxing launcher
 * (e.g. bubblewrap) through `ToolContext.shell` when a preset requires one.
 *
 * @module
 */
import type { ShellLauncher, ShellSpawnOptions } from "./types.ts";

/** Runs commands with `bash -c`, without any OS sandbox. */
export const directShell: ShellLauncher = {
  launch(command: string, _opts: ShellSpawnOptions): Promise<{ program: string; args: string[] }> {
    return Promise.resolve({ program: "bash", args: ["-c", command] });
  },
};
