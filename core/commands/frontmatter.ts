/**
 * The small frontmatter dialect of command files: a `---` block of `key: value` lines. It is
 * deliberately not YAML: values are single-line strings, optionally quoted.
 *
 * @module
 */

/** A file split into its frontmatter and body. */
export interface FrontmatterDocument {
  attributes: Record<string, string>;
  body: string;
}

/** Thrown for a malformed frontmatter block; the message names the line. */
export class FrontmatterError extends SyntaxError {
  constructor(message: string) {
    super(message);
    this.name = "FrontmatterError";
  }
}

const KEY_VALUE = /^([A-Za-z][A-Za-z0-9_-]*)\s*:\s*(.*)$/;

function unquote(value: string): string {
  const v = value.trim();
  if (v.length >= 2 && (v[0] === '"' || v[0] === "'") && v.at(-1) === v[0]) {
    const inner = v.slice(1, -1);
    return v[0] === '"' ? inner.replace(/\\(["\\])/g, "$1") : inner.replaceAll("''", "'");
  }
  return v;
}

/**
 * Splits `text` into frontmatter attributes and body. A file without a leading `---` line has
 * no attributes. Throws {@link FrontmatterError} when the block is not closed or a line is not
 * `key: value`.
 */
export function parseFrontmatter(text: string): FrontmatterDocument {
  const normalized = text.replace(/^\uFEFF/, "").replaceAll("\r\n", "\n");
  const lines = normalized.split("\n");
  if (lines[0]?.trim() !== "---") return { attributes: {}, body: normalized };
  const attributes: Record<string, string> = {};
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === "---") {
      return { attributes, body: lines.slice(i + 1).join("\n").replace(/^\n+/, "") };
    }
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const match = KEY_VALUE.exec(line);
    if (!match) {
      throw new FrontmatterError(`frontmatter line ${i + 1} is not "key: value": ${line.trim()}`);
    }
    attributes[match[1].toLowerCase()] = unquote(match[2]);
  }
  throw new FrontmatterError("frontmatter is not closed with a --- line");
}
