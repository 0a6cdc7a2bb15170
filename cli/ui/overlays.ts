/**
 * Overlays and the composer rule (spec §3.8): modal overlays (approval, pickers, panels) hide
 * the composer; input-owned overlays (slash and `@` completion) keep it, because the user is
 * still typing. Every kind must appear in {@link OVERLAY_OWNERS}, and the layout test renders
 * each one, so a new overlay cannot forget the rule.
 *
 * @module
 */
import type { ApprovalRequest } from "../../core/agent/approval.ts";
import type { ApprovalPreview } from "./approval_preview.ts";

/** A completion of the slash command being typed. */
export interface SlashItem {
  /** Without the slash. */
  name: string;
  description: string;
  argumentHint?: string;
  source: "builtin" | "custom" | "mcp" | "profile";
}

/** A completion of the `@` reference being typed. */
export interface MentionItem {
  /** The reference text after `@`. */
  value: string;
  label: string;
  detail?: string;
  /** Directories (and `server:` prefixes) keep completion open after they are chosen. */
  partial: boolean;
}

/** One choice of a picker. */
export interface PickerItem {
  value: string;
  label: string;
  detail?: string;
  current?: boolean;
}

/** What a picker chooses. */
export type PickerPurpose = "model" | "effort" | "resume" | "permissions" | "init";

/** Every overlay the UI can show. */
export type Overlay =
  | {
    kind: "approval";
    request: ApprovalRequest;
    selected: number;
    /** What the call would do (a diff, the command with its directory and sandbox), once known. */
    preview?: ApprovalPreview;
    /** First diff line shown, for long diffs (PgUp PgDn). */
    offset?: number;
  }
  | { kind: "help"; lines: readonly string[]; offset: number }
  | { kind: "mcp"; lines: readonly string[]; offset: number }
  | {
    kind: "picker";
    purpose: PickerPurpose;
    title: string;
    items: readonly PickerItem[];
    selected: number;
  }
  | { kind: "slash"; items: readonly SlashItem[]; selected: number }
  | { kind: "mention"; items: readonly MentionItem[]; selected: number };

/** The kinds of overlay. */
export type OverlayKind = Overlay["kind"];

/** Who owns the keyboard while an overlay is open. */
export type OverlayOwner = "modal" | "input";

/** The rule, one entry per kind (the type makes a missing kind a compile error). */
export const OVERLAY_OWNERS: { readonly [K in OverlayKind]: OverlayOwner } = {
  approval: "modal",
  help: "modal",
  mcp: "modal",
  picker: "modal",
  slash: "input",
  mention: "input",
};

/** Whether the composer is hidden while `overlay` is open. */
export function hideComposer(overlay: Overlay | undefined): boolean {
  return overlay !== undefined && OVERLAY_OWNERS[overlay.kind] === "modal";
}

/** The choices of an approval prompt, in display order. */
export const APPROVAL_CHOICES = [
  { choice: "once", label: "Allow once", keys: ["1", "y"] },
  { choice: "session", label: "Allow for this session", keys: ["2", "a"] },
  { choice: "deny", label: "Deny", keys: ["3", "n"] },
] as const;

/** The choices of a plan's approval (`exit_plan_mode`): a plan has no session grant. */
export const PLAN_CHOICES = [
  { choice: "once", label: "Approve the plan and start", keys: ["1", "y"] },
  { choice: "deny", label: "Keep planning", keys: ["2", "n"] },
] as const;

/** The choices offered for `request`, in display order. */
export function approvalChoices(
  request: ApprovalRequest,
): readonly { choice: "once" | "session" | "deny"; label: string; keys: readonly string[] }[] {
  return request.kind === "plan" ? PLAN_CHOICES : APPROVAL_CHOICES;
}
