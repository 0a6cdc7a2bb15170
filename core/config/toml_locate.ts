/**
 * Finds where a key sits in TOML source, so a value rejected after parsing can be reported
 * with its line. `smol-toml` returns plain values without positions; this is a small
 * position-only scanner for documents that already parsed.
 *
 * @module
 */

/** A path into the parsed document: table keys and array indices. */
export type KeyPath = readonly (string | number)[];

/** A 1-based position in the source text. */
export interface Position {
  line: number;
  column: number;
}

/**
 * The position of `path`, or of its closest located ancestor (a table header, the key of an
 * inline table or array, the n-th `[[array]]` header), or `undefined` when nothing matches.
 */
export function locateKey(text: string, path: KeyPath): Position | undefined {
  const positions = tomlKeyPositions(text);
  for (let k = path.length; k > 0; k--) {
    const hit = positions.get(pathId(path.slice(0, k)));
    if (hit) return hit;
  }
  return undefined;
}

/** Every key, header and array element of a TOML document mapped to its first position. */
export function tomlKeyPositions(text: string): Map<string, Position> {
  return new Scanner(text).scan();
}

function pathId(path: KeyPath): string {
  return JSON.stringify(path);
}

class Scanner {
  private pos = 0;
  private readonly lineStarts: number[] = [0];
  private readonly found = new Map<string, Position>();
  private readonly arrayCounts = new Map<string, number>();

  constructor(private readonly text: string) {
    for (let i = 0; i < text.length; i++) if (text[i] === "\n") this.lineStarts.push(i + 1);
  }

  scan(): Map<string, Position> {
    let table: (string | number)[] = [];
    while (true) {
      this.skipBlank();
      if (this.pos >= this.text.length) break;
      const start = this.pos;
      if (this.text[this.pos] === "[") {
        const isArray = this.text[this.pos + 1] === "[";
        this.pos += isArray ? 2 : 1;
        table = this.resolveHeader(this.parseKey(), isArray, start);
        this.skipLine();
      } else {
        const keys = this.parseKey();
        this.skipSpaces();
        if (this.text[this.pos] !== "=") {
          this.skipLine();
          continue;
        }
        this.pos++;
        const full = [...table, ...keys];
        this.recordWithParents(full, table.length, start);
        this.parseValue(full);
        this.skipLine();
      }
    }
    return this.found;
  }

  /** Resolves a header to a path, giving each `[[array]]` element its index. */
  private resolveHeader(keys: string[], isArray: boolean, start: number): (string | number)[] {
    const resolved: (string | number)[] = [];
    keys.forEach((key, i) => {
      resolved.push(key);
      this.record(resolved, start);
      const id = pathId(resolved);
      if (isArray && i === keys.length - 1) {
        const n = (this.arrayCounts.get(id) ?? -1) + 1;
        this.arrayCounts.set(id, n);
        resolved.push(n);
        this.record(resolved, start);
      } else if (this.arrayCounts.has(id)) {
        resolved.push(this.arrayCounts.get(id)!);
      }
    });
    return resolved;
  }

  private record(path: KeyPath, offset: number): void {
    const id = pathId(path);
    if (!this.found.has(id)) this.found.set(id, this.position(offset));
  }

  /** Records a dotted key and the implicit tables it creates (`a.b = 1` defines `a`). */
  private recordWithParents(path: KeyPath, from: number, offset: number): void {
    for (let k = from + 1; k <= path.length; k++) this.record(path.slice(0, k), offset);
  }

  private position(offset: number): Position {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - this.lineStarts[lo] + 1 };
  }

  private parseKey(): string[] {
    const keys: string[] = [];
    while (this.pos < this.text.length) {
      this.skipSpaces();
      const c = this.text[this.pos];
      if (c === '"') keys.push(this.readBasicString());
      else if (c === "'") keys.push(this.readLiteralString());
      else {
        const m = /^[A-Za-z0-9_-]+/.exec(this.text.slice(this.pos, this.pos + 256));
        if (!m) break;
        keys.push(m[0]);
        this.pos += m[0].length;
      }
      this.skipSpaces();
      if (this.text[this.pos] !== ".") break;
      this.pos++;
    }
    return keys;
  }

  private parseValue(path: (string | number)[]): void {
    this.skipSpaces();
    const t = this.text;
    const c = t[this.pos];
    if (t.startsWith('"""', this.pos)) {
      this.pos += 3;
      while (this.pos < t.length && !t.startsWith('"""', this.pos)) {
        this.pos += t[this.pos] === "\\" ? 2 : 1;
      }
      this.pos += 3;
      while (t[this.pos] === '"') this.pos++;
    } else if (t.startsWith("'''", this.pos)) {
      const end = t.indexOf("'''", this.pos + 3);
      this.pos = end < 0 ? t.length : end + 3;
      while (t[this.pos] === "'") this.pos++;
    } else if (c === '"') {
      this.readBasicString();
    } else if (c === "'") {
      this.readLiteralString();
    } else if (c === "[") {
      this.pos++;
      for (let i = 0;; i++) {
        this.skipBlank();
        if (this.pos >= t.length) return;
        if (t[this.pos] === "]") {
          this.pos++;
          return;
        }
        this.record([...path, i], this.pos);
        this.parseValue([...path, i]);
        this.skipBlank();
        if (t[this.pos] === ",") this.pos++;
      }
    } else if (c === "{") {
      this.pos++;
      while (true) {
        this.skipBlank();
        if (this.pos >= t.length) return;
        if (t[this.pos] === "}") {
          this.pos++;
          return;
        }
        const start = this.pos;
        const keys = this.parseKey();
        this.skipSpaces();
        if (t[this.pos] !== "=" || keys.length === 0) return;
        this.pos++;
        const full = [...path, ...keys];
        this.recordWithParents(full, path.length, start);
        this.parseValue(full);
        this.skipBlank();
        if (t[this.pos] === ",") this.pos++;
      }
    } else {
      while (this.pos < t.length && !",]}#\r\n".includes(t[this.pos])) this.pos++;
    }
  }

  private readBasicString(): string {
    const t = this.text;
    let out = "";
    this.pos++;
    while (this.pos < t.length && t[this.pos] !== '"' && t[this.pos] !== "\n") {
      if (t[this.pos] === "\\") {
        out += t[this.pos + 1] ?? "";
        this.pos += 2;
      } else {
        out += t[this.pos++];
      }
    }
    this.pos++;
    return out;
  }

  private readLiteralString(): string {
    const end = this.text.indexOf("'", this.pos + 1);
    const stop = end < 0 ? this.text.length : end;
    const out = this.text.slice(this.pos + 1, stop);
    this.pos = stop + 1;
    return out;
  }

  private skipSpaces(): void {
    while (this.text[this.pos] === " " || this.text[this.pos] === "\t") this.pos++;
  }

  /** Skips whitespace, newlines and comments. */
  private skipBlank(): void {
    while (this.pos < this.text.length) {
      const c = this.text[this.pos];
      if (c === " " || c === "\t" || c === "\r" || c === "\n") this.pos++;
      else if (c === "#") this.skipLine();
      else break;
    }
  }

  /** Skips the rest of the current line (trailing spaces and a comment). */
  private skipLine(): void {
    while (this.pos < this.text.length && this.text[this.pos] !== "\n") this.pos++;
  }
}
