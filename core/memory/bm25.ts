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

/** Options of {@linkcode Bm25Index.search}. */
export interface SearchOptions {
  /** Only documents whose id passes are returned (statistics still count every document). */
  accept?: (id: number) => boolean;
  /** Orders documents of equal score; default ascending id. */
  tieBreak?: (a: number, b: number) => number;
}

/** Thrown by {@linkcode Bm25Index.load} for bytes that are not a whole index of this version. */
export class Bm25FormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "Bm25FormatError";
  }
}

const MAGIC = 0x35324d42; // "BM25"
/** Version of the serialized form; a different one is rebuilt, never read. */
export const BM25_FORMAT_VERSION = 1;
const HEADER = 32;

/** A growable Float64Array. */
class Column {
  data: Float64Array;
  length = 0;
  constructor(capacity = 64) {
    this.data = new Float64Array(capacity);
  }
  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }
  static of(values: ArrayLike<number>): Column {
    const column = new Column(Math.max(64, values.length * 2));
    column.data.set(values);
    column.length = values.length;
    return column;
  }
}

/** A frozen, serialized part of the index: sorted terms and varint-coded postings. */
interface Segment {
  terms: string[];
  offsets: Uint32Array;
  /** Documents per term. */
  df: Uint32Array;
  /** Each term's last document, where new postings continue the gap coding. */
  last: Uint32Array;
  postings: Uint8Array;
}

function findTerm(terms: readonly string[], term: string): number {
  let lo = 0;
  let hi = terms.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const t = terms[mid];
    if (t === term) return mid;
    if (t < term) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Decodes a segment's postings (gap-coded doc, tf varints) into `out` as doc, tf pairs. */
function decodePostings(bytes: Uint8Array, from: number, to: number, out: number[]): void {
  let doc = 0;
  let at = from;
  while (at < to) {
    let gap = 0;
    let shift = 0;
    let b: number;
    do {
      b = bytes[at++];
      gap += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    let tf = 0;
    shift = 0;
    do {
      b = bytes[at++];
      tf += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    doc += gap;
    out.push(doc, tf);
  }
}

class ByteWriter {
  bytes: Uint8Array;
  length = 0;
  constructor(capacity = 1 << 16) {
    this.bytes = new Uint8Array(capacity);
  }
  #room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.length + n) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }
  /** The bytes written. */
  view(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
  copy(chunk: Uint8Array): void {
    this.#room(chunk.length);
    this.bytes.set(chunk, this.length);
    this.length += chunk.length;
  }
  varint(value: number): void {
    this.#room(10);
    while (value >= 0x80) {
      this.bytes[this.length++] = (value % 0x80) | 0x80;
      value = Math.floor(value / 0x80);
    }
    this.bytes[this.length++] = value;
  }
}

/** A bounded heap keeping the best `limit` (doc, score) pairs. */
class TopK {
  readonly docs: number[] = [];
  readonly scores: number[] = [];
  constructor(
    readonly limit: number,
    readonly worse: (a: number, sa: number, b: number, sb: number) => boolean,
  ) {}

  offer(doc: number, score: number): void {
    const { docs, scores } = this;
    if (docs.length < this.limit) {
      docs.push(doc);
      scores.push(score);
      let i = docs.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.worse(docs[i], scores[i], docs[parent], scores[parent])) break;
        this.#swap(i, parent);
        i = parent;
      }
      return;
    }
    if (!this.worse(docs[0], scores[0], doc, score)) return;
    docs[0] = doc;
    scores[0] = score;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let w = i;
      if (l < docs.length && this.worse(docs[l], scores[l], docs[w], scores[w])) w = l;
      if (r < docs.length && this.worse(docs[r], scores[r], docs[w], scores[w])) w = r;
      if (w === i) break;
      this.#swap(i, w);
      i = w;
    }
  }

  #swap(a: number, b: number): void {
    const { docs, scores } = this;
    [docs[a], docs[b]] = [docs[b], docs[a]];
    [scores[a], scores[b]] = [scores[b], scores[a]];
  }
}

/**
 * An append-only BM25 index over numbered documents. It can be saved as bytes and loaded
 * again ({@linkcode Bm25Index.serialize}, {@linkcode Bm25Index.load}); a loaded index keeps its
 * postings coded and decodes only the terms a query names, and takes new documents on top.
 */
