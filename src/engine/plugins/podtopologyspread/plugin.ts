// PodTopologySpread as upstream's pkg/scheduler/framework/plugins/podtopologyspread: hard
// constraints (DoNotSchedule) filter nodes by skew (filtering.ts), soft ones (ScheduleAnyway) score
// them (scoring.ts); both read the pod's constraints and the domain counts kept across cycles
// through one SpreadCounts (common.ts). A pod without constraints of its own gets the profile's
// default constraints (System: upstream's).
import { isQualifiedName } from '../../api/labels';
import {
  fieldDuplicate,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  type ArgsError,
  type FieldError,
} from '../../api/field';
import { type Result } from '../../api/result';
import type { Labels, Node, Pod, TopologySpreadConstraint } from '../../api/types';
import { labelValue } from '../../api/labels';
import { ActionType, clusterEvent, type ClusterEventWithHint, type EnqueueExtensions, type QueueingHint } from '../../framework/events';
import type { CycleState } from '../../framework/cycle-state';
import type { FilterPlugin, FrameworkHandle, NodeScore, PreFilterPlugin, PreScorePlugin, ScorePlugin } from '../../framework/interfaces';
import type { NodeInfo, PodInfo } from '../../framework/node-info';
import type { Status } from '../../framework/status';
import { argsObject, argsResult, factoryOf } from '../args';
import { Names } from '../names';
import { hasAllTopologyKeys, LABEL_HOSTNAME, LABEL_TOPOLOGY_ZONE, SpreadCounts, type Constraint } from './common';
import { SpreadFiltering } from './filtering';
import { SpreadScoring } from './scoring';

export const NAME = Names.PodTopologySpread;

/** Upstream's systemDefaultConstraints, used when defaultingType is System. */
export const SYSTEM_DEFAULT_CONSTRAINTS: readonly TopologySpreadConstraint[] = Object.freeze([
  { topologyKey: LABEL_HOSTNAME, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 3 },
  { topologyKey: LABEL_TOPOLOGY_ZONE, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 5 },
] as const);

export type DefaultingType = 'System' | 'List';

export interface PodTopologySpreadArgs {
  /** Constraints for pods that have none (defaultingType List); they must not carry a labelSelector. */
  readonly defaultConstraints: readonly TopologySpreadConstraint[];
  readonly defaultingType: DefaultingType;
}

/** Upstream's ValidatePodTopologySpreadArgs, after v1 defaulting (defaultingType System). */
export function validateArgs(args: unknown): Result<PodTopologySpreadArgs, ArgsError> {
  const fields = argsObject(NAME, args, ['defaultConstraints', 'defaultingType']);
  if (!fields.ok) return fields;
  const errors: FieldError[] = [];
  const defaultingType = fields.value.defaultingType ?? 'System';
  if (defaultingType !== 'System' && defaultingType !== 'List') {
    errors.push(fieldNotSupported(['defaultingType'], defaultingType, ['System', 'List']));
  }
  const constraints = fields.value.defaultConstraints ?? [];
  if (!Array.isArray(constraints)) {
    errors.push(fieldInvalid(['defaultConstraints'], constraints, 'want a list of constraints'));
  } else {
    if (defaultingType === 'System' && constraints.length > 0)
      errors.push(fieldInvalid(['defaultingType'], 'System', 'when .defaultConstraints are not empty'));
    constraints.forEach((c: unknown, i) => errors.push(...constraintErrors(c, i, constraints)));
  }
  return argsResult(NAME, errors, {
    defaultConstraints: constraints as TopologySpreadConstraint[],
    defaultingType: defaultingType as DefaultingType,
  });
}

