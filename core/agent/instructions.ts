/**
 * Project instruction files (`REASONIX.md`, `AGENTS.md`, `CLAUDE.md`). They are per-project
 * text, so they ride the first user turn, never the system prompt; a later turn carries a
 * file again only when it changed, so an unchanged file never disturbs the cached prefix.
 *
 * @module
 */
import { join } from "node:path";
import { localWorkspace } from "../../tools/workspace/local.ts";
import type { Workspace } from "../../tools/workspace/types.ts";

/** Files read from the workspace root, in this order. */
export const INSTRUCTION_FILES: readonly string[] = ["REASONIX.md", "AGENTS.md", "CLAUDE.md"];
/** Larger files are cut, with a note. */
export const INSTRUCTION_MAX_CHARS = 32_000;

/** One instruction file's current text. */
export interface InstructionFile {
  name: string;
  text: string;
}

/**
 * Reads the instruction files that exist (not following a symlink out of the workspace), from
 * `workspace`: the machine the tools work on, which for a remote session is not this one.
 */
export async function readInstructionFiles(
  root: string,
  workspace: Workspace = localWorkspace(),
): Promise<InstructionFile[]> {
  const out: InstructionFile[] = [];
  for (const name of INSTRUCTION_FILES) {
    const path = join(root, name);
    try {
      const real = await workspace.realPath(path);
      const realRoot = await workspace.realPath(root);
      if (!real.startsWith(realRoot + "/") && real !== realRoot) continue;
      let text = new TextDecoder().decode(await workspace.readFile(real));
      if (text.length > INSTRUCTION_MAX_CHARS) {
        text = `${
          text.slice(0, INSTRUCTION_MAX_CHARS)
        }\n[... ${name} was cut at ${INSTRUCTION_MAX_CHARS} characters]`;
      }
      out.push({ name, text: text.trim() });
    } catch {
      // absent or unreadable: nothing to add
    }
  }
  return out;
}

/** The block carrying one file in a user turn. */
export function instructionBlock(file: InstructionFile, updated: boolean): string {
  return `<project-instructions file="${file.name}"${
    updated ? ' status="updated"' : ""
  }>\n${file.text}\n</project-instructions>`;
}

/** The last text of each file already present in earlier user turns. */
function lastSent(history: readonly { role: string; content: string }[]): Map<string, string> {
  const sent = new Map<string, string>();
  const pattern =
    /<project-instructions file="([^"]+)"(?: status="updated")?>\n([\s\S]*?)\n<\/project-instructions>/g;
  for (const m of history) {
    if (m.role !== "user") continue;
    for (const match of m.content.matchAll(pattern)) sent.set(match[1], match[2]);
  }
  return sent;
}

/** Blocks for the files that are new or changed since they were last sent. */
export function instructionBlocks(
  files: readonly InstructionFile[],
  history: readonly { role: string; content: string }[],
): string[] {
  const sent = lastSent(history);
  const first = !history.some((m) => m.role === "user");
  return files.filter((f) => sent.get(f.name) !== f.text).map((f) =>
    instructionBlock(f, !first && sent.has(f.name))
  );
}
