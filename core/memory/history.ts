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
import { join } from "node:path";
import { transcriptFiles } from "../store/sessions.ts";
import {
  messageOf,
  parseLine,
  readBytes,
  readMessageAt,
  scanLines,
  sessionOf,
} from "../store/transcript_scan.ts";
import { userText } from "../store/user_text.ts";
import { Bm25Index, tokenize } from "./bm25.ts";
import {
  DocRefs,
  encodeHistory,
  loadHistory,
  saveHistory,
  type StoredHistory,
  type StoredSession,
} from "./history_store.ts";

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

/**
 * Appended bytes below which the saved index is not rewritten: reading them again from the
 * transcripts next time costs less than rewriting the whole index now.
 */
const SAVE_MIN_BYTES = 256 * 1024;
const SAVE_SHARE = 0.02;

/** A session whose messages are indexed. */
interface Source {
  id: string;
  /** Messages in memory: the running session and in-memory archives. */
  messages?: () => readonly Message[];
  /** Messages in a transcript of the store directory: read back by their line. */
  path?: string;
  /** How far the transcript was indexed; saved with the index. */
  stored?: StoredSession;
  /** Indexed from memory up to here. */
  indexed: number;
  /** Replaced, removed, or the running session's own earlier transcript: not searched. */
  hidden?: boolean;
  /** Dropped from the saved index (its file changed other than by appending, or is gone). */
  dead?: boolean;
}

/** Where the persisted index of earlier sessions lives. */
export interface HistoryStoreOptions {
  /** The sessions directory; its index is kept in `.index/` inside it. */
  dir: string;
  /** The running session's id, whose transcript is indexed from memory instead. */
  currentId: () => string | undefined;
}

/**
 * BM25 over the running session (indexed as it grows) and the archives. With a `store`, the
 * archives are the transcripts of a sessions directory, indexed through the persisted index
 * beside them (`history_store.ts`): loaded on the first search that needs archives, brought up
 * to date with what was appended since, and saved again when it changed.
 */
export class HistoryIndex {
  #index = new Bm25Index();
  #refs = new DocRefs();
  #sources: Source[] = [];
  /** The running session's place in `#sources`. */
  #live = 0;
  readonly #loadArchives: (() => Promise<Archive[]>) | undefined;
  readonly #store: HistoryStoreOptions | undefined;
  #archivesLoaded = false;
  #saving: Promise<void> = Promise.resolve();

  constructor(opts: {
    sessionId: string;
    messages: () => readonly Message[];
    /** Archives held in memory (tests, library users). */
    archives?: () => Promise<Archive[]>;
    /** The sessions directory whose transcripts are the archives, with a persisted index. */
    store?: HistoryStoreOptions;
  }) {
    this.#sources.push({ id: opts.sessionId, messages: opts.messages, indexed: 0 });
    this.#loadArchives = opts.archives;
    this.#store = opts.store;
  }

  /** Resolves once the index file written after the last catch-up is on disk. */
  flush(): Promise<void> {
    return this.#saving;
  }

