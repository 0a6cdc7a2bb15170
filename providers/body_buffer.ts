/**
 * Append-only request bodies. A session's requests are byte-extensions of each other by
 * design, so the encoded body is kept in one buffer and each request re-encodes only the
 * pieces after the first one that changed: a turn costs its new messages, not the history.
 *
 * A wire kind describes a body as a list of string pieces whose concatenation is the body
 * (the memoized per-message fragments, separators, and the request's own head and tail).
 * Pieces are compared with the previous request's by identity first (memoized fragments are
 * the same string objects), so finding the first change is a pointer walk.
 *
 * @module
 */

import type { Provider, ProviderRequest } from "./types.ts";

/** The bytes of one request body and what it shares with the previous one. */
export interface EncodedBody {
  /** The body; a view into the buffer, valid until its next {@linkcode BodyBuffer.encode}. */
  bytes: Uint8Array<ArrayBuffer>;
  /** Bytes at the start of `bytes` identical to the previous body of the buffer. */
  sharedBytes: number;
  /** Bytes this encode wrote: those after the first piece that changed. */
  encodedBytes: number;
  /** The buffer's {@linkcode BodyBuffer.generation} that wrote `bytes`. */
  generation: number;
}

const encoder = new TextEncoder();

/** Length of the common prefix of two byte strings, four bytes at a time where aligned. */
export function sharedPrefix(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.byteLength, b.byteLength);
  let i = 0;
  if (a.byteOffset % 4 === 0 && b.byteOffset % 4 === 0) {
    const words = n >>> 2;
    const wa = new Uint32Array(a.buffer, a.byteOffset, words);
    const wb = new Uint32Array(b.buffer, b.byteOffset, words);
    let w = 0;
    while (w < words && wa[w] === wb[w]) w++;
    i = w << 2;
  }
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/**
 * One session's encoded request body, extended in place.
 * Bytes handed out stay valid until the next encode, which a session makes only after the
 * previous request's stream ended; {@linkcode BodyBuffer.generation} tells a late retry.
 */
export class BodyBuffer {
  #buf: Uint8Array<ArrayBuffer> = new Uint8Array(0);
  #len = 0;
  #pieces: string[] = [];
  /** End offset in bytes of each piece of {@link #pieces}. */
  #ends: number[] = [];
  #generation = 0;

  /** Counts encodes; bytes handed out by an earlier generation may have been overwritten. */
  get generation(): number {
    return this.#generation;
  }

  /** The latest body encoded (empty before the first and after {@linkcode reset}). */
  get current(): Uint8Array<ArrayBuffer> {
    return this.#buf.subarray(0, this.#len);
  }

  /** Forgets the previous body: the next one is encoded whole and shares nothing. */
  reset(): void {
    this.#pieces = [];
    this.#ends = [];
    this.#len = 0;
    this.#generation++;
  }

  /** Encodes the body made of `pieces`, rewriting only from the first piece that changed. */
  encode(pieces: readonly string[]): EncodedBody {
    const old = this.#pieces;
    const n = Math.min(old.length, pieces.length);
    let k = 0;
    while (k < n && old[k] === pieces[k]) k++;
    const start = k === 0 ? 0 : this.#ends[k - 1];
    const hadBody = old.length > 0;
    // What the previous body had after `start`, to measure the shared bytes exactly: short
    // when the request extends the previous one (its tail), the rest of the body on a break.
    const previousRest = this.#buf.slice(start, this.#len);
    this.#ends.length = k;
    // Its own copy of the pieces: the caller's array may change after this returns.
    old.length = k;
    let pos = start;
    for (let i = k; i < pieces.length; i++) {
      const piece = pieces[i];
      old.push(piece);
      this.#reserve(pos, piece.length * 3);
      pos += encoder.encodeInto(piece, this.#buf.subarray(pos)).written;
      this.#ends.push(pos);
    }
    this.#len = pos;
    const bytes = this.#buf.subarray(0, pos);
    const sharedBytes = hadBody ? start + sharedPrefix(previousRest, bytes.subarray(start)) : 0;
    return { bytes, sharedBytes, encodedBytes: pos - start, generation: ++this.#generation };
  }

  /** Makes room for `more` bytes after `pos`, keeping the bytes before it. */
  #reserve(pos: number, more: number): void {
    if (pos + more <= this.#buf.byteLength) return;
    const grown = new Uint8Array(Math.max(pos + more, this.#buf.byteLength * 2, 1024));
    grown.set(this.#buf.subarray(0, pos));
    this.#buf = grown;
  }
}

/** A provider that encodes its bodies through a session's {@linkcode BodyBuffer}. */
export interface BodyEncoding {
  /**
   * Encodes the body `stream` sends first for `req` into `buffer`; a `stream` of the same
   * request object then sends these very bytes.
   */
  encode(req: ProviderRequest, buffer: BodyBuffer): EncodedBody;
}

/** The provider's {@linkcode BodyEncoding}, when it has one. */
export function bodyEncoding(provider: Provider): BodyEncoding | undefined {
  const candidate = provider as Provider & Partial<BodyEncoding>;
  return typeof candidate.encode === "function" ? candidate as BodyEncoding : undefined;
}
