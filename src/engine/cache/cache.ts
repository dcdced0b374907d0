// The cluster cache (upstream pkg/scheduler/backend/cache): nodes and the pods bound or assumed on
// them, aggregated into NodeInfos, kept up to date from events, and copied into a Snapshot for each
// scheduling cycle.
//
// Pod states (docs/architecture.md, The engine), keyed by uid (namespace/name without one):
//   Initial --assumePod--> Assumed --addPod--> Added --removePod--> Deleted
//   Assumed --forgetPod / expiry / removePod--> Initial;   Initial --addPod--> Added
// An add confirms an assumed pod, moving it to the node it was really bound to if that differs. An
// assumed pod expires `assumedPodTtlMs` after finishBinding unless an add confirms it first; while its
// binding is in flight it never expires, and a TTL of 0 means never. Every other transition (assume
// twice, forget a pod not assumed, update a pod never added, ...) is a CacheError value and leaves the
// cache as it was.
//
// Expiry is driven by the owner: cleanupExpiredAssumedPods() (e.g. before each cycle), or
// startExpiry(periodMs) to sweep on a timer of the injected clock as upstream does every second.
// No timer is set unless asked, so a short-lived process (the CLI) has nothing to cancel.
//
// Nodes: a node removed while pods remain on it stays as a ghost until its last pod goes, since pod
// deletions may arrive after the node's; pods bound to a node not seen yet wait on a placeholder
// until it arrives. Ghosts and placeholders are never in a snapshot.
import { type Clock, type Timer } from '../api/clock';
import { selectorMatches } from '../api/labels';
import { err, ok, type Result } from '../api/result';
import { podId, podKey, type LabelSelector, type Node, type Pod } from '../api/types';
import { boundPodInfo, NodeInfo, podInfo, type PodInfo } from '../framework/node-info';
import { Snapshot } from '../framework/snapshot';
import { NodeTree, zoneKey } from './node-tree';

export type PodState = 'Assumed' | 'Added';

/** Live: added and not removed. Ghost: removed while pods remain. Placeholder: pods bound to it, node not seen yet. */
export type NodeState = 'Live' | 'Ghost' | 'Placeholder';

export type CacheErrorCode =
  'PodExists' | 'PodNotFound' | 'PodAssumed' | 'PodNotAssumed' | 'NodeMismatch' | 'InvalidPod' | 'NodeExists' | 'NodeNotFound';

export interface CacheError {
  readonly code: CacheErrorCode;
  readonly message: string;
}

export interface CacheOptions {
  readonly clock: Clock;
  /** How long an assumed pod waits for its add event once its binding finished; 0 = forever. */
  readonly assumedPodTtlMs: number;
}

export interface CachedPod {
  /** The pod as cached; for an assumed pod, the copy with spec.nodeName set. */
  readonly pod: Pod;
  readonly nodeName: string;
  readonly state: PodState;
  /** finishBinding was called: from now on the pod can expire. */
  readonly bindingFinished: boolean;
  /** When an assumed pod expires (clock ms); absent while binding or when the TTL is 0. */
  readonly expiresAt?: number;
}

export interface CacheDump {
  /** By name. */
  readonly nodes: ReadonlyArray<{
    readonly name: string;
    readonly state: NodeState;
    readonly generation: number;
    /** Pod keys (namespace/name), sorted. */
    readonly pods: readonly string[];
    readonly allocatable: Readonly<Record<string, number>>;
    readonly requested: Readonly<Record<string, number>>;
    readonly nonZeroRequested: Readonly<Record<string, number>>;
    readonly hostPorts: number;
    readonly allocatableError?: string;
  }>;
  /** By key. */
  readonly pods: ReadonlyArray<{ readonly key: string; readonly id: string } & Omit<CachedPod, 'pod'>>;
}

interface PodEntry {
  pod: Pod;
  info: PodInfo;
  nodeName: string;
  state: PodState;
  bindingFinished: boolean;
  expiresAt: number | undefined;
}

interface NodeEntry {
  info: NodeInfo;
  state: NodeState;
  /** The cache's change count when this node last changed. */
  stamp: number;
  // The recency list, most recently changed first (upstream's headNode list).
  newer: NodeEntry | undefined;
  older: NodeEntry | undefined;
}

const done = ok(undefined);
const failure = (code: CacheErrorCode, message: string): Result<never, CacheError> => err({ code, message });

