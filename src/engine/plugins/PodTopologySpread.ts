// PodTopologySpread as upstream's pkg/scheduler/framework/plugins/podtopologyspread: hard
// constraints (DoNotSchedule) filter nodes by skew, soft ones (ScheduleAnyway) score them. A pod
// without constraints of its own gets the profile's default constraints (System: upstream's).
//
// PreFilter counts, per hard constraint, the matching pods in each domain (topology value) over the
// nodes eligible by the node inclusion policies, once per cycle; Filter is then O(constraints) per
// node. PreScore does the same for soft constraints, except that hostname domains (one node each)
// are counted in Score on the node itself. The domain counts are kept across cycles per shape of
// pod and brought up to date from the nodes that changed, so a cycle does not match every pod.
import { compileSelector, isQualifiedName, labelValue, withLabelKeys, type LabelMatcher } from '../api/labels';
import { requiredNodeAffinity, type RequiredNodeAffinity } from '../api/node-affinity';
import { type Result } from '../api/result';
import { findUntoleratedTaint, isDoNotScheduleTaint } from '../api/taints';
import { podNamespace, type LabelSelector, type Labels, type Node, type Pod, type TopologySpreadConstraint } from '../api/types';
import { StateKey, type Cloneable, type CycleState } from '../framework/cycle-state';
import { KeyInterner, LruCache } from '../framework/caches';
import { NodeAggregate, NodeMemo } from '../framework/memo';
import {
  MAX_NODE_SCORE,
  type FilterPlugin,
  type FrameworkHandle,
  type NodeScore,
  type PluginFactory,
  type PreFilterPlugin,
  type PreScorePlugin,
  type ScorePlugin,
} from '../framework/interfaces';
import { type NodeInfo, type NodeInfoLister, type PodInfo } from '../framework/node-info';
import { errorStatus, SKIP, SUCCESS, unresolvable, unschedulable, type Status } from '../framework/status';
import { argsObject, argsResult, factoryOf } from './args';

export const NAME = 'PodTopologySpread';

export const ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints";
export const ERR_REASON_NODE_LABEL_NOT_MATCH = `${ERR_REASON_CONSTRAINTS_NOT_MATCH} (missing required label)`;

export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
export const LABEL_TOPOLOGY_ZONE = 'topology.kubernetes.io/zone';

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
export function validateArgs(args: unknown): Result<PodTopologySpreadArgs> {
  const fields = argsObject(NAME, args, ['defaultConstraints', 'defaultingType']);
  if (!fields.ok) return fields;
  const errors: string[] = [];
  const defaultingType = fields.value.defaultingType ?? 'System';
  if (defaultingType !== 'System' && defaultingType !== 'List') {
    errors.push(`defaultingType: Unsupported value: ${JSON.stringify(defaultingType)}: supported values: "System", "List"`);
  }
  const constraints = fields.value.defaultConstraints ?? [];
  if (!Array.isArray(constraints)) {
    errors.push('defaultConstraints: Invalid value: want a list of constraints');
  } else {
    if (defaultingType === 'System' && constraints.length > 0) errors.push('defaultingType: Invalid value: "System": when .defaultConstraints are not empty');
    constraints.forEach((c: unknown, i) => errors.push(...constraintErrors(c, i, constraints)));
  }
  return argsResult(NAME, errors, { defaultConstraints: constraints as TopologySpreadConstraint[], defaultingType: defaultingType as DefaultingType });
}

