/**
 * Read rules beyond the path a call names (issue 11, deliverable 7, file-tool side): the
 * per-file {@linkcode ReadGuard} that searches and listings consult for every entry, and the
 * check that a rename does not carry a protected path to a name the rules do not cover.
 *
 * The protected paths are those of `[sandbox].forbid_read` and of the deny and ask path rules
 * that look at reads (`Read(**\/.env)`, `Grep(...)`, …). A rule that matches a directory
 * covers everything in it.
 *
 * @module
 */
import { basename, dirname, join, relative, resolve } from "node:path";
import type { ReadGuard } from "../../tools/types.ts";
import { isWithin } from "../../tools/paths.ts";
import { isNotFound } from "../../tools/workspace/errors.ts";
import { localWorkspace } from "../../tools/workspace/local.ts";
import type { FileInfo, Workspace } from "../../tools/workspace/types.ts";
import { canonicalPath, type WriteScope } from "./confine.ts";
import type { Policy } from "./policy.ts";

/** The rule families of the built-in readers; `Read` covers all of them. */
export const READER_FAMILIES: readonly string[] = ["Read", "Grep", "Glob", "LS"];

/** Entries a move's tree is checked for at most; a bigger tree is refused while rules apply. */
export const MAX_MOVE_SCAN = 10_000;

/** The guard the permission layer hands to tools, over its policy and write scope. */
export class PermissionReadGuard implements ReadGuard {
  readonly #policy: Policy;
  readonly #scope: WriteScope;
  readonly #workspace: Workspace | undefined;

  /** `opts.workspace`: where the paths are resolved; default this machine. */
  constructor(policy: Policy, scope: WriteScope, opts: { workspace?: Workspace } = {}) {
    this.#policy = policy;
    this.#scope = scope;
    this.#workspace = opts.workspace;
  }

  canonical(path: string): Promise<string> {
    return canonicalPath(path, { workspace: this.#workspace });
  }

  blocked(path: string, family: string): string | undefined {
    const by = this.#scope.forbiddenBy(path, false);
    if (by) return `[sandbox].forbid_read (${by})`;
    const rule = this.#policy.readRuleFor(path, family);
    return rule ? `${rule.decision} rule "${rule.rule}"` : undefined;
  }
}

/**
 * Where the entry `path` itself is (absolute, or relative to `base`): its folder resolved
 * through symlinks, its own name kept. A rename moves a link, not what it points at.
 */
export async function entryPath(
  path: string,
  base: string,
  opts: { workspace?: Workspace } = {},
): Promise<string> {
  const absolute = resolve(base, path);
  const parent = dirname(absolute);
  if (parent === absolute) return absolute;
  return join(await canonicalPath(parent, opts), basename(absolute));
}

/** Why a move may not run, for the permission event and the message. */
export interface MoveViolation {
  /** The protected path (canonical). */
  path: string;
  /** The rule or `[sandbox].forbid_read`, as the event reports it. */
  rule: string;
  kind: "forbid_read" | "anchor" | "tree" | "too_large" | "unreadable";
}

/**
 * Checks one rename of the entry `from` to `to` (both from {@linkcode entryPath}). Refused when
 * `from` is, contains or lies inside a `forbid_read` path (nothing can cover it at a new name);
 * when it is or lies above the anchor of a read rule (`Read(config/secret.env)` → `config`);
 * and when an entry of its tree is protected by a read rule that does not protect the same
 * entry at its new place (with a rule that matches anywhere, such as `Read(**\/.env)`, a
 * directory holding a `.env` may still be renamed). The tree walk does not follow symlinks
 * and stops at {@linkcode MAX_MOVE_SCAN} entries, which then refuses.
 */
export async function moveViolation(opts: {
  from: string;
  to: string;
  policy: Policy;
  scope: WriteScope;
  signal?: AbortSignal;
  /** Entries checked at most; default {@linkcode MAX_MOVE_SCAN}. */
  limit?: number;
  /** Where the tree is; default this machine. */
  workspace?: Workspace;
}): Promise<MoveViolation | undefined> {
  const { from, to, policy, scope } = opts;
  const ws = opts.workspace ?? localWorkspace();
  const forbid = scope.forbiddenBy(from, true);
  if (forbid) return { path: forbid, rule: "[sandbox].forbid_read", kind: "forbid_read" };
  for (const { rule, anchor } of policy.readRuleAnchors()) {
    if (isWithin(from, anchor) && dirname(from) !== from) {
      return { path: anchor, rule, kind: "anchor" };
    }
  }
  if (!policy.hasReadRules()) return undefined;

  let seen = 0;
  const check = (path: string): MoveViolation | undefined => {
    const moved = join(to, relative(from, path));
    for (const family of READER_FAMILIES) {
      const here = policy.readRuleFor(path, family);
      if (!here) continue;
      const there = policy.readRuleFor(moved, family);
      if (!there || (here.decision === "deny" && there.decision !== "deny")) {
        return { path, rule: here.rule, kind: "tree" };
      }
    }
    return undefined;
  };
  const visit = async (path: string): Promise<MoveViolation | undefined> => {
    opts.signal?.throwIfAborted();
    if (++seen > (opts.limit ?? MAX_MOVE_SCAN)) {
      return { path: from, rule: "read rules", kind: "too_large" };
    }
    const found = check(path);
    if (found) return found;
    let info: FileInfo;
    try {
      info = await ws.lstat(path);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      return { path, rule: "read rules", kind: "unreadable" };
    }
    if (!info.isDirectory) return undefined;
    const names: string[] = [];
    try {
      for await (const entry of ws.readDir(path)) names.push(entry.name);
    } catch {
      return { path, rule: "read rules", kind: "unreadable" };
    }
    for (const name of names.sort()) {
      const inner = await visit(join(path, name));
      if (inner) return inner;
    }
    return undefined;
  };
  return await visit(from);
}
