/**
 * The output and input formats of `reasonix run`.
 *
 * @module
 */

/** How `reasonix run` reports: streamed text, one JSON summary, or line-delimited JSON events. */
export type OutputFormat = "text" | "json" | "stream-json";

/** Where `reasonix run` takes its user turns from: the task text, or JSON lines on stdin. */
export type InputFormat = "text" | "stream-json";

/** Every output format, in the order `--help` lists them. */
export const OUTPUT_FORMATS: readonly OutputFormat[] = ["text", "json", "stream-json"];

/** Every input format, in the order `--help` lists them. */
export const INPUT_FORMATS: readonly InputFormat[] = ["text", "stream-json"];

/** The output format named by `value`, or undefined when it names none. */
export function parseOutputFormat(value: string): OutputFormat | undefined {
  return (OUTPUT_FORMATS as readonly string[]).includes(value) ? value as OutputFormat : undefined;
}

/** The input format named by `value`, or undefined when it names none. */
export function parseInputFormat(value: string): InputFormat | undefined {
  return (INPUT_FORMATS as readonly string[]).includes(value) ? value as InputFormat : undefined;
}

/** The format options of `reasonix run` as given on the command line. */
export interface FormatFlags {
  /** `--output-format`. */
  outputFormat?: string;
  /** `--input-format`. */
  inputFormat?: string;
  /** `--json`, the alias of `--output-format json`. */
  json?: boolean;
  /** A task was given as an argument. */
  task?: boolean;
  /** `--image` was given. */
  images?: boolean;
}

/** The formats of a run, or a usage error message (exit code 2). */
export function resolveFormats(
  flags: FormatFlags,
): { outputFormat: OutputFormat; inputFormat: InputFormat } | string {
  let outputFormat: OutputFormat = flags.json ? "json" : "text";
  if (flags.outputFormat !== undefined) {
    const parsed = parseOutputFormat(flags.outputFormat);
    if (!parsed) {
      return `--output-format must be text, json or stream-json, got "${flags.outputFormat}"`;
    }
    if (flags.json && parsed !== "json") {
      return `--json means --output-format json; it conflicts with --output-format ${parsed}`;
    }
    outputFormat = parsed;
  }
  const inputFormat = flags.inputFormat === undefined
    ? "text"
    : parseInputFormat(flags.inputFormat);
  if (!inputFormat) {
    return `--input-format must be text or stream-json, got "${flags.inputFormat}"`;
  }
  if (inputFormat === "stream-json") {
    if (outputFormat !== "stream-json") {
      return "--input-format stream-json needs --output-format stream-json";
    }
    if (flags.task) {
      return "--input-format stream-json reads the user turns from stdin; drop the task argument";
    }
    if (flags.images) {
      return "--input-format stream-json takes images as image blocks in the input lines, " +
        "not --image";
    }
  }
  return { outputFormat, inputFormat };
}
