// The keys plugins give the runtime for remembering their verdicts and scores across cycles
// (FilterPlugin.filterKey, ScorePlugin.scoreKey): built from the parts of the pod a plugin reads,
// once per pod object (pods are immutable and are asked for keys in every cycle).
import type { Pod } from '../api/types';

/** `build` memoized per pod object. */
export function keyPerPod(build: (pod: Pod) => unknown): (pod: Pod) => string {
  const keys = new WeakMap<Pod, string>();
  return (pod) => {
    let key = keys.get(pod);
    if (key === undefined) keys.set(pod, (key = JSON.stringify(build(pod)) ?? ''));
    return key;
  };
}
