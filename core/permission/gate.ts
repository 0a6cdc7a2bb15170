/**
 * The permission gate: the `ToolGate` every tool call passes before it runs. It resolves the
 * paths a call declares, applies `forbid_read` and write confinement, asks the policy, and —
 * when the policy says `ask` — an `ApprovalBroker` if there is one. Without a broker
 * (headless runs, subagents) anything that needs approval fails closed with a reason that
 * names what would allow it. Every decision is reported as a `permission` event.
 *
 * @module
 */
import { dirname } from "node:path";
import type { ApprovalBroker, ApprovalChoice, ApprovalRequest } from "../agent/approval.ts";
import type { AgentEvent, PermissionDecision } from "../agent/events.ts";
import type { GateDecision, GateRequest, ToolGate } from "../agent/tool_exec.ts";
import { canonicalPath, type WriteScope } from "./confine.ts";
import { controlTargets } from "./control_files.ts";
import {
  denyMessage,
  describeCall,
  headlessAskMessage,
  headlessScopeMessage,
  moveDeniedMessage,
  shownPath,
  userDeniedMessage,
} from "./messages.ts";
import { entryPath, moveViolation } from "./read_guard.ts";
import { plainCommand, planModeMessage, planModeRefusal } from "./plan_guard.ts";
import { planArgument } from "../plan/exit_plan.ts";
import { EXIT_PLAN_MODE, PlanMode } from "../plan/state.ts";
import type { Policy, PolicyCall, Verdict } from "./policy.ts";
import { isWithin } from "../../tools/paths.ts";
import type { Workspace } from "../../tools/workspace/types.ts";

/** A `permission` event without its `type`: one decision, as `run --json` lists it. */
export type PermissionRecord = Omit<Extract<AgentEvent, { type: "permission" }>, "type">;

/** Options of {@linkcode PermissionGate}. */
export interface PermissionGateOptions {
  policy: Policy;
  scope: WriteScope;
  /** Canonical workspace root; relative paths in `access` resolve against it. */
  workspaceRoot: string;
  /** Whether `bash` runs inside an OS sandbox that honours extra write roots. */
  shellSandboxed: boolean;
  /** Where the paths of calls are resolved: the tools' workspace. Default this machine's. */
  workspace?: Workspace;
  /** Asks a human; absent in headless runs and subagents, which then fail closed. */
  broker?: ApprovalBroker;
  /** The host's plan mode; default a new one (off). Every view of the gate shares it. */
  plan?: PlanMode;
}

type Emit = (event: AgentEvent) => void;

/** "Allow for this session" grants, in memory only: never written to any file. */
interface SessionGrants {
  commands: Set<string>;
  dirs: Set<string>;
  names: Set<string>;
  /** Approval requests asked so far, so ids stay unique across every view of the gate. */
  requests: number;
  /** Plan mode, host-wide: a view or a subagent's gate sees the same state. */
  plan: PlanMode;
}

