// The optimizing planner's plan from the classes (packing.ts): the engine's filters run once per pod
// group and node class, the packing is arithmetic, and the result is carried out pod by pod in
// queue order through every filter plugin (replay.ts), which has the last word: a pod its target
// no longer takes at its turn goes to the best node then.
import { seededRandom } from '../../api/random';
import { placementClasses, type PlacementClasses } from '../solver/milp';
import { Packing, type FillRule } from './packing';
import type { PlannerResult, PlanRequest } from '../planner';
import { replay } from './replay';

/** Work allowed to the improvement of each packing, per pod and node of the request (in node looks). */
const WORK_PER_ITEM = 600;
/** Small sets get at least this much: a few hundred rounds of ruin and recreate cost milliseconds there. */
const MIN_WORK = 100_000;
/**
 * The classes' packing of the request (pack and cost objectives), the better of the fill rules
 * given, replayed through the filters. Balanced fills do better on mixed requests; tightest ones
 * where one resource binds. When they leave pods out, smaller pods first place more of them, unless
 * `placeable` (asked then: the most pods any plan places, when known) says no plan places more.
 */
export function classPlan(
  request: PlanRequest,
  classes: PlacementClasses = placementClasses(request, true),
  rules: readonly FillRule[] = ['balanced', 'tightest'],
  placeable?: (placed: number) => number | undefined,
): PlannerResult {
  const budget = Math.max(MIN_WORK, WORK_PER_ITEM * (classes.pods.length + classes.nodes.length));
  const packed = (rule: FillRule, order: 'largest' | 'smallest') => {
    const packing = new Packing(classes, request.objective);
    packing.constructByNodes(packing.constructionOrder(order), rule);
    packing.emptyNodes(packing.work + budget);
    packing.recreate(packing.work + budget, seededRandom(request.solver?.seed ?? 1));
    return packing;
  };
  const packings = rules.map((rule) => packed(rule, 'largest'));
  const most = Math.max(...packings.map((p) => p.placed()));
  if (most < (packings[0] as Packing).groupOf.length && most < (placeable?.(most) ?? Infinity))
    packings.push(...rules.map((rule) => packed(rule, 'smallest')));
  const best = packings.reduce((a, b) => (compare(b, a) < 0 ? b : a));
  return replay(request, best.targets());
}

/** Negative when `a` is the better packing: more pods placed, then cheaper (cost) or fewer nodes taken into use, then fewer used. */
function compare(a: Packing, b: Packing): number {
  const [ua, ub] = [a.usage(), b.usage()];
  return b.placed() - a.placed() || (a.objective === 'cost' ? ua.cost - ub.cost : 0) || ua.opened - ub.opened || ua.used - ub.used;
}
