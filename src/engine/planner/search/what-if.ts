// A planner's scratch copy of the cluster, and the question it asks most: does this pod fit that
// node now? The answer is the planning framework's: PreFilter for the pod on the copy as it stands,
// then the Filter plugins on the node. PreFilter runs once per pod shape per change of the copy (pods
// of one template share it), and a node without room for the requests is turned down before any
// plugin runs when the profile filters with NodeResourcesFit (which would say the same).
import type { NodeInfo, NodeInfoLister, PodInfo } from '../../framework/node-info';
import type { Framework } from '../../framework/runtime';
import { Snapshot } from '../../framework/snapshot';
import { isSuccess, type Status } from '../../framework/status';
import type { CycleState } from '../../framework/cycle-state';
import { planningState, type PlanRequest } from '../planner';
import { Names } from '../../plugins/names';

export class WhatIf {
  readonly snapshot: Snapshot;
  readonly nodes: readonly NodeInfo[];
  private readonly byName: ReadonlyMap<string, number>;
  /** Bumped by every change: a PreFilter state is good for the version it was made at. */
  version = 0;

  constructor(base: NodeInfoLister) {
    this.nodes = base.list().map((n) => n.clone());
    this.snapshot = new Snapshot(this.nodes);
    this.snapshot.useObjects(base.objects?.() ?? {});
    this.byName = new Map(this.nodes.map((n, i) => [n.name, i]));
  }

  indexOf(name: string): number | undefined {
    return this.byName.get(name);
  }

  assume(pod: PodInfo, node: number): void {
    (this.nodes[node] as NodeInfo).addPod(pod);
    this.changed();
  }

  forget(pod: PodInfo, node: number): void {
    (this.nodes[node] as NodeInfo).removePod(pod.id);
    this.changed();
  }

  // The snapshot sees pods come and go on its NodeInfos (their observer) and logs which nodes
  // changed, so per-node consumers (NodeAggregate, the runtime's verdict memos) refresh only those.
  private changed(): void {
    this.version++;
  }
}

/** PreFilter's verdict for one pod shape at one version of the copy. */
interface Prepared {
  readonly version: number;
  readonly state: CycleState;
  /** Per node index: PreFilter (and the planner's restriction) lets the pod consider it. */
  readonly allowed: Uint8Array;
  readonly stopped?: Status;
}

const shapes = new WeakMap<PodInfo, string>();

/** What a pod is apart from its name and uid: pods of one template have the same shape and are interchangeable. */
export function podShape(pod: PodInfo): string {
  let shape = shapes.get(pod);
  if (shape === undefined) {
    const { metadata, spec } = pod.pod;
    const labels = Object.entries(metadata.labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    shape = JSON.stringify([metadata.namespace, labels, { ...spec, nodeName: undefined }]);
    shapes.set(pod, shape);
  }
  return shape;
}

export class Feasibility {
  /** Filter plugin runs so far: what planners budget their search by (deterministic, unlike a clock). */
  filterCalls = 0;
  /** PreFilter runs so far (each walks every node in some plugin). */
  preFilterCalls = 0;
  private readonly prepared = new Map<string, Prepared>();
  /** The profile filters on requests (NodeResourcesFit): a node without room is no candidate. */
  readonly checksRoom: boolean;

  constructor(
    private readonly framework: Framework,
    readonly whatIf: WhatIf,
    private readonly eligible: PlanRequest['eligible'],
  ) {
    this.checksRoom = framework.plugins.points.filter.includes(Names.NodeResourcesFit);
  }

  /** PreFilter for the pod on the copy as it is now (the pod itself must not be on it). */
  prepare(pod: PodInfo): Prepared {
    // Pods of one shape share PreFilter results; a pod with its own node restriction does not.
    const shape = this.eligible?.has(pod.key) ? `pod:${pod.key}` : podShape(pod);
    const cached = this.prepared.get(shape);
    if (cached?.version === this.whatIf.version) return cached;
    const state = planningState(pod, this.eligible);
    this.preFilterCalls++;
    const pre = this.framework.preFilterPod(state, pod, this.whatIf.snapshot);
    const allowed = new Uint8Array(this.whatIf.nodes.length);
    // PreFilter names a subset of the nodes, or all of them (most pods: no lookup by name then).
    if (pre.ok && pre.nodes.length === allowed.length) allowed.fill(1);
    else if (pre.ok) for (const n of pre.nodes) allowed[this.whatIf.indexOf(n.name) as number] = 1;
    const prepared: Prepared = pre.ok
      ? { version: this.whatIf.version, state, allowed }
      : { version: this.whatIf.version, state, allowed, stopped: pre.status };
    this.prepared.set(shape, prepared);
    return prepared;
  }

  /** Whether the node has room for the pod's requests as NodeResourcesFit counts them (always true when the profile does not filter on them). */
  hasRoom(pod: PodInfo, node: number): boolean {
    if (!this.checksRoom) return true;
    const n = this.whatIf.nodes[node] as NodeInfo;
    const r = pod.requests;
    const free = n.allocatable;
    const used = n.requested;
    if (n.pods.length + 1 > free.allowedPodNumber) return false;
    if (r.milliCPU > 0 && r.milliCPU > free.milliCPU - used.milliCPU) return false;
    if (r.memory > 0 && r.memory > free.memory - used.memory) return false;
    return !(r.ephemeralStorage > 0 && r.ephemeralStorage > free.ephemeralStorage - used.ephemeralStorage);
  }

  /** Whether the pod may go to the node now: PreFilter lets it consider the node, and every filter passes. */
  fits(pod: PodInfo, node: number): boolean {
    const prepared = this.prepare(pod);
    if (prepared.stopped || !prepared.allowed[node] || !this.hasRoom(pod, node)) return false;
    this.filterCalls++;
    return isSuccess(this.framework.filterNode(prepared.state, pod, this.whatIf.nodes[node] as NodeInfo));
  }
}
