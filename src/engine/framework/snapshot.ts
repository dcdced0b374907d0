// A consistent view of the cluster for one scheduling cycle. The cache hands one out per cycle; a
// workspace preview builds one straight from a ClusterSnapshot.
import { err, ok, type Result } from '../api/result';
import type { ClusterSnapshot } from '../api/types';
import { NodeInfo, podInfo, type NodeInfoLister } from './node-info';

export class Snapshot implements NodeInfoLister {
  private readonly byName = new Map<string, NodeInfo>();
  private withAffinity: NodeInfo[] | undefined;
  private withRequiredAntiAffinity: NodeInfo[] | undefined;
  private imageCounts: Map<string, number> | undefined;

  constructor(private readonly nodeInfos: readonly NodeInfo[]) {
    for (const n of nodeInfos) this.byName.set(n.name, n);
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
