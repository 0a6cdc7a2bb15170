/**
 * The `history` tool: BM25 search over everything this session has seen and over the
 * workspace's earlier sessions (its archives). The canonical transcript keeps every message,
 * so compaction never makes anything unfindable.
 *
 * @module
 */
import { z } from "zod";
import type { Message } from "../../providers/types.ts";
import { defineTool } from "../../tools/define.ts";
import type { Tool } from "../../tools/types.ts";
import { userText } from "../store/sessions.ts";
import { Bm25Index, tokenize } from "./bm25.ts";

/** One message found by a search. */
export interface HistoryHit {
  sessionId: string;
  /** Index of the message in its session. */
  index: number;
  role: string;
  /** Whether it belongs to the running session. */
  current: boolean;
  score: number;
  snippet: string;
}

/** A finished session to search. */
export interface Archive {
  id: string;
  messages: readonly Message[];
}

/** The searchable text of a message: what the provider saw, never `rawContent`. */
export function searchableText(m: Message): string {
  if (m.role === "user") return userText(m.content);
  const calls = (m.toolCalls ?? []).map((c) => `${c.name} ${c.arguments}`).join("\n");
  return calls ? `${m.content}\n${calls}` : m.content;
}

/** A short excerpt around the first query term found. */
export function snippet(text: string, query: string, width = 240): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const lower = flat.toLowerCase();
  let at = -1;
  for (const term of tokenize(query)) {
    at = lower.indexOf(term);
    if (at >= 0) break;
  }
  const start = Math.max(0, at < 0 ? 0 : at - Math.floor(width / 3));
  const cut = flat.slice(start, start + width);
  return `${start > 0 ? "…" : ""}${cut}${start + width < flat.length ? "…" : ""}`;
}

/** BM25 over the running session (indexed as it grows) and the archives (loaded once). */
export class HistoryIndex {
  readonly #index = new Bm25Index();
  readonly #refs: { session: number; index: number }[] = [];
  readonly #sessions: { id: string; messages: () => readonly Message[]; indexed: number }[] = [];
  readonly #loadArchives: () => Promise<Archive[]>;
  #archivesLoaded = false;

  constructor(opts: {
    sessionId: string;
    messages: () => readonly Message[];
    archives: () => Promise<Archive[]>;
  }) {
    this.#sessions.push({ id: opts.sessionId, messages: opts.messages, indexed: 0 });
    this.#loadArchives = opts.archives;
  }

  #catchUp(): void {
    this.#sessions.forEach((s, si) => {
      const messages = s.messages();
      for (; s.indexed < messages.length; s.indexed++) {
        const text = searchableText(messages[s.indexed]);
        if (!text.trim()) continue;
        this.#refs.push({ session: si, index: s.indexed });
        this.#index.add(this.#refs.length - 1, text);
      }
    });
  }

  /** Searches; `scope: "session"` limits hits to the running session. */
  async search(
    query: string,
    opts: { limit?: number; scope?: "session" | "all" } = {},
  ): Promise<HistoryHit[]> {
    if (!this.#archivesLoaded && opts.scope !== "session") {
      this.#archivesLoaded = true;
      for (const archive of await this.#loadArchives()) {
        if (archive.id === this.#sessions[0].id) continue;
        this.#sessions.push({ id: archive.id, messages: () => archive.messages, indexed: 0 });
      }
    }
    this.#catchUp();
    const limit = opts.limit ?? 8;
    const hits: HistoryHit[] = [];
    for (const hit of this.#index.search(query, limit * 4)) {
      const ref = this.#refs[hit.id];
      if (opts.scope === "session" && ref.session !== 0) continue;
      const session = this.#sessions[ref.session];
      const message = session.messages()[ref.index];
      hits.push({
        sessionId: session.id,
        index: ref.index,
        role: message.role === "tool" ? `tool ${message.name ?? ""}`.trim() : message.role,
        current: ref.session === 0,
        score: hit.score,
        snippet: snippet(searchableText(message), query),
      });
      if (hits.length === limit) break;
    }
    return hits;
  }
}

const input = z.object({
  query: z.string().min(1).describe("Words to search for (code identifiers and CJK text work)."),
  scope: z.enum(["session", "all"]).optional().describe(
    "`session`: only this conversation; `all` (default): also earlier sessions in this workspace.",
  ),
  limit: z.number().int().min(1).max(30).optional().describe("Most hits to return, default 8."),
});

/** The `history` tool over an index. */
export function historyTool(index: HistoryIndex): Tool {
  return defineTool({
    name: "history",
    description:
      "Search everything said and seen in this workspace's conversations, including parts " +
      "replaced by a context summary: user requests, answers, tool calls and tool results. " +
      "Ranked by BM25; returns where each hit is and an excerpt.",
    input,
    readOnly: true,
    access: () => ({ rule: "History" }),
    async run(args) {
      const hits = await index.search(args.query, { limit: args.limit, scope: args.scope });
      if (hits.length === 0) return { content: `No history matches "${args.query}".` };
      return {
        content: hits.map((h) =>
          `[${
            h.current ? "this session" : `session ${h.sessionId.slice(0, 8)}`
          } #${h.index} ${h.role}] ${h.snippet}`
        ).join("\n"),
      };
    },
  }) as Tool;
}
