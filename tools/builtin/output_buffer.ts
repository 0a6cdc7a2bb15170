/**
 * Bounded capture of a process's output: the first and last bytes in memory, the middle
 * dropped (and optionally spilled to a log file, itself capped).
 *
 * @module
 */

/** Where the complete output is spilled: a workspace file handle, for one. */
export interface SpillFile {
  /** Writes some of `data`; the number of bytes written. */
  write(data: Uint8Array): Promise<number>;
  close(): void | Promise<void>;
}

/** Options of {@linkcode HeadTailBuffer}. */
export interface HeadTailOptions {
  headBytes: number;
  tailBytes: number;
  /**
   * Called once, when output first exceeds head + tail, to open a file that receives the
   * complete output (up to `spillMaxBytes`). Returning undefined disables spilling.
   */
  openSpill?(): Promise<SpillFile | undefined>;
  /** Cap on the spill file. Default 64 MiB. */
  spillMaxBytes?: number;
}

/** Keeps the head and tail of a byte stream in fixed memory. */
export class HeadTailBuffer {
  readonly #head: Uint8Array;
  #headLength = 0;
  readonly #ring: Uint8Array;
  #ringLength = 0;
  #ringPos = 0;
  #total = 0;
  readonly #opts: HeadTailOptions;
  #spill: Promise<SpillFile | undefined> | undefined;
  #spillQueue: Promise<void> = Promise.resolve();
  #spilled = 0;

  constructor(opts: HeadTailOptions) {
    this.#opts = opts;
    this.#head = new Uint8Array(opts.headBytes);
    this.#ring = new Uint8Array(opts.tailBytes);
  }

  /** Bytes received so far. */
  get total(): number {
    return this.#total;
  }

  /** Bytes sent to the spill file (at most `spillMaxBytes`). */
  get spilledBytes(): number {
    return this.#spilled;
  }

  /** Bytes neither in the head nor in the tail. */
  get omitted(): number {
    return this.#total - this.#headLength - this.#ringLength;
  }

  /** Adds bytes in arrival order. */
  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    if (
      this.#opts.openSpill && !this.#spill &&
      this.#total + chunk.length > this.#head.length + this.#ring.length
    ) {
      // Nothing has been dropped yet, so head + tail is the whole output so far.
      const sofar = this.#ordered();
      this.#spill = this.#opts.openSpill().catch(() => undefined);
      this.#queueSpill(sofar);
    }
    if (this.#spill) this.#queueSpill(chunk.slice());
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

  #queueSpill(bytes: Uint8Array): void {
    const max = this.#opts.spillMaxBytes ?? 64 * 1024 * 1024;
    const room = max - this.#spilled;
    if (room <= 0) return;
    const part = bytes.subarray(0, room);
    this.#spilled += part.length;
    const spill = this.#spill!;
    this.#spillQueue = this.#spillQueue.then(async () => {
      const file = await spill;
      if (!file) return;
      let offset = 0;
      while (offset < part.length) offset += await file.write(part.subarray(offset));
    }).catch(() => {});
  }

  /** Flushes and closes the spill file; returns whether one was written. */
  async closeSpill(): Promise<boolean> {
    if (!this.#spill) return false;
    await this.#spillQueue;
    const file = await this.#spill;
    await file?.close();
    return file !== undefined;
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
