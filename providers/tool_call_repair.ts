/**
 * Repair of tool-call arguments cut off by an output limit. Only the unambiguous case is
 * repaired: the text stops right after a complete value and all that is missing are the
 * closing brackets. Anything else (a cut string, number, literal or key, a dangling comma or
 * colon) could have meant something different, so the caller reports it instead of guessing.
 *
 * @module
 */

type Expect = "key" | "colon" | "value" | "comma";

interface Frame {
  closer: "}" | "]";
  expect: Expect;
}

/**
 * Returns the repaired JSON object text, or `undefined` when the text is not a truncated JSON
 * object that closing brackets alone can complete. Text that already parses is returned as is.
 */
export function repairTruncatedJson(text: string): string | undefined {
  if (parsesAsObject(text)) return text;
  const stack: Frame[] = [];
  let topDone = false;
  // Whether the text ends in a way that a closing bracket would complete without changing
  // any value already written.
  let endsCleanly = false;
  let i = 0;
  const n = text.length;
  const valueDone = (): void => {
    const top = stack.at(-1);
    if (top) top.expect = "comma";
    else topDone = true;
  };
  while (i < n) {
    const ch = text[i];
    if (ch === " " || ch === "\t" || ch === "\n" || ch === "\r") {
      i++;
      continue;
    }
    if (topDone) return undefined;
    const top = stack.at(-1);
    const expect: Expect = top ? top.expect : "value";
    endsCleanly = false;
    if (ch === "{" || ch === "[") {
      if (expect !== "value") return undefined;
      stack.push({ closer: ch === "{" ? "}" : "]", expect: ch === "{" ? "key" : "value" });
      i++;
      continue;
    }
    if (ch === "}" || ch === "]") {
      if (!top || top.closer !== ch) return undefined;
      // A closer after a key and before its value is malformed; other misplaced closers
      // (`{"a":1,}`) fail the final parse.
      if (top.expect === "colon") return undefined;
      stack.pop();
      valueDone();
      endsCleanly = true;
      i++;
      continue;
    }
    if (ch === ":") {
      if (expect !== "colon") return undefined;
      top!.expect = "value";
      i++;
      continue;
    }
    if (ch === ",") {
      if (expect !== "comma" || !top) return undefined;
      top.expect = top.closer === "}" ? "key" : "value";
      i++;
      continue;
    }
    if (ch === '"') {
      const end = stringEnd(text, i);
      if (end === undefined) return undefined; // cut inside a string
      i = end;
      if (expect === "key") {
        top!.expect = "colon";
      } else if (expect === "value") {
        valueDone();
        endsCleanly = true;
      } else {
        return undefined;
      }
      continue;
    }
    const literal = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i));
    if (!literal || expect !== "value") return undefined;
    i += literal[0].length;
    valueDone();
    // A number at the very end may have been cut (`12` of `123`); one followed by whitespace,
    // and any complete `true` / `false` / `null`, is whole.
    endsCleanly = i < n || !/^-?\d/.test(literal[0]);
  }
  if (!endsCleanly || stack.length === 0) return undefined;
  const closers = stack.map((f) => f.closer).reverse().join("");
  const repaired = text.trimEnd() + closers;
  return parsesAsObject(repaired) ? repaired : undefined;
}

/** Index just past the closing quote of the string starting at `start`, or undefined. */
function stringEnd(text: string, start: number): number | undefined {
  for (let i = start + 1; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\\") {
      i++;
      continue;
    }
    if (ch === '"') return i + 1;
  }
  return undefined;
}

function parsesAsObject(text: string): boolean {
  try {
    const value = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}
