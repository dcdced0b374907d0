// The node map's search box. Words narrow the nodes, all of them must match:
//   web-7        a node or planned pod whose name contains it (any case)
//   zone:z1      the node's zone
//   owner:web    a node the plan puts pods of an owner there whose name contains it ("Deployment/web")
//   key=value    a label (key=value exactly; key= any value of key)
//   cpu>80       use of a resource in percent of allocatable, bound, placed-before and planned pods together (> or <)
// Reading view-model numbers only: the share a bar draws, never a scheduling decision.
import type { NodeUseView } from '../../src/protocol/webview';

export type NodePredicate = (node: NodeUseView) => boolean;

/** A resource's use in percent of what the node offers (bound + placed before + planned); 0 when it offers none. */
export function usePercent(node: NodeUseView, resource: string): number {
  const use = node.resources.find((r) => r.resource === resource);
  if (!use || use.allocatable <= 0) return 0;
  return ((use.requested + (use.before ?? 0) + use.planned) / use.allocatable) * 100;
}

function word(text: string): NodePredicate {
  const threshold = /^([a-z0-9./-]+)([<>])(\d+(?:\.\d+)?)%?$/i.exec(text);
  if (threshold) {
    const [, resource = '', op, value] = threshold;
    const limit = Number(value);
    return op === '>' ? (n) => usePercent(n, resource) > limit : (n) => usePercent(n, resource) < limit;
  }
  const lower = text.toLowerCase();
  if (lower.startsWith('zone:')) {
    const zone = lower.slice('zone:'.length);
    return (n) => (n.zone ?? '').toLowerCase() === zone;
  }
  if (lower.startsWith('owner:')) {
    const owner = lower.slice('owner:'.length);
    return (n) => n.owners.some((o) => o.owner.toLowerCase().includes(owner));
  }
  const eq = text.indexOf('=');
  if (eq > 0) {
    const key = text.slice(0, eq);
    const value = text.slice(eq + 1);
    return (n) => key in n.labels && (value === '' || n.labels[key] === value);
  }
  return (n) => n.node.toLowerCase().includes(lower) || n.pods.some((p) => p.toLowerCase().includes(lower));
}

/** The predicate of a search, or undefined when the search is empty (every node). */
export function parseQuery(query: string): NodePredicate | undefined {
  const words = query
    .trim()
    .split(/\s+/)
    .filter((w) => w.length > 0);
  if (words.length === 0) return undefined;
  const predicates = words.map(word);
  return (n) => predicates.every((p) => p(n));
}

export type NodeOrder = 'name' | 'zone' | 'cpu' | 'memory' | 'pods' | 'planned';

/** The nodes in map order: by name, by zone then name, by use of a resource (most used first), or by planned pods. */
export function sortNodes(nodes: readonly NodeUseView[], order: NodeOrder): NodeUseView[] {
  const byName = (a: NodeUseView, b: NodeUseView) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0);
  const sorted = [...nodes];
  switch (order) {
    case 'name':
      return sorted.sort(byName);
    case 'zone':
      return sorted.sort((a, b) => (a.zone ?? '\uffff').localeCompare(b.zone ?? '\uffff') || byName(a, b));
    case 'planned':
      return sorted.sort((a, b) => b.pods.length - a.pods.length || byName(a, b));
    default: {
      const use = new Map(sorted.map((n) => [n, usePercent(n, order)]));
      return sorted.sort((a, b) => (use.get(b) ?? 0) - (use.get(a) ?? 0) || byName(a, b));
    }
  }
}
