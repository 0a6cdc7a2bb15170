/**
 * Errors of the MCP layer and their redacted classes. Status surfaces show the class (and an
 * HTTP status), never a message: messages may quote URLs, headers or session ids. A failed
 * stdio start also gets a detail built here from known-safe parts only (errno, program path,
 * exit status, the last stderr lines with the server's env values blanked out).
 *
 * @module
 */
import { ReasonixError } from "../../errors.ts";
import { AuthorizationError } from "./oauth_loopback.ts";
import { ErrorCode, McpError, SseError, StreamableHTTPError, UnauthorizedError } from "./sdk.ts";
import type { McpErrorClass } from "./types.ts";
import { redactSecrets } from "../../providers/http.ts";
import { stripControl } from "./text.ts";
import { McpLaunchRefusedError } from "./launch_error.ts";

export { McpLaunchRefusedError } from "./launch_error.ts";

/** A server is not usable now (failed start, needs authorization, closed). */
export class McpUnavailableError extends ReasonixError {
  readonly server: string;
  readonly errorClass: McpErrorClass;

  constructor(
    message: string,
    options: ErrorOptions & { server: string; errorClass: McpErrorClass },
  ) {
    super("mcp_unavailable", message, { cause: options.cause });
    this.name = "McpUnavailableError";
    this.server = options.server;
    this.errorClass = options.errorClass;
  }
}

/** Start-up took longer than its bound. */
export class StartupTimeoutError extends ReasonixError {
  constructor(server: string, ms: number) {
    super("mcp_startup_timeout", `MCP server "${server}" did not start within ${ms / 1000}s`);
    this.name = "StartupTimeoutError";
  }
}

/** A redacted error class, plus the HTTP status when there is one. */
export interface Classified {
  errorClass: McpErrorClass;
  httpStatus?: number;
  /** Safe specifics, e.g. the errno of a failed spawn or how a stdio server exited. */
  detail?: string;
}

/** Details attached to errors as they pass, so the thrown error itself stays as it was. */
const details = new WeakMap<object, string>();

/** Records a safe detail for `error`; {@link classifyError} reports it. */
export function attachDetail(error: unknown, detail: string | undefined): void {
  if (detail && typeof error === "object" && error !== null) details.set(error, detail);
}

const ERRNO_WORDS: Record<string, string> = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  ENOTDIR: "a path component is not a directory",
  ENOEXEC: "not an executable format",
  E2BIG: "argument list too long",
};

/** How many stderr lines a detail quotes, and how much of each. */
const STDERR_LINES = 3;
const STDERR_LINE_CHARS = 200;

/**
 * Why a stdio server did not start, from safe parts: the errno and program of a failed spawn,
 * or the exit status and the last lines of stderr of a server that exited. Every value of
 * `secrets` (the server's env values) is blanked out of the quoted stderr.
 */
export function stdioFailureDetail(
  error: unknown,
  info: {
    command: string;
    exit?: { code: number | null; signal: string | null };
    stderr?: string;
    secrets?: string[];
  },
): string | undefined {
  const code = codeOf(error);
  if (typeof code === "string" && /^E[A-Z0-9]+$/.test(code) && !info.exit) {
    const path = (error as { path?: unknown }).path;
    const program = typeof path === "string" && path ? path : info.command;
    return `cannot run ${program}: ${code}${ERRNO_WORDS[code] ? ` (${ERRNO_WORDS[code]})` : ""}`;
  }
  if (!info.exit || (info.exit.code === null && info.exit.signal === null)) return undefined;
  const status = info.exit.code !== null
    ? `exited with status ${info.exit.code}`
    : `was killed by ${info.exit.signal}`;
  let stderr = info.stderr ?? "";
  // Longest first, so a value that contains another is blanked whole.
  for (const secret of [...info.secrets ?? []].sort((a, b) => b.length - a.length)) {
    if (secret.length >= 3) stderr = stderr.split(secret).join("<redacted>");
  }
  // Encoded copies too (base64, URL and JSON escapes) of the longer values.
  stderr = redactSecrets(stderr, info.secrets ?? [], "<redacted>");
  const lines = stderr.split(/\r?\n/).map((l) => stripControl(l).trim()).filter((l) => l !== "")
    .slice(-STDERR_LINES)
    .map((l) => l.length > STDERR_LINE_CHARS ? `${l.slice(0, STDERR_LINE_CHARS)}…` : l);
  return lines.length ? `${status}; stderr: ${lines.join(" | ")}` : `${status}; no stderr output`;
}

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown })?.code;
}

