/**
 * Real servers from npm: `@modelcontextprotocol/server-everything` over stdio, Streamable
 * HTTP and legacy SSE, and `@modelcontextprotocol/server-filesystem` over stdio.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { McpHost, type McpServerSpec } from "../../plugins/mcp/mod.ts";
import {
  entryOf,
  EVERYTHING,
  FILESYSTEM,
  httpSpec,
  npmServerArgs,
  startEverythingHttp,
  stdioSpec,
} from "./servers.ts";

async function withHost(
  spec: McpServerSpec,
  fn: (host: McpHost) => Promise<void>,
  workspaceRoot?: string,
): Promise<void> {
  const stateDir = await Deno.makeTempDir();
  const host = new McpHost({
    entries: [entryOf(spec)],
    clientInfo: { name: "reasonix-test", version: "0.0.0" },
    workspaceRoot,
    callTimeoutMs: 30_000,
    stateDir,
  });
  try {
    host.start();
    await host.waitForStartup({ timeoutMs: 60_000 });
    await fn(host);
  } finally {
    await host.close();
    await Deno.remove(stateDir, { recursive: true });
  }
}

async function exerciseEverything(host: McpHost, listener: string): Promise<void> {
  const status = host.status()[0];
  assert.equal(status.phase, "ready", JSON.stringify(status));
  assert.equal(status.listener, listener);
  assert.equal(status.server?.name, "mcp-servers/everything");
  assert.ok(status.tools >= 10 && status.prompts >= 3 && status.resources >= 3);

  // Annotations: echo says readOnlyHint true, gzip-file-as-resource says false.
  const tools = new Map(host.directTools().map((t) => [t.name, t]));
  assert.equal(tools.get("mcp__every__echo")?.readOnly, true);
  assert.equal(tools.get("mcp__every__gzip-file-as-resource")?.readOnly, false);

  const echo = await tools.get("mcp__every__echo")!.execute({ message: "hello" }, {
    signal: new AbortController().signal,
    progress: () => {},
  } as never);
  assert.equal(echo.content, "Echo: hello");

  // Progress notifications become tool progress.
  const progress: string[] = [];
  const long = await tools.get("mcp__every__trigger-long-running-operation")!.execute(
    { duration: 0.6, steps: 3 },
    { signal: new AbortController().signal, progress: (m: string) => progress.push(m) } as never,
  );
  assert.match(long.content, /Long running operation completed/);
  assert.ok(progress.length >= 2, `progress: ${progress}`);
  assert.equal(progress[0], "1/3");

  // Prompts with arguments, and resources.
  assert.ok(host.findPrompt("/mcp__every__args-prompt"));
  const prompt = await host.getPrompt({
    server: "every",
    prompt: "args-prompt",
    args: { city: "Paris", state: "TX" },
  });
  assert.deepEqual(prompt.messages, [{ role: "user", text: "What's weather in Paris, TX?" }]);
  const resource = host.resources().find((r) => r.uri.endsWith("architecture.md"))!;
  const read = await host.readReference(resource.reference);
  assert.match(read!.text, /Everything Server/);
}

Deno.test("server-everything over stdio: tools, annotations, progress, prompts, resources", async () => {
  await withHost(
    stdioSpec("every", Deno.execPath(), npmServerArgs(EVERYTHING, "stdio")),
    (host) => exerciseEverything(host, "listening"),
  );
});

Deno.test("server-everything over Streamable HTTP", async () => {
  const server = await startEverythingHttp("streamableHttp");
  try {
    await withHost(httpSpec("every", server.url), (host) => exerciseEverything(host, "listening"));
  } finally {
    await server.stop();
  }
});

Deno.test("server-everything over legacy SSE", async () => {
  const server = await startEverythingHttp("sse");
  try {
    await withHost(
      httpSpec("every", server.url, { transport: "sse" }),
      (host) => exerciseEverything(host, "listening"),
    );
  } finally {
    await server.stop();
  }
});

Deno.test("server-filesystem over stdio works in the roots it is given by the client", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-fs-" }));
  await Deno.writeTextFile(join(root, "notes.txt"), "remember the milk\n");
  try {
    // No directory argument: the server takes its allowed directories from roots/list.
    await withHost(
      stdioSpec("fs", Deno.execPath(), npmServerArgs(FILESYSTEM)),
      async (host) => {
        assert.equal(host.status()[0].phase, "ready");
        const tools = new Map(host.directTools().map((t) => [t.name, t]));
        assert.equal(tools.get("mcp__fs__read_text_file")?.readOnly, true);
        assert.equal(tools.get("mcp__fs__write_file")?.readOnly, false);
        const ctx = { signal: new AbortController().signal, progress: () => {} } as never;
        let allowed = "";
        for (let i = 0; i < 200 && !allowed.includes(root); i++) {
          allowed = (await tools.get("mcp__fs__list_allowed_directories")!.execute({}, ctx))
            .content;
          if (!allowed.includes(root)) await new Promise((r) => setTimeout(r, 100));
        }
        assert.match(allowed, new RegExp(root.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
        const read = await tools.get("mcp__fs__read_text_file")!.execute(
          { path: join(root, "notes.txt") },
          ctx,
        );
        assert.equal(read.isError, undefined);
        assert.match(read.content, /remember the milk/);
      },
      root,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