function constraintErrors(value: unknown, index: number, all: readonly unknown[]): FieldError[] {
  const path = ['defaultConstraints', index];
  if (typeof value !== 'object' || value === null) return [fieldInvalid(path, value, 'want a constraint object')];
  const c = value as Partial<Record<keyof TopologySpreadConstraint, unknown>>;
  const errors: FieldError[] = [];
  if (typeof c.maxSkew !== 'number' || !Number.isInteger(c.maxSkew) || c.maxSkew <= 0)
    errors.push(fieldInvalid([...path, 'maxSkew'], c.maxSkew, 'not in valid range (0, inf)'));
  if (typeof c.topologyKey !== 'string' || c.topologyKey === '') errors.push(fieldRequired([...path, 'topologyKey'], 'can not be empty'));
  else if (!isQualifiedName(c.topologyKey)) errors.push(fieldInvalid([...path, 'topologyKey'], c.topologyKey, 'not a valid label name'));
  if (c.whenUnsatisfiable === undefined || c.whenUnsatisfiable === '')
    errors.push(fieldRequired([...path, 'whenUnsatisfiable'], 'can not be empty'));
  else if (c.whenUnsatisfiable !== 'DoNotSchedule' && c.whenUnsatisfiable !== 'ScheduleAnyway')
    errors.push(fieldNotSupported([...path, 'whenUnsatisfiable'], c.whenUnsatisfiable, ['DoNotSchedule', 'ScheduleAnyway']));
  if (c.labelSelector !== undefined)
    errors.push(fieldForbidden([...path, 'labelSelector'], 'constraint must not define a selector, as they deduced for each pod'));
  const repeated = all.slice(0, index).some((o) => {
    const other = o as Partial<TopologySpreadConstraint> | null;
    return other?.topologyKey === c.topologyKey && other?.whenUnsatisfiable === c.whenUnsatisfiable;
  });
  if (repeated) errors.push(fieldDuplicate(path, `{${String(c.topologyKey)}, ${String(c.whenUnsatisfiable)}}`));
  return errors;
}

/** upstream isSchedulableAfterPodLabelChange: the labels changed, and a constraint's selector matches one version and not the other. */
function labelChangeHint(original: Pod, modified: Pod, constraints: readonly Constraint[]): QueueingHint {
  if (JSON.stringify(original.metadata.labels ?? {}) === JSON.stringify(modified.metadata.labels ?? {})) return 'QueueSkip';
  return constraints.some((c) => c.selector(original.metadata.labels) !== c.selector(modified.metadata.labels)) ? 'Queue' : 'QueueSkip';
}

/** upstream checkTopologyKeyLabelsChanged. */
function topologyKeyLabelsChanged(original: Labels | undefined, modified: Labels | undefined, constraints: readonly Constraint[]): boolean {
  return constraints.some((c) => labelValue(original, c.topologyKey) !== labelValue(modified, c.topologyKey));
}

export const factory = factoryOf(validateArgs, (args, handle) => new PodTopologySpread(args, handle));

