// PodTopologySpread's PreFilter and Filter (upstream podtopologyspread/filtering.go): hard
// constraints (DoNotSchedule) filter nodes by skew. PreFilter counts, per constraint, the matching
// pods in each domain over the nodes eligible by the node inclusion policies, once per cycle; Filter
// is then O(constraints) per node.
import { labelValue } from '../../api/labels';
import { requiredNodeAffinity } from '../../api/node-affinity';
import { podNamespace, type Node, type Pod } from '../../api/types';
import { StateKey, type Cloneable, type CycleState } from '../../framework/cycle-state';
import type { FrameworkHandle } from '../../framework/interfaces';
import type { NodeInfo, PodInfo } from '../../framework/node-info';
import { errorStatus, SKIP, SUCCESS, unresolvable, unschedulable, type Status } from '../../framework/status';
import { Names } from '../names';
import { hasAllTopologyKeys, nodeIncluded, type Constraint, type SpreadCounts } from './common';

const NAME = Names.PodTopologySpread;

export const ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints";
export const ERR_REASON_NODE_LABEL_NOT_MATCH = `${ERR_REASON_CONSTRAINTS_NOT_MATCH} (missing required label)`;

const MAX_INT32 = 2147483647;

interface Path {
  value: string;
  num: number;
}

/**
 * Upstream's criticalPaths: two domains, [0] always holding the minimum match count, kept up to date
 * as pods are added and removed without rescanning the domains.
 */
class CriticalPaths {
  constructor(
    private readonly paths: [Path, Path] = [
      { value: '', num: MAX_INT32 },
      { value: '', num: MAX_INT32 },
    ],
  ) {}

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

const PRE_FILTER_KEY = new StateKey<PreFilterState>(`PreFilter${NAME}`);

/** PodTopologySpread's PreFilter (with its AddPod/RemovePod extensions) and Filter. */
export class SpreadFiltering {
  constructor(
    private readonly shared: SpreadCounts,
    private readonly handle: FrameworkHandle,
  ) {}

  preFilter(state: CycleState, podInfo: PodInfo, nodes: readonly NodeInfo[]): { status: Status } {
    const pod = podInfo.pod;
    const { hard: constraints, hardKey } = this.shared.constraintsOf(pod);
    if (constraints.length === 0) return { status: SKIP };
    const domainCounts = this.shared.domains(hardKey, constraints, pod, true, false, nodes, this.handle.snapshot());
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

  /** Counts `updated` on `node` in (1, AddPod) or out (−1, RemovePod) of the cycle's state. */
  updateWithPod(state: CycleState, preemptor: Pod, updated: Pod, node: Node, delta: 1 | -1): Status {
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

  filter(state: CycleState, nodeInfo: NodeInfo): Status {
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
}
