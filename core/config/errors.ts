/**
 * The one error the configuration layer throws for anything a user must fix.
 *
 * @module
 */
import { ReasonixError } from "../../errors.ts";

/** Where a configuration problem sits and what the user should do about it. */
export interface ConfigErrorDetails {
  /** What is wrong, in one sentence. */
  problem: string;
  /** What to do about it. */
  fix?: string;
  /** The file at fault, or `built-in defaults`. */
  file?: string;
  /** 1-based line in `file`. */
  line?: number;
  /** 1-based column in `file`. */
  column?: number;
  /**
   * Findings that may explain the problem, one line each: warnings about ignored keys (a
   * `[[provider]]` typo behind an unknown model). Printed after the fix as `note: <line>`.
   */
  notes?: readonly string[];
  cause?: unknown;
}

/**
 * An invalid, unreadable or incomplete configuration. `message` is ready to print:
 * `<file>:<line>:<col>: <problem>`, on the next line `fix: <what to do>`, then a
 * `note: <finding>` line for each finding that may explain it.
 *
 * @example A printable configuration problem
 * ```ts
 * import { ConfigError } from "@reasonix/reasonix";
 *
 * const error = new ConfigError({
 *   problem: "unknown key `modle`",
 *   fix: "did you mean `model`?",
 *   file: "reasonix.toml",
 *   line: 3,
 *   column: 1,
 * });
 * console.log(error.code, error.message); // config_invalid reasonix.toml:3:1: unknown key `modle` ...
 * ```
 */
export class ConfigError extends ReasonixError {
  /** What is wrong, without location or fix. */
  readonly problem: string;
  /** What to do about it, when known. */
  readonly fix?: string;
  /** The file the problem is in, when it came from one. */
  readonly file?: string;
  /** 1-based line in `file`. */
  readonly line?: number;
  /** 1-based column in `file`. */
  readonly column?: number;
  /** Findings that may explain the problem (see {@link ConfigErrorDetails.notes}). */
  readonly notes: readonly string[];

  /** Formats `details` into a printable message. */
  constructor(details: ConfigErrorDetails) {
    super("config_invalid", formatConfigError(details), { cause: details.cause });
    this.name = "ConfigError";
    this.problem = details.problem;
    this.fix = details.fix;
    this.file = details.file;
    this.line = details.line;
    this.column = details.column;
    this.notes = details.notes ?? [];
  }
}

function formatConfigError(d: ConfigErrorDetails): string {
  let where = "";
  if (d.file) {
    where = d.file;
    if (d.line !== undefined) {
      where += `:${d.line}`;
      if (d.column !== undefined) where += `:${d.column}`;
    }
    where += ": ";
  }
  const head = d.fix ? `${where}${d.problem}\nfix: ${d.fix}` : `${where}${d.problem}`;
  return [head, ...(d.notes ?? []).map((n) => `note: ${n}`)].join("\n");
}
