// What two of the API server's admission plugins do to a pod on its creation, applied to the pods of
// the files that no API server has admitted yet (no metadata.uid: hand-written manifests and the
// replicas made up for workloads; a dump's pods were admitted when they were created):
// - LimitRanger (upstream plugin/pkg/admission/limitranger): a namespace's LimitRanges of type
//   Container give each container the default limits and requests it leaves out (with the
//   LimitRange defaulting of pkg/apis/core/v1: default from max, defaultRequest from default, then
//   from min; a request the container leaves out but whose limit it sets stays that limit, as the
//   pod's own defaulting made it before admission); then the pod is refused when a container (type
//   Container) or the pod's totals (type Pod) break a LimitRange's min, max or maxLimitRequestRatio,
//   and a claim (PersistentVolumeClaim, made up from a StatefulSet's volumeClaimTemplates too) when
//   its storage request breaks a min or max of type PersistentVolumeClaim.
// - ResourceQuota: a namespace's quotas (pods, count/pods, cpu/requests.cpu, memory/requests.memory,
//   limits.cpu, limits.memory, ephemeral-storage, requests.<extended resource>) whose scopes
//   (Terminating, NotTerminating, BestEffort, NotBestEffort, CrossNamespacePodAffinity) and
//   scopeSelector (those and PriorityClass) match the pod refuse it when it would take the
//   namespace's use past a hard limit, or when it gives no request (or limit) for the cpu or memory a
//   quota limits; the pods already admitted count as used. Claims not yet admitted are held to the
//   quotas' persistentvolumeclaims, count/persistentvolumeclaims and requests.storage, also per
//   storage class, the quotas scoped by VolumeAttributesClass included; ResourceClaims (the files'
//   own, and those the ResourceClaim controller creates from templates for the pods admitted) to
//   count/resourceclaims.resource.k8s.io, `<class>.deviceclass.resource.k8s.io/devices` and the
//   extended resources device classes serve. Every kind counts in one use per quota (QuotaUse).
// A refused object is left out, with a located warning in the API server's words. A quota entry
// none applies (count/services, configmaps, …) gets a located warning that it is not applied, and why.
import {
  podKey,
  DEFAULT_NAMESPACE,
  type Container,
  type ObjectMeta,
  type PersistentVolumeClaim,
  type Pod,
  type ResourceList,
} from '../engine/api/types';
import type { DeviceClass, DeviceRequestSpec, ResourceClaim, ResourceClaimTemplate } from '../engine/api/dra';
import { madeUpClaimName, resourceClaimKey } from '../engine/plugins/dynamicresources/claims';
import { addQuantities, compareQuantities, formatQuantity, parseQuantity, type Quantity } from '../engine/api/quantity';
import { isSupportedPodLevelResource, CPU, MEMORY, EPHEMERAL_STORAGE } from '../engine/api/resources';
import { arrayOf, object, oneOf, string, type Decoder } from './decode';
import type { ManifestError } from './errors';
import { objectMeta, resourceList } from './kube';
import { concatPath, joinPath } from './source-map';
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

export interface ScopedResourceSelectorRequirement {
  readonly scopeName: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  readonly values?: readonly string[];
}

interface QuotaSpec {
  readonly hard?: ResourceList;
  readonly scopes?: readonly string[];
  readonly scopeSelector?: { readonly matchExpressions?: readonly ScopedResourceSelectorRequirement[] };
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

const scopeRequirement = object<ScopedResourceSelectorRequirement>(
  { scopeName: string, operator: oneOf(['In', 'NotIn', 'Exists', 'DoesNotExist'] as const), values: arrayOf(string) },
  ['scopeName', 'operator'],
);

export const resourceQuota: Decoder<ResourceQuota> = object<ResourceQuota>(
  {
    metadata: objectMeta,
    spec: object<QuotaSpec>({
      hard: resourceList,
      scopes: arrayOf(string),
      scopeSelector: object<NonNullable<QuotaSpec['scopeSelector']>>({ matchExpressions: arrayOf(scopeRequirement) }),
    }),
  },
  ['metadata'],
);

const namespaceOf = (meta: ObjectMeta) => meta.namespace ?? DEFAULT_NAMESPACE;

/** Quantities by resource name; a malformed one is left out (the pod's decoder reports it). */
type Amounts = Map<string, Quantity>;

function amountsOf(list: ResourceList | undefined): Amounts {
  const amounts: Amounts = new Map();
  for (const [name, text] of Object.entries(list ?? {})) {
    const q = parseQuantity(text);
    if (q.ok) amounts.set(name, q.value);
  }
  return amounts;
}

/** Upstream addResourceList: each amount added in, the first one's format kept. */
function addInto(target: Amounts, add: Amounts): void {
  for (const [name, q] of add) {
    const had = target.get(name);
    target.set(name, had ? addQuantities(had, q) : q);
  }
}

/** Upstream maxResourceList: the larger of each. */
function maxInto(target: Amounts, other: Amounts): void {
  for (const [name, q] of other) {
    const had = target.get(name);
    if (!had || compareQuantities(q, had) > 0) target.set(name, q);
  }
}

/**
 * The pod's requests or limits as upstream totals them (resourcehelper's PodRequests / PodLimits,
 * limitranger's podRequests / podLimits): the containers' sum, sidecars (init containers with
 * restartPolicy Always) added, an init container's own (with the sidecars started before it) when
 * larger, pod-level amounts winning for cpu, memory and hugepages; `overhead` adds spec.overhead
 * as the quota's usage does (to every request, to the limits that are set).
 */
function podAmounts(pod: Pod, kind: 'requests' | 'limits', overhead: boolean): Amounts {
  const total: Amounts = new Map();
  for (const c of pod.spec.containers) addInto(total, amountsOf(c.resources?.[kind]));
  const sidecars: Amounts = new Map();
  const initPeak: Amounts = new Map();
  for (const c of pod.spec.initContainers ?? []) {
    const own = amountsOf(c.resources?.[kind]);
    if (c.restartPolicy === 'Always') {
      addInto(total, own);
      addInto(sidecars, own);
      maxInto(initPeak, sidecars);
    } else {
      const peak: Amounts = new Map();
      addInto(peak, own);
      addInto(peak, sidecars);
      maxInto(initPeak, peak);
    }
  }
  maxInto(total, initPeak);
  for (const [name, q] of amountsOf(pod.spec.resources?.[kind])) if (isSupportedPodLevelResource(name)) total.set(name, q);
  if (overhead)
    for (const [name, q] of amountsOf(pod.spec.overhead)) {
      const had = total.get(name);
      if (had) total.set(name, addQuantities(had, q));
      else if (kind === 'requests') total.set(name, q);
    }
  return total;
}

// ---------------------------------------------------------------------------------------------
// LimitRanger

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

/** Upstream resource.MaxMilliValue: past it, values are compared whole rather than in thousandths. */
const MAX_MILLI_VALUE = 9223372036854775n;

function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a > 0n ? q + 1n : q;
}

