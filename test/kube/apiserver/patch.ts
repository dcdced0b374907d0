// The patch formats of the PATCH verb: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and
// the strategic merge patch of built-in kinds for the cases kubectl produces (lists merged by
// their upstream merge keys, `$patch: delete|replace` directives, `$setElementOrder` ignored).
import { errors } from './status';

type Json = unknown;
type JsonMap = Record<string, Json>;

function isMap(v: Json): v is JsonMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function mergePatch(target: Json, patch: Json): Json {
  if (!isMap(patch)) return patch;
  const out: JsonMap = isMap(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

interface JsonPatchOp {
  op: string;
  path: string;
  value?: Json;
  from?: string;
}

function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/'))
    throw errors.badRequest(`the server rejected our request due to an error in our request: invalid JSON pointer "${path}"`);
  return path
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parentOf(doc: Json, tokens: string[], path: string): { parent: JsonMap | Json[]; key: string } {
  let node: Json = doc;
  for (const t of tokens.slice(0, -1)) {
    node = Array.isArray(node) ? node[Number(t)] : isMap(node) ? node[t] : undefined;
    if (node === undefined) throw errors.unprocessable(`doc is missing path: "${path}": missing value`);
  }
  if (!Array.isArray(node) && !isMap(node)) throw errors.unprocessable(`doc is missing path: "${path}": missing value`);
  return { parent: node, key: tokens[tokens.length - 1] ?? '' };
}

function getAt(doc: Json, path: string): Json {
  let node: Json = doc;
  for (const t of pointer(path)) {
    node = Array.isArray(node) ? node[Number(t)] : isMap(node) ? node[t] : undefined;
    if (node === undefined) throw errors.unprocessable(`doc is missing path: "${path}": missing value`);
  }
  return node;
}

function removeAt(doc: Json, path: string): Json {
  const { parent, key } = parentOf(doc, pointer(path), path);
  if (Array.isArray(parent)) {
    const i = Number(key);
    if (!(i >= 0 && i < parent.length)) throw errors.unprocessable(`doc is missing path: "${path}": missing value`);
    return parent.splice(i, 1)[0];
  }
  if (!(key in parent)) throw errors.unprocessable(`doc is missing path: "${path}": missing value`);
  const old = parent[key];
  delete parent[key];
  return old;
}

function addAt(doc: Json, path: string, value: Json, replace: boolean): Json {
  const tokens = pointer(path);
  if (tokens.length === 0) return value;
  const { parent, key } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) {
    const i = key === '-' ? parent.length : Number(key);
    if (!(i >= 0 && i <= parent.length)) throw errors.unprocessable(`add operation does not apply: doc is missing path: "${path}"`);
    if (replace) parent[i] = value;
    else parent.splice(i, 0, value);
  } else {
    if (replace && !(key in parent))
      throw errors.unprocessable(`replace operation does not apply: doc is missing key: ${path}: missing value`);
    parent[key] = value;
  }
  return doc;
}

export function jsonPatch(target: Json, ops: Json): Json {
  if (!Array.isArray(ops)) throw errors.badRequest('the server rejected our request due to an error in our request');
  let doc: Json = structuredClone(target);
  for (const raw of ops as JsonPatchOp[]) {
    switch (raw.op) {
      case 'add':
        doc = addAt(doc, raw.path, structuredClone(raw.value), false);
        break;
      case 'replace':
        doc = addAt(doc, raw.path, structuredClone(raw.value), true);
        break;
      case 'remove':
        removeAt(doc, raw.path);
        break;
      case 'move': {
        const v = removeAt(doc, raw.from ?? '');
        doc = addAt(doc, raw.path, v, false);
        break;
      }
      case 'copy':
        doc = addAt(doc, raw.path, structuredClone(getAt(doc, raw.from ?? '')), false);
        break;
      case 'test':
        if (JSON.stringify(getAt(doc, raw.path)) !== JSON.stringify(raw.value)) {
          throw errors.unprocessable(`testing value ${raw.path} failed: test failed`);
        }
        break;
      default:
        throw errors.unprocessable(`Unexpected kind: ${String(raw.op)}`);
    }
  }
  return doc;
}

// Merge keys of the lists kubectl patches (from the `patchMergeKey` tags of k8s.io/api).
const MERGE_KEYS: Readonly<Record<string, string>> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  ports: 'containerPort',
  imagePullSecrets: 'name',
  conditions: 'type',
  ownerReferences: 'uid',
  hostAliases: 'ip',
  topologySpreadConstraints: 'topologyKey',
  resourceClaims: 'name',
  taints: 'key',
  addresses: 'type',
};

function strategicList(key: string, target: Json, patch: Json[]): Json {
  const mergeKey = MERGE_KEYS[key];
  if (!mergeKey || !Array.isArray(target) || !patch.every(isMap)) return patch.map(stripDirectives);
  if (patch.some((p) => isMap(p) && p.$patch === 'replace')) {
    return patch.filter((p) => !(isMap(p) && p.$patch === 'replace')).map(stripDirectives);
  }
  const out: Json[] = [...target];
  for (const item of patch as JsonMap[]) {
    const at = out.findIndex((t) => isMap(t) && t[mergeKey] === item[mergeKey]);
    if (item.$patch === 'delete') {
      if (at >= 0) out.splice(at, 1);
    } else if (at >= 0) out[at] = strategicMerge(out[at], item);
    else out.push(stripDirectives(item));
  }
  return out;
}

function stripDirectives(v: Json): Json {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isMap(v)) return v;
  const out: JsonMap = {};
  for (const [k, x] of Object.entries(v)) if (!k.startsWith('$')) out[k] = stripDirectives(x);
  return out;
}

export function strategicMerge(target: Json, patch: Json): Json {
  if (!isMap(patch)) return patch;
  if (patch.$patch === 'replace') return stripDirectives(patch);
  if (patch.$patch === 'delete') return undefined;
  const out: JsonMap = isMap(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith('$')) continue; // $setElementOrder/…, $retainKeys, $deleteFromPrimitiveList/…
    if (v === null) delete out[k];
    else if (Array.isArray(v)) out[k] = strategicList(k, out[k], v);
    else {
      const merged = strategicMerge(out[k], v);
      if (merged === undefined) delete out[k];
      else out[k] = merged;
    }
  }
  return out;
}
