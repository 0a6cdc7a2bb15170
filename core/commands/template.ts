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
  const all = rawArguments.trim();
  const words = splitArguments(all);
  const expanded = template.replace(PLACEHOLDER, (_m, what: string) => {
    if (what === "$") return "$";
    if (what === "ARGUMENTS") return all;
    return words[Number(what) - 1] ?? "";
  });
  if (all !== "" && !usesArguments(template)) {
    return `${expanded.trimEnd()}\n\nARGUMENTS: ${all}`;
  }
  return expanded;
}
