/**
 * Markdown to terminal text: a small renderer over `marked`'s lexer. Output lines are wrapped to
 * the given width (CJK-aware), code blocks are highlighted, tables fall back to records when
 * they do not fit.
 *
 * @module
 */
import { Lexer, type Token, type Tokens } from "marked";
import stringWidth from "string-width";
import wrapAnsi from "wrap-ansi";
import { highlightCode } from "./highlight.ts";
import type { Styles } from "./style.ts";

/** Rendering options. */
export interface MarkdownOptions {
  /** Columns available; every output line fits. */
  width: number;
  styles: Styles;
}

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X"
        ? parseInt(name.slice(2), 16)
        : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff
        ? String.fromCodePoint(code)
        : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** Wraps styled text to `width`, breaking long words, keeping leading spaces. */
export function wrapLines(text: string, width: number): string[] {
  return wrapAnsi(text, Math.max(1, width), { hard: true, trim: false }).split("\n").map((line) =>
    // Spaces left at a wrap point, possibly before closing style codes.
    // deno-lint-ignore no-control-regex
    line.replace(/[ \t]+((?:\x1b\[[0-9;]*m)*)$/, "$1")
  );
}

function inline(tokens: readonly Token[] | undefined, s: Styles): string {
  if (!tokens) return "";
  let out = "";
  for (const t of tokens) {
    switch (t.type) {
      case "text":
        out += "tokens" in t && t.tokens ? inline(t.tokens, s) : decodeEntities(t.text);
        break;
      case "escape":
        out += t.text;
        break;
      case "strong":
        out += s.bold(inline(t.tokens, s));
        break;
      case "em":
        out += s.italic(inline(t.tokens, s));
        break;
      case "del":
        out += s.strike(inline(t.tokens, s));
        break;
      case "codespan":
        out += s.cyan(decodeEntities(t.text));
        break;
      case "br":
        out += "\n";
        break;
      case "link": {
        const link = t as Tokens.Link;
        const label = inline(link.tokens, s);
        const plain = link.text;
        out += plain === link.href || `mailto:${plain}` === link.href
          ? s.blue(s.underline(label))
          : `${s.underline(label)}${s.dim(` (${link.href})`)}`;
        break;
      }
      case "image":
        out += s.dim(`[image: ${(t as Tokens.Image).text || (t as Tokens.Image).href}]`);
        break;
      case "checkbox":
        out += (t as Tokens.Checkbox).checked ? "[x] " : "[ ] ";
        break;
      case "html":
        out += t.text;
        break;
      default:
        out += "tokens" in t && Array.isArray(t.tokens)
          ? inline(t.tokens as Token[], s)
          : decodeEntities(String((t as { text?: string }).text ?? t.raw));
    }
  }
  return out;
}

function codeBlock(t: Tokens.Code, width: number, s: Styles): string[] {
  const lang = (t.lang ?? "").trim().split(/\s+/)[0].toLowerCase();
  const code = t.text.replace(/\n$/, "");
  const painted = highlightCode(code, lang, s);
  const out: string[] = [];
  for (const line of painted.split("\n")) {
    for (const piece of wrapLines(line, width - 2)) out.push(`  ${piece}`);
  }
  if (lang) out.unshift(s.dim(`  ${lang}`));
  return out;
}

function pad(text: string, width: number, align: "left" | "right" | "center" | null): string {
  const gap = Math.max(0, width - stringWidth(text));
  if (align === "right") return " ".repeat(gap) + text;
  if (align === "center") {
    const left = Math.floor(gap / 2);
    return " ".repeat(left) + text + " ".repeat(gap - left);
  }
  return text + " ".repeat(gap);
}

function table(t: Tokens.Table, width: number, s: Styles): string[] {
  const header = t.header.map((cell) => inline(cell.tokens, s));
  const rows = t.rows.map((row) => row.map((cell) => inline(cell.tokens, s)));
  const widths = header.map((h, i) =>
    Math.max(stringWidth(h), ...rows.map((r) => stringWidth(r[i] ?? "")))
  );
  const total = widths.reduce((a, b) => a + b, 0) + 3 * (widths.length - 1);
  if (total <= width) {
    const line = (cells: string[]) =>
      cells.map((c, i) => pad(c ?? "", widths[i], t.align[i])).join(s.dim(" │ "));
    return [
      line(header.map((h) => s.bold(h))),
      s.dim(widths.map((w) => "─".repeat(w)).join("─┼─")),
      ...rows.map(line),
    ];
  }
  // Too wide for the terminal: one record per row reads better than a broken grid.
  const out: string[] = [];
  rows.forEach((row, r) => {
    if (r > 0) out.push("");
    row.forEach((cell, i) => out.push(...wrapLines(`${s.bold(`${header[i]}:`)} ${cell}`, width)));
  });
  return out;
}

function list(t: Tokens.List, width: number, s: Styles): string[] {
  const start = typeof t.start === "number" ? t.start : 1;
  return listItems(
    t.items,
    {
      ordered: t.ordered,
      start,
      first: 0,
      markerWidth: listMarkerWidth(t.ordered, start, t.items.length),
      loose: t.loose,
    },
    width,
    s,
  );
}

/** How a run of list items is laid out: the whole list's numbering, marker column, spacing. */
export interface ListLayout {
  /** Numbered (`1.`) or bulleted (`•`) markers. */
  ordered: boolean;
  /** Number of the list's first item (ordered lists). */
  start: number;
  /** Index of the first given item within the whole list. */
  first: number;
  /** Marker column width of the whole list, space included. */
  markerWidth: number;
  /** A blank line between items (and between the blocks inside an item). */
  loose: boolean;
}

/** The marker column of a list of `count` items: its widest marker plus a space. */
export function listMarkerWidth(ordered: boolean, start: number, count: number): number {
  if (!ordered) return 2;
  // Numbers only grow, so the widest marker is the first's or the last's.
  return Math.max(String(start).length, String(start + count - 1).length) + 2;
}

/**
 * Renders items of a list laid out as part of the whole list: the lines of `items` equal the
 * corresponding lines of the whole list's rendering.
 */
export function listItems(
  items: readonly Tokens.ListItem[],
  layout: ListLayout,
  width: number,
  s: Styles,
): string[] {
  const out: string[] = [];
  const { markerWidth } = layout;
  items.forEach((item, j) => {
    const i = layout.first + j;
    const marker = layout.ordered ? `${layout.start + i}.` : "•";
    const body = blocks(item.tokens, s, { width: width - markerWidth, tight: !layout.loose });
    if (layout.loose && i > 0) out.push("");
    body.forEach((line, k) => {
      const lead = k === 0 ? s.dim(marker.padEnd(markerWidth)) : " ".repeat(markerWidth);
      out.push(lead + line);
    });
    if (body.length === 0) out.push(s.dim(marker));
  });
  return out;
}

function block(t: Token, width: number, s: Styles): string[] {
  switch (t.type) {
    case "heading": {
      const h = t as Tokens.Heading;
      const text = inline(h.tokens, s);
      const styled = h.depth === 1
        ? s.bold(s.underline(text))
        : h.depth === 2
        ? s.bold(text)
        : s.bold(s.italic(text));
      return wrapLines(styled, width);
    }
    case "paragraph":
      return wrapLines(inline((t as Tokens.Paragraph).tokens, s), width);
    case "text": {
      const tx = t as Tokens.Text;
      return wrapLines(tx.tokens ? inline(tx.tokens, s) : decodeEntities(tx.text), width);
    }
    case "code":
      return codeBlock(t as Tokens.Code, width, s);
    case "blockquote":
      return blocks((t as Tokens.Blockquote).tokens, s, { width: width - 2, tight: false }).map((
        line,
      ) => `${s.dim("│")} ${line}`);
    case "list":
      return list(t as Tokens.List, width, s);
    case "table":
      return table(t as Tokens.Table, width, s);
    case "hr":
      return [s.dim("─".repeat(Math.max(1, Math.min(width, 60))))];
    case "html":
      return wrapLines(t.text.replace(/\n+$/, ""), width);
    case "checkbox":
      return [(t as Tokens.Checkbox).checked ? "[x]" : "[ ]"];
    case "space":
    case "def":
      return [];
    default:
      return wrapLines(String((t as { text?: string }).text ?? t.raw).replace(/\n+$/, ""), width);
  }
}

/** Renders block tokens to lines of `width`; `tight` lists keep no blank line between items. */
function blocks(
  tokens: readonly Token[],
  s: Styles,
  { width, tight }: { width: number; tight: boolean },
): string[] {
  const out: string[] = [];
  let previous: Token | undefined;
  for (const t of tokens) {
    if (t.type === "space" || t.type === "def") continue;
    // A task checkbox belongs on the same line as the item's text.
    if (previous?.type === "checkbox" && out.length > 0) {
      const [first, ...rest] = block(t, width - 4, s);
      out[out.length - 1] = `${out[out.length - 1]} ${first ?? ""}`;
      out.push(...rest.map((line) => `    ${line}`));
      previous = t;
      continue;
    }
    const lines = block(t, width, s);
    if (lines.length === 0) continue;
    if (previous && !tight) out.push("");
    out.push(...lines);
    previous = t;
  }
  return out;
}

/** Renders Markdown as styled terminal lines joined by `\n`, each at most `width` wide. */
export function renderMarkdown(source: string, opts: MarkdownOptions): string {
  const tokens = new Lexer({ gfm: true }).lex(source);
  return blocks(tokens, opts.styles, { width: Math.max(8, opts.width), tight: false }).join("\n");
}

/**
 * Splits streaming Markdown into a prefix of finished blocks and the still-growing rest. A block
 * counts as finished once another block has started after it, so committing it to the
 * scrollback cannot change how it renders. The split always falls on the source's own bytes.
 */
export function splitFinishedBlocks(source: string): { done: string; rest: string } {
  const tokens = new Lexer({ gfm: true }).lex(source);
  let lastContent = -1;
  tokens.forEach((t, i) => {
    if (t.type !== "space") lastContent = i;
  });
  if (lastContent <= 0) return { done: "", rest: source };
  const done = tokens.slice(0, lastContent).map((t) => t.raw).join("");
  // The lexer may normalise the source (tabs, line endings); only split when it did not.
  if (!source.startsWith(done)) return { done: "", rest: source };
  return { done, rest: source.slice(done.length) };
}
