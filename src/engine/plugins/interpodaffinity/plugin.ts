// InterPodAffinity as upstream's pkg/scheduler/framework/plugins/interpodaffinity: required pod
// affinity and anti-affinity filter nodes (filtering.ts), preferred terms score them in both
// directions (scoring.ts); both read pods' terms through one TermCatalog (terms.ts).
import { fieldInvalid, type ArgsError, type FieldError } from '../../api/field';
import { type Result } from '../../api/result';
import type { CycleState } from '../../framework/cycle-state';
import type { FilterPlugin, FrameworkHandle, NodeScore, PreFilterPlugin, PreScorePlugin, ScorePlugin } from '../../framework/interfaces';
import type { NodeInfo, PodInfo } from '../../framework/node-info';
import type { Status } from '../../framework/status';
import { argsObject, argsResult, factoryOf } from '../args';
import { Names } from '../names';
import { AffinityFiltering } from './filtering';
import { AffinityScoring } from './scoring';
import { TermCatalog } from './terms';

export const NAME = Names.InterPodAffinity;

export interface InterPodAffinityArgs {
  /** Score weight of an existing pod's required affinity term that the incoming pod matches (0..100). */
  readonly hardPodAffinityWeight: number;
  /** Skip existing pods' preferred terms when the incoming pod has no preferred terms of its own. */
  readonly ignorePreferredTermsOfExistingPods: boolean;
}

/** Upstream's ValidateInterPodAffinityArgs, after v1 defaulting (hardPodAffinityWeight 1). */
export function validateArgs(args: unknown): Result<InterPodAffinityArgs, ArgsError> {
  const fields = argsObject(NAME, args, ['hardPodAffinityWeight', 'ignorePreferredTermsOfExistingPods']);
  if (!fields.ok) return fields;
  const errors: FieldError[] = [];
  const weight = fields.value.hardPodAffinityWeight ?? 1;
  if (typeof weight !== 'number' || !Number.isInteger(weight) || weight < 0 || weight > 100) {
    errors.push(fieldInvalid(['hardPodAffinityWeight'], weight, 'not in valid range [0, 100]'));
  }
  const ignore = fields.value.ignorePreferredTermsOfExistingPods ?? false;
  if (typeof ignore !== 'boolean') errors.push(fieldInvalid(['ignorePreferredTermsOfExistingPods'], ignore, 'want true or false'));
  return argsResult(NAME, errors, { hardPodAffinityWeight: weight as number, ignorePreferredTermsOfExistingPods: ignore as boolean });
}

export const factory = factoryOf(validateArgs, (args, handle) => new InterPodAffinity(args, handle));

export class InterPodAffinity implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin {
  readonly name = NAME;
  private readonly filtering: AffinityFiltering;
  private readonly scoring: AffinityScoring;

  constructor(args: InterPodAffinityArgs, handle: FrameworkHandle) {
    const catalog = new TermCatalog();
    this.filtering = new AffinityFiltering(catalog, handle);
    this.scoring = new AffinityScoring(catalog, args, handle);
  }

  preFilter(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): { status: Status } {
    return this.filtering.preFilter(state, pod, nodes);
  }

  addPod(state: CycleState, _podToSchedule: PodInfo, podToAdd: PodInfo, node: NodeInfo): Status {
    return this.filtering.updateWithPod(state, podToAdd, node, 1);
  }

  removePod(state: CycleState, _podToSchedule: PodInfo, podToRemove: PodInfo, node: NodeInfo): Status {
    return this.filtering.updateWithPod(state, podToRemove, node, -1);
  }

  filter(state: CycleState, _pod: PodInfo, node: NodeInfo): Status {
    return this.filtering.filter(state, node);
  }

  preScore(state: CycleState, pod: PodInfo): Status {
    return this.scoring.preScore(state, pod);
  }

  score(state: CycleState, _pod: PodInfo, node: NodeInfo): number | Status {
    return this.scoring.score(state, node);
  }

  normalizeScore(state: CycleState, _pod: PodInfo, scores: NodeScore[]): Status {
    return this.scoring.normalizeScore(state, scores);
  }
}
