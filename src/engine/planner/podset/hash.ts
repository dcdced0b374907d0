// The snapshot hash a plan records: the same nodes and pods give the same hash whatever their order
// or the order of their fields, so a plan can tell whether the cluster it was made for has changed.
import { podKey, type Node, type Pod } from '../../api/types';

/** JSON with object keys sorted (in code unit order), so equal objects write the same text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += (i > 0 ? ',' : '') + canonical(value[i]);
    return `${text}]`;
  }
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    let text = '{';
    for (const key of Object.keys(object).sort()) {
      const v = object[key];
      if (v === undefined) continue;
      text += `${text.length > 1 ? ',' : ''}${JSON.stringify(key)}:${canonical(v)}`;
    }
    return `${text}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Each node's and pod's canonical text, kept while the object lives: objects are never changed once
 * read, and a workspace keeps the objects of documents it did not re-read, so a preview after the
 * first (or after an edit elsewhere) writes only what is new. Its budget is the live objects: an
 * entry goes with its object.
 */
const written = new WeakMap<object, string>();

function canonicalObject(value: Node | Pod): string {
  let text = written.get(value);
  if (text === undefined) written.set(value, (text = canonical(value)));
  return text;
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
  // The same text as canonical({ nodes, pods }) of the sorted lists.
  const text = `{"nodes":[${[...nodes].sort(byName).map(canonicalObject).join(',')}],"pods":[${[...pods].sort(byKey).map(canonicalObject).join(',')}]}`;
  return `fnv64:${hash64(text)}`;
}
