/**
 * A file tree that exercises the search tools' ignore rules, hidden files, binary files and
 * encodings. Used by tests only.
 *
 * @module
 */
import type { TestWorkspace } from "./test_context.ts";

function utf16le(text: string): Uint8Array {
  const out = new Uint8Array(2 + text.length * 2);
  const view = new DataView(out.buffer);
  view.setUint16(0, 0xfeff, true);
  for (let i = 0; i < text.length; i++) view.setUint16(2 + i * 2, text.charCodeAt(i), true);
  return out;
}

/** Files the search tools must list (everything else in the fixture is ignored or skipped). */
export const VISIBLE_FILES: readonly string[] = [
  ".env",
  ".gitignore",
  ".hidden/secret.ts",
  ".ignore",
  "README.md",
  "a.txt",
  "a/b.ts",
  "a/c.tsx",
  "bin.dat",
  "crlf.txt",
  "src/lib/gen/keep.log",
  "src/lib/util.ts",
  "src/main.ts",
  "sub/.gitignore",
  "sub/important.tmp",
  "sub/rootonly.txt",
  "u16.txt",
];

/** Writes the fixture into `ws` (a git repository root). */
export async function writeSearchFixture(ws: TestWorkspace): Promise<void> {
  const files: Record<string, string | Uint8Array> = {
    ".git/HEAD": "ref: refs/heads/main\n",
    ".git/info/exclude": "excluded_by_info.txt\n",
    ".git/objects/needle.txt": "needle inside .git\n",
    ".gitignore": "dist/\n*.log\n!keep.log\nbuild\n/rootonly.txt\n",
    ".ignore": "ignored_by_dot_ignore.md\n",
    ".hidden/secret.ts": "export const hidden = 'needle';\n",
    ".env": "NEEDLE=1\n",
    "README.md": "# Title\nneedle in readme\n",
    "a.txt": "needle\n",
    "a/b.ts": "const needle = 1;\nother\nneedle again\n",
    "a/c.tsx": "export const C = () => null;\n",
    "src/main.ts": "import { util } from './lib/util.ts';\n" +
      "// Needle in caps\n" +
      "function main() {\n" +
      "  return util('needle');\n" +
      "}\n" +
      "\n" +
      "\n" +
      "\n" +
      "const x = 'needle';\n" +
      "export { main, x };\n",
    "src/lib/util.ts": "export function util(s: string) {\n  return s.toUpperCase();\n}\n",
    "src/lib/gen/keep.log": "needle log kept\n",
    "src/app.log": "needle in an ignored log\n",
    "dist/out.ts": "needle in dist\n",
    "build/x.ts": "needle in build\n",
    "rootonly.txt": "needle at the root\n",
    "sub/rootonly.txt": "needle in sub\n",
    "sub/.gitignore": "*.tmp\n!important.tmp\n",
    "sub/x.tmp": "needle tmp\n",
    "sub/important.tmp": "needle important\n",
    "sub/nested/y.tmp": "needle nested tmp\n",
    "excluded_by_info.txt": "needle excluded\n",
    "ignored_by_dot_ignore.md": "needle dot ignore\n",
    "bin.dat": new Uint8Array([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x00, 0x01, 0x02, 0x0a]),
    "crlf.txt": "needle\r\nline two\r\n",
    "u16.txt": utf16le("utf16 needle\n"),
  };
  for (const [path, content] of Object.entries(files)) await ws.write(path, content);
  await ws.ctx.workspace.symlink("a/b.ts", ws.path("link.ts"));
}
