/**
 * Rewrites the generated parts of `docs/TOOL_CONTRACT.md` (each tool's JSON schema block and
 * kind line) from the code. Run: `deno run --allow-read --allow-write
 * tools/builtin/gen_contract.ts`. Behaviour paragraphs stay hand-written; a tool without a
 * section is reported so one can be added.
 *
 * @module
 */
import { builtinTools, ToolRegistry } from "../registry.ts";
import "./mod.ts";
import { CONTRACT_URL, regenerateContract } from "./contract_doc.ts";

if (import.meta.main) {
  const registry = new ToolRegistry(builtinTools());
  const tools = registry.names().map((name) => registry.get(name)!);
  const doc = await Deno.readTextFile(CONTRACT_URL);
  const result = regenerateContract(doc, tools);
  if (result.doc !== doc) {
    await Deno.writeTextFile(CONTRACT_URL, result.doc);
    console.log(`Updated ${CONTRACT_URL.pathname}`);
  } else {
    console.log(`${CONTRACT_URL.pathname} is up to date`);
  }
  for (const name of result.missing) {
    console.error(
      `No section for tool "${name}": add "## \`${name}\`" with a summary, then rerun.`,
    );
  }
  for (const name of result.unknown) {
    console.error(`Section "${name}" names no built-in tool: remove or rename it.`);
  }
  if (result.missing.length || result.unknown.length) Deno.exit(1);
}
