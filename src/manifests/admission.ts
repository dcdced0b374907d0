// What two of the API server's admission plugins do to a pod on its creation, applied to the pods of
// the files that no API server has admitted yet (no metadata.uid: hand-written manifests and the
// replicas made up for workloads; a dump's pods were admitted when they were created):
// - LimitRanger: a namespace's LimitRanges of type Container give each container the default limits
//   and requests it leaves out (upstream plugin/pkg/admission/limitranger, with the LimitRange
//   defaulting of pkg/apis/core/v1: default from max, defaultRequest from default, then from min);
//   a request the container leaves out but whose limit it sets stays that limit, as the pod's own
//   defaulting made it before admission.
// - ResourceQuota: a namespace's quotas (pods, cpu/requests.cpu, memory/requests.memory,
//   limits.cpu, limits.memory, requests.ephemeral-storage, count/pods) refuse a pod that would take
//   the namespace's use past a hard limit, or that gives no request (or limit) for a resource a quota
//   limits; the pods already admitted count as used. A refused pod is left out, with a located
//   warning in the API server's words. Quotas with scopes or a scopeSelector are not applied (a
//   located warning says so).
import { podKey, DEFAULT_NAMESPACE, type Container, type ObjectMeta, type Pod, type ResourceList } from '../engine/api/types';
import { parseQuantity, quantityMilliValue, quantityValue, formatBytes, formatMilliCPU } from '../engine/api/quantity';
import { parseResourceList, podResources, CPU, MEMORY, EPHEMERAL_STORAGE } from '../engine/api/resources';
import { anyValue, arrayOf, object, string, type Decoder } from './decode';
import type { ManifestError } from './errors';
import { objectMeta, resourceList } from './kube';
import { concatPath } from './source-map';
import { fieldRange, type Located } from './workspace';

export interface LimitRangeItem {
  readonly type: string;
  readonly default?: ResourceList;
  readonly defaultRequest?: ResourceList;
  readonly max?: ResourceList;
  readonly min?: ResourceList;
  readonly maxLimitRequestRatio?: ResourceList;
}

export interface LimitRange {
  readonly metadata: ObjectMeta;
  readonly spec: { readonly limits: readonly LimitRangeItem[] };
}

interface QuotaSpec {
  readonly hard?: ResourceList;
  readonly scopes?: readonly string[];
  readonly scopeSelector?: unknown;
}

export interface ResourceQuota {
  readonly metadata: ObjectMeta;
  readonly spec?: QuotaSpec;
}

const limitRangeItem = object<LimitRangeItem>(
  {
    type: string,
    default: resourceList,
    defaultRequest: resourceList,
    max: resourceList,
    min: resourceList,
    maxLimitRequestRatio: resourceList,
  },
  ['type'],
);

export const limitRange: Decoder<LimitRange> = object<LimitRange>(
  { metadata: objectMeta, spec: object<LimitRange['spec']>({ limits: arrayOf(limitRangeItem) }, ['limits']) },
  ['metadata', 'spec'],
);

export const resourceQuota: Decoder<ResourceQuota> = object<ResourceQuota>(
  { metadata: objectMeta, spec: object<QuotaSpec>({ hard: resourceList, scopes: arrayOf(string), scopeSelector: anyValue }) },
  ['metadata'],
);

const namespaceOf = (meta: ObjectMeta) => meta.namespace ?? DEFAULT_NAMESPACE;

/** A Container LimitRange item's defaults after the API server's defaulting of the LimitRange. */
function containerDefaults(item: LimitRangeItem): { limits: Record<string, string>; requests: Record<string, string> } {
  const limits: Record<string, string> = { ...item.default };
  for (const [k, v] of Object.entries(item.max ?? {})) limits[k] ??= v;
  const requests: Record<string, string> = { ...item.defaultRequest };
  for (const [k, v] of Object.entries(limits)) requests[k] ??= v;
  for (const [k, v] of Object.entries(item.min ?? {})) requests[k] ??= v;
  return { limits, requests };
}

