// The engine's caches and their budget. The engine runs inside long-lived processes (the language
// server, the live scheduler) that see pods without end, so no cache may grow with the pods seen:
// each is bounded by entries, or lives only as long as the object it is keyed by.
//
// Budget of one Framework (one per profile); every cache is owned by the Framework or by one of its
// plugin instances, and goes with it:
// - memo.ts's CycleMemos: 64 keys (pod shapes) per Filter and Score plugin, each a table of one
//   byte (verdict) or 8 bytes (score) per node: ≈ 64 × 8 B × nodes per plugin (5,000 nodes: 2.5 MB);
//   64 combined tables of (parts + 1) × 8 B per node.
// - memo.ts's NodeMemo: at most 64 keys per NodeInfo, dropped with the NodeInfo.
// - InterPodAffinity: 1,024 PreFilter count tables and 16 score tables (pairs per topology
//   domain, not per node: a zone key has a few entries, a hostname key one per node), KeyInterner of
//   10,000 keys, BoundedMap of 10,000 namespaces.
// - PodTopologySpread: 16 domain count tables, KeyInterner of 10,000 keys.
// - Per pod object (WeakCache / keyPerPod): compiled terms, constraints and memo keys, dropped with
//   the pod (`engine/api` keeps its own per-pod parses the same way: resources, node affinity).
// Process-wide, not per Framework: DRA capacity amounts parsed by their text (plugins/dynamicresources/
// capacity.ts, 4,096 entries, then it starts over) and whether a device has a request policy (per
// device object); DRA CEL selectors (plugins/dynamicresources/): compiled selectors, estimated costs
// and new-expression errors by expression text (cel.ts `compiled`, `costs`, `newErrors`: 4,096
// entries each, then each starts over; a compiled selector holds its cost walk's per-node plans,
// cel-runtime-cost.ts `plans`, dropped with it), compiled regex patterns by text (cel-regex.ts
// `patterns`, 1,024, then it starts over), and per device object the `device` value by driver and
// each compiled selector's verdicts by driver (cel.ts `values`, `verdicts`), dropped with the
// device; per object also the allocator's node selector matchers and prepared claims per claim list
// (allocator.ts) and optionals' values (cel-optional.ts); attributed copies of frozen statuses
// (status.ts) and their stage outcomes (cycle-log.ts), one per (frozen status, plugin, stage),
// dropped with the status.
import type { Pod } from '../api/types';

/** Values by key (one per distinct pod shape), the least recently used dropped beyond `capacity`. */
export class LruCache<V> {
  private readonly byKey = new Map<string, V>();
  // The most recently used entry: asked again (the common case), it needs no reordering.
  private lastKey: string | undefined;
  private lastValue: V | undefined;

  constructor(private readonly capacity: number) {}

  get(key: string, create: () => V): V {
    if (key === this.lastKey) return this.lastValue as V;
    let value = this.byKey.get(key);
    if (value === undefined) value = create();
    else this.byKey.delete(key);
    this.byKey.set(key, value);
    if (this.byKey.size > this.capacity) this.byKey.delete(this.byKey.keys().next().value as string);
    this.lastKey = key;
    this.lastValue = value;
    return value;
  }
}

/**
 * A side table by string key that starts over when it reaches `capacity` entries: for values that
 * are cheap to make again (frozen label sets by namespace), where an LRU's bookkeeping costs more
 * than a rare rebuild.
 */
export class BoundedMap<V> {
  private readonly byKey = new Map<string, V>();

  constructor(private readonly capacity: number) {}

  get(key: string, create: (key: string) => V): V {
    let value = this.byKey.get(key);
    if (value === undefined) {
      if (this.byKey.size >= this.capacity) this.byKey.clear();
      this.byKey.set(key, (value = create(key)));
    }
    return value;
  }
}

/** Keys a KeyInterner keeps before it starts over (keys are a few hundred bytes: ≈ 2–5 MB). */
const INTERNED_KEYS = 10_000;

/**
 * One string instance per distinct memo key, so lookups compare keys by identity instead of by
 * content (keys are built afresh for every pod, and are long: selectors, terms, labels).
 */
export class KeyInterner {
  private readonly keys = new BoundedMap<string>(INTERNED_KEYS);

  intern(key: string): string {
    return this.keys.get(key, same);
  }
}

const same = (key: string) => key;

/** Values by object (a pod, a list, a frozen status), each dropped when its object is. */
export class WeakCache<K extends object, V> {
  private readonly byObject = new WeakMap<K, V>();

  get(object: K, create: (object: K) => V): V {
    let value = this.byObject.get(object);
    if (value === undefined) this.byObject.set(object, (value = create(object)));
    return value;
  }
}

/**
 * `build` as a string key, made once per pod object (pods are immutable and plugins are asked for
 * their filterKey / scoreKey in every cycle). One per plugin instance.
 */
export function keyPerPod(build: (pod: Pod) => unknown): (pod: Pod) => string {
  const keys = new WeakCache<Pod, string>();
  const make = (pod: Pod) => JSON.stringify(build(pod)) ?? '';
  return (pod) => keys.get(pod, make);
}