const wholeValue = (q: Quantity | undefined): bigint => (q ? ceilDiv(q.numerator, q.denominator) : 0n);
const milliValue = (q: Quantity | undefined): bigint => (q ? ceilDiv(q.numerator * 1000n, q.denominator) : 0n);

/** Upstream requestLimitEnforcedValues: in thousandths when none of the three overflows, else whole. */
function enforcedValues(request: Quantity | undefined, limit: Quantity | undefined, enforced: Quantity): [bigint, bigint, bigint] {
  const whole = [wholeValue(request), wholeValue(limit), wholeValue(enforced)] as [bigint, bigint, bigint];
  if (whole.every((v) => v <= MAX_MILLI_VALUE)) return [milliValue(request), milliValue(limit), milliValue(enforced)];
  return whole;
}

const show = (q: Quantity) => formatQuantity(q);

function minConstraint(type: string, name: string, enforced: Quantity, requests: Amounts, limits: Amounts): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = enforcedValues(req, lim, enforced);
  if (!req) return `minimum ${name} usage per ${type} is ${show(enforced)}.  No request is specified`;
  if (r < e) return `minimum ${name} usage per ${type} is ${show(enforced)}, but request is ${show(req)}`;
  if (lim && l < e) return `minimum ${name} usage per ${type} is ${show(enforced)}, but limit is ${show(lim)}`;
  return undefined;
}

function maxConstraint(type: string, name: string, enforced: Quantity, requests: Amounts, limits: Amounts): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l, e] = enforcedValues(req, lim, enforced);
  if (!lim) return `maximum ${name} usage per ${type} is ${show(enforced)}.  No limit is specified`;
  if (l > e) return `maximum ${name} usage per ${type} is ${show(enforced)}, but limit is ${show(lim)}`;
  if (req && r > e) return `maximum ${name} usage per ${type} is ${show(enforced)}, but request is ${show(req)}`;
  return undefined;
}

function maxRequestConstraint(type: string, name: string, enforced: Quantity, requests: Amounts): string | undefined {
  const req = requests.get(name);
  const [r, , e] = enforcedValues(req, undefined, enforced);
  if (!req) return `maximum ${name} usage per ${type} is ${show(enforced)}.  No request is specified`;
  if (r > e) return `maximum ${name} usage per ${type} is ${show(enforced)}, but request is ${show(req)}`;
  return undefined;
}

function ratioConstraint(type: string, name: string, enforced: Quantity, requests: Amounts, limits: Amounts): string | undefined {
  const req = requests.get(name);
  const lim = limits.get(name);
  const [r, l] = enforcedValues(req, lim, enforced);
  const prefix = `${name} max limit to request ratio per ${type} is ${show(enforced)}`;
  if (!req || r === 0n) return `${prefix}, but no request is specified or request is 0`;
  if (!lim || l === 0n) return `${prefix}, but no limit is specified or limit is 0`;
  const observed = Number(l) / Number(r);
  const whole = wholeValue(enforced);
  const over = whole <= MAX_MILLI_VALUE ? observed * 1000 > Number(milliValue(enforced)) : observed > Number(whole);
  // Go's %f: six decimals.
  return over ? `${prefix}, but provided ratio is ${observed.toFixed(6)}` : undefined;
}

/**
 * Upstream's checks of one resource list pair against an item's min, max and ratio, in that order.
 * Upstream walks each map in Go's random order; here resource names go in sorted order, so when a
 * pod breaks several the list may be ordered differently from the API server's.
 */
function checkAgainst(item: LimitRangeItem, requests: Amounts, limits: Amounts, errs: string[]): void {
  for (const [name, q] of [...amountsOf(item.min)].sort()) push(errs, minConstraint(item.type, name, q, requests, limits));
  for (const [name, q] of [...amountsOf(item.max)].sort()) push(errs, maxConstraint(item.type, name, q, requests, limits));
  for (const [name, q] of [...amountsOf(item.maxLimitRequestRatio)].sort())
    push(errs, ratioConstraint(item.type, name, q, requests, limits));
}

function push(errs: string[], err: string | undefined): void {
  if (err !== undefined) errs.push(err);
}