export class ClusterCache {
  private readonly clock: Clock;
  private readonly ttlMs: number;
  private readonly pods = new Map<string, PodEntry>();
  private readonly assumed = new Set<string>();
  private readonly nodes = new Map<string, NodeEntry>();
  private readonly tree = new NodeTree();
  /** Live NodeInfos in tree order; dropped whenever a live node's NodeInfo object changes. */
  private ordered: readonly NodeInfo[] | undefined;
  /** Node changes so far; each change stamps its node and moves it to the head of the recency list. */
  private stamp = 0;
  private recent: NodeEntry | undefined;
  /** For each snapshot updated here, the stamp it was last brought up to. */
  private readonly synced = new WeakMap<Snapshot, number>();

  constructor(options: CacheOptions) {
    this.clock = options.clock;
    this.ttlMs = options.assumedPodTtlMs;
  }

  // ---- pods

  /** Counts `pod` on `nodeName` before its binding is confirmed (the scheduler's decision). */
  assumePod(pod: Pod, nodeName: string): Result<void, CacheError> {
    const existing = this.pods.get(podId(pod));
    if (existing?.state === 'Assumed')
      return failure('PodExists', `pod ${podKey(pod)} is already assumed on node ${existing.nodeName}, so it can't be assumed again`);
    if (existing) return failure('PodExists', `pod ${podKey(pod)} is already added on node ${existing.nodeName}, so it can't be assumed`);
    if (!nodeName) return failure('InvalidPod', `pod ${podKey(pod)} can't be assumed without a node name`);
    // The original's PodInfo is usually memoized already (the cycle that chose the node built it).
    const original = infoOf(pod);
    if (!original.ok) return original;
    const info = boundPodInfo(original.value, nodeName);
    this.place(info, nodeName);
    this.setEntry({ pod: info.pod, info, nodeName, state: 'Assumed', bindingFinished: false, expiresAt: undefined });
    return done;
  }

  /** The assumed pod's binding call returned: its TTL starts now. */
  finishBinding(pod: Pod): Result<void, CacheError> {
    const entry = this.assumedEntry(pod, 'finish binding for it');
    if (!entry.ok) return entry;
    entry.value.bindingFinished = true;
    entry.value.expiresAt = this.ttlMs > 0 ? this.clock.now() + this.ttlMs : undefined;
    return done;
  }

  /** Drops an assumed pod (its binding failed). A node name on `pod`, if any, must be the one assumed. */
  forgetPod(pod: Pod): Result<void, CacheError> {
    const entry = this.assumedEntry(pod, 'be forgotten');
    if (!entry.ok) return entry;
    const nodeName = pod.spec.nodeName;
    if (nodeName && nodeName !== entry.value.nodeName) {
      return failure(
        'NodeMismatch',
        `pod ${podKey(pod)} was assumed on node ${entry.value.nodeName}, not ${nodeName}, so it can't be forgotten there`,
      );
    }
    this.drop(entry.value);
    return done;
  }

  /** A bound pod seen in the cluster: confirms it if assumed (on the node it is really bound to), else adds it. */
  addPod(pod: Pod): Result<void, CacheError> {
    const nodeName = pod.spec.nodeName;
    if (!nodeName)
      return failure('InvalidPod', `pod ${podKey(pod)} has no spec.nodeName: only pods bound to a node are added to the cache`);
    const existing = this.pods.get(podId(pod));
    if (existing?.state === 'Added') return failure('PodExists', `pod ${podKey(pod)} was already added on node ${existing.nodeName}`);
    const info = infoOf(pod);
    if (!info.ok) return info;
    if (existing) this.drop(existing);
    this.place(info.value, nodeName);
    this.setEntry({ pod, info: info.value, nodeName, state: 'Added', bindingFinished: false, expiresAt: undefined });
    return done;
  }

  /** A new version of an added pod; its node can't change. */
  updatePod(pod: Pod): Result<void, CacheError> {
    const entry = this.pods.get(podId(pod));
    if (!entry) return failure('PodNotFound', `pod ${podKey(pod)} was never added to the cache, so it can't be updated`);
    if (entry.state === 'Assumed')
      return failure('PodAssumed', `pod ${podKey(pod)} is assumed, not added: only its add event can change it`);
    if (pod.spec.nodeName !== entry.nodeName) {
      return failure(
        'NodeMismatch',
        `pod ${podKey(pod)} is on node ${entry.nodeName} but the update puts it on ${pod.spec.nodeName || 'no node'}; a bound pod never moves`,
      );
    }
    const info = infoOf(pod);
    if (!info.ok) return info;
    this.unplace(entry);
    this.place(info.value, entry.nodeName);
    entry.pod = pod;
    entry.info = info.value;
    return done;
  }

  /** The pod is gone (deleted, or no longer bound): removed from wherever the cache holds it. */
  removePod(pod: Pod): Result<void, CacheError> {
    const entry = this.pods.get(podId(pod));
    if (!entry) return failure('PodNotFound', `pod ${podKey(pod)} is not in the cache, so it can't be removed`);
    this.drop(entry);
    return done;
  }

