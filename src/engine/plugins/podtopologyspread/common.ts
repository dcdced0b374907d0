// What PodTopologySpread's filtering and scoring share (upstream podtopologyspread/common.go): the
// pod's constraints compiled (its own, or the profile's defaults with a selector of its labels),
// which nodes are eligible by the node inclusion policies, and the per-domain counts of matching
// pods kept across cycles per shape of pod and brought up to date from the nodes that changed.
import { compileSelector, labelValue, withLabelKeys, type LabelMatcher } from '../../api/labels';
import { requiredNodeAffinity, type RequiredNodeAffinity } from '../../api/node-affinity';
import { findUntoleratedTaint, isDoNotScheduleTaint } from '../../api/taints';
import { podNamespace, type LabelSelector, type Labels, type Node, type Pod, type TopologySpreadConstraint } from '../../api/types';
import { KeyInterner, LruCache, WeakCache } from '../../framework/caches';
import { NodeAggregate, NodeMemo } from '../../framework/memo';
import type { NodeInfo, NodeInfoLister } from '../../framework/node-info';

export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
export const LABEL_TOPOLOGY_ZONE = 'topology.kubernetes.io/zone';

/** A constraint with its selector compiled and its defaults applied (upstream topologySpreadConstraint). */
export interface Constraint {
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

function compileConstraints(
  keys: KeyInterner,
  constraints: readonly TopologySpreadConstraint[],
  pod: Pod,
  action: Action,
  selector?: LabelSelector,
): Constraint[] {
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

// A Deployment's replicas Podplan makes up name the Deployment as their owner; in a cluster it is the
// ReplicaSet the Deployment made, which selects what the Deployment selects.
const CONTROLLER_KINDS = new Set(['ReplicationController', 'ReplicaSet', 'StatefulSet', 'Deployment']);
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

export function hasAllTopologyKeys(labels: Labels | undefined, constraints: readonly Constraint[]): boolean {
  for (const c of constraints) if (labelValue(labels, c.topologyKey) === undefined) return false;
  return true;
}

export function nodeIncluded(c: Constraint, pod: Pod, node: Node, nodeAffinity: RequiredNodeAffinity): boolean {
  if (c.honorNodeAffinity && !nodeAffinity.matches(node)) return false;
  return !(c.honorTaints && findUntoleratedTaint(node.spec?.taints, pod.spec.tolerations, isDoNotScheduleTaint));
}

/** The node's pods in the constraint's namespace matching its selector, leaving out terminating pods (upstream #87621). */
function countMatching(nodeInfo: NodeInfo, c: Constraint): number {
  let count = 0;
  for (const { pod } of nodeInfo.podsInNamespace(c.namespace)) {
    if (pod.metadata.deletionTimestamp === undefined && c.selector(pod.metadata.labels)) count++;
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
export class DomainCounts {
  readonly domains: Array<Map<string, Domain>>;
  private readonly aggregate: NodeAggregate<NodeShare>;

  constructor(
    constraints: readonly Constraint[],
    pod: Pod,
    requireAllTopologies: boolean,
    skipHostname: boolean,
    count: (nodeInfo: NodeInfo, c: Constraint) => number,
  ) {
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
  const affinity = constraints.some((c) => c.honorNodeAffinity)
    ? [spec.nodeSelector ?? null, spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? null]
    : null;
  const tolerations = constraints.some((c) => c.honorTaints) ? (spec.tolerations ?? []) : null;
  const shape = constraints.map((c) => [c.countKey, c.topologyKey, c.honorNodeAffinity, c.honorTaints]);
  return keys.intern(JSON.stringify([kind, requireAllTopologies, shape, affinity, tolerations]));
}

const NO_CONSTRAINTS: PodConstraints = Object.freeze({ hard: [], soft: [], requireAllTopologies: true, hardKey: '', softKey: '' });

export interface PodConstraints {
  readonly hard: readonly Constraint[];
  readonly soft: readonly Constraint[];
  /** Only non-system defaults require every topology key for scoring, so that nodes without a zone label still get hostname spreading. */
  readonly requireAllTopologies: boolean;
  readonly hardKey: string;
  readonly softKey: string;
}

/** One plugin instance's compiled constraints and counts, shared by its filtering and scoring (budget: framework/caches.ts). */
export class SpreadCounts {
  /** Compiled once per pod object: a pod is tried many times (retries, planning) with the same spec. */
  private readonly compiled = new WeakCache<Pod, PodConstraints>();
  private readonly counts = new NodeMemo<number>();
  private readonly domainCounts = new LruCache<DomainCounts>(16);
  private readonly keys = new KeyInterner();

  constructor(
    private readonly defaultConstraints: readonly TopologySpreadConstraint[],
    private readonly systemDefaulted: boolean,
  ) {}

  /** The pod's hard and soft constraints, compiled once per pod object. */
  constraintsOf(pod: Pod): PodConstraints {
    // Most pods have nothing to spread by: they share one answer, and take no entry in the cache.
    if (!pod.spec.topologySpreadConstraints?.length && (this.defaultConstraints.length === 0 || !pod.metadata.ownerReferences?.length))
      return NO_CONSTRAINTS;
    return this.compiled.get(pod, this.compile);
  }

  private readonly compile = (pod: Pod): PodConstraints => {
    const own = pod.spec.topologySpreadConstraints ?? [];
    const selector = own.length === 0 && this.defaultConstraints.length > 0 ? defaultSelector(pod) : undefined;
    const source = own.length > 0 ? own : selector ? this.defaultConstraints : [];
    if (source.length === 0) return NO_CONSTRAINTS;
    const hard = compileConstraints(this.keys, source, pod, 'DoNotSchedule', selector);
    const soft = compileConstraints(this.keys, source, pod, 'ScheduleAnyway', selector);
    const requireAllTopologies = own.length > 0 || !this.systemDefaulted;
    return {
      hard,
      soft,
      requireAllTopologies,
      hardKey: shapeKey(this.keys, 'filter', hard, pod, true),
      softKey: shapeKey(this.keys, 'score', soft, pod, requireAllTopologies),
    };
  };

  /** Matching pods on the node, memoized while its pods are unchanged. */
  readonly count = (nodeInfo: NodeInfo, c: Constraint): number => this.counts.get(nodeInfo, c.countKey, countMatching, c);

  /**
   * Per constraint of one shape (`key`: hardKey or softKey), the domains over `nodes` with their
   * eligible nodes and matching pods, brought up to date from the nodes `lister` changed.
   */
  domains(
    key: string,
    constraints: readonly Constraint[],
    pod: Pod,
    requireAllTopologies: boolean,
    skipHostname: boolean,
    nodes: readonly NodeInfo[],
    lister: NodeInfoLister,
  ): DomainCounts {
    return this.domainCounts
      .get(key, () => new DomainCounts(constraints, pod, requireAllTopologies, skipHostname, this.count))
      .update(nodes, lister);
  }
}