function withDefaults(c: Container, defaults: { limits: Record<string, string>; requests: Record<string, string> }): Container {
  const limits: Record<string, string> = { ...c.resources?.limits };
  const requests: Record<string, string> = { ...c.resources?.requests };
  // The pod's defaulting (before admission): a request left out is the limit the container sets.
  for (const [k, v] of Object.entries(c.resources?.limits ?? {})) requests[k] ??= v;
  for (const [k, v] of Object.entries(defaults.limits)) limits[k] ??= v;
  for (const [k, v] of Object.entries(defaults.requests)) requests[k] ??= v;
  const changed =
    Object.keys(limits).length !== Object.keys(c.resources?.limits ?? {}).length ||
    Object.keys(requests).length !== Object.keys(c.resources?.requests ?? {}).length;
  if (!changed) return c;
  return {
    ...c,
    resources: { ...c.resources, ...(Object.keys(requests).length ? { requests } : {}), ...(Object.keys(limits).length ? { limits } : {}) },
  };
}

/** LimitRanger on every pod not yet admitted: the defaults of its namespace's Container LimitRanges. */
export function applyLimitRanges(pods: readonly Located<Pod>[], ranges: readonly Located<LimitRange>[]): Located<Pod>[] {
  if (ranges.length === 0) return [...pods];
  const byNamespace = new Map<string, Array<{ limits: Record<string, string>; requests: Record<string, string> }>>();
  for (const r of ranges) {
    for (const item of r.value.spec.limits) {
      if (item.type !== 'Container') continue;
      const list = byNamespace.get(namespaceOf(r.value.metadata)) ?? [];
      list.push(containerDefaults(item));
      byNamespace.set(namespaceOf(r.value.metadata), list);
    }
  }
  return pods.map((p) => {
    const defaults = byNamespace.get(namespaceOf(p.value.metadata));
    if (!defaults || p.value.metadata.uid !== undefined) return p;
    // Several LimitRanges: each default applies where the earlier ones left a resource out.
    const merged = { limits: {} as Record<string, string>, requests: {} as Record<string, string> };
    for (const d of defaults) {
      for (const [k, v] of Object.entries(d.limits)) merged.limits[k] ??= v;
      for (const [k, v] of Object.entries(d.requests)) merged.requests[k] ??= v;
    }
    const spec = p.value.spec;
    const containers = spec.containers.map((c) => withDefaults(c, merged));
    const initContainers = spec.initContainers?.map((c) => withDefaults(c, merged));
    if (containers.every((c, i) => c === spec.containers[i]) && (initContainers ?? []).every((c, i) => c === spec.initContainers?.[i]))
      return p;
    return { ...p, value: { ...p.value, spec: { ...spec, containers, ...(initContainers ? { initContainers } : {}) } } };
  });
}

/** The quota resources a pod uses, by quota resource name (cpu in millicores, memory and storage in bytes). */
function podUsage(pod: Pod): Map<string, number> {
  const usage = new Map<string, number>([
    ['pods', 1],
    ['count/pods', 1],
  ]);
  const requests = podResources(pod);
  if (requests.ok) {
    const r = requests.value.requests;
    for (const [names, value] of [
      [[CPU, `requests.${CPU}`], r.milliCPU],
      [[MEMORY, `requests.${MEMORY}`], r.memory],
      [[EPHEMERAL_STORAGE, `requests.${EPHEMERAL_STORAGE}`], r.ephemeralStorage],
    ] as const)
      for (const n of names) usage.set(n, value);
  }
  // Limits: the containers' sum, or an init container's when larger.
  const limitsOf = (list: readonly Container[] | undefined, combine: (a: number, b: number) => number) => {
    const total = { cpu: 0, memory: 0 };
    for (const c of list ?? []) {
      const l = parseResourceList(c.resources?.limits, 'limits');
      if (!l.ok) continue;
      total.cpu = combine(total.cpu, l.value.milliCPU);
      total.memory = combine(total.memory, l.value.memory);
    }
    return total;
  };
  const app = limitsOf(pod.spec.containers, (a, b) => a + b);
  const init = limitsOf(pod.spec.initContainers, Math.max);
  usage.set(`limits.${CPU}`, Math.max(app.cpu, init.cpu));
  usage.set(`limits.${MEMORY}`, Math.max(app.memory, init.memory));
  return usage;
}

/** Whether every container of the pod gives a request (or limit) for the quota resource `name`. */
function specifies(pod: Pod, name: string): boolean {
  const [kind, resource] = name.startsWith('limits.')
    ? (['limits', name.slice(7)] as const)
    : (['requests', name.replace(/^requests\./, '')] as const);
  return pod.spec.containers.every(
    (c) => c.resources?.[kind]?.[resource] !== undefined || (kind === 'requests' && c.resources?.limits?.[resource] !== undefined),
  );
}