/** Implements `ToolGate` over a {@linkcode Policy}, session grants and an optional broker. */
export class PermissionGate implements ToolGate {
  readonly #opts: PermissionGateOptions;
  readonly #grants: SessionGrants;
  // Short names for the shared grant sets.
  get #commands(): Set<string> {
    return this.#grants.commands;
  }
  get #dirs(): Set<string> {
    return this.#grants.dirs;
  }
  get #names(): Set<string> {
    return this.#grants.names;
  }

  constructor(opts: PermissionGateOptions, grants?: SessionGrants) {
    this.#opts = opts;
    this.#grants = grants ?? {
      commands: new Set(),
      dirs: new Set(),
      names: new Set(),
      requests: 0,
      plan: opts.plan ?? new PlanMode(),
    };
  }

  /** Plan mode, shared by every view of this gate and the headless gates made from it. */
  get plan(): PlanMode {
    return this.#grants.plan;
  }

  /**
   * A view of this gate for one agent of the same host: same policy, write scope and the very
   * same session grants (a grant made through one view holds for all), asking `broker` — or,
   * without one, failing closed.
   */
  view(broker: ApprovalBroker | undefined): PermissionGate {
    return new PermissionGate({ ...this.#opts, broker }, this.#grants);
  }

  /**
   * A gate for headless work inside this session (subagents): same policy, write scope and
   * session grants, but no broker, so anything that needs a person fails closed.
   */
  headless(): PermissionGate {
    const gate = new PermissionGate({ ...this.#opts, broker: undefined }, {
      commands: new Set(),
      dirs: new Set(),
      names: new Set(),
      requests: this.#grants.requests,
      plan: this.#grants.plan,
    });
    for (const c of this.#commands) gate.#commands.add(c);
    for (const d of this.#dirs) gate.#dirs.add(d);
    for (const n of this.#names) gate.#names.add(n);
    return gate;
  }

  /** The active preset's name. */
  get preset(): string {
    return this.#opts.policy.preset.name;
  }

  async check({ tool, args, access, signal, callId, emit }: GateRequest): Promise<GateDecision> {
    const { policy, scope, workspaceRoot: root, workspace } = this.#opts;
    const preset = policy.preset;
    // Every outcome is reported as a permission event; a refusal always says why.
    const finish = (
      decision: PermissionDecision,
      rule: string | undefined,
      reason?: string,
    ): GateDecision => {
      const allowed = reason === undefined;
      emit({
        type: "permission",
        callId,
        tool: tool.name,
        decision,
        allowed,
        ...(rule ? { rule } : {}),
        preset: preset.name,
        ...(reason ? { reason } : {}),
      });
      return allowed ? { allow: true } : { allow: false, reason };
    };

    scope.clearOnce();
    const family = access.rule ?? tool.name;
    const readOnly = access.readOnly ?? tool.readOnly;
    let call: PolicyCall;
    let extraDirs: string[];
    let moves: { from: string; to: string }[];
    try {
      const canon = (paths: readonly string[] | undefined) =>
        Promise.all((paths ?? []).map((p) => canonicalPath(p, { base: root, workspace })));
      moves = await Promise.all(
        (access.moves ?? []).map(async (m) => ({
          from: await entryPath(m.from, root, { workspace }),
          to: await entryPath(m.to, root, { workspace }),
        })),
      );
      // A rename writes the entries themselves (a link, not its target) besides where the
      // paths lead, so both are confined and checked for control files.
      const writes = [
        ...new Set([...await canon(access.writes), ...moves.flatMap((m) => [m.from, m.to])]),
      ];
      call = {
        tool: tool.name,
        family,
        readOnly,
        command: access.command,
        reads: await canon(access.reads),
        writes,
        ...(writes.length ? { controlTargets: await controlTargets(root, { workspace }) } : {}),
      };
      extraDirs = await canon(access.extraWriteDirs?.dirs);
    } catch (error) {
      return finish(
        "deny",
        undefined,
        `Permission denied: cannot resolve the paths of ${tool.name} (${
          (error as Error).message
        }), so confinement cannot be checked.`,
      );
    }

    // Plan mode refuses before anything asks: a plan is approved by a person, and while
    // planning writers do not run, whatever the preset or the rules say.
    const plan = this.#grants.plan;
    if (family === EXIT_PLAN_MODE) {
      return await this.#planApproval({ call, args, plan, finish, emit, signal, callId });
    }
    if (plan.active) {
      const why = planModeRefusal(call, { extraWriteDirs: extraDirs.length > 0 });
      if (why) return finish("deny", "plan mode", planModeMessage(call, why));
    }

    const recursive = family !== "Read";
    for (const path of call.reads) {
      const by = scope.forbiddenBy(path, recursive);
      if (by) {
        return finish("deny", "[sandbox].forbid_read", forbidMessage(call, { path, by, root }));
      }
    }
    for (const path of call.writes) {
      const by = scope.forbiddenBy(path, false);
      if (by) {
        return finish("deny", "[sandbox].forbid_read", forbidMessage(call, { path, by, root }));
      }
    }

    for (const move of moves) {
      const violation = await moveViolation({ ...move, policy, scope, signal, workspace });
      if (violation) {
        return finish("deny", violation.rule, moveDeniedMessage(call, violation, root));
      }
    }

    const verdict = policy.decide(call);
    if (verdict.decision === "deny") {
      return finish("deny", verdict.rule, denyMessage({ verdict, call, preset, root }));
    }
    const control = verdict.source === "control";
    if (control && !this.#opts.broker) {
      return finish("ask", verdict.rule, headlessAskMessage({ verdict, call, preset, root }));
    }
    let decision: PermissionDecision = verdict.decision;
    let rule = verdict.rule;
    // Control files are approved one call at a time: no session grant covers them.
    if (decision === "ask" && !control) {
      const grant = this.#granted(call, verdict);
      if (grant) {
        decision = "allow";
        rule = `session grant: ${grant}`;
      }
    }

    // The short window after an approved plan runs the plan's edits and plain commands that
    // the preset would ask about. It never answers an ask rule, a control file, a wider write
    // scope (checked below), a further plan or a nested or indirect command.
    if (decision === "ask" && verdict.source === "preset" && plan.windowOpen) {
      const covered = call.command === undefined
        ? verdict.kind === "edit"
        : this.#opts.shellSandboxed && plainCommand(call.command);
      if (covered) {
        decision = "allow";
        rule = "approved plan";
      }
    }

    // Write confinement: file writers must stay in the writable roots; bash may ask for more.
    const outsideFiles = preset.confineWrites
      ? call.writes.filter((w) => !scope.allowsWrite(w))
      : [];
    const bashDirs = this.#opts.shellSandboxed && call.command !== undefined
      ? extraDirs.filter((d) => !scope.allowsWrite(d))
      : [];
    if (bashDirs.length && preset.strict) {
      return finish(
        "deny",
        `${preset.name} mode`,
        `Permission denied: the ${preset.name} permission mode cannot extend the write scope ` +
          `(additional_write_dirs ${bashDirs.join(", ")}); run the command without them.`,
      );
    }
    const scopeDirs = [...new Set([...outsideFiles.map((f) => dirname(f)), ...bashDirs])];
    if (scopeDirs.length) {
      const broker = this.#opts.broker;
      if (!broker) {
        return finish(
          "ask",
          rule,
          headlessScopeMessage({ call, dirs: scopeDirs, roots: scope.roots(), root }),
        );
      }
      const justification = access.extraWriteDirs?.justification?.trim();
      const choice = await this.#ask(broker, { emit, signal, callId }, {
        kind: "write_scope",
        tool: tool.name,
        summary: `${describeCall(call, root)} wants to write outside the writable roots: ${
          scopeDirs.join(", ")
        }`,
        detail: [
          justification ? `Justification: ${justification}` : "",
          call.command !== undefined ? `Command: ${call.command}` : "",
          control ? `It also ${verdict.note}.` : "",
          `Writable roots now: ${scope.roots().join(", ")}`,
        ].filter(Boolean).join("\n"),
        sessionScope: `write access to ${scopeDirs.join(", ")} for this session`,
      });
      if (choice === "deny") {
        return finish("ask", rule, userDeniedMessage(call, root));
      }
      for (const dir of scopeDirs) {
        if (choice === "session") scope.grantSession(dir);
        else if (bashDirs.includes(dir)) scope.grantOnce(dir);
      }
      // One prompt covers both: whoever approved the wider scope saw the call.
      return finish("ask", rule ?? "write scope approved");
    }

    if (decision === "allow") return finish(verdict.decision, rule);

    const broker = this.#opts.broker;
    if (!broker) {
      return finish("ask", rule, headlessAskMessage({ verdict, call, preset, root }));
    }
    const sessionScope = this.#sessionScope(call, verdict);
    const choice = await this.#ask(broker, { emit, signal, callId }, {
      kind: "tool",
      tool: tool.name,
      summary: describeCall(call, root),
      detail: [
        call.command !== undefined ? call.command : "",
        rule ? `Policy: ${rule}` : "",
        verdict.note ?? "",
      ].filter(Boolean).join("\n"),
      sessionScope: sessionScope.label,
    });
    if (choice === "deny") return finish("ask", rule, userDeniedMessage(call, root));
    if (choice === "session") sessionScope.grant();
    return finish("ask", rule);
  }

  /**
   * `exit_plan_mode`: only a person approves a plan. Explicit deny rules still refuse it; no
   * preset, allow rule, session grant or approved-plan window answers for the user, and
   * without a broker it is refused.
   */
  async #planApproval(o: {
    call: PolicyCall;
    args: unknown;
    plan: PlanMode;
    finish: (
      decision: PermissionDecision,
      rule: string | undefined,
      reason?: string,
    ) => GateDecision;
    emit: Emit;
    signal: AbortSignal;
    callId: string;
  }): Promise<GateDecision> {
    const { call, plan, finish } = o;
    const RULE = "plan approval";
    // A revised plan in the window after an approval is asked about again, like the first.
    if (!plan.active && !plan.windowOpen) {
      return finish(
        "deny",
        RULE,
        "Plan mode is not on, so there is no plan to approve; carry on with the task.",
      );
    }
    const text = planArgument(o.args) ??
      planArgument((o.args as { arguments?: unknown } | null)?.arguments);
    if (text === undefined) {
      return finish(
        "deny",
        RULE,
        `${EXIT_PLAN_MODE} needs the plan as Markdown in "plan"; nothing was shown to the user.`,
      );
    }
    const policy = this.#opts.policy;
    const verdict = policy.decide(call);
    if (verdict.source === "deny") {
      return finish(
        "deny",
        verdict.rule,
        denyMessage({ verdict, call, preset: policy.preset, root: this.#opts.workspaceRoot }),
      );
    }
    const broker = this.#opts.broker;
    if (!broker) {
      return finish(
        "ask",
        RULE,
        "A person must approve the plan, and no one can be asked here (a headless run or a " +
          "subagent), so it was not approved and plan mode stays on. Give the plan as your " +
          "answer instead; the user approves it in an interactive session (reasonix, then " +
          "/plan) or leaves plan mode.",
      );
    }
    const choice = await this.#ask(broker, o, {
      kind: "plan",
      tool: call.tool,
      summary: "Approve this plan and start carrying it out?",
      detail: text,
    });
    if (choice === "deny") {
      plan.refuse(text);
      return finish(
        "ask",
        RULE,
        "The user did not approve the plan and wants you to keep planning: plan mode stays " +
          "on. Ask what should change or revise the plan, then present it again.",
      );
    }
    plan.grantApproval(text);
    return finish("ask", RULE);
  }

  async #ask(
    broker: ApprovalBroker,
    { emit, signal, callId }: { emit: Emit; signal: AbortSignal; callId: string },
    req: Omit<ApprovalRequest, "id" | "callId">,
  ): Promise<ApprovalChoice> {
    const request: ApprovalRequest = {
      id: `approval-${++this.#grants.requests}`,
      callId,
      ...req,
    };
    // Asked before the event goes out, so a front end may answer while handling the event.
    const answer = broker.request(request, { signal });
    const answerable = broker.answer?.bind(broker);
    emit({
      type: "approval_request",
      request,
      ...(answerable
        ? { respond: (choice: ApprovalChoice) => answerable(request.id, choice) }
        : {}),
    });
    const choice = await answer;
    emit({ type: "approval_answer", id: request.id, choice });
    return choice;
  }

  /** What "allow for this session" binds to for this call. */
  #sessionScope(call: PolicyCall, verdict: Verdict): { label: string; grant(): void } {
    const root = this.#opts.workspaceRoot;
    if (verdict.source === "control") {
      return {
        label: "this call only (control files are approved one call at a time)",
        grant: () => {},
      };
    }
    if (call.command !== undefined) {
      const command = call.command.trim();
      return {
        label: `this exact command: ${command}`,
        grant: () => this.#commands.add(command),
      };
    }
    if (verdict.kind === "edit" && call.writes.length) {
      const dirs = [...new Set(call.writes.map((w) => dirname(w)))];
      const shown = dirs.map((d) => shownPath(d, root));
      return {
        // "edits under ." reads like a typo; the root is said in words.
        label: shown.length === 1 && shown[0] === "."
          ? "edits anywhere in the workspace"
          : `edits under ${shown.join(", ")}`,
        grant: () => dirs.forEach((d) => this.#dirs.add(d)),
      };
    }
    return {
      label: `every call of ${call.family}`,
      grant: () => this.#names.add(call.family),
    };
  }

  /** The session grant that covers an `ask`, if any. */
  #granted(call: PolicyCall, verdict: Verdict): string | undefined {
    if (call.command !== undefined) {
      return this.#commands.has(call.command.trim()) ? `command ${call.command.trim()}` : undefined;
    }
    if (verdict.kind === "edit" && call.writes.length) {
      const dirs = [...this.#dirs];
      const ok = call.writes.every((w) => dirs.some((d) => isWithin(d, w)));
      return ok ? `edits under ${dirs.join(", ")}` : undefined;
    }
    return this.#names.has(call.family) ? call.family : undefined;
  }
}

function forbidMessage(
  call: PolicyCall,
  { path, by, root }: { path: string; by: string; root: string },
): string {
  return `Permission denied: ${call.tool} would access ${shownPath(path, root)}, and ${by} is ` +
    `in [sandbox].forbid_read${
      path === by || isWithin(by, path) ? "" : " (it lies inside the directory searched)"
    }. Choose a path that does not include it.`;
}
