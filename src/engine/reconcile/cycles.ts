// Graph helpers for the Force drain: which blocked nodes wait on nothing else that is blocked (the
// leaf components of the wait-for graph), and which cycle to name for a node stuck on one.

export type Successors = (id: string) => readonly string[];

interface Frame {
  readonly id: string;
  readonly next: readonly string[];
  position: number;
}

/**
 * The strongly connected components of the graph over `ids` (Tarjan, iterative so that a chain of
 * 10,000 nodes does not overflow the stack), each component emitted after every component it
 * reaches: leaves first. `successors` must only name ids in `ids`.
 */
export function stronglyConnected(ids: readonly string[], successors: Successors): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const frames: Frame[] = [];
  const visit = (id: string): void => {
    const order = index.size;
    index.set(id, order);
    low.set(id, order);
    stack.push(id);
    onStack.add(id);
    frames.push({ id, next: successors(id), position: 0 });
  };
  const lower = (id: string, value: number): void => void low.set(id, Math.min(low.get(id) ?? value, value));

  for (const root of ids) {
    if (index.has(root)) continue;
    visit(root);
    for (let frame = frames.at(-1); frame; frame = frames.at(-1)) {
      const next = frame.next[frame.position++];
      if (next !== undefined) {
        if (!index.has(next)) visit(next);
        else if (onStack.has(next)) lower(frame.id, index.get(next) ?? 0);
        continue;
      }
      frames.pop();
      const own = low.get(frame.id) ?? 0;
      const parent = frames.at(-1);
      if (parent) lower(parent.id, own);
      if (own !== index.get(frame.id)) continue;
      const component: string[] = [];
      for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
        onStack.delete(member);
        component.push(member);
        if (member === frame.id) break;
      }
      components.push(component.reverse());
    }
  }
  return components;
}

/** The components with no edge leaving them: nothing outside them can still unblock them. */
export function leafComponents(ids: readonly string[], successors: Successors): string[][] {
  const componentOf = new Map<string, number>();
  const components = stronglyConnected(ids, successors);
  components.forEach((component, i) => component.forEach((id) => componentOf.set(id, i)));
  return components.filter((component, i) => component.every((id) => successors(id).every((next) => componentOf.get(next) === i)));
}

/**
 * For each member of one component that lies on a cycle, a shortest cycle through it, starting
 * and ending at that member (["a", "b", "a"]). A member already on a cycle found for another is
 * given that cycle rotated, so a ring of n nodes costs one search, not n.
 */
export function cyclesThrough(component: readonly string[], successors: Successors): Map<string, string[]> {
  const cycles = new Map<string, string[]>();
  for (const start of component) {
    if (cycles.has(start)) continue;
    const ring = shortestRing(start, successors);
    if (!ring) continue;
    ring.forEach((member, i) => {
      if (!cycles.has(member)) cycles.set(member, [...ring.slice(i), ...ring.slice(0, i), member]);
    });
  }
  return cycles;
}

/** The nodes of a shortest cycle through `start`, without repeating it (["a", "b"] for a → b → a). */
function shortestRing(start: string, successors: Successors): string[] | undefined {
  const parent = new Map<string, string>();
  const frontier = [start];
  for (let i = 0; i < frontier.length; i++) {
    const at = frontier[i] ?? start;
    for (const next of successors(at)) {
      if (next === start) {
        const ring = [at];
        for (let back = parent.get(at); back !== undefined; back = parent.get(back)) ring.push(back);
        return ring.reverse();
      }
      if (parent.has(next)) continue;
      parent.set(next, at);
      frontier.push(next);
    }
  }
  return undefined;
}
