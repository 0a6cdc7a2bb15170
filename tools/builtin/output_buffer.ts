/**
 * Bounded capture of a process's output: the first and last bytes for the model, and
 * optionally the complete output up to a cap, kept in memory for the session's raw content
 * (never a file: a file in the session's temp directory vanishes at exit while the
 * transcript still names it).
 *
 * @module
 */

/** Options of {@linkcode HeadTailBuffer}. */
export interface HeadTailOptions {
  headBytes: number;
  tailBytes: number;
  /** Keep the complete output, up to this many bytes, for {@linkcode HeadTailBuffer.keptText}. */
  keepBytes?: number;
}

/** Keeps the head and tail of a byte stream in fixed memory. */
export class HeadTailBuffer {
  readonly #head: Uint8Array;
  #headLength = 0;
  readonly #ring: Uint8Array;
  #ringLength = 0;
  #ringPos = 0;
  #total = 0;
  readonly #keepMax: number;
  readonly #kept: Uint8Array[] = [];
  #keptLength = 0;

  constructor(opts: HeadTailOptions) {
    this.#keepMax = Math.max(0, opts.keepBytes ?? 0);
    this.#head = new Uint8Array(opts.headBytes);
    this.#ring = new Uint8Array(opts.tailBytes);
  }

  /** Bytes received so far. */
  get total(): number {
    return this.#total;
  }

  /** Bytes of the complete output kept (at most `keepBytes`). */
  get keptBytes(): number {
    return this.#keptLength;
  }

  /** Bytes neither in the head nor in the tail. */
  get omitted(): number {
    return this.#total - this.#headLength - this.#ringLength;
  }

  /** Adds bytes in arrival order. */
  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    const room = this.#keepMax - this.#keptLength;
    if (room > 0) {
      // Copied: a reader may reuse the chunk's memory for the next read.
      const part = chunk.slice(0, room);
      this.#kept.push(part);
      this.#keptLength += part.length;
    }
    this.#total += chunk.length;
    const toHead = Math.min(chunk.length, this.#head.length - this.#headLength);
    this.#head.set(chunk.subarray(0, toHead), this.#headLength);
    this.#headLength += toHead;
    this.#pushTail(chunk.subarray(toHead));
  }

  #pushTail(bytes: Uint8Array): void {
    const size = this.#ring.length;
    if (bytes.length === 0 || size === 0) return;
    if (bytes.length >= size) {
      this.#ring.set(bytes.subarray(bytes.length - size));
      this.#ringPos = 0;
      this.#ringLength = size;
      return;
    }
    const first = Math.min(bytes.length, size - this.#ringPos);
    this.#ring.set(bytes.subarray(0, first), this.#ringPos);
    this.#ring.set(bytes.subarray(first), 0);
    this.#ringPos = (this.#ringPos + bytes.length) % size;
    this.#ringLength = Math.min(size, this.#ringLength + bytes.length);
  }

  #tailBytes(): Uint8Array {
    if (this.#ringLength < this.#ring.length) return this.#ring.slice(0, this.#ringLength);
    const out = new Uint8Array(this.#ring.length);
    out.set(this.#ring.subarray(this.#ringPos));
    out.set(this.#ring.subarray(0, this.#ringPos), this.#ring.length - this.#ringPos);
    return out;
  }

  #ordered(): Uint8Array {
    const tail = this.#tailBytes();
    const out = new Uint8Array(this.#headLength + tail.length);
    out.set(this.#head.subarray(0, this.#headLength));
    out.set(tail, this.#headLength);
    return out;
  }

  /**
   * The complete output as far as it was kept (`keepBytes`), decoded; a UTF-8 sequence cut at
   * the cap is left out rather than shown as a replacement character.
   */
  keptText(): string {
    const all = new Uint8Array(this.#keptLength);
    let at = 0;
    for (const part of this.#kept) {
      all.set(part, at);
      at += part.length;
    }
    let end = all.length;
    if (this.#keptLength < this.#total) {
      // The next byte continues a sequence: back off to its lead byte.
      let lead = end - 1;
      while (lead > 0 && end - lead < 4 && (all[lead] & 0xc0) === 0x80) lead--;
      if (lead >= 0 && lead + sequenceLength(all[lead]) > end) end = lead;
    }
    return new TextDecoder().decode(all.subarray(0, end));
  }

  /** The captured text: head, a marker with the omitted byte count, tail. */
  text(): string {
    const decoder = new TextDecoder();
    if (this.omitted === 0) return decoder.decode(this.#ordered());
    let headEnd = this.#headLength;
    // Back off an incomplete UTF-8 sequence at the cut.
    let lead = headEnd - 1;
    while (lead > 0 && headEnd - lead < 4 && (this.#head[lead] & 0xc0) === 0x80) lead--;
    const need = sequenceLength(this.#head[lead]);
    if (lead >= 0 && lead + need > headEnd) headEnd = lead;
    const tail = this.#tailBytes();
    let tailStart = 0;
    while (tailStart < tail.length && (tail[tailStart] & 0xc0) === 0x80) tailStart++;
    const omitted = this.omitted + (this.#headLength - headEnd) + tailStart;
    return decoder.decode(this.#head.subarray(0, headEnd)) +
      `\n[... ${omitted} bytes omitted ...]\n` + decoder.decode(tail.subarray(tailStart));
  }

  /** The last non-empty line of output, for progress reports. */
  lastLine(): string {
    const tail = new TextDecoder().decode(
      this.#ringLength > 0 ? this.#tailBytes() : this.#head.subarray(0, this.#headLength),
    );
    const lines = tail.split("\n").map((l) => l.trim()).filter((l) => l !== "");
    return lines[lines.length - 1] ?? "";
  }
}

function sequenceLength(byte: number): number {
  if (byte >= 0xf0) return 4;
  if (byte >= 0xe0) return 3;
  if (byte >= 0xc0) return 2;
  return 1;
}
