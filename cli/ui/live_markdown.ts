/**
 * Streaming Markdown at a cost proportional to the new text, not to the open block:
 *
 * - {@link BlockSplitter} finds the finished blocks of a growing answer (what
 *   `splitFinishedBlocks` says) by lexing only the new text and the line before it, and the
 *   whole open block only when that tail shows a block boundary.
 * - {@link LiveMarkdown} renders the open block for the live tail, keeping the rendered lines of
 *   its stable part (list items, code lines and paragraph lines once later ones follow) and
 *   re-rendering only the rest.
 *
 * Both fall back to the full lexer and renderer whenever the shortcut's conditions do not hold,
 * so what they produce is what the full functions produce. One exception, by design: code in
 * the live tail is highlighted in chunks of lines, so a string or comment that spans a chunk
 * boundary may be coloured differently until the block is finished (finished blocks are
 * always rendered whole).
 *
 * @module
 */
import { Lexer, type Token, type Tokens } from "marked";
import {
  listItems,
  listMarkerWidth,
  type MarkdownOptions,
  renderMarkdown,
  splitFinishedBlocks,
} from "./markdown.ts";
import type { Styles } from "./style.ts";

/** Below this many characters the full lexer and renderer are cheap enough. */
const SMALL = 2048;
/** How far back the splitter looks for the start of the line before the new text. */
const LOOK_BACK = 4096;
/** Units (items, lines) moved into the cached prefix at once. */
const CHUNK = 24;

function lex(source: string): Token[] {
  return new Lexer({ gfm: true }).lex(source);
}

function contentTokens(tokens: readonly Token[]): Token[] {
  return tokens.filter((t) => t.type !== "space");
}

/** `^(```+|~~~+)info\n` at column 0: the opening fence of a fenced code block. */
const FENCE_OPEN = /^(`{3,}|~{3,})([^\n]*)\n/;

function fenceOf(text: string): { char: string; length: number; line: string } | undefined {
  const m = FENCE_OPEN.exec(text);
  if (!m || (m[1][0] === "`" && m[2].includes("`"))) return undefined;
  return { char: m[1][0], length: m[1].length, line: m[0] };
}

function closesFence(line: string, fence: { char: string; length: number }): boolean {
  const m = /^ {0,3}(`+|~+)[ \t]*$/.exec(line);
  return !!m && m[1][0] === fence.char && m[1].length >= fence.length;
}

/**
 * Splits a growing answer into finished blocks and the open rest, as
 * {@link splitFinishedBlocks} does on the whole text, but lexing only what the new text can
 * change.
 */
export class BlockSplitter {
  /** Characters handed to the lexer so far: the measure of this class's work. */
  workChars = 0;
  #rest = "";
  /** The open fenced code block, and how far its lines were searched for the closing fence. */
  #fence?: { char: string; length: number; scanned: number; closed: boolean };

  /** The open (unfinished) text. */
  get rest(): string {
    return this.#rest;
  }

  /** Forgets the open text (it was committed). */
  reset(): void {
    this.#rest = "";
    this.#fence = undefined;
  }

  /**
   * Appends `delta` to the open text (`open`, by default the rest of the previous call);
   * returns the text of blocks it finished (maybe empty) and the new open rest.
   */
  push(delta: string, open: string = this.#rest): { done: string; rest: string } {
    if (open !== this.#rest) {
      this.#rest = open;
      this.#fence = undefined;
    }
    const before = this.#rest.length;
    const text = this.#rest + delta;
    if (text.length >= SMALL && this.#stillOneBlock(text, before)) {
      this.#rest = text;
      return { done: "", rest: text };
    }
    this.workChars += text.length;
    const split = splitFinishedBlocks(text);
    if (split.done) this.#fence = undefined;
    this.#rest = split.rest;
    return split;
  }

