// A consistent view of the cluster for one scheduling cycle. The cache hands one out per cycle
// (ClusterCache.snapshot, or updateSnapshot to refresh one in place, copying only what changed); a
// workspace preview builds one straight from a ClusterSnapshot.
//
// A cycle on thousands of nodes must not cost a pass over every node when one node changed: the
// snapshot is told which sources may have changed, watches its own copies for what-if changes, and
// keeps a log of the positions it changed so that plugins keeping per-node results across cycles
// (NodeAggregate) refresh only those (changedSince).
import { err, ok, type Result } from '../api/result';
import type { ClusterObjects, ClusterSnapshot } from '../api/types';
import { NodeInfo, podInfo, type NodeInfoLister, type NodeInfoObserver } from './node-info';

/** Change marks are unique across snapshots, so a mark from before a rebuild is never mistaken for a later one. */
let lastMark = 0;

/** The log of changed positions is kept to at most this many entries or the number of nodes, whichever is more. */
const MIN_LOG = 64;

const NO_OBJECTS: ClusterObjects = Object.freeze({});

export class Snapshot implements NodeInfoLister, NodeInfoObserver {
  private readonly byName = new Map<string, NodeInfo>();
  private readonly positions = new Map<string, number>();
  private withAffinity: NodeInfo[] | undefined;
  private withRequiredAntiAffinity: NodeInfo[] | undefined;
  private imageCounts: Map<string, number> | undefined;
  // For update(): per position, the NodeInfo the entry was copied from and its generation then.
  private sources: Array<NodeInfo | undefined> = [];
  private copiedGenerations: number[] = [];
  /** The list the last update was given: `changed` hints are about this one. */
  private lastCurrent: readonly NodeInfo[] | undefined;
  /** Positions whose NodeInfo was changed in place (what-if) since the last update. */
  private mutated: number[] = [];
  // The change log: positions changed (replaced or changed in place) and the mark of each change.
  private epochStart = ++lastMark;
  private changeLog: number[] = [];
  private changeMarks: number[] = [];
  /** False when a NodeInfo given to the constructor is watched by another snapshot: changes then cannot be told. */
  private tracked = true;

  /** The snapshot's own array (the constructor's argument is copied): list() hands it out, update() keeps it current. */
  private nodeInfos: NodeInfo[];
  /** The cluster's other objects (PriorityClasses, claims, …) the snapshot was taken with. */
  private clusterObjects: ClusterObjects = NO_OBJECTS;

  constructor(nodeInfos: readonly NodeInfo[]) {
    this.nodeInfos = [...nodeInfos];
    nodeInfos.forEach((n, i) => {
      this.byName.set(n.name, n);
      this.positions.set(n.name, i);
      if (n.observer === undefined) n.observer = this;
      else if (n.observer !== this) this.tracked = false;
    });
  }

  /**
   * Brings the snapshot in line with `current` (the source's NodeInfos, in list order) and returns
   * how many NodeInfos it copied. A NodeInfo is copied only when it is new here, is another object
   * than the one copied last time (a node updated, or removed and added again), has a different
   * generation than when copied (pods changed), or the copy held here was changed since (what-if
   * planning on this snapshot). When the nodes are the same in the same order, stale copies are
   * replaced in the array list() hands out (a copy whose Node object is unchanged is refreshed in
   * place, so a NodeInfo taken from the snapshot is current after the update too); otherwise a new
   * array is made.
   *
   * Finding them costs a comparison per node, unless `changed` is given: the only NodeInfos of
   * `current` that may differ since the last update, which was given this same array (the cache
   * knows what it changed). Then only those and the copies changed here are looked at.
   */
  update(current: readonly NodeInfo[], changed?: Iterable<NodeInfo>): number {
    let copied: number | undefined;
    if (changed && current === this.lastCurrent) copied = this.patchChanged(current, changed);
    if (copied === undefined) {
      const old = this.nodeInfos;
      const aligned = current.length === old.length && current.every((n, i) => n.name === old[i]?.name);
      copied = aligned ? this.patch(current) : this.rebuild(current);
    }
    this.lastCurrent = current;
    this.mutated = [];
    return copied;
  }

