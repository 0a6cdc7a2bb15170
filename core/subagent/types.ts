/**
 * What the subagent runner needs of a host, structurally: the host satisfies it, and this
 * folder never imports the host (the host imports the `task` tool from here).
 *
 * @module
 */
import type { AgentEvent, UserInput } from "../agent/events.ts";
import type { ClaimRecord } from "./claims.ts";

/** The capability grant of one child run (spec §3.10 `CapabilityGrant`). */
export interface ChildGrant {
  /** No writes at all: read-only tools, read-only MCP capabilities. */
  readOnly: boolean;
  /**
   * Canonical claimed paths of a writer; absent: the whole workspace (such a child never
   * starts beside another writer).
   */
  writeRoots?: readonly string[];
  /** Nesting depth of this child: 1 for a child of a top-level agent. */
  depth: number;
}

/** The agent spec fields a child is built from (a subset of the host's `AgentSpec`). */
export interface ChildSpec {
  model?: string;
  systemPrompt: string;
  /** `ephemeral`: nothing written; `resume`: a child transcript it appends to. */
  transcript?: "ephemeral" | { resume: string };
  parent: { sessionId?: string; agentId?: string };
  role: "subagent";
  grant: ChildGrant;
  /** A profile's `allowed-tools` upper bound. */
  tools?: { allow?: readonly string[] };
  context?: { maxTurns?: number; reasoningEffort?: string };
}

/** What the runner uses of a built child. */
export interface ChildAgent {
  readonly session: { readonly id: string };
  readonly sessionPath: string | undefined;
  readonly registry: { names(): string[]; schemas(): readonly unknown[] };
  readonly model: { resolved: { model: string; provider: { name: string } } };
  /** The child's write claim; absent for a read-only child. */
  readonly claim?: {
    readonly record: ClaimRecord;
    guard?: (file: string) => boolean;
    unconfined?: () => void;
  };
  run(input: UserInput, opts: { signal: AbortSignal }): AsyncIterable<AgentEvent>;
  close(): Promise<void>;
}

/** Builds children: the host. */
export interface ChildMaker {
  createAgent(spec: ChildSpec): Promise<ChildAgent>;
}
