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
  /**
   * `tool`: run a call; `write_scope`: extend the writable roots; `plan`: carry out a plan
   * (`detail` holds it as Markdown). A plan is approved only by a human: no preset, rule or
   * hook answers it, and without a front end to ask it is refused. `once` approves, `deny`
   * keeps planning.
   */
  kind: "tool" | "write_scope" | "plan";
  /** Tool name as the model called it. */
  tool: string;
  /**
   * The call asked about (`ToolCall.id`, as in its `tool_start` event), so a front end can
   * show what it would do, e.g. the diff of an edit.
   */
  callId?: string;
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
  /** Asks about `req`; resolves with the answer, rejects when `signal` aborts. */
  request(req: ApprovalRequest, opts: { signal: AbortSignal }): Promise<ApprovalChoice>;
  /**
   * Answers a pending request by id. A broker that has it is answerable from the event stream:
   * each `approval_request` event then carries a `respond` function bound to its id.
   */
  answer?(id: string, choice: ApprovalChoice): void;
}

/**
 * A broker answered only from the event stream: `agent.run` yields an `approval_request`
 * event whose `respond` (or {@linkcode StreamApprovals.answer} with its id, for front ends
 * across a wire such as ACP or `serve`) settles it. A request whose run is cancelled is
 * withdrawn with the signal's reason.
 *
 * @example Settle a request by id
 * ```ts
 * import { StreamApprovals } from "@reasonix/reasonix";
 *
 * const approvals = new StreamApprovals();
 * const answer = approvals.request(
 *   { id: "a1", kind: "tool", tool: "bash", summary: "bash: npm test" },
 *   { signal: AbortSignal.timeout(5_000) },
 * );
 * console.log(approvals.pending()); // ["a1"]
 * approvals.answer("a1", "once");
 * console.log(await answer); // "once"
 * ```
 */
export class StreamApprovals implements ApprovalBroker {
  readonly #pending = new Map<string, (choice: ApprovalChoice) => void>();

  /** Waits for {@linkcode answer} with the request's id. */
  request(req: ApprovalRequest, opts: { signal: AbortSignal }): Promise<ApprovalChoice> {
    if (opts.signal.aborted) return Promise.reject(opts.signal.reason);
    return new Promise<ApprovalChoice>((resolve, reject) => {
      const onAbort = () => {
        this.#pending.delete(req.id);
        reject(opts.signal.reason);
      };
      opts.signal.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(req.id, (choice) => {
        opts.signal.removeEventListener("abort", onAbort);
        this.#pending.delete(req.id);
        resolve(choice);
      });
    });
  }

  /** Settles the pending request `id`; unknown or settled ids are ignored. */
  answer(id: string, choice: ApprovalChoice): void {
    this.#pending.get(id)?.(choice);
  }

  /** Ids of the requests waiting for an answer. */
  pending(): string[] {
    return [...this.#pending.keys()];
  }
}
