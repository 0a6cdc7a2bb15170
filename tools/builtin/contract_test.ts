import assert from "node:assert/strict";
import { builtinTools, ToolRegistry } from "../registry.ts";
import "./mod.ts";
import {
  CONTRACT_URL,
  kindOf,
  parseContract,
  REGENERATE_COMMAND,
  regenerateContract,
  schemaJson,
} from "./contract_doc.ts";

const hint = `Regenerate the doc's JSON blocks with: ${REGENERATE_COMMAND}`;

function registryTools() {
  const registry = new ToolRegistry(builtinTools());
  return registry.names().map((name) => registry.get(name)!);
}

Deno.test("TOOL_CONTRACT.md matches every built-in tool's canonical schema and kind", async () => {
  const doc = await Deno.readTextFile(CONTRACT_URL);
  const sections = parseContract(doc);
  const tools = registryTools();
  const documented = sections.map((s) => s.name).sort();
  const names = tools.map((t) => t.name);
  const missing = names.filter((n) => !documented.includes(n));
  const unknown = documented.filter((n) => !names.includes(n));
  assert.deepEqual(missing, [], `tools missing from docs/TOOL_CONTRACT.md: ${missing}. ${hint}`);
  assert.deepEqual(unknown, [], `docs/TOOL_CONTRACT.md names unknown tools: ${unknown}`);
  for (const tool of tools) {
    const section = sections.find((s) => s.name === tool.name)!;
    assert.equal(
      section.json,
      schemaJson(tool),
      `the JSON schema of ${tool.name} in docs/TOOL_CONTRACT.md is out of date. ${hint}`,
    );
    assert.equal(section.kind, kindOf(tool), `the kind of ${tool.name} is out of date. ${hint}`);
  }
});

Deno.test("the contract generator rewrites stale blocks and reports missing and unknown tools", () => {
  const [bash, ls] = registryTools().filter((t) => t.name === "bash" || t.name === "ls");
  const stale = "# Contract\n\n## `ls`\n\n- Kind: writer\n\nLists.\n\n```json\n{}\n```\n\n" +
    "## `nope`\n\nGone.\n";
  const result = regenerateContract(stale, [bash, ls]);
  assert.deepEqual(result.missing, ["bash"]);
  assert.deepEqual(result.unknown, ["nope"]);
  const [lsSection] = parseContract(result.doc);
  assert.equal(lsSection.json, schemaJson(ls));
  assert.equal(lsSection.kind, "read-only");
  assert.match(result.doc, /Lists\./);
  assert.equal(regenerateContract(result.doc, [bash, ls]).doc, result.doc);
});

Deno.test("every built-in tool stays within the per-tool size budget", () => {
  for (const tool of registryTools()) {
    const size = tool.description.length + JSON.stringify(tool.schema).length;
    assert.ok(size <= 1600, `${tool.name}: description + schema is ${size} bytes`);
  }
  const total = registryTools().reduce(
    (n, t) => n + t.description.length + JSON.stringify(t.schema).length,
    0,
  );
  assert.ok(total <= 14 * 1024, `all tool schemas take ${total} bytes`);
});
