// A binary heap keyed by id, so an entry can be found, updated or removed in O(log n).

export class KeyedHeap<T> {
  private readonly items: T[] = [];
  private readonly index = new Map<string, number>();

  constructor(
    private readonly keyOf: (item: T) => string,
    private readonly less: (a: T, b: T) => boolean,
  ) {}

  get size(): number {
    return this.items.length;
  }

  has(key: string): boolean {
    return this.index.has(key);
  }

  get(key: string): T | undefined {
    const i = this.index.get(key);
    return i === undefined ? undefined : this.items[i];
  }

  peek(): T | undefined {
    return this.items[0];
  }

  /** Adds the item, or replaces the one with the same key and restores the order. */
  upsert(item: T): void {
    const key = this.keyOf(item);
    const existing = this.index.get(key);
    if (existing !== undefined) {
      this.items[existing] = item;
      this.fix(existing);
      return;
    }
    this.items.push(item);
    this.index.set(key, this.items.length - 1);
    this.up(this.items.length - 1);
  }

  pop(): T | undefined {
    const top = this.items[0];
    if (top !== undefined) this.removeAt(0);
    return top;
  }

  delete(key: string): T | undefined {
    const i = this.index.get(key);
    if (i === undefined) return undefined;
    const item = this.items[i];
    this.removeAt(i);
    return item;
  }

  values(): readonly T[] {
    return this.items;
  }

  private removeAt(i: number): void {
    const last = this.items.length - 1;
    const removed = this.items[i] as T;
    this.index.delete(this.keyOf(removed));
    if (i !== last) {
      const moved = this.items[last] as T;
      this.items[i] = moved;
      this.index.set(this.keyOf(moved), i);
      this.items.pop();
      this.fix(i);
    } else {
      this.items.pop();
    }
  }

  private fix(i: number): void {
    if (!this.up(i)) this.down(i);
  }

  private up(i: number): boolean {
    let moved = false;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(this.items[i] as T, this.items[parent] as T)) break;
      this.swap(i, parent);
      i = parent;
      moved = true;
    }
    return moved;
  }

  private down(i: number): void {
    const n = this.items.length;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let best = i;
      if (left < n && this.less(this.items[left] as T, this.items[best] as T)) best = left;
      if (right < n && this.less(this.items[right] as T, this.items[best] as T)) best = right;
      if (best === i) return;
      this.swap(i, best);
      i = best;
    }
  }

  private swap(a: number, b: number): void {
    const x = this.items[a] as T;
    const y = this.items[b] as T;
    this.items[a] = y;
    this.items[b] = x;
    this.index.set(this.keyOf(y), a);
    this.index.set(this.keyOf(x), b);
  }
}
