/**
 * Real MCP servers from npm, pinned, and helpers to run them in tests. `.ci/run` caches the
 * same versions before the tests start.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { McpServerEntry, McpServerSpec } from "../../plugins/mcp/mod.ts";

export const EVERYTHING = "npm:@modelcontextprotocol/server-everything@2026.8.31";
export const FILESYSTEM = "npm:@modelcontextprotocol/server-filesystem@2026.8.31";

const HERE = dirname(fileURLToPath(import.meta.url));
/** The repository's deno.json (import map for the fixture servers). */
export const DENO_JSON: string = join(HERE, "..", "..", "deno.json");
/** The stdio fixture server. */
export const FIXTURE_STDIO: string = join(HERE, "fixtures", "stdio_server.ts");

/**
 * `deno run` arguments for an npm server. The repository's config (and so its lockfile) is
 * named explicitly: the versions then match what `.ci/run` cached, whatever directory the
 * server is started from, and nothing is resolved or downloaded while a test waits.
 */
export function npmServerArgs(pkg: string, ...rest: string[]): string[] {
  return ["run", "-A", "--quiet", "--config", DENO_JSON, pkg, ...rest];
}

/** `deno run` arguments for the stdio fixture. */
export function fixtureArgs(): string[] {
  return ["run", "-A", "--quiet", "--config", DENO_JSON, FIXTURE_STDIO];
}

/** An entry for a spec, as `resolveEntries` would make it. */
export function entryOf(spec: McpServerSpec): McpServerEntry {
  const d = spec.transport === "stdio"
    ? { name: spec.name, type: "stdio" as const, command: spec.command, args: spec.args }
    : { name: spec.name, type: spec.transport, url: spec.url.href };
  return { declaration: { ...d, source: spec.source }, shadowed: [], spec };
}

const SOURCE = { kind: "user" as const, file: "test" };

/** A stdio spec. */
export function stdioSpec(
  name: string,
  command: string,
  args: string[],
  opts: { env?: Record<string, string>; startupTimeoutMs?: number; serial?: boolean } = {},
): McpServerSpec {
  return {
    name,
    transport: "stdio",
    command,
    args,
    env: opts.env ?? {},
    concurrency: opts.serial ? "serial" : "parallel",
    startupTimeoutMs: opts.startupTimeoutMs ?? 30_000,
    source: SOURCE,
  };
}

/** An http or sse spec. */
export function httpSpec(
  name: string,
  url: string,
  opts: {
    transport?: "http" | "sse";
    headers?: Record<string, string>;
    startupTimeoutMs?: number;
  } = {},
): McpServerSpec {
  return {
    name,
    transport: opts.transport ?? "http",
    url: new URL(url),
    headers: opts.headers ?? {},
    concurrency: "parallel",
    startupTimeoutMs: opts.startupTimeoutMs ?? 30_000,
    source: SOURCE,
  };
}

/** A free loopback port (closed again right away). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** A running server-everything over HTTP (`streamableHttp` or `sse`). */
export interface HttpEverything {
  url: string;
  child: Deno.ChildProcess;
  stop(): Promise<void>;
}

/** Starts server-everything over HTTP on a free port and waits until it listens. */
export async function startEverythingHttp(mode: "streamableHttp" | "sse"): Promise<HttpEverything> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: npmServerArgs(EVERYTHING, mode),
    env: { PORT: String(port) },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const deadline = Date.now() + 60_000;
  while (!/(listening|running) on port/i.test(seen)) {
    if (Date.now() > deadline) throw new Error(`server-everything ${mode} did not start: ${seen}`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`server-everything ${mode} exited: ${seen}`);
    seen += value;
  }
  // Keep draining so the server never blocks on a full pipe.
  (async () => {
    try {
      while (!(await reader.read()).done) { /* drain */ }
    } catch { /* closed */ }
  })();
  const path = mode === "sse" ? "/sse" : "/mcp";
  return {
    url: `http://127.0.0.1:${port}${path}`,
    child,
    async stop() {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
      await child.status;
    },
  };
}

/** Child processes of this process (Linux), by reading /proc. */
export async function childPids(): Promise<number[]> {
  const out: number[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const stat = await Deno.readTextFile(`/proc/${entry.name}/stat`);
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === Deno.pid) out.push(Number(entry.name));
    } catch { /* gone */ }
  }
  return out;
}

/** The chaos fixture (`fixtures/chaos_http_server.ts`). */
export const FIXTURE_CHAOS: string = join(HERE, "fixtures", "chaos_http_server.ts");

/** What the chaos server did. */
export interface ChaosStats {
  initializes: number;
  /** tools/call POSTs by `text` argument (404 answers included). */
  posts: Record<string, number>;
  /** Tool handler runs by `text` argument. */
  runs: Record<string, number>;
  /** Which session ran each `text` (its index in `sessions`). */
  ranOn: Record<string, number>;
  /** Session ids in the order they were initialized. */
  sessions: string[];
  expiredAnswers: number;
  deletes: number;
  gets: number;
}

/** A running chaos server in its own process. */
export interface ChaosServer {
  url: string;
  /** Sends a control command (`expire`, `break=<tool>`, `end=<tool>`, …). */
  control(cmd: string): Promise<void>;
  stats(): Promise<ChaosStats>;
  stop(): Promise<void>;
}

/** Starts the chaos server on a free port and waits until it listens. */
export async function startChaosServer(
  opts: { sessionless?: boolean; getDelayMs?: number } = {},
): Promise<ChaosServer> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", "--config", DENO_JSON, FIXTURE_CHAOS],
    env: {
      CHAOS_SESSIONLESS: opts.sessionless ? "1" : "0",
      CHAOS_GET_DELAY_MS: String(opts.getDelayMs ?? 0),
    },
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!/listening on (\d+)/.test(seen)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the chaos server exited: ${seen}`);
    seen += value;
  }
  (async () => {
    try {
      while (!(await reader.read()).done) { /* drain */ }
    } catch { /* closed */ }
  })();
  const origin = `http://127.0.0.1:${/listening on (\d+)/.exec(seen)![1]}`;
  const control = async (cmd: string) => {
    const r = await fetch(`${origin}/control?cmd=${encodeURIComponent(cmd)}`);
    if (!r.ok) throw new Error(`control ${cmd}: ${r.status} ${await r.text()}`);
    return await r.json();
  };
  return {
    url: `${origin}/mcp`,
    control: async (cmd) => void await control(cmd),
    stats: () => control("stats"),
    async stop() {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
      await child.status;
    },
  };
}

/**
 * A `[[mcp.servers]]` table for config.toml that starts the stdio fixture server as `name`,
 * unsandboxed so the pid it reports is one the test can see (outside a PID namespace).
 */
export function fixtureServerToml(name = "fx"): string {
  const args = ["run", "-A", "--quiet", "--config", DENO_JSON, FIXTURE_STDIO]
    .map((a) => JSON.stringify(a)).join(", ");
  return `
[[mcp.servers]]
name = "${name}"
command = ${JSON.stringify(Deno.execPath())}
args = [${args}]
env = { FIXTURE_NAME = "${name}" }
sandbox = false
`;
}