export class Bm25Index {
  /** In-memory postings of documents added since the segment: doc, tf, doc, tf, … */
  readonly #postings = new Map<string, number[]>();
  #segment: Segment | undefined;
  /** Documents `[0, #segmentDocs)` are the segment's. */
  #segmentDocs = 0;
  #lengths = new Column();
  #ids = new Column();
  #totalLength = 0;
  /** Documents left out of searches and their statistics (see `hide`). */
  #hidden: Uint8Array | undefined;
  #hiddenCount = 0;
  #hiddenLength = 0;
  #scratch = new Float64Array(0);
  #touched = new Int32Array(0);

  /** Number of documents, hidden ones included. */
  get size(): number {
    return this.#lengths.length;
  }

  /** Adds a document under a caller-chosen id. */
  add(id: number, text: string): void {
    const doc = this.#lengths.length;
    const tokens = tokenize(text);
    // Counted in the postings themselves: a term seen again in this document bumps its tf.
    for (const token of tokens) {
      const list = this.#postings.get(token);
      if (!list) this.#postings.set(token, [doc, 1]);
      else if (list[list.length - 2] === doc) list[list.length - 1]++;
      else list.push(doc, 1);
    }
    this.#lengths.push(tokens.length);
    this.#ids.push(id);
    this.#totalLength += tokens.length;
  }

  /**
   * Leaves the documents whose id passes `test` out of every later search, statistics
   * included: the results are those of an index that never had them.
   */
  hide(test: (id: number) => boolean): void {
    const n = this.size;
    if (!this.#hidden || this.#hidden.length < n) {
      const grown = new Uint8Array(Math.max(n, 64));
      if (this.#hidden) grown.set(this.#hidden);
      this.#hidden = grown;
    }
    const hidden = this.#hidden;
    const ids = this.#ids.data;
    const lengths = this.#lengths.data;
    for (let doc = 0; doc < n; doc++) {
      if (hidden[doc] || !test(ids[doc])) continue;
      hidden[doc] = 1;
      this.#hiddenCount++;
      this.#hiddenLength += lengths[doc];
    }
  }

  /** The postings of `term`, segment and in-memory ones, as doc, tf pairs in doc order. */
  #list(term: string, out: number[]): void {
    const segment = this.#segment;
    if (segment) {
      const t = findTerm(segment.terms, term);
      if (t >= 0) decodePostings(segment.postings, segment.offsets[t], segment.offsets[t + 1], out);
    }
    const own = this.#postings.get(term);
    if (own) { for (let i = 0; i < own.length; i++) out.push(own[i]); }
  }

