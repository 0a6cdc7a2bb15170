/**
 * Syntax highlighting of fenced code blocks, through highlight.js grammars (via `emphasize`)
 * painted with the UI's own styles so colour follows `NO_COLOR`.
 *
 * @module
 */
import { common, createEmphasize } from "emphasize";
import type { Styles } from "./style.ts";

const emphasize = createEmphasize(common);

type Sheet = Record<string, (value: string) => string>;

const sheets = new WeakMap<Styles, Sheet>();

function sheetFor(s: Styles): Sheet {
  let sheet = sheets.get(s);
  if (sheet) return sheet;
  sheet = {
    keyword: s.magenta,
    built_in: s.cyan,
    type: s.cyan,
    literal: s.blue,
    number: s.blue,
    regexp: s.red,
    string: s.green,
    subst: (v) => v,
    symbol: s.blue,
    class: s.yellow,
    function: s.yellow,
    title: s.yellow,
    params: (v) => v,
    comment: s.gray,
    doctag: s.gray,
    meta: s.gray,
    "meta keyword": s.magenta,
    "meta string": s.green,
    section: s.bold,
    tag: s.gray,
    name: s.magenta,
    attr: s.cyan,
    attribute: s.cyan,
    variable: s.red,
    bullet: s.cyan,
    code: s.green,
    emphasis: s.italic,
    strong: s.bold,
    formula: s.inverse,
    link: s.underline,
    quote: s.gray,
    "selector-tag": s.magenta,
    "selector-id": s.yellow,
    "selector-class": s.yellow,
    "selector-attr": s.cyan,
    "selector-pseudo": s.cyan,
    "template-tag": s.magenta,
    "template-variable": s.red,
    addition: s.green,
    deletion: s.red,
  };
  sheets.set(s, sheet);
  return sheet;
}

/** Whether a fence language is known. */
export function knownLanguage(lang: string): boolean {
  return lang !== "" && emphasize.registered(lang);
}

/** Highlights `code` as `lang`; unknown languages and colourless styles come back unchanged. */
export function highlightCode(code: string, lang: string, s: Styles): string {
  if (!s.color || !knownLanguage(lang)) return code;
  try {
    return emphasize.highlight(lang, code, sheetFor(s)).value;
  } catch {
    return code;
  }
}