/** Upstream utilerrors.NewAggregate(...).Error(): one message as it is, several (repeats dropped) in brackets. */
function aggregate(errs: readonly string[]): string | undefined {
  const unique = [...new Set(errs)];
  if (unique.length === 0) return undefined;
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

/** Upstream PodValidateLimitFunc for one LimitRange: its Container items per container, its Pod items on the pod's totals. */
function podLimitError(range: LimitRange, pod: Pod): string | undefined {
  const errs: string[] = [];
  for (const item of range.spec.limits) {
    if (item.type === 'Container') {
      for (const c of [...pod.spec.containers, ...(pod.spec.initContainers ?? [])])
        checkAgainst(item, amountsOf(c.resources?.requests), amountsOf(c.resources?.limits), errs);
    }
    if (item.type === 'Pod') checkAgainst(item, podAmounts(pod, 'requests', false), podAmounts(pod, 'limits', false), errs);
  }
  return aggregate(errs);
}

/** Upstream PersistentVolumeClaimValidateLimitFunc: a claim's requests against min and max of PersistentVolumeClaim items. */
function claimLimitError(range: LimitRange, claim: PersistentVolumeClaim): string | undefined {
  const errs: string[] = [];
  const requests = amountsOf(claim.spec?.resources?.requests);
  for (const item of range.spec.limits) {
    if (item.type !== 'PersistentVolumeClaim') continue;
    for (const [name, q] of [...amountsOf(item.min)].sort()) push(errs, minConstraint(item.type, name, q, requests, new Map()));
    for (const [name, q] of [...amountsOf(item.max)].sort()) push(errs, maxRequestConstraint(item.type, name, q, requests));
  }
  return aggregate(errs);
}

function rangesByNamespace(ranges: readonly Located<LimitRange>[]): Map<string, LimitRange[]> {
  const byNamespace = new Map<string, LimitRange[]>();
  for (const r of ranges) {
    const ns = namespaceOf(r.value.metadata);
    byNamespace.set(ns, [...(byNamespace.get(ns) ?? []), r.value]);
  }
  return byNamespace;
}

/** The warning for an object admission refused, at its name; returns the API server's message. */
function refused<T extends { metadata: ObjectMeta }>(
  object: Located<T>,
  resource: string,
  message: string,
  plugin: string,
  key: string,
  errors: ManifestError[],
): string {
  const text = `${resource} "${object.value.metadata.name}" is forbidden: ${message}`;
  errors.push({
    code: 'refused',
    severity: 'warning',
    message: `${text} (${plugin} admission): ${key} left out`,
    range: fieldRange(object, 'metadata.name'),
    path: concatPath(object.base, 'metadata.name'),
  });
  return text;
}

/**
 * Who creates claims in order and stops after a refusal (the StatefulSet controller,
 * `StatefulSetCreation`): a claim it does not try is left out without a word (its replica's pod is
 * reported instead), and it is told of each refusal.
 */
export interface ClaimCreation {
  attempted(claim: PersistentVolumeClaim): boolean;
  refused(claim: PersistentVolumeClaim, message: string): void;
}

/**
 * LimitRanger on every pod not yet admitted: the defaults of its namespace's Container LimitRanges,
 * then each LimitRange's min, max and maxLimitRequestRatio; a pod that breaks one (the first
 * LimitRange it breaks, as upstream stops there) is left out with the API server's message.
 */
export function applyLimitRanges(
  pods: readonly Located<Pod>[],
  ranges: readonly Located<LimitRange>[],
  errors: ManifestError[],
): Located<Pod>[] {
  if (ranges.length === 0) return [...pods];
  const byNamespace = rangesByNamespace(ranges);
  const kept: Located<Pod>[] = [];
  for (const p of pods) {
    const mine = byNamespace.get(namespaceOf(p.value.metadata));
    if (!mine || p.value.metadata.uid !== undefined) {
      kept.push(p);
      continue;
    }
    // Several LimitRanges: each default applies where the earlier ones left a resource out.
    const merged = { limits: {} as Record<string, string>, requests: {} as Record<string, string> };
    for (const item of mine.flatMap((r) => r.spec.limits)) {
      if (item.type !== 'Container') continue;
      const d = containerDefaults(item);
      for (const [k, v] of Object.entries(d.limits)) merged.limits[k] ??= v;
      for (const [k, v] of Object.entries(d.requests)) merged.requests[k] ??= v;
    }
    const spec = p.value.spec;
    const containers = spec.containers.map((c) => withDefaults(c, merged));
    const initContainers = spec.initContainers?.map((c) => withDefaults(c, merged));
    const same =
      containers.every((c, i) => c === spec.containers[i]) && (initContainers ?? []).every((c, i) => c === spec.initContainers?.[i]);
    const admitted = same
      ? p
      : { ...p, value: { ...p.value, spec: { ...spec, containers, ...(initContainers ? { initContainers } : {}) } } };
    const error = mine.map((r) => podLimitError(r, admitted.value)).find((e) => e !== undefined);
    if (error !== undefined) refused(admitted, 'pods', error, 'LimitRanger', podKey(admitted.value), errors);
    else kept.push(admitted);
  }
  return kept;
}

/**
 * LimitRanger on every claim not yet admitted (the files' own without a uid, and those a
 * StatefulSet's controller would create): a claim whose storage request breaks a min or max of
 * type PersistentVolumeClaim is left out with the API server's message. With `creation`, a claim it
 * does not try is left out without a word, and it is told of each refusal.
 */
export function admitClaims(
  claims: readonly Located<PersistentVolumeClaim>[],
  ranges: readonly Located<LimitRange>[],
  errors: ManifestError[],
  creation?: ClaimCreation,
): Located<PersistentVolumeClaim>[] {
  const byNamespace = rangesByNamespace(ranges);
  return claims.filter((c) => {
    if (creation && !creation.attempted(c.value)) return false;
    if (c.value.metadata.uid !== undefined) return true;
    const error = (byNamespace.get(namespaceOf(c.value.metadata)) ?? [])
      .map((r) => claimLimitError(r, c.value))
      .find((e) => e !== undefined);
    if (error === undefined) return true;
    const text = refused(
      c,
      'persistentvolumeclaims',
      error,
      'LimitRanger',
      `${namespaceOf(c.value.metadata)}/${c.value.metadata.name}`,
      errors,
    );
    creation?.refused(c.value, text);
    return false;
  });
}

// ---------------------------------------------------------------------------------------------
// ResourceQuota

/** The resources a quota tracks for pods (upstream podResources), besides requests.<extended resource> and hugepages. */
const POD_RESOURCES = new Set([
  'count/pods',
  CPU,
  MEMORY,
  EPHEMERAL_STORAGE,
  `requests.${CPU}`,
  `requests.${MEMORY}`,
  `requests.${EPHEMERAL_STORAGE}`,
  `limits.${CPU}`,
  `limits.${MEMORY}`,
  `limits.${EPHEMERAL_STORAGE}`,
  'pods',
]);

/** Native resource names: no domain, or one under kubernetes.io (upstream helper.IsNativeResource). */
const isNative = (name: string) => !name.includes('/') || name.includes('kubernetes.io/');

/** Upstream MatchingResources for pods: the hard resources a pod can use. */
function tracked(name: string): boolean {
  if (POD_RESOURCES.has(name) || name.startsWith('hugepages-') || name.startsWith('requests.hugepages-')) return true;
  return (
    name.startsWith('requests.') &&
    (!isNative(name.slice('requests.'.length)) || name.startsWith('requests.deviceclass.resource.kubernetes.io/'))
  );
}

/** The cpu and memory a quota makes every container declare (upstream's validationSet, "a mistake" it keeps). */
const MUST_SPECIFY = new Set([CPU, MEMORY, `requests.${CPU}`, `requests.${MEMORY}`, `limits.${CPU}`, `limits.${MEMORY}`]);

/** Upstream podComputeUsageHelper: the quota resources a pod's (or a container's) requests and limits use. */
function computeUsage(requests: Amounts, limits: Amounts): Amounts {
  const usage: Amounts = new Map();
  for (const r of [CPU, MEMORY, EPHEMERAL_STORAGE]) {
    const req = requests.get(r);
    if (req) usage.set(r, req).set(`requests.${r}`, req);
    const lim = limits.get(r);
    if (lim) usage.set(`limits.${r}`, lim);
  }
  for (const [name, q] of requests) {
    if (name.startsWith('hugepages-')) usage.set(name, q).set(`requests.${name}`, q);
    else if (!isNative(name)) usage.set(`requests.${name}`, q);
  }
  return usage;
}

const ONE = (() => {
  const q = parseQuantity('1');
  if (!q.ok) throw new Error(q.error);
  return q.value;
})();

const isTerminal = (p: Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

/** Upstream PodUsageFunc: count/pods always; pods and compute resources while the pod is not terminal. */
function podUsage(pod: Pod): Amounts {
  if (isTerminal(pod)) return new Map([['count/pods', ONE]]);
  const usage = computeUsage(podAmounts(pod, 'requests', true), podAmounts(pod, 'limits', true));
  return usage.set('pods', ONE).set('count/pods', ONE);
}

/** Upstream qos.GetPodQOS(pod) == BestEffort: no positive cpu or memory request or limit anywhere. */
function isBestEffort(pod: Pod): boolean {
  const lists = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])].flatMap((c) => [c.resources?.requests, c.resources?.limits]);
  lists.push(pod.spec.resources?.requests, pod.spec.resources?.limits);
  return lists.every((list) => [CPU, MEMORY].every((r) => (amountsOf(list).get(r)?.numerator ?? 0n) <= 0n));
}