function constraintErrors(value: unknown, index: number, all: readonly unknown[]): string[] {
  const path = `defaultConstraints[${index}]`;
  if (typeof value !== 'object' || value === null) return [`${path}: Invalid value: want a constraint object`];
  const c = value as Partial<Record<keyof TopologySpreadConstraint, unknown>>;
  const errors: string[] = [];
  if (typeof c.maxSkew !== 'number' || !Number.isInteger(c.maxSkew) || c.maxSkew <= 0) errors.push(`${path}.maxSkew: Invalid value: ${JSON.stringify(c.maxSkew)}: not in valid range (0, inf)`);
  if (typeof c.topologyKey !== 'string' || c.topologyKey === '') errors.push(`${path}.topologyKey: Required value: can not be empty`);
  else if (!isQualifiedName(c.topologyKey)) errors.push(`${path}.topologyKey: Invalid value: ${JSON.stringify(c.topologyKey)}: not a valid label name`);
  if (c.whenUnsatisfiable === undefined || c.whenUnsatisfiable === '') errors.push(`${path}.whenUnsatisfiable: Required value: can not be empty`);
  else if (c.whenUnsatisfiable !== 'DoNotSchedule' && c.whenUnsatisfiable !== 'ScheduleAnyway') {
    errors.push(`${path}.whenUnsatisfiable: Unsupported value: ${JSON.stringify(c.whenUnsatisfiable)}: supported values: "DoNotSchedule", "ScheduleAnyway"`);
  }
  if (c.labelSelector !== undefined) errors.push(`${path}.labelSelector: Forbidden: constraint must not define a selector, as they deduced for each pod`);
  const repeated = all.slice(0, index).some((o) => {
    const other = o as Partial<TopologySpreadConstraint> | null;
    return other?.topologyKey === c.topologyKey && other?.whenUnsatisfiable === c.whenUnsatisfiable;
  });
  if (repeated) errors.push(`${path}: Duplicate value: "{${String(c.topologyKey)}, ${String(c.whenUnsatisfiable)}}"`);
  return errors;
}

export const factory: PluginFactory = factoryOf(validateArgs, (args, handle) => new PodTopologySpread(args, handle));

/** A constraint with its selector compiled and its defaults applied (upstream topologySpreadConstraint). */
interface Constraint {
  readonly maxSkew: number;
  readonly topologyKey: string;
  readonly selector: LabelMatcher;
  /** The pod's namespace: only pods there count. */
  readonly namespace: string;
  /** Identifies selector and namespace, for the per-node memo of counts. */
  readonly countKey: string;
  readonly minDomains: number;
  /** nodeAffinityPolicy Honor (the default): only nodes matching the pod's required node affinity count. */
  readonly honorNodeAffinity: boolean;
  /** nodeTaintsPolicy Honor (default Ignore): only nodes whose NoSchedule/NoExecute taints the pod tolerates count. */
  readonly honorTaints: boolean;
}

type Action = TopologySpreadConstraint['whenUnsatisfiable'];

function compileConstraints(keys: KeyInterner, constraints: readonly TopologySpreadConstraint[], pod: Pod, action: Action, selector?: LabelSelector): Constraint[] {
  const result: Constraint[] = [];
  const namespace = podNamespace(pod);
  for (const c of constraints) {
    if (c.whenUnsatisfiable !== action) continue;
    const effective = selector ?? (c.labelSelector && withLabelKeys(c.labelSelector, pod.metadata.labels, c.matchLabelKeys));
    result.push({
      maxSkew: c.maxSkew,
      topologyKey: c.topologyKey,
      selector: compileSelector(effective),
      namespace,
      countKey: keys.intern(JSON.stringify([namespace, effective ?? null])),
      minDomains: c.minDomains ?? 1,
      honorNodeAffinity: (c.nodeAffinityPolicy ?? 'Honor') === 'Honor',
      honorTaints: c.nodeTaintsPolicy === 'Honor',
    });
  }
  return result;
}

const CONTROLLER_KINDS = new Set(['ReplicationController', 'ReplicaSet', 'StatefulSet']);
/** Labels that differ between the pods of one controller, so they are no part of its selector. */
const PER_POD_LABELS = new Set(['statefulset.kubernetes.io/pod-name', 'apps.kubernetes.io/pod-index', 'controller-revision-hash']);

/**
 * The selector default constraints spread a pod by. Upstream merges the selectors of the Services,
 * ReplicationControllers, ReplicaSets and StatefulSets that own or select the pod; a snapshot holds
 * none of those, so a pod controlled by one of those kinds is spread with its own labels (the pod
 * template's, less per-pod ones) and any other pod gets no default spreading.
 */
export function defaultSelector(pod: Pod): LabelSelector | undefined {
  const owner = pod.metadata.ownerReferences?.find((o) => o.controller);
  if (!owner || !CONTROLLER_KINDS.has(owner.kind)) return undefined;
  const matchLabels = Object.fromEntries(Object.entries(pod.metadata.labels ?? {}).filter(([key]) => !PER_POD_LABELS.has(key)));
  return Object.keys(matchLabels).length > 0 ? { matchLabels } : undefined;
}

