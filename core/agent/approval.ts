/**
 * How the permission layer asks a human. Interactive front ends implement `ApprovalBroker`;
 * headless runs and subagents have none, so whatever the preset does not cover fails closed.
 *
 * @module
 */

/** A human's answer: allow this once, allow this scope for the session, or deny. */
export type ApprovalChoice = "once" | "session" | "deny";

/** What needs approval. */
export interface ApprovalRequest {
  /** Unique per request; events and answers refer to it. */
  id: string;
  /** `tool`: run a call; `write_scope`: extend the writable roots. */
  kind: "tool" | "write_scope";
  /** Tool name as the model called it. */
  tool: string;
  /** One line for the prompt, e.g. `bash: npm test`. */
  summary: string;
  /** Longer context: the full command, a diff, the justification. */
  detail?: string;
  /**
   * What "allow for this session" would bind to: the exact command, the canonical directory or
   * the server capability. Shown so the user knows what they grant.
   */
  sessionScope?: string;
}

/** Answers approval requests; the interactive UI shows them as a modal overlay. */
export interface ApprovalBroker {
  request(req: ApprovalRequest, opts: { signal: AbortSignal }): Promise<ApprovalChoice>;
}
