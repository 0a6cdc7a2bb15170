/**
 * The `memory`, `remember` and `forget` tools over a `FactStore`.
 *
 * Approval (spec §3.6): the controller that owns the project store may save a new fact
 * without asking only when it is create-only, bounded, non-sensitive and a project or
 * reference fact of this project; such a call declares itself read-only to the permission
 * layer, so it falls back to allow (an explicit `deny` still wins). Every other memory
 * write goes through the preset like any writer, and so does `memory` with `restore`: a
 * restore writes, every other `memory` call only reads.
 *
 * @module
 */
import { z } from "zod";
import { defineTool } from "../../tools/define.ts";
import type { Tool, ToolAccess, ToolErrorCode, ToolResult } from "../../tools/types.ts";
import { type Fact, type FactStore, MemoryError, type MemoryErrorCode } from "./facts.ts";
import { factLine, rankFacts } from "./recall.ts";

/** Longest fact saved without asking. */
export const UNASKED_FACT_MAX_CHARS = 600;

const SENSITIVE = [
  /(?:api[_-]?key|secret|passw(?:or)?d|passwd|token|bearer|credential|private[_-]?key)\s*[:=]/i,
  /\bsk-[A-Za-z0-9_-]{16,}/,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /\bAKIA[0-9A-Z]{16}\b/,
  /\bgh[pousr]_[A-Za-z0-9]{30,}/,
  /\bxox[abpr]-[A-Za-z0-9-]{10,}/,
];

/** Whether text looks like it holds a secret. */
export function looksSensitive(text: string): boolean {
  return SENSITIVE.some((pattern) => pattern.test(text));
}

const TYPE = z.enum(["user", "feedback", "project", "reference"]);
const SCOPE = z.enum(["project", "global"]);

const MEMORY_CODES: Record<MemoryErrorCode, ToolErrorCode> = {
  memory_conflict: "conflict",
  memory_not_found: "not_found",
  memory_unsafe_path: "permission_denied",
  memory_invalid: "invalid_arguments",
};

function failure(error: unknown): ToolResult {
  if (error instanceof MemoryError) {
    return { content: error.message, isError: true, code: MEMORY_CODES[error.code] };
  }
  // Read-only runs give up Deno's write permission after start-up: say so, not a stack trace.
  if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
    return {
      content: "Memory cannot be written in this run: writing is disabled (read-only mode). " +
        "Nothing was saved.",
      isError: true,
      code: "permission_denied",
    };
  }
  throw error;
}

/** Facts, most recently updated first (ties by id, so the order is stable). */
export function newestFirst(facts: readonly Fact[]): Fact[] {
  return [...facts].sort((a, b) => b.updated.localeCompare(a.updated) || a.id.localeCompare(b.id));
}

/** One line per revision: a fact line, marked when that revision was the archived one. */
export function revisionLine(fact: Fact): string {
  return factLine(fact) + (fact.archived ? " (forgotten)" : "");
}

/** The three memory tools. `owner` is false for controllers that don't own the store. */
export function memoryTools(store: FactStore, opts: { owner: boolean }): Tool[] {
  const memory = defineTool({
    name: "memory",
    description:
      "Search remembered facts (this project's and global ones): user preferences, feedback, " +
      "project facts and references saved in earlier sessions. Returns id, revision, scope, " +
      "type, date and text.",
    input: z.object({
      query: z.string().min(1).optional().describe("What to look for; omit for the newest."),
      archived: z.boolean().optional().describe("Search forgotten facts instead."),
      id: z.string().optional().describe("List this fact's revisions."),
      restore: z.number().int().min(1).optional().describe(
        "With id: make this revision current again (as a new one).",
      ),
      limit: z.number().int().min(1).max(50).optional().describe("Most facts, default 10."),
    }),
    // Restoring writes; everything else only reads (see `access`).
    readOnly: false,
    access: (args): ToolAccess => ({ rule: "Memory", readOnly: args.restore === undefined }),
    async run(args) {
      try {
        if (args.restore !== undefined) {
          if (args.id === undefined) {
            return {
              content: "To restore, pass the fact's id with the revision to bring back.",
              isError: true,
              code: "invalid_arguments",
            };
          }
          const fact = await store.restore(args.id, args.restore);
          return {
            content:
              `Restored revision ${args.restore} of ${fact.id} as revision ${fact.revision}.`,
          };
        }
        if (args.id !== undefined) {
          return { content: (await store.revisions(args.id)).map(revisionLine).join("\n") };
        }
        const facts = args.archived ? await store.archived() : await store.list();
        const shown = args.query === undefined
          ? newestFirst(facts)
          : rankFacts(facts, args.query).map((s) => s.fact);
        const lines = shown.slice(0, args.limit ?? 10).map(factLine);
        if (lines.length) return { content: lines.join("\n") };
        const what = args.archived ? "forgotten fact" : "remembered fact";
        return {
          content: args.query === undefined
            ? `No ${what}s.`
            : `No ${what} matches "${args.query}".`,
        };
      } catch (error) {
        return failure(error);
      }
    },
  });

  const rememberInput = z.object({
    text: z.string().min(1).max(4000).describe("The fact, self-contained and durable."),
    type: TYPE.describe(
      "user: who the user is or prefers; feedback: how they want you to work; project: facts " +
        "about this codebase; reference: where to find things.",
    ),
    scope: SCOPE.describe("project (default choice) or global (true in every project)."),
    id: z.string().optional().describe("To update an existing fact: its id."),
    revision: z.number().int().min(1).optional().describe("With id: the revision you read."),
  });
  const remember = defineTool({
    name: "remember",
    description:
      "Save a durable fact for future sessions, or update one (pass id and the revision you " +
      "read; a stale revision is refused). Never store secrets.",
    input: rememberInput,
    readOnly: false,
    access(args): ToolAccess {
      const unasked = opts.owner && args.id === undefined && args.scope === "project" &&
        (args.type === "project" || args.type === "reference") &&
        args.text.length <= UNASKED_FACT_MAX_CHARS && !looksSensitive(args.text);
      return { rule: "Memory", readOnly: unasked };
    },
    async run(args) {
      if (looksSensitive(args.text)) {
        return {
          content:
            "Refused: the fact looks like it contains a secret. Memory never stores secrets.",
          isError: true,
          code: "invalid_arguments",
        };
      }
      try {
        if (args.id === undefined) {
          const fact = await store.create({ text: args.text, type: args.type, scope: args.scope });
          return { content: `Remembered ${fact.id} (revision 1, ${fact.scope}/${fact.type}).` };
        }
        if (args.revision === undefined) {
          return {
            content: "To update a fact, pass the revision you read with its id.",
            isError: true,
            code: "invalid_arguments",
          };
        }
        const fact = await store.update(args.id, args.revision, {
          text: args.text,
          type: args.type,
        });
        return { content: `Updated ${fact.id} to revision ${fact.revision}.` };
      } catch (error) {
        return failure(error);
      }
    },
  });

  const forget = defineTool({
    name: "forget",
    description: "Archive a remembered fact that is wrong or obsolete (recoverable by the user).",
    input: z.object({
      id: z.string().describe("The fact's id."),
      revision: z.number().int().min(1).describe("The revision you read."),
    }),
    readOnly: false,
    access: () => ({ rule: "Memory" }),
    async run(args) {
      try {
        const fact = await store.archive(args.id, args.revision);
        return { content: `Archived ${fact.id} at revision ${fact.revision}.` };
      } catch (error) {
        return failure(error);
      }
    },
  });

  return [memory as Tool, remember as Tool, forget as Tool];
}
