/**
 * The tool contract documents against the tools a real run offers: every offered tool has a
 * section in both `docs/TOOL_CONTRACT.md` and its zh-CN twin, every section names an offered
 * tool, and each section's kind, description and JSON schema equal the code.
 */
import assert from "node:assert/strict";
import {
  CONTRACT_URL,
  CONTRACT_URLS,
  CONTRACT_ZH_URL,
  contractDrift,
  parseContract,
  REGENERATE_COMMAND,
} from "../../tools/builtin/contract_doc.ts";
import { offeredTools } from "./offered_tools.ts";

const tools = await offeredTools();
const hint = `Regenerate the generated parts with: ${REGENERATE_COMMAND}`;

Deno.test("a run offers the file, shell, history, memory and capability tools", () => {
  const names = tools.map((t) => t.name);
  for (const name of ["bash", "read_file", "history", "memory", "remember", "forget"]) {
    assert.ok(names.includes(name), `${name} is offered`);
  }
  assert.ok(names.includes("use_capability"));
});

for (const url of CONTRACT_URLS) {
  const file = url.pathname.split("/").pop()!;
  Deno.test(`${file} covers every offered tool, and its generated parts match the code`, async () => {
    const doc = await Deno.readTextFile(url);
    const documented = parseContract(doc).map((s) => s.name);
    const offered = tools.map((t) => t.name);
    const unknown = documented.filter((n) => !offered.includes(n));
    assert.deepEqual(unknown, [], `${file} has sections for tools no run offers: ${unknown}`);
    const drift = contractDrift(doc, tools).map((d) =>
      d.part === "section" ? `${d.name}: no section` : `${d.name}: ${d.part} is out of date`
    );
    assert.deepEqual(drift, [], `${file} differs from the code:\n${drift.join("\n")}\n${hint}`);
  });
}

Deno.test("the English and Chinese contracts list the same tools in the same order", async () => {
  const en = parseContract(await Deno.readTextFile(CONTRACT_URL)).map((s) => s.name);
  const zh = parseContract(await Deno.readTextFile(CONTRACT_ZH_URL)).map((s) => s.name);
  assert.deepEqual(zh, en);
});

Deno.test("all offered tools together stay within the first request's tool budget", () => {
  for (const tool of tools) {
    const size = tool.description.length + JSON.stringify(tool.schema).length;
    assert.ok(size <= 1600, `${tool.name}: description + schema is ${size} bytes`);
  }
  const total = tools.reduce(
    (n, t) => n + t.description.length + JSON.stringify(t.schema).length,
    0,
  );
  assert.ok(total <= 12 * 1024, `all offered tool schemas take ${total} bytes`);
});
