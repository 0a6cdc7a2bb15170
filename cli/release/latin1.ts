/**
 * Keeps the bundle's source text Latin-1. V8 stores a script's source as one byte per
 * character only when every character is Latin-1; a single `…` in a comment makes it keep the
 * whole file, hundreds of kilobytes, at two bytes per character for the life of the process.
 * This rewrites what it safely can: characters in comments become ASCII look-alikes, and
 * characters in string literals, untagged template literals and regular expressions become
 * `\u` escapes, which mean the same there. Tagged templates (whose raw text a tag may read)
 * and identifiers are left alone.
 *
 * @module
 */
import { type Comment, parse, type Token, tokTypes } from "acorn";

/** ASCII stand-ins for the characters comments use most. */
const LOOK_ALIKES: Record<string, string> = {
  "…": "...",
  "—": "--",
  "–": "-",
  "→": "->",
  "←": "<-",
  "≤": "<=",
  "≥": ">=",
  "×": "x",
  "‘": "'",
  "’": "'",
  "“": '"',
  "”": '"',
};

const WIDE = /[\u0100-\uffff]/g;

function escapeWide(text: string): string {
  return text.replace(WIDE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The text with its wide characters rewritten where that keeps the meaning. */
export function latin1Source(text: string): string {
  if (!WIDE.test(text)) return text;
  WIDE.lastIndex = 0;
  const comments: Comment[] = [];
  const tokens: Token[] = [];
  parse(text, {
    ecmaVersion: "latest",
    sourceType: "module",
    allowHashBang: true,
    onComment: comments,
    onToken: tokens,
  });
  const edits: { start: number; end: number; text: string }[] = [];
  for (const c of comments) {
    const slice = text.slice(c.start, c.end);
    if (WIDE.test(slice)) {
      WIDE.lastIndex = 0;
      edits.push({
        start: c.start,
        end: c.end,
        text: slice.replace(WIDE, (ch) => LOOK_ALIKES[ch] ?? "?"),
      });
    }
    WIDE.lastIndex = 0;
  }
  const tagged = taggedTemplates(tokens);
  for (const t of tokens) {
    const literal = t.type === tokTypes.string || t.type === tokTypes.regexp ||
      (t.type === tokTypes.template && !tagged.has(t));
    if (!literal) continue;
    const slice = text.slice(t.start, t.end);
    if (!WIDE.test(slice)) continue;
    WIDE.lastIndex = 0;
    edits.push({ start: t.start, end: t.end, text: escapeWide(slice) });
  }
  edits.sort((a, b) => a.start - b.start);
  let out = "";
  let at = 0;
  for (const e of edits) {
    out += text.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + text.slice(at);
}

/** The template parts that belong to tagged templates (`tag\`…\``), whose raw text counts. */
function taggedTemplates(tokens: readonly Token[]): Set<Token> {
  const out = new Set<Token>();
  const stack: ({ kind: "template"; tagged: boolean } | { kind: "brace" })[] = [];
  let previous: Token | undefined;
  let closedTemplate = false;
  for (const t of tokens) {
    const top = stack.at(-1);
    if (t.type === tokTypes.backQuote) {
      if (top?.kind === "template") {
        stack.pop();
        closedTemplate = true;
        previous = t;
        continue;
      }
      const p = previous?.type;
      // A backquote right after a name, `)`, `]` or another template is a tag call.
      const isTag = p === tokTypes.name || p === tokTypes.parenR || p === tokTypes.bracketR ||
        (p === tokTypes.backQuote && closedTemplate);
      stack.push({ kind: "template", tagged: isTag });
    } else if (t.type === tokTypes.dollarBraceL || t.type === tokTypes.braceL) {
      stack.push({ kind: "brace" });
    } else if (t.type === tokTypes.braceR) {
      if (top?.kind === "brace") stack.pop();
    } else if (t.type === tokTypes.template && top?.kind === "template" && top.tagged) {
      out.add(t);
    }
    closedTemplate = false;
    previous = t;
  }
  return out;
}
