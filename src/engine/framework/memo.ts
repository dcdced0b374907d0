// Per-node results of a computation over a node's pods, reused across cycles while the node is
// unchanged. An entry belongs to one NodeInfo object at one generation (bumped by every pod added or
// removed), so a snapshot that copies only the nodes that changed recomputes only those. Plugins use
// it so that a cycle costs a lookup per node rather than a selector match per pod.
import type { NodeInfo, NodeInfoLister } from './node-info';
import { LruCache } from './caches';
import { Code, SUCCESS, type Status } from './status';

/** Distinct keys kept per node: beyond it the node's entries start over (many distinct pod shapes). */
const MAX_KEYS_PER_NODE = 64;

export class NodeMemo<V> {
  private readonly byNode = new WeakMap<NodeInfo, { generation: number; values: Map<string, V> }>();

  /**
   * The value for `key` on `node`, computed by `compute(node, arg)` unless known for this generation.
   * `key` must identify everything `compute` reads besides the node's pods and labels; pass it
   * through a KeyInterner once per cycle.
   */
  get<A>(node: NodeInfo, key: string, compute: (node: NodeInfo, arg: A) => V, arg: A): V {
    let entry = this.byNode.get(node);
    if (!entry || entry.generation !== node.generation) {
      entry = { generation: node.generation, values: new Map() };
      this.byNode.set(node, entry);
    }
    if (entry.values.has(key)) return entry.values.get(key) as V;
    if (entry.values.size >= MAX_KEYS_PER_NODE) entry.values.clear();
    const value = compute(node, arg);
    entry.values.set(key, value);
    return value;
  }
}

/**
 * A sum over a list of nodes of per-node contributions, kept across cycles: an update recomputes
 * only the slots whose NodeInfo object or generation changed since the last one, taking the old
 * contribution out and putting the new one in. The sum itself lives wherever `apply` writes.
 */
export class NodeAggregate<C> {
  private readonly slots: Array<NodeInfo | undefined> = [];
  private readonly generations: number[] = [];
  private readonly contributions: C[] = [];
  // Where the last update's list came from, and the lister's change mark then.
  private lister: NodeInfoLister | undefined;
  private mark = 0;

  constructor(
    private readonly compute: (node: NodeInfo) => C,
    private readonly apply: (contribution: C, sign: 1 | -1) => void,
  ) {}

  /**
   * Brings the sum in line with `nodes`. When they are `lister`'s list and the lister can tell what
   * changed since the last update (changedSince), only those positions are looked at; otherwise
   * every node is compared.
   */
  update(nodes: readonly NodeInfo[], lister?: NodeInfoLister): void {
    const fromLister = lister !== undefined && lister.list() === nodes;
    const changed =
      fromLister && lister === this.lister && nodes.length === this.slots.length ? lister.changedSince?.(this.mark) : undefined;
    if (changed) {
      for (const i of changed) this.refresh(i, nodes[i] as NodeInfo);
    } else {
      for (let i = 0; i < nodes.length; i++) this.refresh(i, nodes[i] as NodeInfo);
      const { slots, contributions } = this;
      for (let i = nodes.length; i < slots.length; i++) if (slots[i] !== undefined) this.apply(contributions[i] as C, -1);
      slots.length = this.generations.length = contributions.length = nodes.length;
    }
    this.lister = fromLister ? lister : undefined;
    this.mark = (fromLister && lister.changeMark?.()) || 0;
  }

  private refresh(i: number, node: NodeInfo): void {
    const { slots, generations, contributions } = this;
    if (slots[i] === node && generations[i] === node.generation) return;
    if (slots[i] !== undefined) this.apply(contributions[i] as C, -1);
    const contribution = this.compute(node);
    this.apply(contribution, 1);
    slots[i] = node;
    generations[i] = node.generation;
    contributions[i] = contribution;
  }
}

/**
 * Results by position in a lister's list (one per node), kept across cycles and dropped for the
 * positions the lister reports changed (changedSince). The runtime keeps plugins' verdicts and scores
 * in them when they depend only on the node and a key (filterKey, scoreKey): reading one is a typed
 * array access, with no visit to the NodeInfo.
 */
abstract class PositionMemo {
  private lister: NodeInfoLister | undefined;
  private mark = 0;

  /** Follows the lister's changes since the last call; false when it cannot tell them, and nothing may be read then. */
  sync(lister: NodeInfoLister): boolean {
    if (!lister.changeMark || !lister.changedSince) {
      this.lister = undefined;
      return false;
    }
    const changed = lister === this.lister ? lister.changedSince(this.mark) : undefined;
    if (changed) for (const i of changed) this.forget(i);
    else this.reset(lister.list().length);
    this.lister = lister;
    this.mark = lister.changeMark();
    return true;
  }

  protected abstract forget(position: number): void;
  protected abstract reset(length: number): void;
}

const UNKNOWN = 0;
const PASSED = 1;
const REJECTED = 2;

/** A Filter plugin's verdicts: whether each node passed, or the status that rejected it. */
export class VerdictMemo extends PositionMemo {
  private verdicts = new Uint8Array(0);
  private rejections: Array<Status | undefined> = [];

  passed(position: number): boolean {
    return this.verdicts[position] === PASSED;
  }

  /** The remembered verdict, undefined when unknown. */
  get(position: number): Status | undefined {
    const verdict = this.verdicts[position];
    return verdict === PASSED ? SUCCESS : verdict === REJECTED ? this.rejections[position] : undefined;
  }

