/**
 * "Did you mean" for configuration keys: the closest known key to a misspelt one.
 *
 * @module
 */

/**
 * The edit distance between `a` and `b`: insertions, deletions, substitutions and swaps of two
 * neighbouring characters each count 1 (optimal string alignment), so `knid` is 1 from `kind`.
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from(
    { length: a.length + 1 },
    (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
}

/**
 * The known key `word` most likely misspells, or `undefined` when none is close. Close means
 * an edit distance of at most a third of the longer word (at least 1, at most 3), ignoring
 * case and `-`/`_`; so `base_ur` → `base_url` and `provider` → `providers`, but a short word
 * such as `url` is not matched to an unrelated `urls`-like key by accident. On a tie the
 * candidate listed first wins, so callers list the likelier keys first.
 */
export function suggestKey(word: string, candidates: Iterable<string>): string | undefined {
  const norm = (s: string) => s.toLowerCase().replaceAll("-", "_");
  const w = norm(word);
  let best: { key: string; distance: number } | undefined;
  for (const key of candidates) {
    if (key === word) continue;
    const k = norm(key);
    const limit = Math.min(3, Math.max(1, Math.floor(Math.max(w.length, k.length) / 3)));
    const distance = editDistance(w, k);
    if (distance > limit) continue;
    if (!best || distance < best.distance) best = { key, distance };
  }
  return best?.key;
}