  /** The same nodes in the same order: stale copies are replaced. */
  private patch(current: readonly NodeInfo[]): number {
    let copied = 0;
    // An index loop: this runs over every node.
    for (let i = 0; i < current.length; i++) {
      const source = current[i];
      if (source && this.copyIfStale(i, source)) copied++;
    }
    return copied;
  }

  /** Only the positions of `changed` and of copies changed here; undefined when `changed` does not fit the list (compare every node then). */
  private patchChanged(current: readonly NodeInfo[], changed: Iterable<NodeInfo>): number | undefined {
    let copied = 0;
    for (const source of changed) {
      const i = this.positions.get(source.name);
      if (i === undefined || current[i] !== source) return undefined;
      if (this.copyIfStale(i, source)) copied++;
    }
    for (const i of this.mutated) if (this.copyIfStale(i, current[i] as NodeInfo)) copied++;
    return copied;
  }

  /**
   * Copies `source` into position `i` unless the held copy still stands for it. A copy made here of
   * the same Node object is refreshed in place (only pods changed): no new NodeInfo for every pod bound.
   */
  private copyIfStale(i: number, source: NodeInfo): boolean {
    if (this.heldCopy(i, source)) return false;
    const old = this.nodeInfos[i];
    // The derived lists hold NodeInfos with affinity pods: a node with none before and after leaves them as they are.
    const affinityBefore = (old?.podsWithAffinity.length ?? 0) > 0;
    const antiAffinityBefore = (old?.podsWithRequiredAntiAffinity.length ?? 0) > 0;
    if (old && old.observer === this && old.node === source.node) {
      old.refreshFrom(source);
    } else {
      const copy = source.clone();
      copy.observer = this;
      if (old?.observer === this) old.observer = undefined;
      if (this.imageCounts && old) {
        countImages(this.imageCounts, old, -1);
        countImages(this.imageCounts, copy, 1);
      }
      this.nodeInfos[i] = copy;
      this.byName.set(copy.name, copy);
    }
    this.sources[i] = source;
    this.copiedGenerations[i] = source.generation;
    this.logChange(i);
    const now = this.nodeInfos[i] as NodeInfo;
    if (affinityBefore || now.podsWithAffinity.length > 0) this.withAffinity = undefined;
    if (antiAffinityBefore || now.podsWithRequiredAntiAffinity.length > 0) this.withRequiredAntiAffinity = undefined;
    return true;
  }

  /** Nodes added, removed or reordered: a new list, reusing the copies that are still current. */
  private rebuild(current: readonly NodeInfo[]): number {
    const oldIndex = this.positions;
    const infos: NodeInfo[] = [];
    const kept = new Set<NodeInfo>();
    let copied = 0;
    for (const source of current) {
      let info = this.heldCopy(oldIndex.get(source.name), source);
      if (info) {
        kept.add(info);
      } else {
        info = source.clone();
        info.observer = this;
        copied++;
      }
      infos.push(info);
    }
    for (const old of this.nodeInfos) if (old.observer === this && !kept.has(old)) old.observer = undefined;
    this.sources = [...current];
    this.copiedGenerations = current.map((n) => n.generation);
    this.byName.clear();
    this.positions.clear();
    infos.forEach((n, i) => {
      this.byName.set(n.name, n);
      this.positions.set(n.name, i);
    });
    this.tracked = true;
    this.imageCounts = undefined;
    this.newEpoch();
    this.nodeInfos = infos;
    this.withAffinity = undefined;
    this.withRequiredAntiAffinity = undefined;
    return copied;
  }

  /** The copy held at `index`, when it still stands for `source` as it is now. */
  private heldCopy(index: number | undefined, source: NodeInfo): NodeInfo | undefined {
    if (index === undefined) return undefined;
    const held = this.nodeInfos[index];
    const generation = this.copiedGenerations[index];
    return this.sources[index] === source && generation === source.generation && held?.generation === generation ? held : undefined;
  }

