/**
 * Enforced write claims (spec §3.12). A writing child's registry is bound to its `write_paths`
 * before it starts: every path a writer names (both ends of a move) is resolved through the
 * deepest existing ancestor with symlinks expanded and refused outside the claim; writers the
 * host cannot confine by path are dropped; `bash` stays only when the OS sandbox can rebind its
 * write roots to the claim. The claim also records what the child wrote, for its receipts.
 *
 * @module
 */
import { canonicalPath } from "../permission/confine.ts";
import { isWithin } from "../../tools/paths.ts";
import type {
  ShellLauncher,
  Tool,
  ToolAccess,
  ToolContext,
  ToolResult,
} from "../../tools/types.ts";
import type { Workspace } from "../../tools/workspace/mod.ts";

/** What a claim saw: paths written inside it, and attempts outside it. */
export interface ClaimRecord {
  /** Canonical paths the child wrote (or moved) inside its claim. */
  written: string[];
  /** Canonical paths the child tried to write outside its claim (refused). */
  refused: string[];
}

/** A resolved claim: canonical roots (files or directories) a child may write. */
export class WriteClaim {
  /** Canonical claimed paths. */
  readonly roots: readonly string[];
  readonly #record: ClaimRecord = { written: [], refused: [] };
  /**
   * Asked before each write with the canonical file: false when a sibling child holds it (two
   * directory claims landing on the same file). Set by the scheduler's slot.
   */
  guard: ((file: string) => boolean) | undefined;
  /**
   * Told before a bound call that may change the workspace without naming the paths (an MCP
   * writer through `use_capability`): the scheduler then keeps the reservation whole.
   */
  unconfined: (() => void) | undefined;

  private constructor(roots: readonly string[]) {
    this.roots = roots;
  }

  /** A claim over already canonical roots (see {@linkcode WriteClaim.resolve}). */
  static of(roots: readonly string[]): WriteClaim {
    return new WriteClaim([...roots]);
  }

  /**
   * Resolves `paths` (relative to `root` or absolute) the way a write would land. A claim
   * outside the workspace is refused: a child never writes outside it.
   */
  static async resolve(
    paths: readonly string[],
    opts: { root: string; workspace: Workspace; signal?: AbortSignal },
  ): Promise<WriteClaim> {
    const roots: string[] = [];
    for (const path of paths) {
      const canonical = await canonicalPath(path, {
        base: opts.root,
        workspace: opts.workspace,
        signal: opts.signal,
      });
      if (!isWithin(opts.root, canonical)) {
        throw new RangeError(`write_paths entry "${path}" is outside the workspace`);
      }
      if (!roots.includes(canonical)) roots.push(canonical);
    }
    if (roots.length === 0) throw new RangeError("write_paths is empty");
    return new WriteClaim(roots);
  }

  /** Whether a canonical path is inside the claim. */
  covers(canonical: string): boolean {
    return this.roots.some((root) => isWithin(root, canonical));
  }

  /** What the child wrote and tried to write so far. */
  get record(): ClaimRecord {
    return { written: [...this.#record.written], refused: [...this.#record.refused] };
  }

  /** Binds a writer to the claim: any path outside it is refused before the tool runs. */
  bind(tool: Tool): Tool {
    const access = tool.access?.bind(tool);
    if (!access) throw new TypeError(`${tool.name} names no paths and cannot be claimed`);
    return {
      ...tool,
      access,
      parse: tool.parse?.bind(tool),
      execute: async (args: unknown, ctx: ToolContext): Promise<ToolResult> => {
        const declared = access(args);
        const paths = writtenPaths(declared);
        if (paths.length === 0 && declared.readOnly !== true) this.unconfined?.();
        const resolved: string[] = [];
        for (const path of paths) {
          resolved.push(
            await canonicalPath(path, {
              base: ctx.root,
              workspace: ctx.workspace,
              signal: ctx.signal,
            }),
          );
        }
        const outside = resolved.filter((p) => !this.covers(p));
        if (outside.length) {
          this.#record.refused.push(...outside);
          return {
            isError: true,
            code: "permission_denied",
            content: `Refused: ${outside.join(", ")} is outside this task's write_paths (${
              this.roots.join(", ")
            }). Write only inside the claim, or report that the task needs more.`,
          };
        }
        const held = resolved.find((p) => this.guard?.(p) === false);
        if (held) {
          return {
            isError: true,
            code: "permission_denied",
            content:
              `Refused: ${held} is being written by another subagent running beside you. Leave it, or report that the task needs it.`,
          };
        }
        const result = await tool.execute(args, ctx);
        if (!result.isError) this.#record.written.push(...resolved);
        return result;
      },
    };
  }

  /** A shell launcher whose sandbox may write only the claim. */
  shell(launcher: ShellLauncher): ShellLauncher {
    const roots = this.roots;
    return {
      ...launcher,
      get programs() {
        return launcher.programs;
      },
      launch: (command, spawn) => launcher.launch(command, { ...spawn, writeRoots: roots }),
    } as ShellLauncher;
  }
}

/** Every path a call writes: its writes and both ends of each move. */
export function writtenPaths(access: ToolAccess): string[] {
  return [
    ...access.writes ?? [],
    ...(access.moves ?? []).flatMap((m) => [m.from, m.to]),
  ];
}