function hasAllTopologyKeys(labels: Labels | undefined, constraints: readonly Constraint[]): boolean {
  for (const c of constraints) if (labelValue(labels, c.topologyKey) === undefined) return false;
  return true;
}

function nodeIncluded(c: Constraint, pod: Pod, node: Node, nodeAffinity: RequiredNodeAffinity): boolean {
  if (c.honorNodeAffinity && !nodeAffinity.matches(node)) return false;
  return !(c.honorTaints && findUntoleratedTaint(node.spec?.taints, pod.spec.tolerations, isDoNotScheduleTaint));
}

/** The node's pods in the constraint's namespace matching its selector, leaving out terminating pods (upstream #87621). */
function countMatching(nodeInfo: NodeInfo, c: Constraint): number {
  let count = 0;
  for (const { pod } of nodeInfo.pods) {
    if (pod.metadata.deletionTimestamp !== undefined || podNamespace(pod) !== c.namespace) continue;
    if (c.selector(pod.metadata.labels)) count++;
  }
  return count;
}

/** A node's share of the domain counts: per constraint, its domain and matching pods, or undefined when it is not eligible. */
type NodeShare = ReadonlyArray<readonly [domain: string, pods: number] | undefined>;

interface Domain {
  /** Eligible nodes in the domain: it exists while there is one. */
  nodes: number;
  pods: number;
}

/**
 * Per constraint, domain → eligible nodes and matching pods, over a list of nodes, kept up to date
 * across cycles for one shape of pod (everything `share` reads of it is in the key it is cached by).
 */
class DomainCounts {
  readonly domains: Array<Map<string, Domain>>;
  private readonly aggregate: NodeAggregate<NodeShare>;

  constructor(constraints: readonly Constraint[], pod: Pod, requireAllTopologies: boolean, skipHostname: boolean, count: (nodeInfo: NodeInfo, c: Constraint) => number) {
    const nodeAffinity = requiredNodeAffinity(pod);
    const notEligible: NodeShare = constraints.map(() => undefined);
    this.domains = constraints.map(() => new Map());
    const share = (nodeInfo: NodeInfo): NodeShare => {
      const node = nodeInfo.node;
      const labels = node.metadata.labels;
      if (requireAllTopologies && !hasAllTopologyKeys(labels, constraints)) return notEligible;
      return constraints.map((c) => {
        if ((skipHostname && c.topologyKey === LABEL_HOSTNAME) || !nodeIncluded(c, pod, node, nodeAffinity)) return undefined;
        return [labelValue(labels, c.topologyKey) ?? '', count(nodeInfo, c)] as const;
      });
    };
    const apply = (nodeShare: NodeShare, sign: 1 | -1): void => {
      nodeShare.forEach((entry, i) => {
        if (!entry) return;
        const domains = this.domains[i] as Map<string, Domain>;
        let domain = domains.get(entry[0]);
        if (!domain) domains.set(entry[0], (domain = { nodes: 0, pods: 0 }));
        domain.nodes += sign;
        domain.pods += sign * entry[1];
        if (domain.nodes === 0) domains.delete(entry[0]);
      });
    };
    this.aggregate = new NodeAggregate(share, apply);
  }

  /** `lister`: where `nodes` come from, so that only the nodes it changed are looked at. */
  update(nodes: readonly NodeInfo[], lister: NodeInfoLister): this {
    this.aggregate.update(nodes, lister);
    return this;
  }
}

/** What decides a node's share besides the node: the constraints and, where a policy honors them, the pod's node affinity and tolerations. */
function shapeKey(keys: KeyInterner, kind: string, constraints: readonly Constraint[], pod: Pod, requireAllTopologies: boolean): string {
  const spec = pod.spec;
  const affinity = constraints.some((c) => c.honorNodeAffinity) ? [spec.nodeSelector ?? null, spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? null] : null;
  const tolerations = constraints.some((c) => c.honorTaints) ? (spec.tolerations ?? []) : null;
  const shape = constraints.map((c) => [c.countKey, c.topologyKey, c.honorNodeAffinity, c.honorTaints]);
  return keys.intern(JSON.stringify([kind, requireAllTopologies, shape, affinity, tolerations]));
}

