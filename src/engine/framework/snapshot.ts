// A consistent view of the cluster for one scheduling cycle. The cache hands one out per cycle
// (ClusterCache.snapshot, or updateSnapshot to refresh one in place, copying only what changed); a
// workspace preview builds one straight from a ClusterSnapshot.
import { err, ok, type Result } from '../api/result';
import type { ClusterSnapshot } from '../api/types';
import { NodeInfo, podInfo, type NodeInfoLister } from './node-info';

export class Snapshot implements NodeInfoLister {
  private readonly byName = new Map<string, NodeInfo>();
  private withAffinity: NodeInfo[] | undefined;
  private withRequiredAntiAffinity: NodeInfo[] | undefined;
  private imageCounts: Map<string, number> | undefined;
  // For update(): per position, the NodeInfo the entry was copied from and its generation then.
  private sources: Array<NodeInfo | undefined> = [];
  private copiedGenerations: number[] = [];

  constructor(private nodeInfos: readonly NodeInfo[]) {
    for (const n of nodeInfos) this.byName.set(n.name, n);
  }

  /**
   * Brings the snapshot in line with `current` (the source's NodeInfos, in list order) and returns
   * how many NodeInfos it copied. A NodeInfo is copied only when it is new here, is another object
   * than the one copied last time (a node updated, or removed and added again), has a different
   * generation than when copied (pods changed), or the copy held here was changed since (what-if
   * planning on this snapshot). Finding them costs a comparison per node; copying is per changed
   * node. Arrays handed out by list() before are left as they were.
   */
  update(current: readonly NodeInfo[]): number {
    const old = this.nodeInfos;
    const aligned = current.length === old.length && current.every((n, i) => n.name === old[i]?.name);
    return aligned ? this.patch(current) : this.rebuild(current);
  }

  /** The same nodes in the same order: stale copies are replaced in a new list. */
  private patch(current: readonly NodeInfo[]): number {
    let infos: NodeInfo[] | undefined;
    let copied = 0;
    // An index loop: this runs over every node each cycle.
    for (let i = 0; i < current.length; i++) {
      const source = current[i];
      if (!source || this.heldCopy(i, source)) continue;
      const copy = source.clone();
      (infos ??= [...this.nodeInfos])[i] = copy;
      this.sources[i] = source;
      this.copiedGenerations[i] = source.generation;
      this.byName.set(copy.name, copy);
      copied++;
    }
    if (infos) this.replaced(infos);
    return copied;
  }

  /** Nodes added, removed or reordered: a new list, reusing the copies that are still current. */
  private rebuild(current: readonly NodeInfo[]): number {
    const oldIndex = new Map(this.nodeInfos.map((n, i) => [n.name, i]));
    const infos: NodeInfo[] = [];
    let copied = 0;
    for (const source of current) {
      let info = this.heldCopy(oldIndex.get(source.name), source);
      if (!info) {
        info = source.clone();
        copied++;
      }
      infos.push(info);
    }
    this.sources = [...current];
    this.copiedGenerations = current.map((n) => n.generation);
    this.byName.clear();
    for (const n of infos) this.byName.set(n.name, n);
    this.replaced(infos);
    return copied;
  }

  private replaced(infos: readonly NodeInfo[]): void {
    this.nodeInfos = infos;
    this.invalidate();
    this.imageCounts = undefined;
  }

  /** The copy held at `index`, when it still stands for `source` as it is now. */
  private heldCopy(index: number | undefined, source: NodeInfo): NodeInfo | undefined {
    if (index === undefined) return undefined;
    const held = this.nodeInfos[index];
    const generation = this.copiedGenerations[index];
    return this.sources[index] === source && generation === source.generation && held?.generation === generation ? held : undefined;
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
    return ok(new Snapshot(infos));
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
      for (const n of this.nodeInfos) for (const name of n.imageSizes.keys()) this.imageCounts.set(name, (this.imageCounts.get(name) ?? 0) + 1);
    }
    return this.imageCounts.get(image) ?? 0;
  }

  /** Call after adding or removing pods on its NodeInfos (what-if planning) so the derived lists are rebuilt. */
  invalidate(): void {
    this.withAffinity = undefined;
    this.withRequiredAntiAffinity = undefined;
  }
}
