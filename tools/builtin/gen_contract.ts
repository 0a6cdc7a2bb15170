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
import { fileURLToPath } from "node:url";
import { localWorkspace } from "../workspace/local.ts";

if (import.meta.main) {
  const registry = new ToolRegistry(builtinTools());
  const tools = registry.names().map((name) => registry.get(name)!);
  // The repository's own docs, on this machine: the same file operations the tools use.
  const fs = localWorkspace();
  const path = fileURLToPath(CONTRACT_URL);
  const doc = new TextDecoder().decode(await fs.readFile(path));
  const result = regenerateContract(doc, tools);
  if (result.doc !== doc) {
    await fs.writeFile(path, new TextEncoder().encode(result.doc));
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
