/**
 * `/memory`: the user's view of remembered facts, and the way back for a forgotten or
 * overwritten one. Lists active facts, forgotten (archived) ones and one fact's revisions, and
 * restores a revision as a new, higher one (spec §3.6). The user typing the command is the
 * approval a restore needs; a run that cannot write says so.
 *
 * @module
 */
import {
  factLine,
  type FactStore,
  MemoryError,
  newestFirst,
  rankFacts,
  revisionLine,
} from "../../core/memory/mod.ts";

/** Most facts one listing shows. */
export const MEMORY_LIST_MAX = 50;

/** What `/memory` shows: a panel of lines, or a one-line notice. */
export type MemoryCommandResult =
  | { kind: "panel"; title: string; lines: string[] }
  | { kind: "notice"; level: "info" | "warning" | "error"; text: string };

/** The argument hint `/help` shows. */
export const MEMORY_USAGE = "[forgotten | <id> | restore <id> [revision] | <search words>]";

const FACT_ID = /^f_[a-z0-9]{8,32}$/;

function listing(
  title: string,
  lines: string[],
  footer: string | undefined,
  total: number,
): MemoryCommandResult {
  const shown = lines.slice(0, MEMORY_LIST_MAX);
  const more = total > shown.length ? [`… and ${total - shown.length} more`] : [];
  return { kind: "panel", title, lines: [...shown, ...more, ...(footer ? ["", footer] : [])] };
}

function failed(error: unknown): MemoryCommandResult {
  if (error instanceof MemoryError) return { kind: "notice", level: "error", text: error.message };
  if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
    return {
      kind: "notice",
      level: "error",
      text: "Memory cannot be written in this run (read-only mode); nothing was restored.",
    };
  }
  throw error;
}

async function restore(store: FactStore, rest: string[]): Promise<MemoryCommandResult> {
  const [id, rev, ...extra] = rest;
  const revision = rev === undefined ? undefined : Number(rev);
  if (
    !id || extra.length ||
    (revision !== undefined && (!Number.isInteger(revision) || revision < 1))
  ) {
    return {
      kind: "notice",
      level: "error",
      text: "Usage: /memory restore <id> [revision] (the revision is needed for an active fact).",
    };
  }
  try {
    const fact = await store.restore(id, revision);
    const from = revision ?? fact.revision - 1;
    return {
      kind: "notice",
      level: "info",
      text: `Restored revision ${from} of ${fact.id} as revision ${fact.revision}: ${fact.text}`,
    };
  } catch (error) {
    return failed(error);
  }
}

/** Runs `/memory <args>` against `store`. */
export async function memoryCommand(store: FactStore, args: string): Promise<MemoryCommandResult> {
  const words = args.trim().split(/\s+/).filter(Boolean);
  const [first, ...rest] = words;
  try {
    if (first === "restore") return await restore(store, rest);
    if (first === "forgotten" || first === "archived") {
      if (rest.length) {
        return {
          kind: "notice",
          level: "error",
          text: `Usage: /memory ${first} (it lists every forgotten fact).`,
        };
      }
      const facts = newestFirst(await store.archived());
      if (!facts.length) return { kind: "notice", level: "info", text: "No forgotten facts." };
      return listing(
        `Forgotten facts (${facts.length})`,
        facts.map(factLine),
        "Bring one back with /memory restore <id>; /memory <id> shows its revisions.",
        facts.length,
      );
    }
    if (first !== undefined && rest.length === 0 && FACT_ID.test(first)) {
      const revisions = await store.revisions(first);
      return listing(
        `Revisions of ${first}`,
        revisions.map(revisionLine),
        "Make one current again with /memory restore <id> <revision>.",
        revisions.length,
      );
    }
    const active = await store.list();
    const archived = (await store.archived()).length;
    const note = archived
      ? `${archived} forgotten fact(s): /memory forgotten lists them.`
      : undefined;
    if (first === undefined) {
      if (!active.length) {
        return {
          kind: "notice",
          level: "info",
          text: `Nothing remembered yet.${note ? ` ${note}` : ""}`,
        };
      }
      return listing(
        `Remembered facts (${active.length})`,
        newestFirst(active).map(factLine),
        note,
        active.length,
      );
    }
    const query = words.join(" ");
    const hits = rankFacts(active, query).map((s) => s.fact);
    if (!hits.length) {
      return { kind: "notice", level: "info", text: `No remembered fact matches "${query}".` };
    }
    return listing(`Facts matching "${query}"`, hits.map(factLine), note, hits.length);
  } catch (error) {
    return failed(error);
  }
}
