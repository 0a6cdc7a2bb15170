/**
 * Memory search and the budgeted auto-recall that rides each real user turn. Recall is a
 * low-authority suffix of the user's message: the system prompt and tool schemas never
 * change, so the cached prefix stays intact.
 *
 * @module
 */
import { Bm25Index, tokenize } from "./bm25.ts";
import type { Fact } from "./facts.ts";

/** Most facts one recall adds. */
export const RECALL_MAX_FACTS = 5;
/** Most characters one recall adds. */
export const RECALL_MAX_CHARS = 1500;
/** Half-life of a fact's weight, in days: old facts rank lower, never vanish. */
const STALE_HALF_LIFE_DAYS = 180;

const GENERIC = new RegExp(
  "^(?:ok(?:ay)?|yes|no|y|n|go|go on|continue|proceed|next|thanks|thank you|done|retry|again|" +
    "sure|please do|do it|继续|好的?|是的?|可以|谢谢|对)\\W*$",
  "iu",
);

const STOPWORDS = new Set(
  "a an and are as at be by can could do does for from how i in is it its me my of on or our please so that the this to was we what when where which who why will with you your"
    .split(" "),
);

/** Whether a request is too generic to recall anything for. */
export function isGenericRequest(text: string): boolean {
  if (GENERIC.test(text.trim())) return true;
  return new Set(meaningfulTerms(text)).size < 2;
}

/** Query terms that carry meaning: no stopwords, no single Latin letters. */
function meaningfulTerms(text: string): string[] {
  return tokenize(text).filter((t) =>
    !STOPWORDS.has(t) && (t.length > 1 || !/^[a-z0-9_]$/.test(t))
  );
}

function normalized(text: string): string {
  return text.toLowerCase().replace(/\s+/g, " ").trim();
}

function ageDays(fact: Fact, now: Date): number {
  return Math.max(0, (now.getTime() - Date.parse(fact.updated)) / 86_400_000);
}

/** A ranked fact. */
export interface ScoredFact {
  fact: Fact;
  score: number;
}

/**
 * Ranks facts for a query: BM25, weighted down by age, project facts ahead of global ones;
 * of two equivalent facts (same text) only the project one is kept.
 */
export function rankFacts(
  facts: readonly Fact[],
  query: string,
  now: Date = new Date(),
): ScoredFact[] {
  const index = new Bm25Index();
  facts.forEach((fact, i) => index.add(i, `${fact.type} ${fact.text}`));
  const scored = index.search(query, facts.length).map((hit) => {
    const fact = facts[hit.id];
    const stale = Math.pow(0.5, ageDays(fact, now) / STALE_HALF_LIFE_DAYS);
    const scope = fact.scope === "project" ? 1.2 : 1;
    return { fact, score: hit.score * stale * scope };
  });
  scored.sort((a, b) => b.score - a.score || a.fact.id.localeCompare(b.fact.id));
  const seen = new Map<string, ScoredFact>();
  for (const s of scored) {
    const key = normalized(s.fact.text);
    const prior = seen.get(key);
    if (!prior || (prior.fact.scope === "global" && s.fact.scope === "project")) seen.set(key, s);
  }
  return scored.filter((s) => seen.get(normalized(s.fact.text)) === s);
}

/** One line per fact, as memory search and recall show them. */
export function factLine(fact: Fact): string {
  return `- [${fact.id} r${fact.revision} ${fact.scope}/${fact.type} ${
    fact.updated.slice(0, 10)
  }] ${fact.text}`;
}

/** The recall block for a user request, or undefined when nothing relevant is remembered. */
export function recallBlock(
  facts: readonly Fact[],
  request: string,
  now: Date = new Date(),
): string | undefined {
  if (facts.length === 0 || isGenericRequest(request)) return undefined;
  const lines: string[] = [];
  let chars = 0;
  // Stopwords are dropped first, so every hit shares at least one meaningful term.
  for (const { fact } of rankFacts(facts, meaningfulTerms(request).join(" "), now)) {
    if (lines.length === RECALL_MAX_FACTS) break;
    const line = factLine(fact);
    if (chars + line.length > RECALL_MAX_CHARS) continue;
    lines.push(line);
    chars += line.length;
  }
  if (lines.length === 0) return undefined;
  return `<recalled-memory note="Background from memory, possibly outdated. The request above takes precedence.">\n${
    lines.join("\n")
  }\n</recalled-memory>`;
}
