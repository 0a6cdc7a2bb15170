/**
 * What stdout carries when `reasonix run --json` or `--output-format stream-json` cannot start
 * (a usage or configuration error, trust, a missing key or sandbox): one JSON object, so a
 * program reading stdout gets the failure in the format it asked for. Loads nothing else.
 *
 * @module
 */

/** The JSON object of a run that could not start, in the shape of `format`. */
export function startupFailure(
  format: "json" | "stream-json",
  error: { code: string; message: string },
): Record<string, unknown> {
  if (format === "json") {
    return { status: "error", is_error: true, result: error.message, error };
  }
  return {
    type: "result",
    subtype: "error_during_execution",
    is_error: true,
    duration_ms: 0,
    num_turns: 0,
    result: error.message,
    errors: [error.message],
    reasonix: { status: "error", error },
  };
}

/** The JSON format `reasonix run` arguments ask for, read without parsing them fully. */
export function requestedJsonFormat(argv: readonly string[]): "json" | "stream-json" | undefined {
  if (!argv.includes("run")) return undefined;
  let format: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") break;
    if (a === "--json") format = "json";
    else if (a === "--output-format") format = argv[i + 1];
    else if (a.startsWith("--output-format=")) format = a.slice("--output-format=".length);
  }
  return format === "json" || format === "stream-json" ? format : undefined;
}
