/**
 * Limits a provider stated about a model at run time, remembered across sessions: today the
 * context window an overflow error names when it is smaller than the configured one. Lives in
 * `<home>/learned_limits.json` (mode 0600, replaced atomically). The file is a cache: a missing
 * or damaged one means nothing was learned, and the configured values apply.
 *
 * @module
 */
import { join } from "node:path";
import { atomicWrite } from "../../tools/fs/mod.ts";

/**
 * The format version of `learned_limits.json`. A newer file is not read (nothing learned) and
 * never written over, so an older Reasonix cannot erase what a newer one learned.
 */
export const LIMITS_FORMAT_VERSION = 1;

interface LimitsFile {
  version: typeof LIMITS_FORMAT_VERSION;
  /** Context windows by {@link limitKey}. */
  context_windows: Record<string, number>;
}

/** What identifies a model's limits: the provider entry, its endpoint and the model id. */
export function limitKey(opts: { provider: string; endpoint?: string; model: string }): string {
  return `${opts.provider} ${opts.endpoint ?? ""} ${opts.model}`;
}

/** The learned limits of one Reasonix home. */
export class LearnedLimits {
  readonly path: string;
  #data: LimitsFile | undefined;
  /** The version of a file too new to read or replace, once seen. */
  #newer: number | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(home: string) {
    this.path = join(home, "learned_limits.json");
  }

  #load(): LimitsFile {
    if (this.#data) return this.#data;
    let data: LimitsFile = { version: LIMITS_FORMAT_VERSION, context_windows: {} };
    try {
      const parsed = JSON.parse(Deno.readTextFileSync(this.path));
      const windows = parsed?.context_windows;
      if (Number.isInteger(parsed?.version) && parsed.version > LIMITS_FORMAT_VERSION) {
        this.#newer = parsed.version;
      } else if (
        parsed?.version === LIMITS_FORMAT_VERSION && windows && typeof windows === "object"
      ) {
        const clean: Record<string, number> = {};
        for (const [key, value] of Object.entries(windows)) {
          if (Number.isSafeInteger(value) && (value as number) > 0) clean[key] = value as number;
        }
        data = { version: LIMITS_FORMAT_VERSION, context_windows: clean };
      }
    } catch {
      // Missing or damaged: nothing learned.
    }
    return this.#data = data;
  }

  /** The context window learned for `key`, if any. */
  contextWindow(key: string): number | undefined {
    return this.#load().context_windows[key];
  }

  /** Records a smaller context window for `key`; a larger one never replaces what is known. */
  learnContextWindow(key: string, tokens: number): Promise<void> {
    const data = this.#load();
    const known = data.context_windows[key];
    if (known !== undefined && known <= tokens) return this.#writing;
    data.context_windows[key] = tokens;
    // Kept for this process; the newer Reasonix's file stays as it wrote it.
    if (this.#newer !== undefined) return this.#writing;
    const text = `${JSON.stringify(data, null, 2)}\n`;
    this.#writing = this.#writing.then(() =>
      atomicWrite(this.path, new TextEncoder().encode(text), { mode: 0o600 })
    ).catch(() => {
      // A read-only or full home loses only the memo; the session goes on with the window.
    });
    return this.#writing;
  }
}
