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
  cause?: unknown;
}

/**
 * An invalid, unreadable or incomplete configuration. `message` is ready to print:
 * `<file>:<line>:<col>: <problem>` and, on the next line, `fix: <what to do>`.
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

  /** Formats `details` into a printable message. */
  constructor(details: ConfigErrorDetails) {
    super("config_invalid", formatConfigError(details), { cause: details.cause });
    this.name = "ConfigError";
    this.problem = details.problem;
    this.fix = details.fix;
    this.file = details.file;
    this.line = details.line;
    this.column = details.column;
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
  return d.fix ? `${where}${d.problem}\nfix: ${d.fix}` : `${where}${d.problem}`;
}