  /** The best `limit` documents for `query`, highest score first. */
  search(query: string, limit = 10, opts: SearchOptions = {}): Hit[] {
    const size = this.size;
    const n = size - this.#hiddenCount;
    if (n <= 0 || limit <= 0) return [];
    const avg = (this.#totalLength - this.#hiddenLength) / n || 1;
    if (this.#scratch.length < size) {
      this.#scratch = new Float64Array(Math.max(size, 1024) * 2);
      this.#touched = new Int32Array(this.#scratch.length);
    }
    const scores = this.#scratch;
    const touched = this.#touched;
    let count = 0;
    const hidden = this.#hiddenCount > 0 ? this.#hidden : undefined;
    const lengths = this.#lengths.data;
    const segment = this.#segment;
    const list: number[] = [];
    for (const term of new Set(tokenize(query))) {
      // Segment postings are decoded straight into the scores, and twice only when hidden
      // documents must be left out of the document frequency.
      const t = segment ? findTerm(segment.terms, term) : -1;
      const own = this.#postings.get(term);
      if (t < 0 && !own) continue;
      let df = (t >= 0 ? segment!.df[t] : 0) + (own ? own.length / 2 : 0);
      if (hidden) {
        list.length = 0;
        this.#list(term, list);
        df = 0;
        for (let i = 0; i < list.length; i += 2) if (!hidden[list[i]]) df++;
        if (df === 0) continue;
      }
      // Each posting adds idf·tf·(k1+1) / (tf + k1·(1 − b + b·length/avg)); the constant
      // parts are hoisted, and the loops are written out so no closure runs per posting.
      const weight = Math.log(1 + (n - df + 0.5) / (df + 0.5)) * (K1 + 1);
      const base = K1 * (1 - B);
      const perLength = K1 * B / avg;
      if (t >= 0) {
        const bytes = segment!.postings;
        const end = segment!.offsets[t + 1];
        let at = segment!.offsets[t];
        let doc = 0;
        while (at < end) {
          let b = bytes[at++];
          let gap = b & 0x7f;
          for (let shift = 7; b & 0x80; shift += 7) {
            b = bytes[at++];
            gap += (b & 0x7f) * 2 ** shift;
          }
          b = bytes[at++];
          let tf = b & 0x7f;
          for (let shift = 7; b & 0x80; shift += 7) {
            b = bytes[at++];
            tf += (b & 0x7f) * 2 ** shift;
          }
          doc += gap;
          if (hidden !== undefined && hidden[doc]) continue;
          if (scores[doc] === 0) touched[count++] = doc;
          scores[doc] += weight * tf / (tf + base + perLength * lengths[doc]);
        }
      }
      if (own) {
        for (let i = 0; i < own.length; i += 2) {
          const doc = own[i];
          if (hidden !== undefined && hidden[doc]) continue;
          const tf = own[i + 1];
          if (scores[doc] === 0) touched[count++] = doc;
          scores[doc] += weight * tf / (tf + base + perLength * lengths[doc]);
        }
      }
    }
    const ids = this.#ids.data;
    const tie = opts.tieBreak ?? ((a: number, b: number) => a - b);
    const top = new TopK(
      limit,
      (a, sa, b, sb) => sa < sb || (sa === sb && tie(ids[a], ids[b]) > 0),
    );
    // Once the heap is full, a document scoring below its minimum cannot enter: one
    // comparison instead of a call for most documents of a common word.
    let floor = -Infinity;
    for (let i = 0; i < count; i++) {
      const doc = touched[i];
      const value = scores[doc];
      scores[doc] = 0;
      if (value < floor) continue;
      if (opts.accept && !opts.accept(ids[doc])) continue;
      top.offer(doc, value);
      if (top.docs.length === limit) floor = top.scores[0];
    }
    const hits = top.docs.map((doc, i) => ({ id: ids[doc], score: top.scores[i] }));
    return hits.sort((a, b) => b.score - a.score || tie(a.id, b.id));
  }

  /**
   * The index as bytes, for {@linkcode Bm25Index.load}: the documents whose id passes `keep`
   * (all by default), in their order, hidden or not; with `renumber`, each gets its new position
   * as its id. When every loaded document is kept, their coded postings are copied as they are
   * and only newer documents are coded.
   */
  serialize(
    keep: (id: number) => boolean = () => true,
    opts: { renumber?: boolean } = {},
  ): Uint8Array {
    const size = this.size;
    const ids = this.#ids.data;
    const lengths = this.#lengths.data;
    const remap = new Int32Array(size);
    let kept = 0;
    let total = 0;
    for (let doc = 0; doc < size; doc++) {
      if (keep(ids[doc])) {
        remap[doc] = kept++;
        total += lengths[doc];
      } else remap[doc] = -1;
    }
    const segment = this.#segment;
    const segmentDocs = this.#segmentDocs;
    let verbatim = segment !== undefined;
    for (let doc = 0; verbatim && doc < segmentDocs; doc++) {
      if (remap[doc] !== doc) verbatim = false;
    }
    // Segment terms are sorted already; only the in-memory ones need sorting, then a merge.
    const fresh = [...this.#postings.keys()].filter((t) =>
      !segment || findTerm(segment.terms, t) < 0
    ).sort();
    const old = segment?.terms ?? [];
    // Room for the segment's postings and about three bytes per newer posting.
    let newer = 0;
    for (const list of this.#postings.values()) newer += list.length;
    const writer = new ByteWriter((segment?.postings.length ?? 0) + newer * 2 + 1024);
    const offsets: number[] = [];
    const df: number[] = [];
    const last: number[] = [];
    const outTerms: string[] = [];
    const list: number[] = [];
    const emit = (term: string, t: number) => {
      const start = writer.length;
      let prev = 0;
      let count = 0;
      const own = this.#postings.get(term);
      if (verbatim && t >= 0) {
        writer.copy(segment!.postings.subarray(segment!.offsets[t], segment!.offsets[t + 1]));
        prev = segment!.last[t];
        count = segment!.df[t];
        list.length = 0;
        if (own) { for (let i = 0; i < own.length; i++) list.push(own[i]); }
      } else {
        list.length = 0;
        this.#list(term, list);
      }
      for (let i = 0; i < list.length; i += 2) {
        const doc = remap[list[i]];
        if (doc < 0) continue;
        writer.varint(doc - prev);
        writer.varint(list[i + 1]);
        prev = doc;
        count++;
      }
      if (count === 0) return;
      outTerms.push(term);
      offsets.push(start);
      df.push(count);
      last.push(prev);
    };
    let i = 0;
    let j = 0;
    while (i < old.length || j < fresh.length) {
      if (j >= fresh.length || (i < old.length && old[i] < fresh[j])) {
        emit(old[i], i);
        i++;
      } else {
        emit(fresh[j++], -1);
      }
    }
    offsets.push(writer.length);
    const termBytes = new TextEncoder().encode(outTerms.join("\n"));
    const layout = sections(kept, outTerms.length);
    const postingsAt = (layout.terms + termBytes.length + 3) & ~3;
    const out = new Uint8Array(postingsAt + writer.length);
    const view = new DataView(out.buffer);
    view.setUint32(0, MAGIC, true);
    view.setUint32(4, BM25_FORMAT_VERSION, true);
    view.setUint32(8, kept, true);
    view.setUint32(12, outTerms.length, true);
    view.setFloat64(16, total, true);
    view.setUint32(24, termBytes.length, true);
    view.setUint32(28, writer.length, true);
    const outIds = new Float64Array(out.buffer, layout.ids, kept);
    const outLengths = new Uint32Array(out.buffer, layout.lengths, kept);
    for (let doc = 0; doc < size; doc++) {
      const to = remap[doc];
      if (to < 0) continue;
      outIds[to] = opts.renumber ? to : ids[doc];
      outLengths[to] = lengths[doc];
    }
    new Uint32Array(out.buffer, layout.offsets, offsets.length).set(offsets);
    new Uint32Array(out.buffer, layout.df, df.length).set(df);
    new Uint32Array(out.buffer, layout.last, last.length).set(last);
    out.set(termBytes, layout.terms);
    out.set(writer.view(), postingsAt);
    return out;
  }

  /**
   * An index from {@linkcode Bm25Index.serialize}'s bytes. Throws `Bm25FormatError` when they
   * are not a whole, consistent index of this format version.
   */
  static load(bytes: Uint8Array): Bm25Index {
    // Typed views need aligned offsets; a copy is cheap next to reading the file.
    if (bytes.byteOffset % 8 !== 0) bytes = bytes.slice();
    const fail = (why: string): never => {
      throw new Bm25FormatError(`not a usable BM25 index: ${why}`);
    };
    if (bytes.length < HEADER) fail("too short");
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (view.getUint32(0, true) !== MAGIC) fail("bad magic");
    if (view.getUint32(4, true) !== BM25_FORMAT_VERSION) fail("other version");
    const docs = view.getUint32(8, true);
    const termCount = view.getUint32(12, true);
    const total = view.getFloat64(16, true);
    const termLength = view.getUint32(24, true);
    const postingLength = view.getUint32(28, true);
    const at = sections(docs, termCount);
    const postingsAt = (at.terms + termLength + 3) & ~3;
    if (postingsAt + postingLength !== bytes.length) fail("length mismatch");
    const base = bytes.byteOffset;
    const ids = new Float64Array(bytes.buffer, base + at.ids, docs);
    const lengths = new Uint32Array(bytes.buffer, base + at.lengths, docs);
    const offsets = new Uint32Array(bytes.buffer, base + at.offsets, termCount + 1);
    const df = new Uint32Array(bytes.buffer, base + at.df, termCount);
    const last = new Uint32Array(bytes.buffer, base + at.last, termCount);
    const terms = termCount === 0 ? [] : new TextDecoder("utf-8", { fatal: true }).decode(
      bytes.subarray(at.terms, at.terms + termLength),
    ).split("\n");
    if (terms.length !== termCount) fail("term table");
    let sum = 0;
    for (let i = 0; i < docs; i++) sum += lengths[i];
    if (sum !== total) fail("document lengths");
    for (let t = 0; t < termCount; t++) {
      if (offsets[t] > offsets[t + 1] || (t > 0 && !(terms[t - 1] < terms[t]))) fail("term order");
      if (last[t] >= docs || df[t] === 0) fail("term statistics");
    }
    if (offsets[termCount] !== postingLength) fail("postings length");
    const index = new Bm25Index();
    index.#segment = {
      terms,
      offsets,
      df,
      last,
      postings: bytes.subarray(postingsAt, postingsAt + postingLength),
    };
    index.#segmentDocs = docs;
    index.#ids = Column.of(ids);
    index.#lengths = Column.of(lengths);
    index.#totalLength = total;
    return index;
  }
}

/** Byte offsets of the sections of a serialized index. */
function sections(docs: number, terms: number) {
  const ids = HEADER;
  const lengths = ids + docs * 8;
  const offsets = lengths + docs * 4;
  const df = offsets + (terms + 1) * 4;
  const last = df + terms * 4;
  return { ids, lengths, offsets, df, last, terms: last + terms * 4 };
}
