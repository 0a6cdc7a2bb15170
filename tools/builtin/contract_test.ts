// The drift test over every tool a run offers lives in tests/contract/ (it needs core/ to
// assemble them); this file tests the generator and the built-ins' size budget.
import assert from "node:assert/strict";
import { builtinTools, ToolRegistry } from "../registry.ts";
import "./mod.ts";
import { contractDrift, parseContract, regenerateContract, schemaJson } from "./contract_doc.ts";

function registryTools() {
  const registry = new ToolRegistry(builtinTools());
  return registry.names().map((name) => registry.get(name)!);
}

Deno.test("the contract generator rewrites stale blocks and reports missing and unknown tools", () => {
  const [bash, ls] = registryTools().filter((t) => t.name === "bash" || t.name === "ls");
  const stale = "# Contract\n\n## `ls`\n\n- Kind: writer\n\nLists.\n\n```json\n{}\n```\n\n" +
    "## `nope`\n\nGone.\n";
  assert.deepEqual(contractDrift(stale, [bash, ls]), [
    { name: "bash", part: "section" },
    { name: "ls", part: "kind" },
    { name: "ls", part: "description" },
    { name: "ls", part: "json" },
  ]);
  const result = regenerateContract(stale, [bash, ls]);
  assert.deepEqual(result.missing, ["bash"]);
  assert.deepEqual(result.unknown, ["nope"]);
  const [lsSection] = parseContract(result.doc);
  assert.equal(lsSection.json, schemaJson(ls));
  assert.equal(lsSection.description, ls.description);
  assert.equal(lsSection.kind, "read-only");
  assert.match(result.doc, /Lists\.\n\n```text\n/);
  assert.deepEqual(contractDrift(result.doc, [ls]), []);
  assert.equal(regenerateContract(result.doc, [bash, ls]).doc, result.doc);
  // A changed description is drift, and regenerating rewrites only that block.
  const changed = { ...ls, description: ls.description + " Also this." };
  assert.deepEqual(contractDrift(result.doc, [changed]), [{ name: "ls", part: "description" }]);
  const rewritten = regenerateContract(result.doc, [changed]).doc;
  assert.equal(parseContract(rewritten)[0].description, changed.description);
  assert.equal(parseContract(rewritten)[0].json, schemaJson(ls));
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
