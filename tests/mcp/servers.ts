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
