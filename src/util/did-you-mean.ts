// "did you mean ...?" for a mistyped key, flag or option: the known word nearest to the typo.
import { distance } from 'fastest-levenshtein';

/** The candidate nearest to `word` (case-insensitive), if fewer than `maxDistance` edits away. */
export function didYouMean(word: string, candidates: readonly string[], maxDistance = 4): string | undefined {
  let best: string | undefined;
  let bestDistance = maxDistance;
  for (const c of candidates) {
    const d = distance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best;
}