  #catchUp(): void {
    this.#sources.forEach((s, si) => {
      if (!s.messages) return;
      const messages = s.messages();
      for (; s.indexed < messages.length; s.indexed++) {
        const text = searchableText(messages[s.indexed]);
        if (!text.trim()) continue;
        this.#index.add(this.#refs.push(si, s.indexed), text);
      }
    });
  }

  /** Loads the archives: the store's index brought up to date, then in-memory ones. */
  async #load(): Promise<void> {
    const live = this.#sources[this.#live];
    if (this.#store) {
      const loaded = await this.#openStore(this.#store);
      // Stored documents come first; the running session is indexed again after them.
      this.#index = loaded.index;
      this.#refs = loaded.refs;
      this.#sources = [...loaded.sources, { ...live, indexed: 0 }];
      this.#live = loaded.sources.length;
      const hidden = loaded.sources.map((s) => s.hidden === true);
      this.#index.hide((doc) => hidden[this.#refs.session[doc]]);
    }
    for (const archive of await this.#loadArchives?.() ?? []) {
      if (archive.id === live.id) continue;
      this.#sources.push({ id: archive.id, messages: () => archive.messages, indexed: 0 });
    }
  }

  /** The stored index of `store.dir`, with every transcript's new lines indexed. */
  async #openStore(
    store: HistoryStoreOptions,
  ): Promise<{ index: Bm25Index; refs: DocRefs; sources: Source[] }> {
    const [saved, listed] = await Promise.all([
      loadHistory(store.dir),
      transcriptFiles(store.dir).catch(() => undefined),
    ]);
    // An unreadable directory changes nothing: what was saved is searched, and kept.
    const files = listed ?? [];
    const index = saved?.index ?? new Bm25Index();
    const refs = saved?.refs ?? new DocRefs();
    const currentName = `${store.currentId() ?? ""}.jsonl`;
    const sources: Source[] = (saved?.sessions ?? []).map((s) => ({
      id: s.id,
      path: join(store.dir, s.name),
      stored: s,
      indexed: 0,
    }));
    const byName = new Map(sources.map((s) => [s.stored!.name, s]));
    const ordinals = new Map(sources.map((s, i) => [s, i]));
    // Dropped documents are saved at once; appended ones once they are worth rewriting the file.
    let mustSave = saved === undefined;
    let fresh = 0;
    const present = new Set(files.map((f) => f.name));
    for (const source of sources) {
      if (listed && !present.has(source.stored!.name)) {
        source.dead = source.hidden = true;
        mustSave = true;
      }
    }
    for (const file of files) {
      let source = byName.get(file.name);
      const stored = source?.stored;
      if (stored && stored.size === file.size && stored.mtime === file.mtime) {
        if (file.name === currentName) source!.hidden = true;
        continue;
      }
      if (file.name === currentName) {
        // Indexed from memory; its new lines are saved by whoever next opens the index.
        if (source) source.hidden = true;
        continue;
      }
      let from = 0;
      if (source && stored && await appendedTo(file.path, stored, file.size)) {
        from = stored.read;
      } else {
        if (source) {
          source.dead = source.hidden = true;
          mustSave = true;
        }
        source = {
          id: "",
          path: file.path,
          stored: {
            name: file.name,
            id: "",
            read: 0,
            head: "",
            size: 0,
            mtime: 0,
            messages: 0,
          },
          indexed: 0,
        };
        ordinals.set(source, sources.length);
        sources.push(source);
      }
      let bytes: Uint8Array;
      try {
        bytes = await readBytes(file.path, from);
      } catch {
        source.dead = source.hidden = true;
        mustSave = true;
        continue;
      }
      fresh += bytes.length;
      indexLines(source, ordinals.get(source)!, bytes, from, index, refs);
      source.stored = { ...source.stored!, size: file.size, mtime: file.mtime };
    }
    for (const s of sources) if (!s.id) s.hidden = true;
    const indexed = sources.reduce((n, s) => n + (s.dead ? 0 : s.stored!.read), 0);
    if (listed && (mustSave || fresh > Math.max(SAVE_MIN_BYTES, indexed * SAVE_SHARE))) {
      const snapshot: StoredHistory = { sessions: sources.map((s) => s.stored!), refs, index };
      const end = refs.length;
      const dead = sources.map((s) => s.dead === true);
      // After the answer: the search waits for none of it. Documents of the running session
      // are added later, past `end`, and stay out of the file.
      this.#saving = this.#saving
        .then(() => new Promise((resolve) => setTimeout(resolve, 0)))
        .then(() =>
          saveHistory(store.dir, encodeHistory(snapshot, (doc) => doc < end, (i) => !dead[i]))
        );
    }
    return { index, refs, sources };
  }

  /** Searches; `scope: "session"` limits hits to the running session. */
  async search(
    query: string,
    opts: { limit?: number; scope?: "session" | "all" } = {},
  ): Promise<HistoryHit[]> {
    if (!this.#archivesLoaded && opts.scope !== "session") {
      this.#archivesLoaded = true;
      await this.#load();
    }
    this.#catchUp();
    const limit = opts.limit ?? 8;
    const refs = this.#refs;
    const sources = this.#sources;
    const live = this.#live;
    // Equal scores rank the running session first, then by session id and position, however
    // the documents came to be numbered (a fresh index and a stored one agree).
    const tieBreak = (a: number, b: number): number => {
      const sa = refs.session[a];
      const sb = refs.session[b];
      if (sa !== sb) {
        if (sa === live || sb === live) return sa === live ? -1 : 1;
        const ia = sources[sa].id;
        const ib = sources[sb].id;
        if (ia !== ib) return ia < ib ? -1 : 1;
      }
      return refs.index[a] - refs.index[b] || a - b;
    };
    const accept = opts.scope === "session"
      ? (doc: number) => refs.session[doc] === live
      : undefined;
    const hits: HistoryHit[] = [];
    for (const hit of this.#index.search(query, limit, { accept, tieBreak })) {
      const session = sources[refs.session[hit.id]];
      const index = refs.index[hit.id];
      const message = session.messages ? session.messages()[index] : readMessageAt(session.path!, {
        start: refs.start[hit.id],
        end: refs.end[hit.id],
        index,
      });
      if (!message) continue; // its transcript changed since: not a hit to show
      hits.push({
        sessionId: session.id,
        index,
        role: message.role === "tool" ? `tool ${message.name ?? ""}`.trim() : message.role,
        current: refs.session[hit.id] === live,
        score: hit.score,
        snippet: snippet(searchableText(message), query),
      });
    }
    return hits;
  }
}

/** Whether the transcript at `path` only grew since `stored` was indexed. */
async function appendedTo(path: string, stored: StoredSession, size: number): Promise<boolean> {
  // Same size with another mtime is a rewrite (or a touch), not an append.
  if (stored.read === 0 || !stored.head || size <= stored.size) return false;
  try {
    const head = new TextEncoder().encode(stored.head + "\n");
    const [first, last] = await Promise.all([
      readBytes(path, 0, head.length),
      readBytes(path, stored.read - 1, stored.read),
    ]);
    return last[0] === 0x0a && first.length === head.length && first.every((b, i) => b === head[i]);
  } catch {
    return false;
  }
}

/** Indexes the whole lines of `bytes` (from byte `base` of the source's transcript). */
function indexLines(
  source: Source,
  ordinal: number,
  bytes: Uint8Array,
  base: number,
  index: Bm25Index,
  refs: DocRefs,
): void {
  const stored = source.stored!;
  let { id, messages, head } = stored;
  const read = scanLines(bytes, base, (line, start, end) => {
    if (start === 0) head = line;
    const record = parseLine(line);
    if (!id) {
      const session = sessionOf(record);
      if (session) {
        id = session.meta.id;
        return;
      }
    }
    const message = messageOf(record, messages);
    if (!message) return;
    const text = searchableText(message);
    if (text.trim()) index.add(refs.push(ordinal, messages, start, end), text);
    messages++;
  });
  source.id = id;
  source.stored = { ...stored, id, messages, head, read };
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