/** A pod affinity term naming other namespaces (upstream crossNamespacePodAffinityTerm). */
function usesCrossNamespacePodAffinity(pod: Pod): boolean {
  const affinity = pod.spec.affinity;
  const cross = (t: { namespaces?: readonly string[]; namespaceSelector?: unknown }) =>
    (t.namespaces?.length ?? 0) > 0 || t.namespaceSelector != null;
  return [affinity?.podAffinity, affinity?.podAntiAffinity].some(
    (a) =>
      (a?.requiredDuringSchedulingIgnoredDuringExecution ?? []).some(cross) ||
      (a?.preferredDuringSchedulingIgnoredDuringExecution ?? []).some((w) => cross(w.podAffinityTerm)),
  );
}

/** Upstream podMatchesScopeFunc: whether the pod is in one scope (an unknown scope matches no pod). */
function matchesScope(s: ScopedResourceSelectorRequirement, pod: Pod): boolean {
  switch (s.scopeName) {
    case 'Terminating':
      return pod.spec.activeDeadlineSeconds !== undefined && pod.spec.activeDeadlineSeconds >= 0;
    case 'NotTerminating':
      return !(pod.spec.activeDeadlineSeconds !== undefined && pod.spec.activeDeadlineSeconds >= 0);
    case 'BestEffort':
      return isBestEffort(pod);
    case 'NotBestEffort':
      return !isBestEffort(pod);
    case 'CrossNamespacePodAffinity':
      return usesCrossNamespacePodAffinity(pod);
    case 'PriorityClass': {
      // A selector over the one label {PriorityClass: the pod's class}, absent when it names none.
      const value = pod.spec.priorityClassName || undefined;
      const values = s.values ?? [];
      switch (s.operator) {
        case 'Exists':
          return value !== undefined;
        case 'DoesNotExist':
          return value === undefined;
        case 'In':
          return value !== undefined && values.includes(value);
        case 'NotIn':
          return value === undefined || !values.includes(value);
      }
    }
  }
  return false;
}

