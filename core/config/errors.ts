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
 */
export class ConfigError extends ReasonixError {
  readonly problem: string;
  readonly fix?: string;
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;

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
