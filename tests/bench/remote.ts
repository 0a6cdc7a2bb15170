/**
 * Per-tool-call cost of a remote-SSH workspace: the same built-in tool calls against the local
 * workspace and against the SSH workspace of a real sshd on 127.0.0.1 (loopback, so the
 * difference is the SSH/SFTP round trips and the remote process start, not the network).
 * Prints p50 and p90 per tool, and the remote overhead (remote p50 − local p50).
 *
 * Run: deno run --allow-all tests/bench/remote.ts [calls per tool, default 40]
 *
 * @module
 */
import { callTool, createTestWorkspace } from "../../tools/builtin/test_context.ts";
import {
  bashTool,
  editFileTool,
  globTool,
  grepTool,
  lsTool,
  readFileTool,
} from "../../tools/builtin/mod.ts";
import type { Tool, ToolContext } from "../../tools/types.ts";
import type { Workspace } from "../../tools/workspace/types.ts";
import { sshdMissing, startSshd } from "../remote/sshd.ts";
import { openOnFixture } from "../remote/support.ts";

const CALLS = Number(Deno.args[0] ?? 40);

interface Case {
  label: string;
  tool: Tool;
  args: (i: number) => unknown;
}

const CASES: Case[] = [
  { label: "read_file", tool: readFileTool, args: () => ({ path: "src/a.ts" }) },
  { label: "ls", tool: lsTool, args: () => ({}) },
  { label: "glob", tool: globTool, args: () => ({ pattern: "**/*.ts" }) },
  { label: "grep", tool: grepTool, args: () => ({ pattern: "needle" }) },
  {
    label: "edit_file",
    tool: editFileTool,
    args: (i) => ({ path: "src/b.ts", old_string: `v${i}`, new_string: `v${i + 1}` }),
  },
  { label: "bash true", tool: bashTool, args: () => ({ command: "true" }) },
];

function quantile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function measure(workspace: Workspace | undefined): Promise<Map<string, number[]>> {
  await using tw = await createTestWorkspace(workspace ? { workspace } : {});
  for (let i = 0; i < 20; i++) {
    await tw.write(`src/f${i}.ts`, `export const x${i} = ${i};\n`);
  }
  await tw.write("src/a.ts", "line one\nline two needle\nline three\n");
  await tw.write("src/b.ts", "export const v = 'v0';\n");
  const ctx: ToolContext = tw.ctx;
  const out = new Map<string, number[]>();
  for (const c of CASES) {
    const samples: number[] = [];
    // Warm-up: the first call resolves programs (rg, bash) and opens the SFTP session.
    await callTool(c.tool, c.args(-1 + 0), ctx).catch(() => {});
    if (c.label === "edit_file") await tw.write("src/b.ts", "export const v = 'v0';\n");
    for (let i = 0; i < CALLS; i++) {
      const start = performance.now();
      const result = await callTool(c.tool, c.args(i), ctx);
      samples.push(performance.now() - start);
      if (result.isError) throw new Error(`${c.label}: ${result.content}`);
    }
    out.set(c.label, samples);
  }
  return out;
}

const missing = await sshdMissing();
if (missing) {
  console.log(`remote bench skipped: ${missing}`);
  Deno.exit(0);
}
await using sshd = await startSshd();
await using remote = await openOnFixture(sshd);
const local = await measure(undefined);
const far = await measure(remote.workspace);
const ms = (n: number) => n.toFixed(2).padStart(8);
console.log(`remote workspace over SSH on loopback, ${CALLS} calls per tool (ms)`);
console.log("tool          local p50  remote p50  remote p90  overhead p50");
for (const c of CASES) {
  const l = local.get(c.label)!;
  const r = far.get(c.label)!;
  console.log(
    `${c.label.padEnd(12)} ${ms(quantile(l, 0.5))}    ${ms(quantile(r, 0.5))}    ${
      ms(quantile(r, 0.9))
    }      ${ms(quantile(r, 0.5) - quantile(l, 0.5))}`,
  );
}