const MAX_INT32 = 2147483647;

const NO_CONSTRAINTS: PodConstraints = Object.freeze({ hard: [], soft: [], requireAllTopologies: true, hardKey: '', softKey: '' });

interface Path {
  value: string;
  num: number;
}

/**
 * Upstream's criticalPaths: two domains, [0] always holding the minimum match count, kept up to date
 * as pods are added and removed without rescanning the domains.
 */
class CriticalPaths {
  constructor(private readonly paths: [Path, Path] = [{ value: '', num: MAX_INT32 }, { value: '', num: MAX_INT32 }]) {}

  get min(): number {
    return this.paths[0].num;
  }

  update(value: string, num: number): void {
    const p = this.paths;
    const known = value === p[0].value ? p[0] : value === p[1].value ? p[1] : undefined;
    if (known) {
      known.num = num;
      if (p[0].num > p[1].num) p.reverse();
    } else if (num < p[0].num) {
      p[1] = p[0];
      p[0] = { value, num };
    } else if (num < p[1].num) {
      p[1] = { value, num };
    }
  }

  clone(): CriticalPaths {
    return new CriticalPaths([{ ...this.paths[0] }, { ...this.paths[1] }]);
  }
}

class PreFilterState implements Cloneable<PreFilterState> {
  constructor(
    readonly constraints: readonly Constraint[],
    /** Per constraint: 1 when the incoming pod matches its selector (it adds itself to the domain). */
    readonly selfMatch: readonly number[],
    /** Per constraint: domain (topology value) → matching pods. */
    readonly counts: Array<Map<string, number>>,
    readonly paths: CriticalPaths[],
  ) {}

  /** The global minimum for the skew, 0 while there are fewer domains than minDomains. */
  minMatchNum(i: number): number {
    const c = this.constraints[i];
    const counts = this.counts[i];
    if (!c || !counts || counts.size < c.minDomains) return 0;
    return this.paths[i]?.min ?? 0;
  }

  clone(): PreFilterState {
    return new PreFilterState(
      this.constraints,
      this.selfMatch,
      this.counts.map((m) => new Map(m)),
      this.paths.map((p) => p.clone()),
    );
  }
}

interface PreScoreState {
  readonly constraints: readonly Constraint[];
  /** Nodes lacking a topology key of the constraints: scored 0 and normalized to 0. */
  readonly ignoredNodes: ReadonlySet<string>;
  /** Per constraint: domain → matching pods (empty for hostname constraints, counted in Score). */
  readonly counts: ReadonlyArray<Map<string, number>>;
  /** Per constraint: log(domains + 2), so the counts of small topologies are not watered down by big ones. */
  readonly weights: readonly number[];
}

const PRE_FILTER_KEY = new StateKey<PreFilterState>(`PreFilter${NAME}`);
const PRE_SCORE_KEY = new StateKey<PreScoreState>(`PreScore${NAME}`);

interface PodConstraints {
  readonly hard: readonly Constraint[];
  readonly soft: readonly Constraint[];
  /** Only non-system defaults require every topology key for scoring, so that nodes without a zone label still get hostname spreading. */
  readonly requireAllTopologies: boolean;
  readonly hardKey: string;
  readonly softKey: string;
}

export class PodTopologySpread implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin {
  readonly name = NAME;
  private readonly defaultConstraints: readonly TopologySpreadConstraint[];
  private readonly systemDefaulted: boolean;
  /** Compiled once per pod object: a pod is tried many times (retries, planning) with the same spec. */
  private readonly compiled = new WeakMap<Pod, PodConstraints>();
  private readonly counts = new NodeMemo<number>();
  private readonly domainCounts = new LruCache<DomainCounts>(16);
  private readonly keys = new KeyInterner();

  constructor(
    args: PodTopologySpreadArgs,
    private readonly handle: FrameworkHandle,
  ) {
    this.systemDefaulted = args.defaultingType === 'System';
    this.defaultConstraints = this.systemDefaulted ? SYSTEM_DEFAULT_CONSTRAINTS : args.defaultConstraints;
  }

