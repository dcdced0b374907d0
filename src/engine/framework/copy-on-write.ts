// The cluster as a plan would leave it, without copying the cluster: the snapshot's NodeInfos are
// shared until a pod is put on (or taken off) one, which is then copied once. The editor's plan
// check changes a few hundred nodes of thousands; copying only those keeps an edit cheap, and the
// plugins' per-node memos stay valid for every node left as it was. (A planner's scratch copy,
// engine/planner/search/what-if.ts, is another thing: it owns a copy of every node in a Snapshot of its
// own and counts its changes, which its PreFilter cache keys on.)
import type { ClusterObjects } from '../api/types';
import type { NodeInfo, NodeInfoLister, PodInfo } from './node-info';
import type { Snapshot } from './snapshot';

export class CopyOnWriteCluster implements NodeInfoLister {
  private readonly nodes: NodeInfo[];
  /** Copies made by this what-if, which it may change. */
  private readonly owned = new Set<NodeInfo>();
  private withAffinity: NodeInfo[] | undefined;
  private withRequiredAntiAffinity: NodeInfo[] | undefined;

  /** `index`: each node's position in the base's list (shared by every what-if on the base). */
  constructor(
    private readonly base: Snapshot,
    private readonly index: ReadonlyMap<string, number>,
    from: readonly NodeInfo[] = base.list(),
  ) {
    this.nodes = [...from];
  }

  list(): readonly NodeInfo[] {
    return this.nodes;
  }

  get(name: string): NodeInfo | undefined {
    const i = this.index.get(name);
    return i === undefined ? undefined : this.nodes[i];
  }

  havePodsWithAffinity(): readonly NodeInfo[] {
    return (this.withAffinity ??= this.nodes.filter((n) => n.podsWithAffinity.length > 0));
  }

  havePodsWithRequiredAntiAffinity(): readonly NodeInfo[] {
    return (this.withRequiredAntiAffinity ??= this.nodes.filter((n) => n.podsWithRequiredAntiAffinity.length > 0));
  }

  /** The base's other objects (claims, templates, classes, volumes, …): a plan changes where pods are, not them. */
  objects(): ClusterObjects {
    return this.base.objects();
  }

  imageNumNodes(image: string): number {
    // Images are the nodes' own; pods coming and going do not change them.
    return this.base.imageNumNodes(image);
  }

  /** Puts a pod on a node; false when there is no such node. */
  addPod(node: string, pod: PodInfo): boolean {
    const info = this.writable(node);
    info?.addPod(pod);
    return info !== undefined;
  }

  removePod(node: string, pod: PodInfo): boolean {
    return this.writable(node)?.removePod(pod.id) ?? false;
  }

  /** A what-if that starts from this one and changes without touching it. */
  copy(): CopyOnWriteCluster {
    return new CopyOnWriteCluster(this.base, this.index, this.nodes);
  }

  private writable(name: string): NodeInfo | undefined {
    const i = this.index.get(name);
    let node = i === undefined ? undefined : this.nodes[i];
    if (i === undefined || !node) return undefined;
    if (!this.owned.has(node)) {
      node = node.clone();
      this.nodes[i] = node;
      this.owned.add(node);
    }
    this.withAffinity = this.withRequiredAntiAffinity = undefined;
    return node;
  }
}
