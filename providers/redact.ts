/**
 * Redaction of secrets (API keys, credential header values) from text that leaves Reasonix:
 * error messages on stderr and in `--json`, `--record` files, quoted server output.
 *
 * A provider or proxy that echoes a key rarely echoes it verbatim, so each secret is matched
 * in the forms it travels in:
 *
 * - as written, and with each character URL-encoded (`%2F`), JSON-escaped (`\u002f`, `\/`) or
 *   `\x`-escaped, in any mixture, with line breaks or spaces between characters (a wrapped or
 *   split copy);
 * - base64, standard and URL-safe, of any text that contains it (`Bearer <key>`,
 *   `user:<key>`): a base64 text holds one of three "cores" of the secret, one per alignment
 *   of the secret's bytes to the 3-byte groups, and each core is matched;
 * - hexadecimal, either case;
 * - for key-like secrets (16 characters or more, no spaces), any run of at least a third of
 *   the key (12 characters at least), so halves or thirds quoted apart are covered too.
 *
 * Secrets shorter than 8 characters are not redacted: they would blank ordinary words.
 *
 * @module
 */

/** The shortest secret that is redacted. */
export const MIN_SECRET_LENGTH = 8;
/** Secrets at least this long (without spaces) also have their long fragments redacted. */
const FRAGMENT_SECRET_LENGTH = 16;
const MIN_FRAGMENT = 12;
/** Between two characters of a form: spaces, line breaks, or their JSON escapes. */
const GAP = String.raw`(?:\s|\\[nrt])*`;

const encoder = new TextEncoder();

/** A compiled redactor for one list of secrets. */
export interface Redactor {
  /** `text` with every form of every secret replaced. */
  redact(text: string): string;
  /**
   * The longest text one match can span, in characters: a stream that holds back this much
   * of its tail before writing never writes half of a secret.
   */
  readonly span: number;
  /**
   * For streams: the redacted part of `text` that no later text can complete into a secret,
   * and the rest (as given) to prepend to the next piece.
   */
  redactPrefix(text: string): { text: string; rest: string };
}

function escapeRegex(c: string): string {
  return c.replace(/[\\^$.*+?()[\]{}|\/-]/g, "\\$&");
}

/** A hex digit string as a pattern that accepts either case. */
function hexPattern(hex: string): string {
  return [...hex].map((d) => /[a-f]/i.test(d) ? `[${d.toLowerCase()}${d.toUpperCase()}]` : d)
    .join("");
}

/** One character as written or escaped. */
function charPattern(c: string): string {
  const code = c.codePointAt(0)!;
  const alts = [escapeRegex(c)];
  if (code < 0x80) {
    const hh = hexPattern(code.toString(16).padStart(2, "0"));
    alts.push(`%${hh}`, String.raw`\\u00${hh}`, String.raw`\\x${hh}`);
    if (c === "/" || c === '"' || c === "\\") alts.push(escapeRegex(`\\${c}`));
  } else {
    const bytes = [...encoder.encode(c)].map((b) => `%${hexPattern(b.toString(16))}`).join("");
    alts.push(bytes);
    if (code <= 0xffff) alts.push(String.raw`\\u${hexPattern(code.toString(16).padStart(4, "0"))}`);
  }
  return alts.length === 1 ? alts[0] : `(?:${alts.join("|")})`;
}

function formPattern(form: string): string {
  return [...form].map(charPattern).join(GAP);
}

/** The parts of base64 that depend only on `secret`, for each of the three alignments. */
export function base64Cores(secret: string): string[] {
  const bytes = encoder.encode(secret);
  const out: string[] = [];
  for (let align = 0; align < 3; align++) {
    let binary = "\0".repeat(align);
    for (const b of bytes) binary += String.fromCharCode(b);
    const text = btoa(binary).replace(/=+$/, "");
    const start = Math.ceil((8 * align) / 6);
    const end = Math.floor((8 * (align + bytes.length)) / 6);
    out.push(text.slice(start, end));
  }
  return out;
}

