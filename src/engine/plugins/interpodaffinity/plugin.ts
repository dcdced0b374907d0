// InterPodAffinity as upstream's pkg/scheduler/framework/plugins/interpodaffinity: required pod
// affinity and anti-affinity filter nodes (filtering.ts), preferred terms score them in both
// directions (scoring.ts); both read pods' terms through one TermCatalog (terms.ts).
import { fieldInvalid, type ArgsError, type FieldError } from '../../api/field';
import { type Result } from '../../api/result';
import type { CycleState } from '../../framework/cycle-state';
import type { FilterPlugin, FrameworkHandle, NodeScore, PreFilterPlugin, PreScorePlugin, ScorePlugin } from '../../framework/interfaces';
import type { NodeInfo, PodInfo } from '../../framework/node-info';
import type { Status } from '../../framework/status';
import type { Node, Pod } from '../../api/types';
import { ActionType, clusterEvent, type ClusterEventWithHint, type EnqueueExtensions, type QueueingHint } from '../../framework/events';
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

export class InterPodAffinity implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = NAME;
  private readonly filtering: AffinityFiltering;
  private readonly scoring: AffinityScoring;
  /** The terms the queueing hints compile (matched without namespace labels, as upstream's hints). */
  private readonly hintTerms = new TermCatalog();

  /** upstream EventsToRegister: a bound pod added, relabelled or deleted; the pod's own labels; a node added or relabelled. */
  eventsToRegister(): readonly ClusterEventWithHint[] {
    return [
      {
        event: clusterEvent('AssignedPod', ActionType.Add | ActionType.UpdatePodLabel | ActionType.Delete),
        hint: (pod, o, n) => this.isSchedulableAfterAssignedPodChange(pod, o, n),
      },
      { event: clusterEvent('TargetPod', ActionType.UpdatePodLabel), hint: () => 'Queue' },
      {
        event: clusterEvent('Node', ActionType.Add | ActionType.UpdateNodeLabel),
        hint: (pod, o, n) => this.isSchedulableAfterNodeChange(pod, o, n),
      },
    ];
  }

  /**
   * upstream isSchedulableAfterAssignedPodChange: a bound (or nominated) pod now matches all the
   * pod's affinity terms, or no longer matches one of its anti-affinity terms; added, it matches all
   * the affinity terms; deleted, it matched an anti-affinity term, or the pod matched one of its own.
   */
  isSchedulableAfterAssignedPodChange(pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
    const [original, modified] = [oldObj as Pod | undefined, newObj as Pod | undefined];
    const unassigned = (p: Pod | undefined) => p !== undefined && !p.spec.nodeName && !p.status?.nominatedNodeName;
    if (unassigned(modified) || unassigned(original)) return 'QueueSkip';
    const catalog = this.hintTerms;
    const { requiredAffinity: terms, requiredAntiAffinity: antiTerms } = catalog.of(pod);
    const matchesAll = (p: Pod) => terms.length > 0 && terms.every((t) => catalog.matchesWithoutNamespaceLabels(t, p));
    const matchesAny = (list: typeof antiTerms, p: Pod) => list.some((t) => catalog.matchesWithoutNamespaceLabels(t, p));
    if (modified && original) {
      if (!matchesAll(original) && matchesAll(modified)) return 'Queue';
      if (matchesAny(antiTerms, original) && !matchesAny(antiTerms, modified)) return 'Queue';
      return 'QueueSkip';
    }
    if (modified) return matchesAll(modified) ? 'Queue' : 'QueueSkip';
    if (!original) return 'Queue';
    if (matchesAny(antiTerms, original)) return 'Queue';
    return matchesAny(catalog.of(original).requiredAntiAffinity, pod) ? 'Queue' : 'QueueSkip';
  }

  /**
   * upstream isSchedulableAfterNodeChange: a node added with an affinity term's topology key (any
   * added node when the pod has anti-affinity terms), or a node's value for an affinity term's key
   * added or changed, or for an anti-affinity term's key removed or changed.
   */
  isSchedulableAfterNodeChange(pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
    const [original, modified] = [oldObj as Node | undefined, newObj as Node];
    const { requiredAffinity: terms, requiredAntiAffinity: antiTerms } = this.hintTerms.of(pod);
    const label = (n: Node, key: string) => n.metadata.labels?.[key];
    for (const term of terms) {
      const after = label(modified, term.topologyKey);
      if (!original) {
        if (after !== undefined) return 'Queue';
        continue;
      }
      const before = label(original, term.topologyKey);
      if (before === undefined && after !== undefined) return 'Queue';
      if (before !== undefined && after !== undefined && before !== after) return 'Queue';
    }
    for (const term of antiTerms) {
      if (!original) return 'Queue';
      const [before, after] = [label(original, term.topologyKey), label(modified, term.topologyKey)];
      if (before !== undefined && after === undefined) return 'Queue';
      if (before !== undefined && after !== undefined && before !== after) return 'Queue';
    }
    return 'QueueSkip';
  }

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
