/**
 * The `ContextCapsule` every child run records (spec §3.13): where it started from, as
 * references and hashes, never copies of the parent's context. `capsuleHash` is its stable id,
 * so two runs that behaved differently can be compared from the record.
 *
 * @module
 */
import { canonicalJson } from "../../tools/canonical.ts";

/** What a child was started from. */
export interface ContextCapsule {
  /** Canonical workspace root. */
  workspace: string;
  /** The system prompt's source (`default_task`, `default_read_only_task`, `profile:<name>`) and hash. */
  systemPrompt: { source: string; sha256: string };
  /** The tools it was offered and the hash of their schemas. */
  tools: { names: string[]; schemaSha256: string };
  /** `provider/model`. */
  model: string;
  /** Reasoning effort, when set. */
  effort: string | null;
  /** The claim it writes under (canonical), `[]` read-only, null the whole workspace. */
  writePaths: string[] | null;
  /** The parent session and the tool call that started it. */
  parent: { sessionId: string | null; toolCallId: string | null };
  /** The transcript it continues (`continue_from`) or was forked from (`fork_from`). */
  continued: {
    /** `continue`: the same session goes on; `fork`: a copy goes on in a new session. */
    mode: "continue" | "fork";
    /** The full id of the transcript it started from. */
    from: string;
  } | null;
  /** Run options it was given: plan mode, and the language it reasons and replies in. */
  runOptions: { planMode: boolean; language: string | null };
  /** What it did not inherit: every field is false by design. */
  inherited: {
    instructions: false;
    memory: false;
    conversation: false;
    goal: false;
    plannerOutput: false;
    siblingResults: false;
  };
}

/** SHA-256 of `text`, hex. */
export async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The capsule's stable id: 16 hex digits of the SHA-256 of its canonical JSON. */
export async function capsuleHash(capsule: ContextCapsule): Promise<string> {
  return (await sha256(canonicalJson(capsule))).slice(0, 16);
}

/** Nothing is inherited; the record says so. */
export const NOTHING_INHERITED: ContextCapsule["inherited"] = {
  instructions: false,
  memory: false,
  conversation: false,
  goal: false,
  plannerOutput: false,
  siblingResults: false,
};

/** Writes the capsule beside a child's transcript: `<id>.capsule.json`. */
export async function writeCapsule(
  sessionPath: string,
  capsule: ContextCapsule,
  hash: string,
): Promise<void> {
  const path = sessionPath.replace(/\.jsonl$/, "") + ".capsule.json";
  await Deno.writeTextFile(path, JSON.stringify({ capsuleHash: hash, capsule }, null, 2) + "\n", {
    mode: 0o600,
  });
}