/** The quota's scopes (as Exists requirements) and scopeSelector expressions (upstream getScopeSelectorsFromQuota). */
function scopeRequirements(spec: QuotaSpec | undefined): ScopedResourceSelectorRequirement[] {
  return [
    ...(spec?.scopes ?? []).map((scopeName) => ({ scopeName, operator: 'Exists' as const })),
    ...(spec?.scopeSelector?.matchExpressions ?? []),
  ];
}

interface AppliedQuota {
  readonly name: string;
  readonly namespace: string;
  readonly scopes: readonly ScopedResourceSelectorRequirement[];
  readonly hard: Amounts;
  readonly used: Amounts;
}

/**
 * What each quota has admitted so far, by every evaluator (pods, claims, ResourceClaims): upstream
 * checks an object against the quota's whole status.used, so what one kind used counts for the next
 * (a ResourceClaim's devices and a pod's extended resource share `requests.<resource>`).
 */
export class QuotaUse {
  private readonly used = new Map<string, Amounts>();

  of(quota: ResourceQuota): Amounts {
    const key = `${namespaceOf(quota.metadata)}/${quota.metadata.name}`;
    let used = this.used.get(key);
    if (!used) this.used.set(key, (used = new Map()));
    return used;
  }
}

/** The quotas with a hard entry `matching` takes, each with its use so far. */
function appliedQuotas(
  quotas: readonly Located<ResourceQuota>[],
  matching: (name: string) => boolean,
  use: QuotaUse,
  allHard = false,
): AppliedQuota[] {
  const applied: AppliedQuota[] = [];
  for (const q of quotas) {
    const all = amountsOf(q.value.spec?.hard);
    if (![...all.keys()].some(matching)) continue;
    applied.push({
      name: q.value.metadata.name,
      namespace: namespaceOf(q.value.metadata),
      scopes: scopeRequirements(q.value.spec),
      hard: allHard ? all : new Map([...all].filter(([name]) => matching(name))),
      used: use.of(q.value),
    });
  }
  return applied;
}

const matches = (q: AppliedQuota, pod: Pod) => q.scopes.every((s) => matchesScope(s, pod));

