/**
 * Rewrites the generated parts of `docs/TOOL_CONTRACT.md` and `docs/TOOL_CONTRACT.zh-CN.md`
 * (each tool's kind line, description block and JSON schema block) from the tools a real run
 * offers. Run the command in `REGENERATE_COMMAND` (`tools/builtin/contract_doc.ts`). Prose
 * stays hand-written; a tool without a section, or a section naming no tool, is reported and
 * fails the run so the prose gets written.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { CONTRACT_URLS, regenerateContract } from "../../tools/builtin/contract_doc.ts";
import { offeredTools } from "./offered_tools.ts";

if (import.meta.main) {
  const tools = await offeredTools();
  let incomplete = false;
  for (const url of CONTRACT_URLS) {
    const path = fileURLToPath(url);
    const doc = await Deno.readTextFile(path);
    const result = regenerateContract(doc, tools);
    if (result.doc !== doc) {
      await Deno.writeTextFile(path, result.doc);
      console.log(`Updated ${path}`);
    } else {
      console.log(`${path} is up to date`);
    }
    for (const name of result.missing) {
      console.error(`${path}: no section for tool "${name}": add "## \`${name}\`", then rerun.`);
    }
    for (const name of result.unknown) {
      console.error(`${path}: section "${name}" names no offered tool: remove or rename it.`);
    }
    incomplete ||= result.missing.length > 0 || result.unknown.length > 0;
  }
  if (incomplete) Deno.exit(1);
}