export class PodTopologySpread implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = NAME;
  private readonly filtering: SpreadFiltering;
  private readonly scoring: SpreadScoring;
  private readonly shared: SpreadCounts;

  constructor(args: PodTopologySpreadArgs, handle: FrameworkHandle) {
    const systemDefaulted = args.defaultingType === 'System';
    const shared = new SpreadCounts(systemDefaulted ? SYSTEM_DEFAULT_CONSTRAINTS : args.defaultConstraints, systemDefaulted);
    this.shared = shared;
    this.filtering = new SpreadFiltering(shared, handle);
    this.scoring = new SpreadScoring(shared, handle);
  }

  /**
   * upstream EventsToRegister: a bound pod added, relabelled or deleted; the pod's own tolerations or
   * labels; a node added, deleted, relabelled or its taints changed.
   */
  eventsToRegister(): readonly ClusterEventWithHint[] {
    return [
      {
        event: clusterEvent('AssignedPod', ActionType.Add | ActionType.UpdatePodLabel | ActionType.Delete),
        hint: (pod, o, n) => this.isSchedulableAfterAssignedPodChange(pod, o, n),
      },
      {
        event: clusterEvent('TargetPod', ActionType.UpdatePodToleration | ActionType.UpdatePodLabel),
        hint: (pod, o, n) => this.isSchedulableAfterTargetPodChange(pod, o, n),
      },
      {
        event: clusterEvent('Node', ActionType.Add | ActionType.Delete | ActionType.UpdateNodeLabel | ActionType.UpdateNodeTaint),
        hint: (pod, o, n) => this.isSchedulableAfterNodeChange(pod, o, n),
      },
    ];
  }

  /** upstream isSchedulableAfterTargetPodChange: its tolerations changed under a constraint honoring taints, or its labels' match of a constraint's selector. */
  isSchedulableAfterTargetPodChange(pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
    const [original, modified] = [oldObj as Pod, newObj as Pod];
    const constraints = this.shared.constraintsOf(pod).hard;
    if (
      JSON.stringify(modified.spec.tolerations ?? null) !== JSON.stringify(original.spec.tolerations ?? null) &&
      constraints.some((c) => c.honorTaints)
    )
      return 'Queue';
    return labelChangeHint(original, modified, constraints);
  }

  /**
   * upstream isSchedulableAfterAssignedPodChange: a bound (or nominated) pod of its namespace whose
   * labels' match of a constraint changed; added or deleted, one that matches a constraint.
   */
  isSchedulableAfterAssignedPodChange(pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
    const [original, modified] = [oldObj as Pod | undefined, newObj as Pod | undefined];
    const involved = (p: Pod) =>
      (!!p.spec.nodeName || !!p.status?.nominatedNodeName) && (p.metadata.namespace ?? 'default') === (pod.metadata.namespace ?? 'default');
    if ((modified && !involved(modified)) || (original && !involved(original))) return 'QueueSkip';
    const constraints = this.shared.constraintsOf(pod).hard;
    if (modified && original) return labelChangeHint(original, modified, constraints);
    const changed = modified ?? original;
    if (!changed) return 'Queue';
    return constraints.some((c) => c.selector(changed.metadata.labels)) ? 'Queue' : 'QueueSkip';
  }

  /**
   * upstream isSchedulableAfterNodeChange: whether a node has every constraint's topology key
   * changed, or (having them) one of their values or its taints changed; a node added or deleted
   * that has them.
   */
  isSchedulableAfterNodeChange(pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
    const [original, modified] = [oldObj as Node | undefined, newObj as Node | undefined];
    const constraints = this.shared.constraintsOf(pod).hard;
    const originalMatching = original !== undefined && hasAllTopologyKeys(original.metadata.labels, constraints);
    const modifiedMatching = modified !== undefined && hasAllTopologyKeys(modified.metadata.labels, constraints);
    if (original && modified) {
      if (originalMatching !== modifiedMatching) return 'Queue';
      if (
        modifiedMatching &&
        (topologyKeyLabelsChanged(original.metadata.labels, modified.metadata.labels, constraints) ||
          JSON.stringify(original.spec?.taints ?? null) !== JSON.stringify(modified.spec?.taints ?? null))
      )
        return 'Queue';
      return 'QueueSkip';
    }
    if (modified) return modifiedMatching ? 'Queue' : 'QueueSkip';
    return originalMatching ? 'Queue' : 'QueueSkip';
  }

  preFilter(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): { status: Status } {
    return this.filtering.preFilter(state, pod, nodes);
  }

  addPod(state: CycleState, podToSchedule: PodInfo, podToAdd: PodInfo, node: NodeInfo): Status {
    return this.filtering.updateWithPod(state, podToSchedule.pod, podToAdd.pod, node.node, 1);
  }

  removePod(state: CycleState, podToSchedule: PodInfo, podToRemove: PodInfo, node: NodeInfo): Status {
    return this.filtering.updateWithPod(state, podToSchedule.pod, podToRemove.pod, node.node, -1);
  }

  filter(state: CycleState, _pod: PodInfo, node: NodeInfo): Status {
    return this.filtering.filter(state, node);
  }

  preScore(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): Status {
    return this.scoring.preScore(state, pod, nodes);
  }

  score(state: CycleState, _pod: PodInfo, node: NodeInfo): number | Status {
    return this.scoring.score(state, node);
  }

  normalizeScore(state: CycleState, _pod: PodInfo, scores: NodeScore[]): Status {
    return this.scoring.normalizeScore(state, scores);
  }
}
