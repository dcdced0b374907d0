// Object storage of the test API server: one global, monotonically increasing resourceVersion,
// a bounded history of watch events (older resourceVersions answer 410 Gone) and the live watchers
// of each resource. Every write costs O(1) plus one pass over that resource's watchers.
import type { Matcher } from './selectors';
import type { KubeObject } from './resources';
import { errors } from './status';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** A stored object and its JSON text (serialized once per write, shared by lists and watches). */
export interface Entry {
  readonly obj: KubeObject;
  readonly json: string;
  readonly rv: number;
  /** resourceVersion of the object's creation (continued lists leave out younger objects) */
  readonly createdRV: number;
}

interface HistoryEvent {
  readonly rv: number;
  readonly collection: Collection;
  readonly type: WatchEventType;
  readonly entry: Entry;
  readonly old: Entry | undefined;
}

export interface Watcher {
  readonly namespace: string | undefined;
  readonly match: Matcher;
  /** one event */
  send(type: WatchEventType, entry: Entry): void;
}

export class Collection {
  readonly items = new Map<string, Entry>();
  readonly watchers = new Set<Watcher>();
  private sorted: string[] | undefined;

  constructor(readonly key: string) {}

  /** Keys (`namespace/name`) in order, cached until the next create or delete. */
  sortedKeys(): readonly string[] {
    this.sorted ??= [...this.items.keys()].sort();
    return this.sorted;
  }

  invalidateOrder(): void {
    this.sorted = undefined;
  }
}

export function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

/** What a watcher sees of one event, given whether the old and new states match its selector. */
function eventFor(w: Watcher, ev: { type: WatchEventType; entry: Entry; old: Entry | undefined }): WatchEventType | undefined {
  if (w.namespace !== undefined && (ev.entry.obj.metadata?.namespace ?? '') !== w.namespace) return undefined;
  const now = w.match(ev.entry.obj);
  if (ev.type === 'DELETED') return now ? 'DELETED' : undefined;
  const before = ev.old !== undefined && w.match(ev.old.obj);
  if (now) return before ? 'MODIFIED' : 'ADDED';
  return before ? 'DELETED' : undefined;
}

export class Store {
  private readonly collections = new Map<string, Collection>();
  private history: HistoryEvent[] = [];
  private historyStart = 0;
  private resourceVersion = 1;
  /** watches from a resourceVersion below this one answer 410 Gone */
  private compactedRV = 1;

  constructor(private historyLimit: number) {}

  get currentRV(): number {
    return this.resourceVersion;
  }

  collection(key: string): Collection {
    let c = this.collections.get(key);
    if (!c) {
      c = new Collection(key);
      this.collections.set(key, c);
    }
    return c;
  }

  /** Stores `obj` (its metadata.resourceVersion is set here) and tells the watchers. */
  write(collection: Collection, type: 'ADDED' | 'MODIFIED', obj: KubeObject): Entry {
    const meta = obj.metadata ?? {};
    const key = objectKey(meta.namespace, meta.name ?? '');
    const old = collection.items.get(key);
    const entry = this.stamp(obj, old?.createdRV);
    collection.items.set(key, entry);
    if (!old) collection.invalidateOrder();
    this.record(collection, old ? 'MODIFIED' : type, entry, old);
    return entry;
  }

  remove(collection: Collection, namespace: string | undefined, name: string): Entry | undefined {
    const key = objectKey(namespace, name);
    const old = collection.items.get(key);
    if (!old) return undefined;
    collection.items.delete(key);
    collection.invalidateOrder();
    const entry = this.stamp(structuredClone(old.obj), old.createdRV);
    this.record(collection, 'DELETED', entry, old);
    return entry;
  }

  private stamp(obj: KubeObject, createdRV: number | undefined): Entry {
    const rv = ++this.resourceVersion;
    obj.metadata = { ...obj.metadata, resourceVersion: String(rv) };
    return { obj, json: JSON.stringify(obj), rv, createdRV: createdRV ?? rv };
  }

  private record(collection: Collection, type: WatchEventType, entry: Entry, old: Entry | undefined): void {
    const ev: HistoryEvent = { rv: entry.rv, collection, type, entry, old };
    this.history.push(ev);
    this.trim();
    for (const w of collection.watchers) {
      const t = eventFor(w, ev);
      if (t) w.send(t, entry);
    }
  }

  private trim(): void {
    const live = this.history.length - this.historyStart;
    if (live <= this.historyLimit) return;
    const drop = live - this.historyLimit;
    this.compactedRV = (this.history[this.historyStart + drop - 1] as HistoryEvent).rv;
    this.historyStart += drop;
    if (this.historyStart > this.historyLimit) {
      this.history = this.history.slice(this.historyStart);
      this.historyStart = 0;
    }
  }

  /** Forgets the whole event history: a watch from any older resourceVersion answers 410. */
  compact(): void {
    this.history = [];
    this.historyStart = 0;
    this.compactedRV = this.resourceVersion;
  }

  setHistoryLimit(limit: number): void {
    this.historyLimit = limit;
    this.trim();
  }

  /** 410 Gone for a resourceVersion older than the history holds. */
  checkNotCompacted(rv: number): void {
    if (rv < this.compactedRV) throw errors.gone(`too old resource version: ${rv} (${this.compactedRV})`);
  }

  /**
   * Starts a watch: replays the history after `fromRV` (or, without one, the current objects as
   * ADDED) and registers the watcher for what follows. Returns the function that stops it.
   */
  watch(collection: Collection, watcher: Watcher, fromRV: number | undefined): () => void {
    if (fromRV === undefined) {
      for (const key of collection.sortedKeys()) {
        const entry = collection.items.get(key) as Entry;
        const t = eventFor(watcher, { type: 'ADDED', entry, old: undefined });
        if (t) watcher.send(t, entry);
      }
    } else {
      this.checkNotCompacted(fromRV);
      for (let i = this.firstAfter(fromRV); i < this.history.length; i++) {
        const ev = this.history[i] as HistoryEvent;
        if (ev.collection !== collection) continue;
        const t = eventFor(watcher, ev);
        if (t) watcher.send(t, ev.entry);
      }
    }
    collection.watchers.add(watcher);
    return () => collection.watchers.delete(watcher);
  }

  private firstAfter(rv: number): number {
    let lo = this.historyStart;
    let hi = this.history.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.history[mid] as HistoryEvent).rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
