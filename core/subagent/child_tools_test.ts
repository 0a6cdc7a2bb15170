import assert from "node:assert/strict";
import { z } from "zod";
import { defineTool } from "../../tools/define.ts";
import {
  bashTool,
  editFileTool,
  globTool,
  moveFileTool,
  readFileTool,
  writeFileTool,
} from "../../tools/builtin/mod.ts";
import { CapabilityHub, useCapabilityTool } from "../../tools/capability.ts";
import { directShell } from "../../tools/shell.ts";
import type { Tool } from "../../tools/types.ts";
import { childTools } from "./child_tools.ts";

/** A writer that names no paths: the host cannot confine it. */
const opaque = defineTool({
  name: "deploy",
  description: "Deploys.",
  input: z.object({}),
  readOnly: false,
  run: () => Promise.resolve({ content: "deployed" }),
}) as Tool;

const builtins = [
  bashTool,
  editFileTool,
  globTool,
  moveFileTool,
  readFileTool,
  writeFileTool,
  opaque,
]
  .map((t) => t as Tool);
const useCapability = useCapabilityTool(new CapabilityHub());
const names = (tools: readonly Tool[]) => tools.map((t) => t.name).sort();

Deno.test("a read-only child keeps only read-only tools and the capability proxy", () => {
  const { tools, claim } = childTools({
    builtins,
    useCapability,
    grant: { readOnly: true, depth: 1 },
    root: "/w",
    shell: { ...directShell, rebindsWriteRoots: true },
  });
  assert.deepEqual(names(tools), ["glob", "read_file", "use_capability"]);
  assert.equal(claim, undefined);
});

Deno.test("a claimed writer loses bash where the sandbox cannot rebind, and opaque writers always", () => {
  const unbound = childTools({
    builtins,
    useCapability,
    grant: { readOnly: false, writeRoots: ["/w/src"], depth: 1 },
    root: "/w",
    shell: { ...directShell, rebindsWriteRoots: false },
  });
  assert.deepEqual(names(unbound.tools), [
    "complete_subtask",
    "edit_file",
    "glob",
    "move_file",
    "read_file",
    "use_capability",
    "write_file",
  ]);
  assert.deepEqual(unbound.dropped.sort(), ["bash", "deploy"]);
  assert.deepEqual(unbound.claim?.roots, ["/w/src"]);

  const bound = childTools({
    builtins,
    useCapability,
    grant: { readOnly: false, writeRoots: ["/w/src"], depth: 1 },
    root: "/w",
    shell: { ...directShell, rebindsWriteRoots: true },
  });
  assert.ok(names(bound.tools).includes("bash"));
  assert.ok(bound.shell, "bash gets the narrowed launcher");
});

Deno.test("a writer without a claim keeps bash and is claimed on the whole workspace", () => {
  const { tools, claim, shell } = childTools({
    builtins,
    useCapability,
    grant: { readOnly: false, depth: 1 },
    root: "/w",
    shell: { ...directShell, rebindsWriteRoots: false },
  });
  assert.ok(names(tools).includes("bash"));
  assert.ok(!names(tools).includes("deploy"));
  assert.deepEqual(claim?.roots, ["/w"]);
  assert.equal(shell, undefined);
});