  private constraintsOf(pod: Pod): PodConstraints {
    let compiled = this.compiled.get(pod);
    if (!compiled) {
      const own = pod.spec.topologySpreadConstraints ?? [];
      const selector = own.length === 0 && this.defaultConstraints.length > 0 ? defaultSelector(pod) : undefined;
      const source = own.length > 0 ? own : selector ? this.defaultConstraints : [];
      // Most pods have nothing to spread by: they share one answer (and keys, never looked at).
      if (source.length === 0) return NO_CONSTRAINTS;
      const hard = compileConstraints(this.keys, source, pod, 'DoNotSchedule', selector);
      const soft = compileConstraints(this.keys, source, pod, 'ScheduleAnyway', selector);
      const requireAllTopologies = own.length > 0 || !this.systemDefaulted;
      compiled = { hard, soft, requireAllTopologies, hardKey: shapeKey(this.keys, 'filter', hard, pod, true), softKey: shapeKey(this.keys, 'score', soft, pod, requireAllTopologies) };
      this.compiled.set(pod, compiled);
    }
    return compiled;
  }

  /** Matching pods on the node, memoized while its pods are unchanged. */
  private readonly count = (nodeInfo: NodeInfo, c: Constraint): number => this.counts.get(nodeInfo, c.countKey, countMatching, c);

  preFilter(state: CycleState, podInfo: PodInfo, nodes: readonly NodeInfo[]): { status: Status } {
    const pod = podInfo.pod;
    const { hard: constraints, hardKey } = this.constraintsOf(pod);
    if (constraints.length === 0) return { status: SKIP };
    const domainCounts = this.domainCounts.get(hardKey, () => new DomainCounts(constraints, pod, true, false, this.count)).update(nodes, this.handle.snapshot());
    // A copy: addPod/removePod change it, and the shared counts move on with the next cycle.
    const counts = domainCounts.domains.map((domains) => {
      const copy = new Map<string, number>();
      for (const [value, domain] of domains) copy.set(value, domain.pods);
      return copy;
    });
    const paths = counts.map((domain) => {
      const p = new CriticalPaths();
      for (const [value, num] of domain) p.update(value, num);
      return p;
    });
    const selfMatch = constraints.map((c) => (c.selector(pod.metadata.labels) ? 1 : 0));
    state.write(PRE_FILTER_KEY, new PreFilterState(constraints, selfMatch, counts, paths));
    return { status: SUCCESS };
  }

  addPod(state: CycleState, podToSchedule: PodInfo, podToAdd: PodInfo, node: NodeInfo): Status {
    return this.updateWithPod(state, podToSchedule.pod, podToAdd.pod, node.node, 1);
  }

  removePod(state: CycleState, podToSchedule: PodInfo, podToRemove: PodInfo, node: NodeInfo): Status {
    return this.updateWithPod(state, podToSchedule.pod, podToRemove.pod, node.node, -1);
  }

  private updateWithPod(state: CycleState, preemptor: Pod, updated: Pod, node: Node, delta: 1 | -1): Status {
    const s = state.read(PRE_FILTER_KEY);
    if (!s) return errorStatus(`${NAME}: no PreFilter state in this cycle`);
    if (podNamespace(updated) !== podNamespace(preemptor)) return SUCCESS;
    const labels = node.metadata.labels;
    if (!hasAllTopologyKeys(labels, s.constraints)) return SUCCESS;
    const nodeAffinity = requiredNodeAffinity(preemptor);
    s.constraints.forEach((c, i) => {
      if (!c.selector(updated.metadata.labels) || !nodeIncluded(c, preemptor, node, nodeAffinity)) return;
      const value = labelValue(labels, c.topologyKey) ?? '';
      const domain = s.counts[i] as Map<string, number>;
      const num = (domain.get(value) ?? 0) + delta;
      domain.set(value, num);
      s.paths[i]?.update(value, num);
    });
    return SUCCESS;
  }

