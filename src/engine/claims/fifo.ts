// A FIFO with O(1) removal from the middle: a cancelled request leaves the queue at once instead of
// lingering until the loop reaches it. (A Map is no substitute: taking its first key after many
// deletions walks over every deleted slot until the table is rebuilt.)

export interface FifoNode<T> {
  /** May be replaced in place: the node keeps its position. */
  value: T;
  prev: FifoNode<T> | undefined;
  next: FifoNode<T> | undefined;
  list: Fifo<T> | undefined;
}

export class Fifo<T> {
  private head: FifoNode<T> | undefined;
  private tail: FifoNode<T> | undefined;
  private count = 0;

  get size(): number {
    return this.count;
  }

  first(): T | undefined {
    return this.head?.value;
  }

  push(value: T): FifoNode<T> {
    const node: FifoNode<T> = { value, prev: this.tail, next: undefined, list: this };
    if (this.tail) this.tail.next = node;
    else this.head = node;
    this.tail = node;
    this.count++;
    return node;
  }

  shift(): T | undefined {
    const node = this.head;
    if (!node) return undefined;
    this.remove(node);
    return node.value;
  }

  /** Removes `node` if it is still in this list; returns whether it was. */
  remove(node: FifoNode<T>): boolean {
    if (node.list !== this) return false;
    if (node.prev) node.prev.next = node.next;
    else this.head = node.next;
    if (node.next) node.next.prev = node.prev;
    else this.tail = node.prev;
    node.prev = node.next = node.list = undefined;
    this.count--;
    return true;
  }
}