/** The class of any error the SDK, fetch or a child process may raise. */
export function classifyError(error: unknown): Classified {
  const classified = classify(error);
  const detail = typeof error === "object" && error !== null ? details.get(error) : undefined;
  return detail ? { ...classified, detail } : classified;
}

function classify(error: unknown): Classified {
  if (error instanceof McpUnavailableError) return { errorClass: error.errorClass };
  if (error instanceof StartupTimeoutError) return { errorClass: "startup_timeout" };
  if (error instanceof McpLaunchRefusedError) return { errorClass: "spawn", detail: error.message };
  if (error instanceof AuthorizationError) return { errorClass: "auth_failed" };
  if (error instanceof UnauthorizedError) return { errorClass: "auth_required" };
  if (error instanceof StreamableHTTPError || error instanceof SseError) {
    const status = typeof error.code === "number" ? error.code : undefined;
    if (status === 401) return { errorClass: "auth_required", httpStatus: status };
    if (status === 403) return { errorClass: "auth_failed", httpStatus: status };
    // A 404 is an expiry only for a session the server established; the supervisor, which
    // knows whether it had one, says so with its own error.
    if (status !== undefined) return { errorClass: "http_status", httpStatus: status };
    return { errorClass: "network" };
  }
  if (error instanceof McpError) {
    if (error.code === ErrorCode.ConnectionClosed) return { errorClass: "connection_closed" };
    if (error.code === ErrorCode.RequestTimeout) return { errorClass: "call_timeout" };
    return { errorClass: "protocol" };
  }
  const message = (error as Error)?.message ?? "";
  if (/origin does not match/i.test(message)) return { errorClass: "refused_endpoint" };
  const code = codeOf(error);
  if (code === "ENOENT" || code === "EACCES" || /\bspawn\b/i.test(message)) {
    return { errorClass: "spawn" };
  }
  if (
    error instanceof TypeError || error instanceof Deno.errors.ConnectionRefused ||
    error instanceof Deno.errors.ConnectionReset || code === "ECONNREFUSED"
  ) {
    return { errorClass: "network" };
  }
  if (/not connected|connection closed/i.test(message)) return { errorClass: "connection_closed" };
  return { errorClass: "protocol" };
}

/**
 * Whether a Streamable HTTP request was answered with 404. Only for a session the server gave
 * an id does that mean it expired (the caller knows whether it had one).
 */
export function isSessionExpired(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code === 404;
}

/** Whether the server may or may not have received the request: the link broke. */
export function isConnectionLoss(error: unknown): boolean {
  if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed;
  if (error instanceof StreamableHTTPError || error instanceof SseError) return false;
  const c = classifyError(error).errorClass;
  return c === "network" || c === "connection_closed";
}

/**
 * Whether the connection was refused before any request was sent: the server cannot have run
 * it. Deno's fetch names the refusal in the message of its error's cause.
 */
export function isRefused(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 4; e = (e as Error).cause, depth++) {
    if (e instanceof Deno.errors.ConnectionRefused || codeOf(e) === "ECONNREFUSED") return true;
    if (e instanceof Error && /\bconnection refused\b/i.test(e.message)) return true;
  }
  return false;
}

/** Whether the request needs (new) authorization. */
export function isUnauthorized(error: unknown): boolean {
  return error instanceof UnauthorizedError;
}

/** Words for a class, for tool errors and CLI output. */
export function describeErrorClass(c: Classified): string {
  switch (c.errorClass) {
    case "config":
      return "its declaration cannot be used";
    case "spawn":
      return "its command could not be started";
    case "startup_timeout":
      return "it did not finish starting in time";
    case "auth_required":
      return "it needs authorization (run `reasonix mcp login <name>`)";
    case "auth_failed":
      return "authorization failed";
    case "http_status":
      return `it answered HTTP ${c.httpStatus ?? "error"}`;
    case "network":
      return "it could not be reached";
    case "protocol":
      return "it broke the MCP protocol";
    case "connection_closed":
      return "the connection closed";
    case "session_expired":
      return "its session expired";
    case "refused_endpoint":
      return "it announced an endpoint on another origin, which was refused";
    case "call_timeout":
      return "the call timed out";
  }
}
