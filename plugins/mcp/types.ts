/**
 * Public types of the MCP plugin layer: declarations as written, resolved server specs, and
 * the snapshots front ends render (`/mcp`, `reasonix mcp list`, prompts, resources).
 *
 * @module
 */

/** How Reasonix talks to a server. `streamable-http` in a file is read as `http`. */
export type McpTransportKind = "stdio" | "http" | "sse";

/** Where a declaration was written, lowest precedence first: user, `.mcp.json`, project TOML. */
export type McpSourceKind = "user" | "mcp_json" | "project";

/** The file that declared a server. */
export interface McpDeclarationSource {
  kind: McpSourceKind;
  /** Absolute path of the file. */
  file: string;
}

/** Per-server call scheduling (spec §3.16). */
export type McpConcurrency = "parallel" | "serial";

/** One server declaration exactly as written (values not `${VAR}`-expanded). */
export interface McpServerDeclaration {
  name: string;
  type: McpTransportKind;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  /** Explicit policy; absent means the name-based default. */
  concurrency?: McpConcurrency;
  startup_timeout_seconds?: number;
  /**
   * `true`: the server runs on the remote host of a `--remote` session (`command`, when given,
   * is started there) and `url` is where it listens as that host sees it; it is reached
   * through an SSH port forward.
   */
  remote?: boolean;
  /**
   * `false` runs a stdio server outside the OS sandbox. Honoured only in the user config:
   * servers a project file declares always run sandboxed.
   */
  sandbox?: boolean;
  source: McpDeclarationSource;
}

/** Settings shared by every transport of a resolved server. */
interface SpecBase {
  name: string;
  concurrency: McpConcurrency;
  /** Bound on process start, authorization, `initialize` and the first listings. */
  startupTimeoutMs: number;
  source: McpDeclarationSource;
}

/** A stdio server, ready to spawn. */
export interface StdioServerSpec extends SpecBase {
  transport: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /**
   * `false`: the user's declaration opted out of the OS sandbox. Only a user-level source can
   * opt out; the launcher sandboxes every other server whatever this says.
   */
  sandbox?: boolean;
  /**
   * Values that `${VAR}` expansion put into the declaration, and the `env` values: blanked
   * wherever the server's output is quoted (a token passed as an argument stays secret).
   */
  secrets?: string[];
}

/** How a stdio server is started: the program and arguments, possibly inside a sandbox. */
export interface StdioLaunch {
  command: string;
  args: string[];
  /** Extra environment of the launched program, under the spec's own `env`. */
  env?: Record<string, string>;
}

/**
 * Turns a stdio spec into what to spawn, e.g. the server wrapped in bubblewrap. Throws an
 * error (with `code` `ENOENT` for a program that does not exist) when it must not start.
 */
export type StdioLauncher = (spec: StdioServerSpec) => Promise<StdioLaunch>;

/** A Streamable HTTP or legacy SSE server, ready to connect. */
export interface HttpServerSpec extends SpecBase {
  transport: "http" | "sse";
  url: URL;
  /** Static headers; sent only to the endpoint's own origin. */
  headers: Record<string, string>;
  /**
   * Declared `remote = true`: `url` is as the remote host sees it, and `command` (when given)
   * is started there. The front end replaces `url` with a forwarded local one.
   */
  remote?: { command?: string; args: string[] };
}

/** A declaration with every `${VAR}` expanded. */
export type McpServerSpec = StdioServerSpec | HttpServerSpec;

/** One effective server: its declaration and either a spec or why it cannot run. */
export interface McpServerEntry {
  declaration: McpServerDeclaration;
  /** Declarations of the same name this one overrides, highest first. */
  shadowed: McpServerDeclaration[];
  spec?: McpServerSpec;
  /** Set when the declaration cannot run (bad value, unset variable); shown to the user. */
  problem?: string;
}

/** Where a server's life is. */
export type McpPhase =
  | "starting"
  | "ready"
  | "reconnecting"
  | "needs_auth"
  | "failed"
  | "closed";

/**
 * The server-to-client channel. `listening`: a stdio pipe, a legacy SSE stream, or a Streamable
 * HTTP GET stream is open. `post_only`: the server offers no GET stream (405, sessionless).
 */
export type McpListenerPhase =
  | "none"
  | "pending"
  | "listening"
  | "post_only"
  | "reconnecting"
  | "lost";

/** A redacted failure category: never a message, URL, header or session id. */
export type McpErrorClass =
  | "config"
  | "spawn"
  | "startup_timeout"
  | "auth_required"
  | "auth_failed"
  | "http_status"
  | "network"
  | "protocol"
  | "connection_closed"
  | "session_expired"
  | "refused_endpoint"
  | "call_timeout";

/** What `/mcp` and `reasonix mcp list` show for one server. Safe to print. */
export interface McpServerStatus {
  name: string;
  transport: McpTransportKind;
  source: McpSourceKind;
  phase: McpPhase;
  /** Negotiated MCP protocol version, once initialized. */
  protocol?: string;
  listener: McpListenerPhase;
  /** Sessions rebuilt after the first one (loss, expiry, re-authorization). */
  reconnects: number;
  error?: McpErrorClass;
  /** HTTP status of the last `http_status` error. */
  httpStatus?: number;
  /**
   * Specifics of `error` built from safe parts only: the errno and program of a failed spawn,
   * the exit status and last stderr lines (env values blanked) of a stdio server that exited.
   */
  detail?: string;
  tools: number;
  prompts: number;
  resources: number;
  /** The server's self-reported name and version. */
  server?: { name: string; version: string };
  concurrency: McpConcurrency;
}

/** An MCP tool as listed by a ready server. */
export interface McpToolEntry {
  server: string;
  /** The tool's MCP name. */
  name: string;
  /** The Reasonix tool name, `mcp__<server>__<tool>`. */
  tool: string;
  title?: string;
  description?: string;
  readOnly: boolean;
}

/**
 * An MCP tool as a session offered it (the host's transcript record), so a resumed session
 * offers the same bytes whether or not the server is ready or still lists it.
 */
export interface RecordedMcpTool {
  /** The name the model sees, `mcp__<server>__<tool>`. */
  name: string;
  description: string;
  /** The canonical JSON schema that was sent. */
  parameters: Record<string, unknown>;
  readOnly: boolean;
  server: string;
  /** The tool's own name on the server. */
  tool: string;
}

/** An MCP prompt, offered as the slash command `/mcp__<server>__<prompt>`. */
export interface McpPromptCommand {
  /** The command without its slash, e.g. `mcp__github__review`. */
  command: string;
  server: string;
  prompt: string;
  title?: string;
  description?: string;
  arguments: { name: string; description?: string; required: boolean }[];
}

/** A prompt rendered by its server, ready to become user input. */
export interface McpPromptResult {
  description?: string;
  messages: { role: "user" | "assistant"; text: string }[];
}

/** An MCP resource, referenced as `@<server>:<uri>`. */
export interface McpResourceEntry {
  server: string;
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** `@<server>:<uri>`. */
  reference: string;
}

/** One read part of a resource. Binary parts are not decoded. */
export interface McpResourcePart {
  uri: string;
  mimeType?: string;
  /** Text content, when the part is text. */
  text?: string;
  /** Size of a binary part, in bytes. */
  binaryBytes?: number;
}

/** A resource as read from its server. */
export interface McpResourceContent {
  server: string;
  uri: string;
  parts: McpResourcePart[];
  /** The parts joined for the model; binary parts appear as a one-line marker. */
  text: string;
}
