/**
 * A small append-only BM25 index. Hand-written rather than taken from npm: minisearch (the
 * well-kept candidate) needed 15 s and 230 MB to index 100k messages here, where this index
 * takes a fraction of that (`deno task bench` measures it), and history only ever appends.
 *
 * Tokenization handles code (camelCase and snake_case parts are indexed besides the whole
 * word) and CJK text, which has no spaces: runs of Han, kana and Hangul are indexed as
 * single characters and overlapping pairs.
 *
 * @module
 */

const K1 = 1.2;
const B = 0.75;
const MAX_TOKEN = 48;

const IDENTIFIER = /_|[a-z0-9][A-Z]|[A-Z][A-Z][a-z]/;
const PARTS = /_+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/;
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]/u;
const SEGMENT =
  /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+|[\p{L}\p{N}_]+/gu;

/** Splits text into index terms. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(SEGMENT)) {
    const segment = match[0];
    if (CJK.test(segment[0])) {
      const chars = Array.from(segment);
      for (let i = 0; i < chars.length; i++) {
        out.push(chars[i]);
        if (i + 1 < chars.length) out.push(chars[i] + chars[i + 1]);
      }
      continue;
    }
    if (segment.length > MAX_TOKEN) continue;
    out.push(segment.toLowerCase());
    // Parts of identifiers: fooBarBaz, foo_bar, HTTPServer.
    if (IDENTIFIER.test(segment)) {
      for (const part of segment.split(PARTS)) if (part) out.push(part.toLowerCase());
    }
  }
  return out;
}

/** One search hit. */
export interface Hit {
  /** The id given to `add`. */
  id: number;
  score: number;
}

/** An append-only BM25 index over numbered documents. */
export class Bm25Index {
  readonly #postings = new Map<string, number[]>(); // doc, tf, doc, tf, …
  readonly #lengths: number[] = [];
  readonly #ids: number[] = [];
  #totalLength = 0;

  /** Number of documents. */
  get size(): number {
    return this.#lengths.length;
  }

  /** Adds a document under a caller-chosen id. */
  add(id: number, text: string): void {
    const doc = this.#lengths.length;
    const counts = new Map<string, number>();
    const tokens = tokenize(text);
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    for (const [term, tf] of counts) {
      let list = this.#postings.get(term);
      if (!list) this.#postings.set(term, list = []);
      list.push(doc, tf);
    }
    this.#lengths.push(tokens.length);
    this.#ids.push(id);
    this.#totalLength += tokens.length;
  }

  /** The best `limit` documents for `query`, highest score first. */
  search(query: string, limit = 10): Hit[] {
    const n = this.#lengths.length;
    if (n === 0) return [];
    const avg = this.#totalLength / n || 1;
    const scores = new Map<number, number>();
    for (const term of new Set(tokenize(query))) {
      const list = this.#postings.get(term);
      if (!list) continue;
      const df = list.length / 2;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (let i = 0; i < list.length; i += 2) {
        const doc = list[i];
        const tf = list[i + 1];
        const norm = tf + K1 * (1 - B + B * this.#lengths[doc] / avg);
        scores.set(doc, (scores.get(doc) ?? 0) + idf * tf * (K1 + 1) / norm);
      }
    }
    const hits: Hit[] = [];
    for (const [doc, score] of scores) hits.push({ id: this.#ids[doc], score });
    hits.sort((a, b) => b.score - a.score || a.id - b.id);
    return hits.slice(0, limit);
  }
}
