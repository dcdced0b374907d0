// Upstream's DefaultNormalizeScore (plugins/helper): scales raw scores from [0, max] to
// [0, maxPriority] with integer division, optionally reversed (maxPriority - score).
import type { NodeScore } from '../framework/interfaces';

export function defaultNormalizeScore(maxPriority: number, reverse: boolean, scores: NodeScore[]): void {
  let maxCount = 0;
  for (const s of scores) if (s.score > maxCount) maxCount = s.score;
  if (maxCount === 0) {
    if (reverse) for (const s of scores) s.score = maxPriority;
    return;
  }
  for (const s of scores) {
    const score = Math.trunc((maxPriority * s.score) / maxCount);
    s.score = reverse ? maxPriority - score : score;
  }
}