function amount(name: string, text: string): number | undefined {
  const q = parseQuantity(text);
  if (!q.ok) return undefined;
  const v = name.endsWith(CPU) ? quantityMilliValue(q.value) : quantityValue(q.value);
  return v.ok ? v.value : undefined;
}

function show(name: string, value: number): string {
  if (name.endsWith(CPU)) return formatMilliCPU(value);
  if (name.endsWith(MEMORY) || name.endsWith(EPHEMERAL_STORAGE)) return formatBytes(value);
  return String(value);
}

/** Resource names whose use a pod must declare when a quota limits them. */
const MUST_SPECIFY = new Set([CPU, MEMORY, `requests.${CPU}`, `requests.${MEMORY}`, `limits.${CPU}`, `limits.${MEMORY}`]);
const TRACKED = new Set([...MUST_SPECIFY, 'pods', 'count/pods', EPHEMERAL_STORAGE, `requests.${EPHEMERAL_STORAGE}`]);

/**
 * ResourceQuota admission over the pods in file order: the admitted ones count as used; each one not
 * yet admitted is refused (left out, with a warning at its name) when it would pass a hard limit.
 */
export function admitQuotas(
  pods: readonly Located<Pod>[],
  quotas: readonly Located<ResourceQuota>[],
  errors: ManifestError[],
): Located<Pod>[] {
  if (quotas.length === 0) return [...pods];
  const applied: Array<{ quota: Located<ResourceQuota>; hard: Map<string, number>; used: Map<string, number> }> = [];
  for (const q of quotas) {
    const spec = q.value.spec;
    if (spec?.scopes?.length || spec?.scopeSelector !== undefined) {
      const path = spec.scopes?.length ? 'spec.scopes' : 'spec.scopeSelector';
      errors.push({
        code: 'bad-value',
        severity: 'warning',
        message: `ResourceQuota ${q.value.metadata.name}: quotas with scopes are not applied by Podplan; its pods are admitted without it`,
        range: fieldRange(q, path),
        path: concatPath(q.base, path),
      });
      continue;
    }
    const hard = new Map<string, number>();
    for (const [name, text] of Object.entries(spec?.hard ?? {})) {
      const value = TRACKED.has(name) ? amount(name, text) : undefined;
      if (value !== undefined) hard.set(name, value);
    }
    if (hard.size > 0) applied.push({ quota: q, hard, used: new Map() });
  }
  const isActive = (p: Pod) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed';
  const kept: Located<Pod>[] = [];
  for (const p of pods) {
    const namespace = namespaceOf(p.value.metadata);
    const mine = applied.filter((a) => namespaceOf(a.quota.value.metadata) === namespace);
    if (mine.length === 0 || !isActive(p.value)) {
      kept.push(p);
      continue;
    }
    const usage = podUsage(p.value);
    const admitted = p.value.metadata.uid !== undefined;
    let refusal: string | undefined;
    if (!admitted) {
      for (const { quota, hard, used } of mine) {
        const missing = [...hard.keys()].filter((n) => MUST_SPECIFY.has(n) && !specifies(p.value, n));
        if (missing.length > 0) {
          refusal = `pods "${p.value.metadata.name}" is forbidden: failed quota: ${quota.value.metadata.name}: must specify ${missing.sort().join(',')}`;
          break;
        }
        const over = [...hard]
          .filter(([n, limit]) => (used.get(n) ?? 0) + (usage.get(n) ?? 0) > limit)
          .map(([n]) => n)
          .sort();
        if (over.length > 0) {
          const list = (f: (n: string) => string) => over.map((n) => `${n}=${f(n)}`).join(',');
          refusal = `pods "${p.value.metadata.name}" is forbidden: exceeded quota: ${quota.value.metadata.name}, requested: ${list((n) => show(n, usage.get(n) ?? 0))}, used: ${list((n) => show(n, used.get(n) ?? 0))}, limited: ${list((n) => show(n, hard.get(n) ?? 0))}`;
          break;
        }
      }
    }
    if (refusal !== undefined) {
      errors.push({
        code: 'bad-value',
        severity: 'warning',
        message: `${refusal} (ResourceQuota admission): ${podKey(p.value)} left out`,
        range: fieldRange(p, 'metadata.name'),
        path: concatPath(p.base, 'metadata.name'),
      });
      continue;
    }
    for (const { hard, used } of mine) for (const n of hard.keys()) used.set(n, (used.get(n) ?? 0) + (usage.get(n) ?? 0));
    kept.push(p);
  }
  return kept;
}
