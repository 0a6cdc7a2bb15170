/**
 * ANSI styling for text the UI renders itself (Markdown, diffs, code). Plain when colour is off,
 * so tests and `NO_COLOR` terminals get clean text. Ink's own colour props go through chalk,
 * which ignores `NO_COLOR`; components pass them only when `Styles.color` is on.
 *
 * @module
 */

/** A function that wraps text in one style. */
export type Paint = (text: string) => string;

/** The styles the renderers use. */
export interface Styles {
  color: boolean;
  bold: Paint;
  dim: Paint;
  italic: Paint;
  underline: Paint;
  strike: Paint;
  inverse: Paint;
  red: Paint;
  green: Paint;
  yellow: Paint;
  blue: Paint;
  magenta: Paint;
  cyan: Paint;
  gray: Paint;
}

function sgr(open: number, close: number): Paint {
  // Re-open after nested closes so `bold(a + dim(b) + c)` keeps `c` bold.
  const openSeq = `\x1b[${open}m`;
  const closeSeq = `\x1b[${close}m`;
  return (text) =>
    text === "" ? "" : `${openSeq}${text.replaceAll(closeSeq, closeSeq + openSeq)}${closeSeq}`;
}

const identity: Paint = (text) => text;

/** Styles with ANSI colour on or off. */
export function makeStyles(color: boolean): Styles {
  if (!color) {
    return {
      color,
      bold: identity,
      dim: identity,
      italic: identity,
      underline: identity,
      strike: identity,
      inverse: identity,
      red: identity,
      green: identity,
      yellow: identity,
      blue: identity,
      magenta: identity,
      cyan: identity,
      gray: identity,
    };
  }
  return {
    color,
    bold: sgr(1, 22),
    dim: sgr(2, 22),
    italic: sgr(3, 23),
    underline: sgr(4, 24),
    strike: sgr(9, 29),
    inverse: sgr(7, 27),
    red: sgr(31, 39),
    green: sgr(32, 39),
    yellow: sgr(33, 39),
    blue: sgr(34, 39),
    magenta: sgr(35, 39),
    cyan: sgr(36, 39),
    gray: sgr(90, 39),
  };
}

/** Whether the environment asks for colour: `NO_COLOR` off, and not a dumb terminal. */
export function colorWanted(env: Record<string, string | undefined>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR === "0") return false;
  return env.TERM !== "dumb";
}

/** Removes ANSI escape sequences. */
export function stripAnsi(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, "");
}
