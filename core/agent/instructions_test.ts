import assert from "node:assert/strict";
import { join } from "node:path";
import { instructionBlocks, readInstructionFiles } from "./instructions.ts";

Deno.test("instruction files ride the first turn and again only when changed", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(root, "AGENTS.md"), "Use tabs.");
    const files = await readInstructionFiles(root);
    const first = instructionBlocks(files, []);
    assert.deepEqual(first, [
      '<project-instructions file="AGENTS.md">\nUse tabs.\n</project-instructions>',
    ]);
    const history = [{ role: "user", content: `${first[0]}\n\nhello` }];
    assert.deepEqual(instructionBlocks(files, history), []);
    await Deno.writeTextFile(join(root, "AGENTS.md"), "Use spaces.");
    assert.deepEqual(instructionBlocks(await readInstructionFiles(root), history), [
      '<project-instructions file="AGENTS.md" status="updated">\nUse spaces.\n</project-instructions>',
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("an instruction file symlinked out of the workspace is not read", async () => {
  const root = await Deno.makeTempDir();
  const outside = await Deno.makeTempFile();
  try {
    await Deno.writeTextFile(outside, "secret");
    await Deno.symlink(outside, join(root, "CLAUDE.md"));
    assert.deepEqual(await readInstructionFiles(root), []);
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outside);
  }
});