  /** A NodeInfo held here changed in place (what-if planning): the next update re-copies it. */
  nodeInfoChanged(info: NodeInfo): void {
    const i = this.positions.get(info.name);
    if (i === undefined || this.nodeInfos[i] !== info) return;
    this.mutated.push(i);
    this.logChange(i);
    this.withAffinity = undefined;
    this.withRequiredAntiAffinity = undefined;
  }

  private logChange(i: number): void {
    if (this.changeLog.length >= Math.max(MIN_LOG, this.nodeInfos.length)) {
      this.newEpoch();
      return;
    }
    this.changeLog.push(i);
    this.changeMarks.push(++lastMark);
  }

  /** Changes before now can no longer be told apart: a consumer older than this compares every node. */
  private newEpoch(): void {
    this.epochStart = ++lastMark;
    this.changeLog = [];
    this.changeMarks = [];
  }

  changeMark(): number {
    return this.changeMarks[this.changeMarks.length - 1] ?? this.epochStart;
  }

  changedSince(mark: number): readonly number[] | undefined {
    if (!this.tracked || mark < this.epochStart) return undefined;
    let k = this.changeMarks.length;
    while (k > 0 && (this.changeMarks[k - 1] as number) > mark) k--;
    return this.changeLog.slice(k);
  }

  /**
   * Builds NodeInfos from nodes and the pods bound to them (spec.nodeName). Pods not bound, or bound
   * to a node not in the snapshot, are left out; a malformed pod is an error naming it.
   */
  static fromCluster(cluster: ClusterSnapshot): Result<Snapshot> {
    const infos = cluster.nodes.map((n) => new NodeInfo(n));
    const byName = new Map(infos.map((n) => [n.name, n]));
    for (const pod of cluster.pods) {
      const nodeName = pod.spec.nodeName;
      const node = nodeName ? byName.get(nodeName) : undefined;
      if (!node) continue;
      const info = podInfo(pod);
      if (!info.ok) return err(info.error);
      node.addPod(info.value);
    }
    const snapshot = new Snapshot(infos);
    snapshot.useObjects(cluster);
    return ok(snapshot);
  }

  /** The objects besides nodes and pods plugins read through this snapshot (a ClusterSnapshot is one). */
  useObjects(objects: ClusterObjects): void {
    this.clusterObjects = objects;
  }

  objects(): ClusterObjects {
    return this.clusterObjects;
  }

  list(): readonly NodeInfo[] {
    return this.nodeInfos;
  }

  get(name: string): NodeInfo | undefined {
    return this.byName.get(name);
  }

  havePodsWithAffinity(): readonly NodeInfo[] {
    return (this.withAffinity ??= this.nodeInfos.filter((n) => n.podsWithAffinity.length > 0));
  }

  havePodsWithRequiredAntiAffinity(): readonly NodeInfo[] {
    return (this.withRequiredAntiAffinity ??= this.nodeInfos.filter((n) => n.podsWithRequiredAntiAffinity.length > 0));
  }

  imageNumNodes(image: string): number {
    if (!this.imageCounts) {
      this.imageCounts = new Map();
      for (const n of this.nodeInfos) countImages(this.imageCounts, n, 1);
    }
    return this.imageCounts.get(image) ?? 0;
  }

  /**
   * Call after changing its NodeInfos in ways it cannot see (pods are seen: a NodeInfo tells the
   * snapshot holding it): derived lists are rebuilt and per-node consumers compare every node.
   */
  invalidate(): void {
    this.withAffinity = undefined;
    this.withRequiredAntiAffinity = undefined;
    this.newEpoch();
  }
}

function countImages(counts: Map<string, number>, info: NodeInfo, sign: 1 | -1): void {
  for (const name of info.imageSizes.keys()) {
    const count = (counts.get(name) ?? 0) + sign;
    if (count === 0) counts.delete(name);
    else counts.set(name, count);
  }
}
