// The snapshot hash a plan records: the same nodes and pods give the same hash whatever their order
// or the order of their fields, so a plan can tell whether the nodes and pods it was made for have
// changed. It covers nothing else a plan depends on (claims, slices, classes, volumes, the profile):
// what decides whether a stored plan is still the plan of a workspace is the history's basis hash
// (src/store basisHash), beside it.
import { podKey, type Node, type Pod } from '../../api/types';

/**
 * Keys as JSON writes them: objects of one kind share their keys, so each is quoted once. Budget:
 * KEYS_KEPT entries, all dropped when full.
 */
const quotedKeys = new Map<string, string>();
const KEYS_KEPT = 4096;

function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    if (quotedKeys.size >= KEYS_KEPT) quotedKeys.clear();
    quotedKeys.set(key, (quoted = JSON.stringify(key)));
  }
  return quoted;
}

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
      text += `${text.length > 1 ? ',' : ''}${quotedKey(key)}:${canonical(v)}`;
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

/**
 * Writes the canonical text of `objects[from]` up to `count` of them ahead of a hash (kept while the
 * object lives, as a hash keeps it): a caller with idle time spends it so that the first plan's hash
 * of these objects has only to join and hash. Where it stopped: `objects.length` when done.
 */
export function writeAhead(objects: ReadonlyArray<Node | Pod>, from: number, count: number): number {
  const end = Math.min(objects.length, from + count);
  for (let i = from; i < end; i++) canonicalObject(objects[i] as Node | Pod);
  return end;
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

/** `values` sorted by `key` (each key worked out once), in code unit order. */
function sortedBy<T>(values: readonly T[], key: (value: T) => string): T[] {
  const keyed = values.map((value) => ({ value, key: key(value) }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return keyed.map((k) => k.value);
}

/**
 * The last hash written, with the objects (sorted) it was written from: a preview asked again of an
 * unchanged workspace hashes the same objects, and objects are never changed once read. Budget: one
 * snapshot's list of objects.
 */
let last: { readonly objects: readonly object[]; readonly hash: string } | undefined;

/** Between the nodes and the pods in `last.objects`. */
const SEPARATOR = {};

const sameObjects = (a: readonly object[], b: readonly object[]): boolean => a.length === b.length && a.every((o, i) => o === b[i]);

/** A stable hash of nodes and pods, written `fnv64:<16 hex digits>`. */
export function snapshotHash(nodes: readonly Node[], pods: readonly Pod[]): string {
  const sortedNodes = sortedBy(nodes, (n) => n.metadata.name);
  const sortedPods = sortedBy(pods, podKey);
  const objects: readonly object[] = [...sortedNodes, SEPARATOR, ...sortedPods];
  if (last && sameObjects(last.objects, objects)) return last.hash;
  // The same text as canonical({ nodes, pods }) of the sorted lists.
  const text = `{"nodes":[${sortedNodes.map(canonicalObject).join(',')}],"pods":[${sortedPods.map(canonicalObject).join(',')}]}`;
  const hash = `fnv64:${hash64(text)}`;
  last = { objects, hash };
  return hash;
}