  filter(state: CycleState, _pod: PodInfo, nodeInfo: NodeInfo): Status {
    const s = state.read(PRE_FILTER_KEY);
    if (!s) return errorStatus(`${NAME}: no PreFilter state in this cycle`);
    const labels = nodeInfo.node.metadata.labels;
    for (let i = 0; i < s.constraints.length; i++) {
      const c = s.constraints[i] as Constraint;
      const value = labelValue(labels, c.topologyKey);
      if (value === undefined) return unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH);
      // existing matches in the node's domain + the pod itself if it matches - the global minimum
      const skew = (s.counts[i]?.get(value) ?? 0) + (s.selfMatch[i] ?? 0) - s.minMatchNum(i);
      if (skew > c.maxSkew) return unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH);
    }
    return SUCCESS;
  }

  preScore(state: CycleState, podInfo: PodInfo, filteredNodes: readonly NodeInfo[]): Status {
    const snapshot = this.handle.snapshot();
    const allNodes = snapshot.list();
    if (allNodes.length === 0) return SKIP;
    const pod = podInfo.pod;
    const { soft: constraints, softKey, requireAllTopologies } = this.constraintsOf(pod);
    if (constraints.length === 0) return SKIP;
    const ignoredNodes = new Set<string>();
    const counts = constraints.map(() => new Map<string, number>());
    for (const nodeInfo of filteredNodes) {
      const labels = nodeInfo.node.metadata.labels;
      if (requireAllTopologies && !hasAllTopologyKeys(labels, constraints)) {
        ignoredNodes.add(nodeInfo.name);
        continue;
      }
      for (let i = 0; i < constraints.length; i++) {
        const key = (constraints[i] as Constraint).topologyKey;
        if (key !== LABEL_HOSTNAME) counts[i]?.set(labelValue(labels, key) ?? '', 0);
      }
    }
    const weights = constraints.map((c, i) => Math.log((c.topologyKey === LABEL_HOSTNAME ? filteredNodes.length - ignoredNodes.size : (counts[i]?.size ?? 0)) + 2));

    // Pods on every eligible node count, for the domains of the candidate nodes (hostname domains
    // have none here: Score counts them on the node).
    const totals = this.domainCounts.get(softKey, () => new DomainCounts(constraints, pod, requireAllTopologies, true, this.count)).update(allNodes, snapshot);
    counts.forEach((domains, i) => {
      for (const value of domains.keys()) domains.set(value, totals.domains[i]?.get(value)?.pods ?? 0);
    });
    state.write(PRE_SCORE_KEY, { constraints, ignoredNodes, counts, weights });
    return SUCCESS;
  }

  /** Sum over soft constraints of matches × the topology's weight + (maxSkew − 1), rounded; lower is better. */
  score(state: CycleState, _pod: PodInfo, nodeInfo: NodeInfo): number | Status {
    const s = state.read(PRE_SCORE_KEY);
    if (!s) return errorStatus(`${NAME}: no PreScore state in this cycle`);
    if (s.ignoredNodes.has(nodeInfo.name)) return 0;
    const labels = nodeInfo.node.metadata.labels;
    let score = 0;
    for (let i = 0; i < s.constraints.length; i++) {
      const c = s.constraints[i] as Constraint;
      const value = labelValue(labels, c.topologyKey);
      if (value === undefined) continue;
      const count = c.topologyKey === LABEL_HOSTNAME ? this.count(nodeInfo, c) : (s.counts[i]?.get(value) ?? 0);
      score += count * (s.weights[i] ?? 0) + (c.maxSkew - 1);
    }
    return Math.round(score);
  }

  /** Reverses the scores onto 0..100 (fewest matches best) as upstream: 100 × (max + min − s) / max, integer. */
  normalizeScore(state: CycleState, _pod: PodInfo, scores: NodeScore[]): Status {
    const s = state.read(PRE_SCORE_KEY);
    if (!s) return errorStatus(`${NAME}: no PreScore state in this cycle`);
    let min = Infinity;
    let max = 0;
    for (const { name, score } of scores) {
      if (s.ignoredNodes.has(name)) continue;
      min = Math.min(min, score);
      max = Math.max(max, score);
    }
    for (const entry of scores) {
      if (s.ignoredNodes.has(entry.name)) entry.score = 0;
      else if (max === 0) entry.score = MAX_NODE_SCORE;
      else entry.score = Math.trunc((MAX_NODE_SCORE * (max + min - entry.score)) / max);
    }
    return SUCCESS;
  }
}