  /** Drops the assumed pods whose TTL has run out (at or after their deadline) and returns them. */
  cleanupExpiredAssumedPods(): Pod[] {
    const now = this.clock.now();
    const expired: Pod[] = [];
    for (const id of this.assumed) {
      const entry = this.pods.get(id);
      if (entry?.expiresAt === undefined || now < entry.expiresAt) continue;
      this.drop(entry);
      expired.push(entry.pod);
    }
    return expired;
  }

  /** Sweeps expired assumed pods every `periodMs` on the injected clock until the returned timer is cancelled. */
  startExpiry(periodMs: number, onExpired: (pods: readonly Pod[]) => void = () => undefined): Timer {
    if (!(periodMs > 0)) throw new RangeError(`expiry period must be positive, got ${periodMs}`);
    let timer: Timer;
    const sweep = (): void => {
      const expired = this.cleanupExpiredAssumedPods();
      if (expired.length > 0) onExpired(expired);
      timer = this.clock.setTimer(periodMs, sweep);
    };
    timer = this.clock.setTimer(periodMs, sweep);
    return { cancel: () => timer.cancel() };
  }

  /** The pod with this id (uid, or namespace/name without one), as cached. */
  getPod(id: string): CachedPod | undefined {
    const entry = this.pods.get(id);
    return entry && view(entry);
  }

  /** Every cached pod (assumed or added, on any node) whose labels match `selector`, in the order cached. */
  listPods(selector: LabelSelector): Pod[] {
    const pods: Pod[] = [];
    for (const entry of this.pods.values()) if (selectorMatches(selector, entry.pod.metadata.labels)) pods.push(entry.pod);
    return pods;
  }

  // ---- nodes

  addNode(node: Node): Result<void, CacheError> {
    const name = node.metadata.name;
    const entry = this.nodes.get(name);
    if (entry?.state === 'Live') return failure('NodeExists', `node ${name} is already in the cache; changes to it are updates`);
    // A ghost or a placeholder keeps its pods.
    if (entry) {
      entry.info = entry.info.withNode(node);
      entry.state = 'Live';
      this.touch(entry);
    } else {
      this.newNode(new NodeInfo(node), 'Live');
    }
    this.tree.add(name, zoneKey(node));
    this.ordered = undefined;
    return done;
  }

  updateNode(node: Node): Result<void, CacheError> {
    const name = node.metadata.name;
    const entry = this.liveNode(name, 'updated');
    if (!entry.ok) return entry;
    const [before, after] = [zoneKey(entry.value.info.node), zoneKey(node)];
    if (before !== after) {
      this.tree.remove(name, before);
      this.tree.add(name, after);
    }
    entry.value.info = entry.value.info.withNode(node);
    this.touch(entry.value);
    this.ordered = undefined;
    return done;
  }

  removeNode(name: string): Result<void, CacheError> {
    const entry = this.liveNode(name, 'removed');
    if (!entry.ok) return entry;
    this.tree.remove(name, zoneKey(entry.value.info.node));
    if (entry.value.info.pods.length > 0) {
      entry.value.state = 'Ghost';
      this.touch(entry.value);
    } else {
      this.deleteNode(entry.value);
    }
    this.ordered = undefined;
    return done;
  }

  /** A copy of the NodeInfo for `name` (live, ghost or placeholder); the cache's own is never handed out. */
  /** The live node of that name, as last added or updated. */
  getNode(name: string): Node | undefined {
    const entry = this.nodes.get(name);
    return entry?.state === 'Live' ? entry.info.node : undefined;
  }

  nodeInfo(name: string): NodeInfo | undefined {
    return this.nodes.get(name)?.info.clone();
  }

  // ---- snapshots

  /**
   * Brings `snapshot` in line with the cache, copying only the NodeInfos that changed since it was
   * last updated (Snapshot.update); returns how many were copied. Only live nodes are listed, in
   * zone round-robin order. A snapshot updated here before is told which nodes changed since, found
   * on the recency list, so the update costs what changed rather than a pass over every node.
   */
  updateSnapshot(snapshot: Snapshot): number {
    const since = this.synced.get(snapshot);
    const copied = snapshot.update(this.liveNodeInfos(), since === undefined ? undefined : this.liveChangedSince(since));
    this.synced.set(snapshot, this.stamp);
    return copied;
  }

  /** A new snapshot: later changes to the cache do not show in it. */
  snapshot(): Snapshot {
    const snapshot = new Snapshot([]);
    this.updateSnapshot(snapshot);
    return snapshot;
  }

