/**
 * Helpers of the fleet and delegation end-to-end tests: the fake LLM server scripts the parent
 * and each child by a word of the child's task text; a child runs a list of steps in order.
 */
import assert from "node:assert/strict";
import { openHost } from "../../cli/host.ts";
import type { AgentEvent } from "../../core/agent/events.ts";
import type { AgentSpec } from "../../core/host/mod.ts";
import type { FakeStep, RecordedRequest } from "../fake_llm/mod.ts";
import { makeHome, makeRepo } from "./support.ts";
import { fakeToolCall, startFakeLlm } from "../fake_llm/mod.ts";

/** A message of a recorded request. */
export interface Msg {
  role: string;
  content: string | null;
  tool_calls?: { function: { name: string; arguments: string } }[];
}

/** The messages of a recorded request. */
export function messages(req: RecordedRequest): Msg[] {
  return (req.body as { messages: Msg[] }).messages;
}

/** Its system prompt. */
export function system(req: RecordedRequest): string {
  return messages(req).find((m) => m.role === "system")?.content ?? "";
}

/** Its first user turn. */
export function firstUser(req: RecordedRequest): string {
  return messages(req).find((m) => m.role === "user")?.content ?? "";
}

/** The last message's text when it is a tool result. */
export function lastTool(req: RecordedRequest): string | undefined {
  const last = messages(req).at(-1);
  return last?.role === "tool" ? last.content ?? "" : undefined;
}

/** How many tool results a request carries. */
export function toolResults(req: RecordedRequest): number {
  return messages(req).filter((m) => m.role === "tool").length;
}

/** Whether a request is a child's. */
export const isChild = (req: RecordedRequest): boolean => /subagent/.test(system(req));

/** A script: the parent's steps, and each child's steps by a word of its task. */
export function script(
  parent: (req: RecordedRequest) => FakeStep,
  children: Record<string, (req: RecordedRequest) => FakeStep>,
): (req: RecordedRequest) => FakeStep {
  return (req) => {
    if (!isChild(req)) return parent(req);
    const task = firstUser(req);
    for (const [word, step] of Object.entries(children)) if (task.includes(word)) return step(req);
    throw new Error(`no child script for: ${task.slice(0, 200)}`);
  };
}

/** A child that runs `steps` in order, one per request; the last is repeated. */
export function steps(...list: FakeStep[]): (req: RecordedRequest) => FakeStep {
  return (req) => {
    const n = messages(req).filter((m) => m.role === "assistant").length;
    return list[Math.min(n, list.length - 1)];
  };
}

/** The parent calls `task` once with `args`, then answers with the result it got. */
export function delegate(args: unknown): (req: RecordedRequest) => FakeStep {
  return (req) => {
    const result = lastTool(req);
    if (result !== undefined) return { text: `report: ${result}` };
    return { toolCalls: [fakeToolCall("task", args)] };
  };
}

/** A `complete_subtask` call. */
export function complete(
  status: "complete" | "partial" | "blocked",
  criteria: Record<string, unknown>[],
): FakeStep {
  return {
    toolCalls: [
      fakeToolCall("complete_subtask", {
        status,
        summary: `${status} work`,
        acceptance_criteria: criteria,
      }),
    ],
  };
}

/** A host and a top-level agent on a fresh repository. */
export interface HostSession {
  repo: string;
  home: string;
  host: Awaited<ReturnType<typeof openHost>>;
  agent: Awaited<ReturnType<Awaited<ReturnType<typeof openHost>>["createAgent"]>>;
  /** Runs one turn to its end; its events. */
  drain(text: string): Promise<AgentEvent[]>;
  close(): Promise<void>;
}

/**
 * Opens {@linkcode HostSession} in `auto` mode against the fake server: the repository holds
 * `files`, the Reasonix home's config `toml`.
 */
export async function openSession(
  fake: { url: string },
  files: Record<string, string>,
  toml = "",
  opts: { spec?: AgentSpec; mcpReadyWaitMs?: number; turnTimeoutMs?: number } = {},
): Promise<HostSession> {
  const repo = await makeRepo(files);
  const home = await makeHome(fake.url, toml);
  const host = await openHost({
    cwd: repo,
    env: { REASONIX_HOME: home, REASONIX_E2E_KEY: "sk-e2e-test", PATH: Deno.env.get("PATH") },
    flags: { permissionMode: "auto" },
    ...(opts.mcpReadyWaitMs !== undefined ? { mcpReadyWaitMs: opts.mcpReadyWaitMs } : {}),
  });
  const agent = await host.createAgent(opts.spec ?? {});
  const timeout = opts.turnTimeoutMs ?? 60_000;
  return {
    repo,
    home,
    host,
    agent,
    async drain(text: string): Promise<AgentEvent[]> {
      const events: AgentEvent[] = [];
      for await (const e of agent.run({ text }, { signal: AbortSignal.timeout(timeout) })) {
        events.push(e);
      }
      return events;
    },
    async close() {
      await agent.close();
      await host.close();
      await Deno.remove(repo, { recursive: true });
      await Deno.remove(home, { recursive: true });
    },
  };
}

/** The `task` tool's result in a run's events. */
export function taskResult(
  events: AgentEvent[],
): { content: string; isError: boolean; meta: Record<string, unknown> } {
  const end = events.find((e) => e.type === "tool_end" && e.call.name === "task");
  if (!end || end.type !== "tool_end") throw new Error("the task tool did not run");
  return {
    content: end.result.content,
    isError: end.result.isError === true,
    meta: end.result.meta ?? {},
  };
}

/** The fleet item state changes a run reported, as `id:state`. */
export function fleetStates(events: AgentEvent[]): string[] {
  return events.flatMap((e) => {
    if (e.type !== "tool_progress") return [];
    const f = e.detail?.fleet as { item: string; state: string } | undefined;
    return f ? [`${f.item}:${f.state}`] : [];
  });
}

/**
 * A claim-less writer `wide`, run by `wideSteps` (one per tool result), and a writer claiming
 * `b` queued behind it, in a session `open` makes on `{ a.txt, b/ }`. Returns the time of
 * `claimed`'s first request and of `wide`'s last one: they overlapped when the first is the
 * earlier.
 */
export async function claimlessBesideClaimed(
  wideSteps: readonly FakeStep[],
  open: (fake: { url: string }, files: Record<string, string>) => Promise<HostSession>,
): Promise<{ claimedStart: number; wideLast: number }> {
  const at: Record<string, number[]> = { wide: [], claimed: [] };
  const fake = await startFakeLlm({
    script: script(
      (req) =>
        lastTool(req) !== undefined ? { text: "reported" } : {
          toolCalls: [fakeToolCall("task", {
            tasks: [
              { prompt: "wide: change things" },
              { prompt: "claimed: write b", write_paths: ["b"] },
            ],
          })],
        },
      {
        wide: (req) => {
          at.wide.push(Date.now());
          return wideSteps[toolResults(req)];
        },
        claimed: (req) => {
          at.claimed.push(Date.now());
          return toolResults(req) === 0
            ? { toolCalls: [fakeToolCall("write_file", { path: "b/x.txt", content: "b" })] }
            : { text: "claimed done" };
        },
      },
    ),
  });
  const s = await open(fake, { "a.txt": "a\n", "b/.keep": "" });
  try {
    await s.drain("change things");
    assert.ok(at.wide[0] < at.claimed[0], "the claim-less writer started first");
    return { claimedStart: at.claimed[0], wideLast: at.wide.at(-1)! };
  } finally {
    await s.close();
    await fake.close();
  }
}
