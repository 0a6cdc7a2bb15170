/**
 * Finds `@` references in a prompt. A reference starts with `@` at the beginning of the text or
 * after whitespace or an opening bracket, so e-mail addresses (`a@b.com`) never match. Whether a
 * candidate really is a reference is decided later, by checking the path or the MCP server.
 *
 * @module
 */

/** One `@…` token of a prompt. */
export interface ReferenceToken {
  /** Offset of the `@`. */
  start: number;
  /** Offset just past the token. */
  end: number;
  /** What follows the `@`, without quotes. */
  target: string;
  /** Whether the target was written in double quotes (`@"my file.txt"`). */
  quoted: boolean;
}

const TOKEN = /(?<=^|[\s([{<])@(?:"([^"\n]+)"|([^\s"]+))/g;

/** Every `@` token of `text`, in order. */
export function findReferenceTokens(text: string): ReferenceToken[] {
  const out: ReferenceToken[] = [];
  for (const match of text.matchAll(TOKEN)) {
    const quoted = match[1] !== undefined;
    out.push({
      start: match.index,
      end: match.index + match[0].length,
      target: quoted ? match[1] : match[2],
      quoted,
    });
  }
  return out;
}

/** Trailing characters that usually belong to the sentence, not the path. */
const TRAILING = /[.,;:!?)\]}>'`]+$/;

/**
 * Candidate targets for a token, most literal first: `README.md.` also tries `README.md`, so a
 * reference at the end of a sentence still resolves.
 */
export function candidateTargets(token: ReferenceToken): string[] {
  if (token.quoted) return [token.target];
  const trimmed = token.target.replace(TRAILING, "");
  return trimmed && trimmed !== token.target ? [token.target, trimmed] : [token.target];
}

/** Splits `server:uri` when the part before the colon looks like a server name. */
export function splitResourceTarget(target: string): { server: string; uri: string } | undefined {
  const match = /^([A-Za-z0-9_.-]+):(.+)$/.exec(target);
  if (!match) return undefined;
  return { server: match[1], uri: match[2] };
}
