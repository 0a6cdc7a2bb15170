/**
 * A child's tool registry, bound to its grant before it starts (spec §3.12, §3.13): no memory,
 * history or goal tools (a child inherits none of them), MCP only through `use_capability`;
 * a read-only child keeps the read-only tools; a writer's path-taking tools are bound to its
 * claim, writers that name no paths are dropped, and `bash` stays only when the OS sandbox can
 * narrow its write roots to an explicit claim. A writer also gets `complete_subtask`.
 *
 * @module
 */
import type { CapabilitySource } from "../../tools/capability.ts";
import type { ShellLauncher, Tool } from "../../tools/types.ts";
import { WriteClaim } from "./claims.ts";
import { completeSubtaskTool } from "./complete_subtask.ts";
import type { ChildGrant } from "./types.ts";

/** A capability source with only capabilities proven read-only (and not destructive). */
export function onlyReadOnly(source: CapabilitySource): CapabilitySource {
  return { list: () => source.list().filter((c) => c.readOnly && c.destructive !== true) };
}

/** Whether a child's MCP capabilities must be proven read-only. */
export function needsReadOnlyCapabilities(grant: ChildGrant): boolean {
  return grant.readOnly || grant.writeRoots !== undefined;
}

/** What a child is given. */
export interface ChildTools {
  tools: Tool[];
  /** Its write claim (absent read-only): the explicit one, or the whole workspace. */
  claim?: WriteClaim;
  /** The shell launcher its `bash` uses, when bash stays and must be narrowed. */
  shell?: ShellLauncher;
  /** Tools taken away, with why, for the capsule and the report. */
  dropped: string[];
}

/**
 * Binds `builtins` (the host's built-in tools, no MCP direct tools) and `use_capability` to a
 * grant.
 */
export function childTools(opts: {
  builtins: readonly Tool[];
  useCapability: Tool;
  grant: ChildGrant;
  root: string;
  shell: ShellLauncher;
}): ChildTools {
  const { grant } = opts;
  const dropped: string[] = [];
  if (grant.readOnly) {
    const tools = opts.builtins.filter((t) => {
      if (t.readOnly) return true;
      dropped.push(t.name);
      return false;
    });
    return { tools: [...tools, opts.useCapability], dropped };
  }
  const explicit = grant.writeRoots !== undefined;
  // No claim reserves the whole workspace; the claim still records what was written.
  const claim = WriteClaim.of(grant.writeRoots ?? [opts.root]);
  const tools: Tool[] = [];
  let shell: ShellLauncher | undefined;
  for (const tool of opts.builtins) {
    if (tool.readOnly) tools.push(tool);
    else if (tool.name === "bash") {
      if (!explicit) tools.push(tool);
      else if (opts.shell.rebindsWriteRoots) {
        shell = claim.shell(opts.shell);
        tools.push(tool);
      } else dropped.push(tool.name);
    } else if (tool.access) tools.push(claim.bind(tool));
    else dropped.push(tool.name);
  }
  tools.push(claim.bind(opts.useCapability));
  // A writer ends with a report the host can check (spec §3.11).
  tools.push(completeSubtaskTool());
  return { tools, claim, ...(shell ? { shell } : {}), dropped };
}
