/**
 * Prompt history for the composer: Up/Down walk older and newer entries, the draft being typed
 * is kept, and entries may persist to a file (one JSON string per line).
 *
 * @module
 */

/** Most entries kept in memory and in the file. */
const MAX_ENTRIES = 500;

/** Browsable prompt history. */
export class InputHistory {
  #entries: string[];
  #index: number;
  #draft = "";
  readonly #file?: string;
  /** Appends are chained so entries land in order. */
  #writes: Promise<void> = Promise.resolve();

  constructor(entries: readonly string[] = [], file?: string) {
    this.#entries = entries.slice(-MAX_ENTRIES);
    this.#index = this.#entries.length;
    this.#file = file;
  }

  /** Loads the history file; a missing or unreadable file gives an empty history. */
  static async load(file: string): Promise<InputHistory> {
    const entries: string[] = [];
    try {
      for (const line of (await Deno.readTextFile(file)).split("\n")) {
        if (!line) continue;
        try {
          const value = JSON.parse(line);
          if (typeof value === "string" && value) entries.push(value);
        } catch {
          // A damaged line is skipped; the rest of the history stays usable.
        }
      }
    } catch {
      // No history yet.
    }
    return new InputHistory(entries, file);
  }

  /** All entries, oldest first. */
  get entries(): readonly string[] {
    return this.#entries;
  }

  /** Records a submitted prompt (not repeating the previous one) and resets browsing. */
  add(text: string): void {
    if (text.trim() && this.#entries.at(-1) !== text) {
      this.#entries.push(text);
      if (this.#entries.length > MAX_ENTRIES) this.#entries.shift();
      const file = this.#file;
      if (file) {
        const line = `${JSON.stringify(text)}\n`;
        // History is a convenience: a failed write must never disturb the session.
        this.#writes = this.#writes.then(() => Deno.writeTextFile(file, line, { append: true }))
          .catch(() => {});
      }
    }
    this.#index = this.#entries.length;
    this.#draft = "";
  }

  /** Resolves when every recorded entry has been written. */
  flush(): Promise<void> {
    return this.#writes;
  }

  /** The previous (older) entry, remembering `current` as the draft; undefined at the oldest. */
  previous(current: string): string | undefined {
    if (this.#index === 0) return undefined;
    if (this.#index === this.#entries.length) this.#draft = current;
    this.#index--;
    return this.#entries[this.#index];
  }

  /** The next (newer) entry, or the draft after the newest; undefined when not browsing. */
  next(): string | undefined {
    if (this.#index >= this.#entries.length) return undefined;
    this.#index++;
    return this.#index === this.#entries.length ? this.#draft : this.#entries[this.#index];
  }
}
