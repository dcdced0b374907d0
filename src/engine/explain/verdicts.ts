// Every Filter plugin's verdict on every node for one pod, not only the first rejection a cycle
// records: what tells how close a node came (how many filters failed, how much of a resource was
// missing). Run on the snapshot of the pod's own cycle, so it judges the cluster the cycle saw.
import type { DeviceFailure } from '../api/device-failures';
import type { Resource } from '../api/resources';
import { CycleState } from '../framework/cycle-state';
import type { Diagnosis } from '../framework/diagnosis';
import type { NodeInfo, NodeInfoLister, PodInfo } from '../framework/node-info';
import type { Framework } from '../framework/runtime';
import { Code, type Stage } from '../framework/status';
import { Names } from '../plugins/names';

export interface FilterFailure {
  readonly plugin: string;
  readonly stage: Stage;
  readonly code: Code;
  readonly reasons: readonly string[];
  /** DynamicResources: which device requests could not be met on the node, and why. */
  readonly devices?: readonly DeviceFailure[];
}

/** How much of a resource a node lacks for the pod: requested + the pod's request − allocatable. */
export interface Shortfall {
  readonly resource: string;
  readonly missing: number;
  /** missing / allocatable (1 when the node has none of it): what ranks shortfalls of different resources. */
  readonly share: number;
}

export interface NodeVerdict {
  readonly node: string;
  /** Every Filter plugin that rejected the node (or the PreFilter verdict that left it out); empty when it fits. */
  readonly failures: readonly FilterFailure[];
  readonly shortfall: readonly Shortfall[];
}

/**
 * Each node's complete Filter verdict for `pod` on `snapshot` (all nodes, or those named), with the
 * resources it lacks. PreFilter runs once on a fresh state (or the given one: a planner's what-if
 * state), as a cycle's would; a node it leaves out (or every node, when it rejects the pod) carries
 * that verdict alone.
 */
export function nodeVerdicts(
  framework: Framework,
  pod: PodInfo,
  snapshot: NodeInfoLister,
  only?: readonly string[],
  state: CycleState = new CycleState(),
): NodeVerdict[] {
  state.explainFilters = true;
  const nodes = only ? only.map((name) => snapshot.get(name)).filter((n): n is NodeInfo => n !== undefined) : snapshot.list();
  const pre = framework.preFilterPod(state, pod, snapshot);
  if (!pre.ok) {
    const failure: FilterFailure = {
      plugin: pre.status.plugin ?? '',
      stage: pre.status.stage ?? 'PreFilter',
      code: pre.status.code,
      reasons: pre.status.reasons,
    };
    return nodes.map((n) => ({ node: n.name, failures: [failure], shortfall: [] }));
  }
  const kept = pre.nodes.length === snapshot.list().length ? undefined : new Set(pre.nodes.map((n) => n.name));
  return nodes.map((n) => {
    if (kept && !kept.has(n.name)) {
      return {
        node: n.name,
        failures: [
          {
            plugin: 'PreFilter',
            stage: 'PreFilter',
            code: Code.UnschedulableAndUnresolvable,
            reasons: ['not among the nodes the PreFilter plugins left'],
          },
        ],
        shortfall: [],
      };
    }
    const failures = framework.filterVerdicts(state, pod, n).map((s) => ({
      plugin: s.plugin ?? '',
      stage: s.stage ?? 'Filter',
      code: s.code,
      reasons: s.reasons,
      ...(s.devices && s.devices.length > 0 ? { devices: s.devices } : {}),
    }));
    return { node: n.name, failures, shortfall: failures.length > 0 ? shortfallOf(pod, n) : [] };
  });
}

/**
 * The verdicts an explanation shows beside a cycle's Diagnosis (podplan explain, the editor's explain
 * view, for a pod alone or in a pod set's plan): every node's when the cycle placed the pod nowhere
 * (the closest node is ranked from them), else those of the nodes DynamicResources rejected (which
 * device requests could not be met there). Judged on `snapshot`, the cluster the cycle saw.
 */
export function explainedVerdicts(
  framework: Framework,
  pod: PodInfo,
  snapshot: NodeInfoLister,
  diagnosis: Diagnosis,
  state?: CycleState,
): NodeVerdict[] {
  if (diagnosis.chosenNode === undefined) return nodeVerdicts(framework, pod, snapshot, undefined, state);
  const rejected = diagnosis.rejections.filter((r) => r.plugin === Names.DynamicResources && r.stage === 'Filter').map((r) => r.node);
  return rejected.length > 0 ? nodeVerdicts(framework, pod, snapshot, rejected, state) : [];
}

function shortfallOf(pod: PodInfo, node: NodeInfo): Shortfall[] {
  const out: Shortfall[] = [];
  const add = (resource: string, request: number, requested: number, allocatable: number) => {
    const missing = requested + request - allocatable;
    if (request > 0 && missing > 0) out.push({ resource, missing, share: allocatable > 0 ? missing / allocatable : 1 });
  };
  const r: Resource = pod.requests;
  const a = node.allocatable;
  const used = node.requested;
  add('cpu', r.milliCPU, used.milliCPU, a.milliCPU);
  add('memory', r.memory, used.memory, a.memory);
  add('ephemeral-storage', r.ephemeralStorage, used.ephemeralStorage, a.ephemeralStorage);
  for (const [name, value] of r.scalar) add(name, value, used.scalar.get(name) ?? 0, a.scalar.get(name) ?? 0);
  add('pods', 1, node.pods.length, a.allowedPodNumber);
  return out;
}

/**
 * What a cycle itself knows of each node it rejected at Filter: the first plugin that rejected it
 * (a cycle stops at a node's first failing filter) and no shortfall. The verdicts to rank when the
 * complete ones cannot be computed (a planner's kept cycle, whose snapshot is gone).
 */
export function firstRejections(d: Diagnosis): NodeVerdict[] {
  return d.rejections
    .filter((r) => r.stage !== 'PreFilter')
    .map((r) => ({ node: r.node, failures: [{ plugin: r.plugin, stage: r.stage, code: r.code, reasons: r.reasons }], shortfall: [] }));
}
