/**
 * Roots too broad to be writable: the file system root, the home directory and the
 * directories above it. A writable home means `~/.bashrc`, `~/.ssh/authorized_keys` and the
 * Reasonix configuration itself, so outside `yolo` no configuration layer may grant one.
 *
 * @module
 */
import { parse } from "node:path";
import { ConfigError } from "../config/errors.ts";
import type { SourceLocation } from "../config/types.ts";
import { isWithin } from "../../tools/paths.ts";

/** Why `path` (canonical) is too broad to be writable, or undefined when it is not. */
export function broadRoot(path: string, home: string | undefined): string | undefined {
  if (path === parse(path).root) return "the root of the file system";
  if (home !== undefined && path === home) return "your home directory";
  if (home !== undefined && isWithin(path, home)) return `a directory above your home ${home}`;
  return undefined;
}

/** One configured root, as written and as resolved. */
export interface ConfiguredRoot {
  /** `allow_write` or `workspace_root`. */
  key: string;
  written: string;
  resolved: string;
  at?: SourceLocation;
}

/** Throws a `ConfigError` naming the file and line of the first root that is too broad. */
export function refuseBroadRoots(roots: readonly ConfiguredRoot[], home: string | undefined): void {
  for (const root of roots) {
    const why = broadRoot(root.resolved, home);
    if (why === undefined) continue;
    const resolved = root.resolved === root.written ? "" : ` resolves to ${root.resolved},`;
    throw new ConfigError({
      file: root.at?.file,
      line: root.at?.line,
      problem: `[sandbox].${root.key} "${root.written}"${resolved} ${why}; outside yolo mode ` +
        "no writable root may be /, your home directory or a directory above it",
      fix: "name a narrower directory (the one the commands need, such as ~/.cache/tool), or " +
        "use --permission-mode yolo if you accept running without write confinement",
    });
  }
}
