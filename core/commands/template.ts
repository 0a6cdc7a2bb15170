/**
 * Expands a command template with the arguments typed after the command name.
 *
 * @module
 */

/**
 * Splits an argument string like a shell does for words: whitespace separates, and single or
 * double quotes group (the quotes are removed). A backslash escapes the next character outside
 * single quotes.
 */
export function splitArguments(raw: string): string[] {
  const out: string[] = [];
  let current = "";
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i];
    if (quote) {
      if (ch === quote) quote = undefined;
      else if (ch === "\\" && quote === '"' && i + 1 < raw.length) current += raw[++i];
      else current += ch;
      continue;
    }
    if (/\s/.test(ch)) {
      if (inWord) out.push(current);
      current = "";
      inWord = false;
      continue;
    }
    inWord = true;
    if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "\\" && i + 1 < raw.length) current += raw[++i];
    else current += ch;
  }
  if (inWord) out.push(current);
  return out;
}

const PLACEHOLDER = /\$(\$|ARGUMENTS\b|\d+)/g;

/** Whether a template mentions its arguments at all. */
export function usesArguments(template: string): boolean {
  for (const match of template.matchAll(PLACEHOLDER)) if (match[1] !== "$") return true;
  return false;
}

/**
 * Replaces `$ARGUMENTS` with the whole argument string, `$1…$N` with the N-th word (empty when
 * missing) and `$$` with a literal `$`. Any other `$` is left alone. When the template has no
 * placeholder but arguments were given, they are appended on an `ARGUMENTS:` line so they are
 * never silently dropped.
 */
export function expandTemplate(template: string, rawArguments: string): string {
  return expandTemplateParts(template, rawArguments).text;
}

/** An expanded template and where in it the template's own text is. */
export interface TemplateExpansion {
  text: string;
  /**
   * The spans of `text` that come from the template, not from the typed arguments, in order.
   * The command file wrote them, so their `@` references are the repository's, not the user's.
   */
  fromTemplate: { start: number; end: number }[];
}

/** {@linkcode expandTemplate}, also telling which parts of the result the template wrote. */
export function expandTemplateParts(template: string, rawArguments: string): TemplateExpansion {
  const all = rawArguments.trim();
  const words = splitArguments(all);
  let text = "";
  const fromTemplate: { start: number; end: number }[] = [];
  const add = (part: string, own: boolean) => {
    if (part === "") return;
    const last = fromTemplate.at(-1);
    if (own && last?.end === text.length) last.end += part.length;
    else if (own) fromTemplate.push({ start: text.length, end: text.length + part.length });
    text += part;
  };
  let at = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    add(template.slice(at, match.index), true);
    const what = match[1];
    if (what === "$") add("$", true);
    else add(what === "ARGUMENTS" ? all : words[Number(what) - 1] ?? "", false);
    at = match.index + match[0].length;
  }
  add(template.slice(at), true);
  if (all !== "" && !usesArguments(template)) {
    const trimmed = text.trimEnd();
    text = trimmed;
    const last = fromTemplate.at(-1);
    if (last && last.end > text.length) last.end = text.length;
    add("\n\nARGUMENTS: ", true);
    add(all, false);
  }
  return { text, fromTemplate };
}
