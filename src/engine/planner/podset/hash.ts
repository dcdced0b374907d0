// The snapshot hash a plan records: the same nodes and pods give the same hash whatever their order
// or the order of their fields, so a plan can tell whether the cluster it was made for has changed.
import { podKey, type Node, type Pod } from '../../api/types';

/** JSON with object keys sorted, so equal objects write the same text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Two 32-bit FNV-1a passes with different offsets over the UTF-16 code units: 64 bits, as 16 hex digits. */
function hash64(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x01000193) >>> 0;
    b = (b ^ (b >>> 15)) >>> 0;
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}

const byName = (a: Node, b: Node): number => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0);
const byKey = (a: Pod, b: Pod): number => (podKey(a) < podKey(b) ? -1 : podKey(a) > podKey(b) ? 1 : 0);

/** A stable hash of nodes and pods, written `fnv64:<16 hex digits>`. */
export function snapshotHash(nodes: readonly Node[], pods: readonly Pod[]): string {
  const text = canonical({ nodes: [...nodes].sort(byName), pods: [...pods].sort(byKey) });
  return `fnv64:${hash64(text)}`;
}