  /** Whether `text` surely lexes as at most one block; false when unsure. */
  #stillOneBlock(text: string, before: number): boolean {
    const open = this.#fence ?? (() => {
      const f = fenceOf(text);
      return f && (this.#fence = { ...f, scanned: f.line.length, closed: false });
    })();
    if (open) {
      // An unclosed fence runs to the end of the text whatever follows.
      if (open.closed) return false;
      let start = open.scanned;
      for (let nl = text.indexOf("\n", start); nl >= 0; nl = text.indexOf("\n", start)) {
        if (closesFence(text.slice(start, nl), open)) open.closed = true;
        start = nl + 1;
      }
      open.scanned = start;
      // A closing fence still without its newline ends the text: still one block.
      return !open.closed;
    }
    // Lex from the second-last unindented line that starts before the new text: a new block
    // can only begin in the new text, and the two lines before it tell whether it continues
    // the open one (a table's header row is the line before its delimiter row, and that
    // header interrupts the paragraph above it).
    if (before === 0) return false;
    const anchor = before >= 2 ? text.lastIndexOf("\n", before - 2) + 1 : 0;
    let p = anchor;
    let found = 0;
    for (let at = anchor; found < 2;) {
      if (at < text.length && !/\s/.test(text[at])) {
        p = at;
        found++;
      }
      if (at === 0 || anchor - at > LOOK_BACK) break;
      at = at >= 2 ? text.lastIndexOf("\n", at - 2) + 1 : 0;
    }
    if (p === 0) return false;
    this.workChars += text.length - p;
    return contentTokens(lex(text.slice(p))).length <= 1;
  }
}

/** Rendered lines of the open block: the last ones, and how many came before them. */
export interface LiveLines {
  /** Lines before `lines`, not returned. */
  hidden: number;
  lines: string[];
}

interface ListCache {
  kind: "list";
  ordered: boolean;
  start: number;
  /** A dummy first item of the same list type, to lex a tail of items as a loose list. */
  dummy: string;
  loose: boolean;
  items: Tokens.ListItem[];
  markerWidth: number;
}

interface CodeCache {
  kind: "code";
  fence: { char: string; length: number; line: string };
  header: number;
}

interface ParagraphCache {
  kind: "paragraph";
}

/** A block the shortcuts do not handle: rendered in full, without lexing it twice. */
interface NoCache {
  kind: "none";
}

type Cache = (ListCache | CodeCache | ParagraphCache | NoCache) & {
  width: number;
  styles: Styles;
  /** The start of the text the cache was built for, and its length since: the same block. */
  key: string;
  length: number;
  /** The cached prefix of the text; every later text starts with it. */
  source: string;
  /** Its rendered lines, as they appear in the whole block's rendering. */
  lines: string[];
};

