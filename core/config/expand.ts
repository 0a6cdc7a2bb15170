/**
 * `${VAR}` / `${VAR:-default}` expansion of configuration string values.
 *
 * @module
 */

/** Looks a variable up; `undefined` means unset. */
export type VarLookup = (name: string) => string | undefined;

/** Why a string could not be expanded. */
export class VarExpansionError extends Error {
  /** `unset`: `${VAR}` without a default names an unset variable; `syntax`: malformed reference. */
  readonly reason: "unset" | "syntax";
  /** The variable at fault, when there is one. */
  readonly variable?: string;

  constructor(reason: "unset" | "syntax", message: string, variable?: string) {
    super(message);
    this.name = "VarExpansionError";
    this.reason = reason;
    this.variable = variable;
  }
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Expands `${VAR}` and `${VAR:-default}` (the default applies when VAR is unset or empty and
 * may itself contain references). `$$` is a literal `$`; a `$` before anything else is kept.
 * Throws {@link VarExpansionError}.
 */
export function expandVars(text: string, lookup: VarLookup): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c !== "$") {
      out += c;
      i++;
      continue;
    }
    const next = text[i + 1];
    if (next === "$") {
      out += "$";
      i += 2;
      continue;
    }
    if (next !== "{") {
      out += "$";
      i++;
      continue;
    }
    const close = matchingBrace(text, i + 2);
    if (close < 0) {
      throw new VarExpansionError("syntax", `unterminated "\${" in "${text}"`);
    }
    const body = text.slice(i + 2, close);
    const sep = body.indexOf(":-");
    const name = sep >= 0 ? body.slice(0, sep) : body;
    if (!NAME.test(name)) {
      throw new VarExpansionError("syntax", `"\${${body}}" is not a valid variable reference`);
    }
    const value = lookup(name);
    if (sep >= 0) {
      out += value !== undefined && value !== "" ? value : expandVars(body.slice(sep + 2), lookup);
    } else if (value === undefined) {
      throw new VarExpansionError("unset", `\${${name}} refers to an unset variable`, name);
    } else {
      out += value;
    }
    i = close + 1;
  }
  return out;
}

/** Names referenced by `${...}` in `text`, including inside defaults. */
export function referencedVars(text: string): string[] {
  const names: string[] = [];
  const re = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)/g;
  for (const m of text.matchAll(re)) if (m[1]) names.push(m[1]);
  return names;
}

function matchingBrace(text: string, from: number): number {
  let depth = 1;
  for (let j = from; j < text.length; j++) {
    if (text[j] === "$" && text[j + 1] === "$") j++;
    else if (text[j] === "$" && text[j + 1] === "{") {
      depth++;
      j++;
    } else if (text[j] === "}" && --depth === 0) return j;
  }
  return -1;
}