  /** Everything the cache holds, as plain data, for debugging views and logs. */
  dump(): CacheDump {
    const nodes = [...this.nodes.values()].map(({ info, state }) => ({
      name: info.name,
      state,
      generation: info.generation,
      pods: info.pods.map((p) => p.key).sort(),
      allocatable: info.allocatable.toRecord(),
      requested: info.requested.toRecord(),
      nonZeroRequested: info.nonZeroRequested.toRecord(),
      hostPorts: info.usedPorts.size,
      ...(info.allocatableError !== undefined ? { allocatableError: info.allocatableError } : {}),
    }));
    const pods = [...this.pods.values()].map((entry) => {
      const { pod: _pod, ...rest } = view(entry);
      return { key: entry.info.key, id: entry.info.id, ...rest };
    });
    return { nodes: nodes.sort((a, b) => compare(a.name, b.name)), pods: pods.sort((a, b) => compare(a.key, b.key)) };
  }

  // ---- internals

  private setEntry(entry: PodEntry): void {
    this.pods.set(entry.info.id, entry);
    if (entry.state === 'Assumed') this.assumed.add(entry.info.id);
    else this.assumed.delete(entry.info.id);
  }

  /** Takes the pod out of the cache entirely. */
  private drop(entry: PodEntry): void {
    this.unplace(entry);
    this.pods.delete(entry.info.id);
    this.assumed.delete(entry.info.id);
  }

  private place(info: PodInfo, nodeName: string): void {
    const node = this.nodes.get(nodeName) ?? this.newNode(new NodeInfo({ metadata: { name: nodeName } }), 'Placeholder');
    node.info.addPod(info);
    this.touch(node);
  }

  private unplace(entry: PodEntry): void {
    const node = this.nodes.get(entry.nodeName);
    if (!node) return;
    node.info.removePod(entry.info.id);
    if (node.state !== 'Live' && node.info.pods.length === 0) this.deleteNode(node);
    else this.touch(node);
  }

  private newNode(info: NodeInfo, state: NodeState): NodeEntry {
    const entry: NodeEntry = { info, state, stamp: 0, newer: undefined, older: undefined };
    this.nodes.set(info.name, entry);
    this.touch(entry);
    return entry;
  }

  private deleteNode(entry: NodeEntry): void {
    this.nodes.delete(entry.info.name);
    this.unlink(entry);
  }

  /** Stamps the node as changed now and moves it to the head of the recency list. */
  private touch(entry: NodeEntry): void {
    entry.stamp = ++this.stamp;
    if (this.recent === entry) return;
    this.unlink(entry);
    entry.older = this.recent;
    if (this.recent) this.recent.newer = entry;
    this.recent = entry;
  }

  private unlink(entry: NodeEntry): void {
    if (entry.newer) entry.newer.older = entry.older;
    else if (this.recent === entry) this.recent = entry.older;
    if (entry.older) entry.older.newer = entry.newer;
    entry.newer = entry.older = undefined;
  }

  /** The live NodeInfos changed after `stamp`, from the head of the recency list. */
  private liveChangedSince(stamp: number): NodeInfo[] {
    const changed: NodeInfo[] = [];
    for (let entry = this.recent; entry && entry.stamp > stamp; entry = entry.older) if (entry.state === 'Live') changed.push(entry.info);
    return changed;
  }

  private assumedEntry(pod: Pod, action: string): Result<PodEntry, CacheError> {
    const entry = this.pods.get(podId(pod));
    if (!entry) return failure('PodNotFound', `pod ${podKey(pod)} is not in the cache, so it can't ${action}`);
    if (entry.state !== 'Assumed')
      return failure('PodNotAssumed', `pod ${podKey(pod)} is added on node ${entry.nodeName}, not assumed, so it can't ${action}`);
    return ok(entry);
  }

  private liveNode(name: string, action: string): Result<NodeEntry, CacheError> {
    const entry = this.nodes.get(name);
    if (entry?.state === 'Live') return ok(entry);
    const why = entry?.state === 'Ghost' ? 'was removed' : 'was never added';
    return failure('NodeNotFound', `node ${name} ${why}, so it can't be ${action}`);
  }

  private liveNodeInfos(): readonly NodeInfo[] {
    return (this.ordered ??= this.tree.list().flatMap((name) => {
      const entry = this.nodes.get(name);
      return entry ? [entry.info] : [];
    }));
  }
}

function infoOf(pod: Pod): Result<PodInfo, CacheError> {
  const info = podInfo(pod);
  return info.ok ? info : failure('InvalidPod', info.error);
}

function view(entry: PodEntry): CachedPod {
  const { pod, nodeName, state, bindingFinished, expiresAt } = entry;
  return { pod, nodeName, state, bindingFinished, ...(expiresAt !== undefined ? { expiresAt } : {}) };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