function hex(secret: string): string {
  return [...encoder.encode(secret)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Finds runs of at least a third of `secret` (12 characters at least) in a text. */
interface FragmentFinder {
  runs(text: string, from: number, to: number): Span[];
}

function fragmentFinder(secret: string): FragmentFinder {
  const min = Math.max(MIN_FRAGMENT, Math.ceil(secret.length / 3));
  const pieces = new Set<string>();
  for (let o = 0; o + min <= secret.length; o++) pieces.add(secret.slice(o, o + min));
  // Literal alternatives: the regex engine scans for them far faster than a loop could.
  const regex = new RegExp([...pieces].map(escapeRegex).join("|"), "g");
  return {
    runs(text, from, to) {
      const out: Span[] = [];
      const part = text.slice(0, to);
      regex.lastIndex = from;
      for (let m = regex.exec(part); m; m = regex.exec(part)) {
        // The longest run from here, over every place the piece occurs in the secret.
        let best = min;
        for (let o = secret.indexOf(m[0]); o >= 0; o = secret.indexOf(m[0], o + 1)) {
          let n = min;
          while (o + n < secret.length && m.index + n < to && text[m.index + n] === secret[o + n]) {
            n++;
          }
          best = Math.max(best, n);
        }
        out.push([m.index, m.index + best]);
        regex.lastIndex = m.index + best;
      }
      return out;
    },
  };
}

/** A match: `[start, end)`. */
type Span = [number, number];

/** `text` up to `end` (default: all of it) with every span replaced by `replacement`. */
function splice(
  text: string,
  spans: Span[],
  { replacement, end = text.length }: { replacement: string; end?: number },
): string {
  let out = "";
  let at = 0;
  for (const [s, e] of spans) {
    out += text.slice(at, s) + replacement;
    at = e;
  }
  return out + text.slice(at, end);
}

const cache = new Map<string, Redactor>();

/** The redactor for `secrets`, compiled once per list. */
export function secretRedactor(
  secrets: readonly string[],
  replacement = "[redacted]",
): Redactor {
  const usable = [...new Set(secrets.filter((s) => s.length >= MIN_SECRET_LENGTH))];
  const key = JSON.stringify([replacement, ...usable]);
  const cached = cache.get(key);
  if (cached) return cached;
  const forms: { pattern: string; length: number }[] = [];
  let span = 0;
  for (const secret of usable) {
    const add = (form: string, pattern = formPattern(form), width = 6) => {
      if (form.length < MIN_SECRET_LENGTH) return;
      forms.push({ pattern, length: form.length });
      // Each character may be written as a six-character escape with a gap after it.
      span = Math.max(span, form.length * (width + 2));
    };
    add(secret);
    // The characters after a core mix in bits of the secret's last byte, and padding follows.
    const tail = String.raw`[A-Za-z0-9+/_-]{0,2}(?:=|%3[dD]){0,2}`;
    for (const core of base64Cores(secret)) {
      add(core, formPattern(core) + tail);
      const safe = core.replaceAll("+", "-").replaceAll("/", "_");
      add(safe, formPattern(safe) + tail);
    }
    const h = hex(secret);
    add(h, hexPattern(h), 1);
  }
  forms.sort((a, b) => b.length - a.length);
  const regex = forms.length ? new RegExp(forms.map((f) => f.pattern).join("|"), "g") : undefined;
  const fragmentable = usable.filter((s) => s.length >= FRAGMENT_SECRET_LENGTH && !/\s/.test(s))
    .map(fragmentFinder);
  const matches = (text: string): Span[] => {
    if (!regex || text === "") return [];
    const full: Span[] = [];
    regex.lastIndex = 0;
    for (let m = regex.exec(text); m; m = regex.exec(text)) {
      if (m[0] === "") {
        regex.lastIndex++;
        continue;
      }
      full.push([m.index, m.index + m[0].length]);
    }
    if (fragmentable.length === 0) return full;
    // Fragments are looked for only between the whole-form matches.
    const out: Span[] = [];
    let at = 0;
    for (const gap of [...full, [text.length, text.length] as Span]) {
      let runs: Span[] = [];
      for (const finder of fragmentable) {
        for (const run of finder.runs(text, at, gap[0])) {
          if (!runs.some(([s, e]) => run[0] < e && s < run[1])) runs.push(run);
        }
      }
      runs = runs.sort((a, b) => a[0] - b[0]);
      out.push(...runs);
      if (gap[1] > gap[0]) out.push(gap);
      at = gap[1];
    }
    return out;
  };
  const redactor: Redactor = {
    span,
    redact: (text) => splice(text, matches(text), { replacement }),
    redactPrefix(text) {
      let cut = Math.max(0, text.length - span);
      const spans = matches(text);
      // A match that reaches the held part may grow with the next piece: hold it whole.
      for (const [s, e] of spans) if (s < cut && e > cut) cut = s;
      const settled = spans.filter(([, e]) => e <= cut);
      return { text: splice(text, settled, { replacement, end: cut }), rest: text.slice(cut) };
    },
  };
  if (cache.size > 64) cache.clear();
  cache.set(key, redactor);
  return redactor;
}

/** Replaces every form of each secret (see the module doc) with `replacement`. */
export function redactSecrets(
  text: string,
  secrets: readonly string[] = [],
  replacement = "[redacted]",
): string {
  return secretRedactor(secrets, replacement).redact(text);
}