  /** Remembers a verdict other than an Error. */
  set(position: number, status: Status): void {
    const rejected = status.code !== Code.Success && status.code !== Code.Skip;
    this.verdicts[position] = rejected ? REJECTED : PASSED;
    this.rejections[position] = rejected ? status : undefined;
  }

  protected forget(position: number): void {
    this.verdicts[position] = UNKNOWN;
    this.rejections[position] = undefined;
  }

  protected reset(length: number): void {
    this.verdicts = new Uint8Array(length);
    this.rejections = new Array<Status | undefined>(length).fill(undefined);
  }
}

/** A Score plugin's raw scores (NaN: unknown). */
export class ScoreMemo extends PositionMemo {
  private scores = new Float64Array(0);

  /** The remembered raw score; NaN when unknown. */
  get(position: number): number {
    return this.scores[position] as number;
  }

  set(position: number, score: number): void {
    this.scores[position] = score;
  }

  protected forget(position: number): void {
    this.scores[position] = NaN;
  }

  protected reset(length: number): void {
    this.scores = new Float64Array(length).fill(NaN);
  }
}

/** Several plugins' scores on each node and their weighted sum (NaN: unknown). */
export class SumMemo extends PositionMemo {
  private values = new Float64Array(0);

  constructor(private readonly parts: number) {
    super();
  }

  sum(position: number): number {
    return this.values[position * (this.parts + 1)] as number;
  }

  part(position: number, part: number): number {
    return this.values[position * (this.parts + 1) + 1 + part] as number;
  }

  /** Set the parts first: the sum makes the position known. */
  setPart(position: number, part: number, score: number): void {
    this.values[position * (this.parts + 1) + 1 + part] = score;
  }

  setSum(position: number, sum: number): void {
    this.values[position * (this.parts + 1)] = sum;
  }

  protected forget(position: number): void {
    this.values[position * (this.parts + 1)] = NaN;
  }

  protected reset(length: number): void {
    this.values = new Float64Array(length * (this.parts + 1)).fill(NaN);
  }
}

/**
 * Remembered verdict and score tables kept per plugin (one per key, i.e. per pod shape), the least
 * recently used dropped. A queue cycling through more shapes than this recomputes every node for
 * every pod (a dump's pods of a few dozen shapes, interleaved, did with 16).
 */
const MEMO_KEYS = 64;

/**
 * Memos for several plugins' keys together (whether a node passed all their filters, the sum of
 * their scores). Consecutive pods mostly share their keys: the last memo found is kept, and the keys
 * are joined into one only when they change.
 */
export class CombinedMemos<M> {
  private readonly byKey = new LruCache<M>(MEMO_KEYS);
  private lastKeys: readonly string[] = [];
  private last: M | undefined;

  get(keys: readonly string[], make: () => M): M {
    if (this.last !== undefined && keys.length === this.lastKeys.length && keys.every((k, i) => k === this.lastKeys[i])) return this.last;
    this.last = this.byKey.get(keys.join('\0'), make);
    this.lastKeys = keys;
    return this.last;
  }
}

/**
 * The runtime's memos of one Framework: per plugin and key its verdicts (Filter) and raw scores
 * (Score); per set of keys whether a node passed all those filters, and the weighted sum of scores
 * that need no normalizing. Each memo is synced with the cycle's snapshot when handed out; none is
 * handed out when the snapshot cannot tell its changes.
 */
export class CycleMemos {
  private readonly verdicts = new Map<string, LruCache<VerdictMemo>>();
  private readonly scores = new Map<string, LruCache<ScoreMemo>>();
  private readonly allPassed = new CombinedMemos<VerdictMemo>();
  private readonly sums = new CombinedMemos<SumMemo>();

  /** `plugin`'s Filter verdicts for pods with `key`; none without a key. */
  verdictMemo(lister: NodeInfoLister, plugin: string, key: string | undefined): VerdictMemo | undefined {
    return memoOf(this.verdicts, () => new VerdictMemo(), lister, plugin, key);
  }

  /** `plugin`'s raw scores for pods with `key`; none without a key. */
  scoreMemo(lister: NodeInfoLister, plugin: string, key: string | undefined): ScoreMemo | undefined {
    return memoOf(this.scores, () => new ScoreMemo(), lister, plugin, key);
  }

  /** Whether a node passed every filter of `keys` (plugin, key, plugin, key, …). */
  allPassedMemo(lister: NodeInfoLister, keys: readonly string[]): VerdictMemo | undefined {
    const memo = this.allPassed.get(keys, () => new VerdictMemo());
    return memo.sync(lister) ? memo : undefined;
  }

  /** The weighted sum of the scores of `keys` (plugin, key, …), `parts` plugins. */
  sumMemo(lister: NodeInfoLister, keys: readonly string[], parts: number): SumMemo | undefined {
    const memo = this.sums.get(keys, () => new SumMemo(parts));
    return memo.sync(lister) ? memo : undefined;
  }
}

function memoOf<M extends VerdictMemo | ScoreMemo>(
  memos: Map<string, LruCache<M>>,
  make: () => M,
  lister: NodeInfoLister,
  plugin: string,
  key: string | undefined,
): M | undefined {
  if (key === undefined) return undefined;
  let byKey = memos.get(plugin);
  if (!byKey) memos.set(plugin, (byKey = new LruCache(MEMO_KEYS)));
  const memo = byKey.get(key, make);
  return memo.sync(lister) ? memo : undefined;
}