/** Delimiters that, left unmatched in a chunk, could pair with text after it. */
function unmatchedDelimiters(tokens: readonly Token[] | undefined): boolean {
  if (!tokens) return false;
  for (const t of tokens) {
    if (t.type === "text" && !("tokens" in t && t.tokens)) {
      // `snake_case` cannot open or close emphasis.
      const text = t.text.replace(/(?<=[\p{L}\p{N}])_+(?=[\p{L}\p{N}])/gu, "");
      if (/[*_~`[\]<]/.test(text)) return true;
    } else if ("tokens" in t && Array.isArray(t.tokens) && unmatchedDelimiters(t.tokens)) {
      return true;
    }
  }
  return false;
}

/** A line that turns the paragraph above it into a heading, or a table delimiter row. */
const REINTERPRETS =
  /^ {0,3}(?:=+|-+)[ \t]*$|^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-*:?[ \t]*)*\|?[ \t]*$/m;

function completeLines(text: string, from: number, count: number): number | undefined {
  let at = from;
  for (let i = 0; i < count; i++) {
    const nl = text.indexOf("\n", at);
    if (nl < 0) return undefined;
    at = nl + 1;
  }
  return at;
}

/**
 * Renders the growing open block of an answer for the live tail. Feed it the whole open text
 * each frame; the lines equal `renderMarkdown(text, opts).split("\n")`.
 */
export class LiveMarkdown {
  /** Characters lexed or rendered so far: the measure of this class's work. */
  workChars = 0;
  #cache?: Cache;
  /** The previous call, answered again while nothing changed (the spinner redraws often). */
  #last?: { text: string; width: number; styles: Styles; keep: number; out: LiveLines };

  #render(source: string, opts: MarkdownOptions): string[] {
    this.workChars += source.length;
    return renderMarkdown(source, opts).split("\n");
  }

  #lex(source: string): Token[] {
    this.workChars += source.length;
    return lex(source);
  }

  /** The last lines of the rendered `text`, at least `keep` of them when there are that many. */
  render(text: string, opts: MarkdownOptions & { keep: number }): LiveLines {
    const last = this.#last;
    if (
      last && last.text === text && last.width === opts.width && last.styles === opts.styles &&
      last.keep === opts.keep
    ) {
      return last.out;
    }
    const out = this.#lines(text, opts);
    this.#last = { text, width: opts.width, styles: opts.styles, keep: opts.keep, out };
    return out;
  }

  #lines(text: string, opts: MarkdownOptions & { keep: number }): LiveLines {
    const width = Math.max(8, opts.width);
    const cache = this.#cache;
    if (
      !cache || cache.width !== width || cache.styles !== opts.styles ||
      text.length < cache.length || !text.startsWith(cache.key) || !text.startsWith(cache.source)
    ) {
      this.#cache = text.length >= SMALL ? this.#build(text, width, opts.styles) : undefined;
    }
    if (this.#cache) this.#cache.length = text.length;
    const parts = this.#cache && this.#incremental(this.#cache, text);
    if (parts) return lastOf(parts[0], parts[1], Math.max(1, opts.keep));
    return { hidden: 0, lines: this.#render(text, { width, styles: opts.styles }) };
  }

  #build(text: string, width: number, styles: Styles): Cache {
    const fence = fenceOf(text);
    const key = text.slice(0, SMALL);
    const base = { width, styles, key, length: text.length, source: "", lines: [] as string[] };
    const none: Cache = { ...base, kind: "none" };
    if (fence) {
      const probe = this.#render(`${fence.line}x`, { width, styles }).length;
      const cache: Cache = { ...base, kind: "code", fence, header: probe - 1, source: fence.line };
      if (fence.line.length > 0) {
        cache.lines = this.#render(`${fence.line}x`, { width, styles }).slice(0, -1);
      }
      return cache;
    }
    const tokens = contentTokens(this.#lex(text));
    if (tokens.length !== 1) return none;
    const t = tokens[0];
    if (t.type === "paragraph") return { ...base, kind: "paragraph" };
    if (t.type === "list" && !/^\s/.test(text)) {
      const list = t as Tokens.List;
      const bullet = /^(\d{1,9}([.)])|[*+-])/.exec(text);
      if (!bullet) return none;
      const start = typeof list.start === "number" ? list.start : 1;
      return {
        ...base,
        kind: "list",
        ordered: list.ordered,
        start,
        dummy: `${list.ordered ? `1${bullet[2]}` : bullet[1]} x\n\n`,
        loose: list.loose,
        items: [],
        markerWidth: 0,
      };
    }
    return none;
  }

  /** The whole block's lines (cached, then the rest's), or undefined to render in full. */
  #incremental(cache: Cache, text: string): Parts | undefined {
    switch (cache.kind) {
      case "code":
        return this.#code(cache, text);
      case "paragraph":
        return this.#paragraph(cache, text);
      case "list":
        return this.#list(cache, text);
      case "none":
        return undefined;
    }
  }

  #code(cache: Cache & CodeCache, text: string): Parts | undefined {
    const opts = { width: cache.width, styles: cache.styles };
    for (;;) {
      const rest = text.slice(cache.source.length);
      // The renderer drops trailing blank lines of an unclosed fence; keep them in the rest.
      if (!/[^\n]/.test(rest)) return undefined;
      const end = completeLines(text, cache.source.length, 2 * CHUNK);
      if (end === undefined) {
        if (rest.split("\n").some((line) => closesFence(line, cache.fence))) return undefined;
        const lines = this.#render(cache.fence.line + rest, opts)
          .slice(cache.header);
        return [cache.lines, lines];
      }
      const chunkEnd = completeLines(text, cache.source.length, CHUNK)!;
      const chunk = text.slice(cache.source.length, chunkEnd);
      if (chunk.split("\n").some((line) => closesFence(line, cache.fence))) return undefined;
      const painted = this.#render(cache.fence.line + chunk + "x", opts)
        .slice(cache.header, -1);
      cache.lines.push(...painted);
      cache.source = text.slice(0, chunkEnd);
    }
  }

  #paragraph(cache: Cache & ParagraphCache, text: string): Parts | undefined {
    const opts = { width: cache.width, styles: cache.styles };
    const single = (source: string): Tokens.Paragraph | undefined => {
      const tokens = contentTokens(this.#lex(source));
      return tokens.length === 1 && tokens[0].type === "paragraph"
        ? tokens[0] as Tokens.Paragraph
        : undefined;
    };
    // The rest continues the paragraph only if it starts a line with text and no line of it
    // makes the lines above something else.
    const continues = (rest: string): boolean =>
      rest !== "" && !/^\s/.test(rest) && !REINTERPRETS.test(rest);
    for (;;) {
      const rest = text.slice(cache.source.length);
      if (cache.source && !continues(rest)) return undefined;
      const end = completeLines(text, cache.source.length, 2 * CHUNK);
      if (end === undefined) {
        if (!single(rest)) return undefined;
        const lines = this.#render(rest, opts);
        return [cache.lines, lines];
      }
      const chunkEnd = completeLines(text, cache.source.length, CHUNK)!;
      const chunk = text.slice(cache.source.length, chunkEnd);
      const paragraph = single(chunk);
      if (
        !paragraph || unmatchedDelimiters(paragraph.tokens) || /\\\n$/.test(chunk) ||
        !continues(text.slice(chunkEnd)) || REINTERPRETS.test(chunk)
      ) {
        // No safe boundary here: render the rest whole (still exact, just not cheaper).
        if (!single(rest)) return undefined;
        return [cache.lines, this.#render(rest, opts)];
      }
      cache.lines.push(...this.#render(chunk, opts));
      cache.source = text.slice(0, chunkEnd);
    }
  }

  #list(cache: Cache & ListCache, text: string): Parts | undefined {
    const lexItems = (source: string, loose: boolean): Tokens.List | undefined => {
      const tokens = contentTokens(this.#lex(loose ? cache.dummy + source : source));
      if (tokens.length !== 1 || tokens[0].type !== "list") return undefined;
      const list = tokens[0] as Tokens.List;
      if (list.ordered !== cache.ordered) return undefined;
      if (loose) list.items.shift();
      return list;
    };
    for (;;) {
      const rest = text.slice(cache.source.length);
      const natural = lexItems(rest, false);
      if (!natural || natural.items.length === 0) return undefined;
      // The whole list is loose when any part is. (A blank line between the parts was inside
      // the rest when they were split, so it made the cached part loose then.)
      const loose = cache.loose || natural.loose;
      if (loose && !cache.loose && cache.items.length > 0) {
        // The cached items were lexed as a tight list; relex them as part of a loose one.
        const relexed = lexItems(cache.source, true);
        if (!relexed || relexed.items.length !== cache.items.length) return undefined;
        cache.items = relexed.items;
        cache.loose = true;
        cache.markerWidth = -1;
      }
      cache.loose = loose;
      const restList = loose && !natural.loose ? lexItems(rest, true) : natural;
      if (!restList || restList.items.length !== natural.items.length) return undefined;
      const count = cache.items.length + restList.items.length;
      const markerWidth = listMarkerWidth(cache.ordered, cache.start, count);
      const layout = { ordered: cache.ordered, start: cache.start, markerWidth, loose };
      if (markerWidth !== cache.markerWidth) {
        cache.markerWidth = markerWidth;
        cache.lines = listItems(cache.items, { ...layout, first: 0 }, cache.width, cache.styles);
      }
      if (natural.items.length <= 2 * CHUNK) {
        const lines = listItems(
          restList.items,
          { ...layout, first: cache.items.length },
          cache.width,
          cache.styles,
        );
        return [cache.lines, lines];
      }
      // Move the first CHUNK items into the cache; their sources are consecutive slices.
      const moved = restList.items.slice(0, CHUNK);
      const length = natural.items.slice(0, CHUNK).reduce((n, item) => n + item.raw.length, 0);
      if (!rest.startsWith(natural.items.slice(0, CHUNK).map((i) => i.raw).join(""))) {
        const lines = listItems(
          restList.items,
          { ...layout, first: cache.items.length },
          cache.width,
          cache.styles,
        );
        return [cache.lines, lines];
      }
      cache.lines.push(
        ...listItems(moved, { ...layout, first: cache.items.length }, cache.width, cache.styles),
      );
      cache.items.push(...moved);
      cache.source = text.slice(0, cache.source.length + length);
    }
  }
}

type Parts = [cached: readonly string[], rest: readonly string[]];

/** The last `keep` lines of `cached` followed by `rest`, without copying the cached lines. */
function lastOf(cached: readonly string[], rest: readonly string[], keep: number): LiveLines {
  const total = cached.length + rest.length;
  if (total <= keep) return { hidden: 0, lines: [...cached, ...rest] };
  if (rest.length >= keep) return { hidden: total - keep, lines: rest.slice(rest.length - keep) };
  return {
    hidden: total - keep,
    lines: [...cached.slice(cached.length - (keep - rest.length)), ...rest],
  };
}
