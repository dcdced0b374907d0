// The order in which a snapshot lists nodes, as upstream's nodeTree: zones in the order first seen,
// nodes taken round-robin across zones, so a cycle that evaluates only some of the nodes (node
// sampling) still sees every zone early.
import type { Node } from '../api/types';

const ZONE_LABELS = ['failure-domain.beta.kubernetes.io/zone', 'topology.kubernetes.io/zone'] as const;
const REGION_LABELS = ['failure-domain.beta.kubernetes.io/region', 'topology.kubernetes.io/region'] as const;

/** The node's zone as upstream keys it: region and zone labels (the beta ones win), '' when neither is set. */
export function zoneKey(node: Node): string {
  const labels = node.metadata.labels ?? {};
  const zone = labels[ZONE_LABELS[0]] ?? labels[ZONE_LABELS[1]] ?? '';
  const region = labels[REGION_LABELS[0]] ?? labels[REGION_LABELS[1]] ?? '';
  // The NUL keeps "a:" + "b" apart from "a" + ":b", as upstream.
  return region === '' && zone === '' ? '' : `${region}:\0:${zone}`;
}

export class NodeTree {
  /** zone → node names in the order added; a Map keeps zones in the order first seen. */
  private readonly zones = new Map<string, string[]>();
  private count = 0;

  /** Adds a node the tree does not hold (the cache guarantees it). */
  add(name: string, zone: string): void {
    let names = this.zones.get(zone);
    if (!names) this.zones.set(zone, (names = []));
    names.push(name);
    this.count++;
  }

  remove(name: string, zone: string): void {
    const names = this.zones.get(zone);
    const index = names ? names.indexOf(name) : -1;
    if (!names || index < 0) return;
    names.splice(index, 1);
    if (names.length === 0) this.zones.delete(zone);
    this.count--;
  }

  get size(): number {
    return this.count;
  }

  /** Node names: the first of every zone, then the second of every zone, and so on. */
  list(): string[] {
    const zones = [...this.zones.values()];
    const rounds = Math.max(0, ...zones.map((zone) => zone.length));
    const names: string[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const zone of zones) {
        const name = zone[round];
        if (name !== undefined) names.push(name);
      }
    }
    return names;
  }
}