/** Upstream podEvaluator.Constraints: per missing resource, the containers that leave it out. */
function missingConstraints(pod: Pod, hard: Amounts): string | undefined {
  const required = [...hard.keys()].filter((n) => MUST_SPECIFY.has(n));
  if (required.length === 0) return undefined;
  // Pod-level cpu or memory stand for the containers' (upstream IsPodLevelResourcesSet).
  const level = pod.spec.resources;
  if ([level?.requests, level?.limits].some((l) => Object.keys(l ?? {}).some(isSupportedPodLevelResource))) return undefined;
  const missing = new Map<string, Set<string>>();
  for (const c of [...pod.spec.containers, ...(pod.spec.initContainers ?? [])]) {
    const usage = computeUsage(amountsOf(c.resources?.requests), amountsOf(c.resources?.limits));
    for (const r of required) if (!usage.has(r)) missing.set(r, (missing.get(r) ?? new Set()).add(c.name));
  }
  if (missing.size === 0) return undefined;
  const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...(missing.get(r) ?? [])].sort().join(',')}`);
  return `must specify ${parts.join('; ')}`;
}

/** Upstream prettyPrint of a resource list: name=quantity, by name, comma-separated. */
function prettyPrint(names: readonly string[], amounts: Amounts): string {
  return names
    .map((n) => {
      const q = amounts.get(n);
      return `${n}=${q ? formatQuantity(q) : '0'}`;
    })
    .join(',');
}

/** The refusal when `usage` would take the quota past a hard limit (upstream masks the use to the quota's resources and drops zeros first). */
function exceeded(q: AppliedQuota, usage: Amounts): string | undefined {
  const over = [...q.hard.keys()]
    .filter((n) => (usage.get(n)?.numerator ?? 0n) !== 0n)
    .filter((n) => {
      const used = q.used.get(n);
      const total = used ? addQuantities(used, usage.get(n) as Quantity) : (usage.get(n) as Quantity);
      return compareQuantities(total, q.hard.get(n) as Quantity) > 0;
    })
    .sort();
  if (over.length === 0) return undefined;
  return `exceeded quota: ${q.name}, requested: ${prettyPrint(over, usage)}, used: ${prettyPrint(over, q.used)}, limited: ${prettyPrint(over, q.hard)}`;
}

/** Adds what an admitted object uses to each quota's use. */
function charge(quotas: readonly AppliedQuota[], usage: Amounts): void {
  for (const q of quotas)
    for (const n of q.hard.keys()) {
      const u = usage.get(n);
      if (!u) continue;
      const used = q.used.get(n);
      q.used.set(n, used ? addQuantities(used, u) : u);
    }
}

/**
 * ResourceQuota admission over the pods in file order: the admitted ones count as used by every
 * quota whose scopes they match; each one not yet admitted is refused (left out, with a warning at
 * its name) when it leaves out the cpu or memory a matching quota limits, or when it would pass a
 * matching quota's hard limit, as upstream checks them (every quota's constraints first, then the
 * limits quota by quota).
 */
export function admitQuotas(
  pods: readonly Located<Pod>[],
  quotas: readonly Located<ResourceQuota>[],
  errors: ManifestError[],
  use = new QuotaUse(),
): Located<Pod>[] {
  if (quotas.length === 0) return [...pods];
  const applied = appliedQuotas(quotas, tracked, use);
  const kept: Located<Pod>[] = [];
  for (const p of pods) {
    const pod = p.value;
    const mine = applied.filter((a) => a.namespace === namespaceOf(pod.metadata) && matches(a, pod));
    const usage = podUsage(pod);
    let refusal: string | undefined;
    if (pod.metadata.uid === undefined) {
      for (const q of mine) {
        const missing = missingConstraints(pod, q.hard);
        if (missing !== undefined) {
          refusal = `failed quota: ${q.name}: ${missing}`;
          break;
        }
      }
      refusal ??= mine.map((q) => exceeded(q, usage)).find((r) => r !== undefined);
    }
    if (refusal !== undefined) {
      refused(p, 'pods', refusal, 'ResourceQuota', podKey(pod), errors);
      continue;
    }
    charge(mine, usage);
    kept.push(p);
  }
  return kept;
}

/** The quota resources a claim uses (upstream pvcEvaluator), by storage class too: `<class>.storageclass.storage.k8s.io/<resource>`. */
const STORAGE_CLASS_SUFFIX = '.storageclass.storage.k8s.io/';

/** Upstream pvcEvaluator.MatchingResources: the hard resources a claim can use. */
function trackedForClaims(name: string): boolean {
  if (name === 'count/persistentvolumeclaims' || name === 'persistentvolumeclaims' || name === 'requests.storage') return true;
  return name.endsWith(`${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`) || name.endsWith(`${STORAGE_CLASS_SUFFIX}requests.storage`);
}

/** Upstream pvcEvaluator.Usage: the claim counted (by its class too), its storage request rounded up to whole bytes. */
function claimUsage(claim: PersistentVolumeClaim): Amounts {
  const usage: Amounts = new Map([
    ['persistentvolumeclaims', ONE],
    ['count/persistentvolumeclaims', ONE],
  ]);
  const storageClass = claim.spec?.storageClassName;
  if (storageClass) usage.set(`${storageClass}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`, ONE);
  // Storage allocated by an expansion counts when larger than the request (RecoverVolumeExpansionFailure, GA).
  const requested = amountsOf(claim.spec?.resources?.requests).get('storage');
  const allocated = requested && amountsOf(claim.status?.allocatedResources).get('storage');
  const request = allocated && requested && compareQuantities(allocated, requested) > 0 ? allocated : requested;
  if (request) {
    const whole =
      request.numerator % request.denominator === 0n ? request : { ...request, numerator: wholeValue(request), denominator: 1n };
    usage.set('requests.storage', whole);
    if (storageClass) usage.set(`${storageClass}${STORAGE_CLASS_SUFFIX}requests.storage`, whole);
  }
  return usage;
}

/** The VolumeAttributesClasses a claim names: asked for, current, and the target of a modification. */
function attributesClasses(claim: PersistentVolumeClaim): Set<string> {
  const names = [
    claim.spec?.volumeAttributesClassName,
    claim.status?.currentVolumeAttributesClassName,
    claim.status?.modifyVolumeStatus?.targetVolumeAttributesClassName,
  ];
  return new Set(names.filter((n): n is string => !!n));
}

/**
 * Upstream pvcMatchesScopeFunc: a claim is in the VolumeAttributesClass scope alone, matched as a
 * selector over the one label {VolumeAttributesClass: a class the claim names} (any of them; no label
 * when it names none); every other scope matches no claim.
 */
function claimMatchesScope(s: ScopedResourceSelectorRequirement, claim: PersistentVolumeClaim): boolean {
  if (s.scopeName !== 'VolumeAttributesClass') return false;
  const names = [...attributesClasses(claim)];
  const values = s.values ?? [];
  switch (s.operator) {
    case 'Exists':
      return names.length > 0;
    case 'DoesNotExist':
      return names.length === 0;
    case 'In':
      return names.some((n) => values.includes(n));
    case 'NotIn':
      return names.length === 0 || names.some((n) => !values.includes(n));
  }
}

/**
 * ResourceQuota admission of the claims not yet admitted (the files' own without a uid and those a
 * StatefulSet's controller would create), after the pods', in file order: the admitted claims count
 * as used by the quotas whose scopes they match; a claim that would pass a matching quota's
 * persistentvolumeclaims, count/persistentvolumeclaims, requests.storage or their per-class forms is
 * left out with the API server's message. Claims match only the VolumeAttributesClass scope (upstream
 * pvcMatchesScopeFunc): a quota with any other scope charges no claim. With `creation`, as in
 * admitClaims.
 */
export function admitClaimQuotas(
  claims: readonly Located<PersistentVolumeClaim>[],
  quotas: readonly Located<ResourceQuota>[],
  errors: ManifestError[],
  creation?: ClaimCreation,
  use = new QuotaUse(),
): Located<PersistentVolumeClaim>[] {
  const applied = appliedQuotas(quotas, trackedForClaims, use);
  return claims.filter((c) => {
    if (creation && !creation.attempted(c.value)) return false;
    const mine = applied.filter(
      (a) => a.namespace === namespaceOf(c.value.metadata) && a.scopes.every((s) => claimMatchesScope(s, c.value)),
    );
    const usage = claimUsage(c.value);
    const refusal = c.value.metadata.uid === undefined ? mine.map((q) => exceeded(q, usage)).find((r) => r !== undefined) : undefined;
    if (refusal !== undefined) {
      const text = refused(
        c,
        'persistentvolumeclaims',
        refusal,
        'ResourceQuota',
        `${namespaceOf(c.value.metadata)}/${c.value.metadata.name}`,
        errors,
      );
      creation?.refused(c.value, text);
      return false;
    }
    charge(mine, usage);
    return true;
  });
}

// ---------------------------------------------------------------------------------------------
// ResourceQuota on ResourceClaims (resource.k8s.io/v1; upstream claimEvaluator)

/** Upstream ClaimObjectCountName. */
const CLAIM_COUNT = 'count/resourceclaims.resource.k8s.io';
/** Upstream ResourceClaimsPerClass: `<device class>.deviceclass.resource.k8s.io/devices`. */
const DEVICES_PER_CLASS = '.deviceclass.resource.k8s.io/devices';
/** Upstream ResourceImplicitExtendedClaimsPerClass: `requests.deviceclass.resource.kubernetes.io/<device class>`. */
const IMPLICIT_EXTENDED = 'requests.deviceclass.resource.kubernetes.io/';
/** Upstream AllocationResultsMaxSize: what a request for All devices counts, the most a claim can be given. */
const ALLOCATION_RESULTS_MAX_SIZE = 32n;

/** The device classes' extended resource names, as the API server's ExtendedResourceCache maps them (DRAExtendedResource, GA in 1.37). */
export interface DeviceClassNames {
  /** The class's spec.extendedResourceName. */
  readonly extendedResource: (className: string) => string | undefined;
  /** Whether a class serves this extended resource: its extendedResourceName, or `deviceclass.resource.kubernetes.io/<class>` (every class). */
  readonly serves: (resourceName: string) => boolean;
}

export function deviceClassNames(classes: readonly DeviceClass[]): DeviceClassNames {
  const byClass = new Map<string, string>();
  for (const c of classes) if (c.spec.extendedResourceName) byClass.set(c.metadata.name, c.spec.extendedResourceName);
  const served = new Set([...byClass.values(), ...classes.map((c) => `${IMPLICIT_EXTENDED.slice('requests.'.length)}${c.metadata.name}`)]);
  return { extendedResource: (name) => byClass.get(name), serves: (name) => served.has(name) };
}

/**
 * Upstream claimEvaluator.MatchingResources: the claim count, devices per class, the implicit
 * extended resource of a class that names an extended resource, and `requests.<extended resource>`
 * (a name not native, or an implicit one) a class serves.
 */
function trackedForDeviceClaims(name: string, classes: DeviceClassNames): boolean {
  if (name === CLAIM_COUNT || name.endsWith(DEVICES_PER_CLASS)) return true;
  const implicit = name.startsWith(IMPLICIT_EXTENDED);
  if (implicit && classes.extendedResource(name.slice(IMPLICIT_EXTENDED.length)) !== undefined) return true;
  return name.startsWith('requests.') && (implicit || !isNative(name)) && classes.serves(name.slice('requests.'.length));
}

/** A device count as a quantity (a decimal integer always parses). */
function count(n: bigint): Quantity {
  const q = parseQuantity(n.toString());
  return q.ok ? q.value : ONE;
}

/** How many devices a request (or a subrequest) may be given: its count, or for All the most a claim can hold. */
const devicesOf = (r: DeviceRequestSpec): bigint =>
  (r.allocationMode ?? 'ExactCount') === 'All' ? ALLOCATION_RESULTS_MAX_SIZE : BigInt(r.count ?? 1);

/**
 * Upstream claimEvaluator.Usage: the claim counted; per device class, the devices its requests may
 * be given (a firstAvailable list: per class, the most any of its entries asks for); and for each
 * class the implicit extended resource and the one it names, as DRAExtendedResource adds them (a
 * claim the scheduler made for a pod's extended resources, which would net out the pod's own, is
 * never in the files).
 */
function deviceClaimUsage(claim: ResourceClaim, classes: DeviceClassNames): Amounts {
  const devices = new Map<string, bigint>();
  const add = (className: string, n: bigint) => devices.set(className, (devices.get(className) ?? 0n) + n);
  for (const request of claim.spec.devices?.requests ?? []) {
    if (request.firstAvailable?.length) {
      const most = new Map<string, bigint>();
      for (const sub of request.firstAvailable) {
        const n = devicesOf(sub);
        if (n > (most.get(sub.deviceClassName) ?? 0n)) most.set(sub.deviceClassName, n);
      }
      for (const [className, n] of most) add(className, n);
    } else if (request.exactly) add(request.exactly.deviceClassName, devicesOf(request.exactly));
  }
  const usage: Amounts = new Map([[CLAIM_COUNT, ONE]]);
  for (const [className, n] of devices) {
    usage.set(`${className}${DEVICES_PER_CLASS}`, count(n));
    if (n <= 0n) continue;
    usage.set(`${IMPLICIT_EXTENDED}${className}`, count(n));
    const extended = classes.extendedResource(className);
    if (extended !== undefined) usage.set(`requests.${extended}`, count(n));
  }
  return usage;
}

/**
 * The ResourceQuota check of one ResourceClaim being created: its refusal by the first quota of its
 * namespace it would take past a hard limit (every hard entry of a quota that tracks a claim
 * resource is checked, as upstream masks the use by the quota's hard list), else undefined and the
 * quotas charged. Quotas with scopes match no claim (upstream MatchesNoScopeFunc).
 */
function deviceClaimRefusal(claim: ResourceClaim, quotas: readonly AppliedQuota[], classes: DeviceClassNames): string | undefined {
  const mine = quotas.filter((a) => a.scopes.length === 0 && a.namespace === namespaceOf(claim.metadata));
  const usage = deviceClaimUsage(claim, classes);
  const refusal = claim.metadata.uid === undefined ? mine.map((q) => exceeded(q, usage)).find((r) => r !== undefined) : undefined;
  if (refusal === undefined) charge(mine, usage);
  return refusal;
}

const deviceClaimQuotas = (quotas: readonly Located<ResourceQuota>[], classes: DeviceClassNames, use: QuotaUse) =>
  appliedQuotas(quotas, (name) => trackedForDeviceClaims(name, classes), use, true);

/**
 * ResourceQuota admission of the files' ResourceClaims not yet admitted (no uid), in file order: a
 * claim that would pass a quota's count/resourceclaims.resource.k8s.io, `<class>.deviceclass.resource.k8s.io/devices`
 * or extended-resource entries is left out with the API server's message (its pods then find no
 * claim); the admitted ones count as used.
 */
export function admitDeviceClaimQuotas(
  claims: readonly Located<ResourceClaim>[],
  quotas: readonly Located<ResourceQuota>[],
  classes: DeviceClassNames,
  errors: ManifestError[],
  use = new QuotaUse(),
): Located<ResourceClaim>[] {
  const applied = deviceClaimQuotas(quotas, classes, use);
  if (applied.length === 0) return [...claims];
  return claims.filter((c) => {
    const refusal = deviceClaimRefusal(c.value, applied, classes);
    if (refusal === undefined) return true;
    refused(
      c,
      'resourceclaims.resource.k8s.io',
      refusal,
      'ResourceQuota',
      `${namespaceOf(c.value.metadata)}/${c.value.metadata.name}`,
      errors,
    );
    return false;
  });
}

/**
 * The ResourceClaim controller on the pods not yet admitted (no uid), after their own admission: for
 * each spec.resourceClaims entry naming a template of the files that the pod's status names no claim
 * for, the claim it creates (the template's spec, under the name the engine makes up for it,
 * madeUpClaimName), held to the quotas. A refused claim is never created, so upstream's scheduler
 * finds none for the entry (resourceclaim.Name's "ResourceClaim not created yet") and the pod waits:
 * a warning at the entry says why, in the controller's FailedResourceClaimCreation event's words
 * (checked against kube-controller-manager 1.37 in test/real/admission.test.ts). Returns the refused
 * claims' `namespace/name` (resourceClaimKey), for the cluster's claimsNotCreated: the engine's
 * resolver, which makes up a template's claim wherever the template exists, finds none for them
 * either. The pods are left as they are.
 */
export function admitTemplateClaims(
  pods: readonly Located<Pod>[],
  templates: readonly Located<ResourceClaimTemplate>[],
  quotas: readonly Located<ResourceQuota>[],
  classes: DeviceClassNames,
  errors: ManifestError[],
  use = new QuotaUse(),
): string[] {
  const applied = deviceClaimQuotas(quotas, classes, use);
  if (applied.length === 0) return [];
  const byName = new Map(templates.map((t) => [`${namespaceOf(t.value.metadata)}/${t.value.metadata.name}`, t.value]));
  const notCreated: string[] = [];
  for (const p of pods) {
    const pod = p.value;
    if (pod.metadata.uid !== undefined) continue;
    const namespace = namespaceOf(pod.metadata);
    (pod.spec.resourceClaims ?? []).forEach((entry, i) => {
      const template =
        entry.resourceClaimTemplateName !== undefined ? byName.get(`${namespace}/${entry.resourceClaimTemplateName}`) : undefined;
      if (!template || pod.status?.resourceClaimStatuses?.some((st) => st.name === entry.name)) return;
      const name = madeUpClaimName(pod, entry.name);
      const refusal = deviceClaimRefusal({ metadata: { name, namespace }, spec: template.spec.spec }, applied, classes);
      if (refusal === undefined) return;
      const path = `spec.resourceClaims[${i}].resourceClaimTemplateName`;
      errors.push({
        code: 'refused',
        severity: 'warning',
        // The FailedResourceClaimCreation event's words (the controller names the claim by its generateName's empty name).
        message: `PodResourceClaim ${entry.name}: create ResourceClaim : resourceclaims.resource.k8s.io "${name}" is forbidden: ${refusal}: pod ${podKey(pod)} waits for it`,
        range: fieldRange(p, path),
        path: concatPath(p.base, path),
      });
      notCreated.push(resourceClaimKey(namespace, name));
    });
  }
  return notCreated;
}

/** The workloads whose pods Podplan makes: a quota on their count would refuse the workload, not its pods' placement. */
const WORKLOAD_RESOURCES = new Set([
  'replicationcontrollers',
  'deployments.apps',
  'replicasets.apps',
  'statefulsets.apps',
  'daemonsets.apps',
  'jobs.batch',
]);

/** The objects a quota entry Podplan does not apply counts (upstream's object count and service quota names). */
function countedResource(name: string): string {
  if (name.startsWith('count/')) return name.slice('count/'.length);
  if (name.startsWith('services.')) return 'services';
  return name;
}

/** Why Podplan does not apply a quota entry, by what it counts. */
function notAppliedReason(name: string): string {
  const resource = countedResource(name);
  if (WORKLOAD_RESOURCES.has(resource))
    return `it counts ${resource}: Podplan holds the pods they make to quotas, not the ${resource} themselves`;
  return `it counts ${resource}, which do not affect placement`;
}

/**
 * One located warning per quota entry (spec.hard) that no admission here applies (count/services,
 * services.loadbalancers, configmaps, secrets, count/resourceclaimtemplates.resource.k8s.io, …),
 * saying that it is not applied and why, so that no entry is dropped silently.
 */
export function quotaEntriesNotApplied(quotas: readonly Located<ResourceQuota>[], errors: ManifestError[]): void {
  for (const q of quotas)
    for (const name of Object.keys(q.value.spec?.hard ?? {})) {
      if (tracked(name) || trackedForClaims(name) || name === CLAIM_COUNT || name.endsWith(DEVICES_PER_CLASS)) continue;
      const path = joinPath('spec.hard', name);
      errors.push({
        code: 'not-applied',
        severity: 'warning',
        message: `ResourceQuota ${namespaceOf(q.value.metadata)}/${q.value.metadata.name}: ${name} is not applied: ${notAppliedReason(name)}`,
        range: fieldRange(q, path),
        path: concatPath(q.base, path),
      });
    }
}
