// Pod affinity terms compiled for matching (upstream framework.AffinityTerm), and the catalog one
// InterPodAffinity instance keeps of them: each pod's terms compiled once, and the namespace labels
// of the snapshot in use, which namespaceSelectors match.
//
// Namespaces: a term selects pods of the namespaces it lists and of those whose labels its
// namespaceSelector matches (an empty selector: every namespace); without either, its own pod's
// namespace. Namespace labels are the snapshot's Namespace objects' plus kubernetes.io/metadata.name,
// which the API server puts on every namespace (so a namespace without an object has that one).
// matchLabelKeys / mismatchLabelKeys are merged into the term's labelSelector with the owning pod's
// values, as the API server does when it admits the pod.
import { compileSelector, withLabelKeys, type LabelMatcher } from '../../api/labels';
import { podNamespace, type Labels, type Namespace, type Pod, type PodAffinityTerm, type WeightedPodAffinityTerm } from '../../api/types';
import { BoundedMap, KeyInterner, WeakCache } from '../../framework/caches';

export interface AffinityTerm {
  /** Identifies what the term selects, for the counts kept across cycles. */
  readonly key: string;
  readonly topologyKey: string;
  readonly namespaces: ReadonlySet<string>;
  readonly namespaceSelector: LabelMatcher;
  readonly selector: LabelMatcher;
}

export interface WeightedAffinityTerm extends AffinityTerm {
  readonly weight: number;
}

export interface PodTerms {
  readonly requiredAffinity: readonly AffinityTerm[];
  readonly requiredAntiAffinity: readonly AffinityTerm[];
  readonly preferredAffinity: readonly WeightedAffinityTerm[];
  readonly preferredAntiAffinity: readonly WeightedAffinityTerm[];
  /** What the shared PreFilter counts are kept by: what other pods' terms see of this pod (its namespace and labels) and its required terms. */
  readonly requiredKey: string;
  /** The same for the shared scores: its identity and its preferred terms. */
  readonly preferredKey: string;
}

const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/** Namespaces (and per namespace, pods without terms) remembered before those tables start over. */
const NAMESPACES_KEPT = 10_000;

interface NamespaceDirectory {
  readonly version: number;
  readonly labels: ReadonlyMap<string, Labels>;
}

/** The terms of the pods one plugin instance has seen, and the namespace labels they match against (budget: framework/caches.ts). */
export class TermCatalog {
  private readonly keys = new KeyInterner();
  private readonly byPod = new WeakCache<Pod, PodTerms>();
  /** Pods without affinity terms by labels object and namespace: their terms are only their identity. */
  private readonly withoutTermsByLabels = new WeakCache<Labels, BoundedMap<PodTerms>>();
  private readonly withoutTermsUnlabelled = new BoundedMap<PodTerms>(NAMESPACES_KEPT);
  /** Labels of namespaces that have no Namespace object in the snapshot: the name label alone. */
  private readonly nameOnly = new BoundedMap<Labels>(NAMESPACES_KEPT);
  /** The snapshot's namespace labels by name, built once per list of Namespace objects. */
  private readonly directories = new WeakCache<readonly Namespace[], NamespaceDirectory>();
  private directoryVersions = 0;
  /**
   * The namespace labels of the snapshot the plugin works on now: the plugin sets them at each of
   * its entry points (cycles are synchronous and never overlap).
   */
  private current: ReadonlyMap<string, Labels> | undefined;

  /** Makes `namespaces` the ones terms match against; answers their version, which keys the counts kept across cycles. */
  useNamespaces(namespaces: readonly Namespace[] | undefined): string {
    if (!namespaces) {
      this.current = undefined;
      return '';
    }
    const directory = this.directories.get(namespaces, (list) => ({
      version: ++this.directoryVersions,
      labels: new Map(list.map((n) => [n.metadata.name, Object.freeze({ ...n.metadata.labels, [NAMESPACE_NAME_LABEL]: n.metadata.name })])),
    }));
    this.current = directory.labels;
    return `ns${directory.version}|`;
  }

  /** The pod's terms, compiled once per pod object (existing pods are looked at in every cycle). */
  of(pod: Pod): PodTerms {
    const affinity = pod.spec.affinity;
    if (!affinity?.podAffinity && !affinity?.podAntiAffinity) return this.withoutTerms(pod);
    return this.byPod.get(pod, this.compile);
  }

  private readonly compile = (pod: Pod): PodTerms => {
    const affinity = pod.spec.affinity;
    const requiredAffinity = (affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => compileTerm(pod, t));
    const requiredAntiAffinity = (affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) =>
      compileTerm(pod, t),
    );
    const preferredAffinity = compileWeighted(pod, affinity?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
    const preferredAntiAffinity = compileWeighted(pod, affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
    return this.podTerms(pod, requiredAffinity, requiredAntiAffinity, preferredAffinity, preferredAntiAffinity);
  };

  matches(term: AffinityTerm, pod: Pod): boolean {
    const namespace = podNamespace(pod);
    if (!term.namespaces.has(namespace) && !term.namespaceSelector(this.namespaceLabels(namespace))) return false;
    return term.selector(pod.metadata.labels);
  }

  /**
   * upstream AffinityTerm.Matches with no namespace labels (as the queueing hints call it): its
   * listed namespaces, or a namespaceSelector that matches an empty set of labels.
   */
  matchesWithoutNamespaceLabels(term: AffinityTerm, pod: Pod): boolean {
    if (!term.namespaces.has(podNamespace(pod)) && !term.namespaceSelector({})) return false;
    return term.selector(pod.metadata.labels);
  }

  /** False for no terms, as upstream's podMatchesAllAffinityTerms. */
  matchesAll(terms: readonly AffinityTerm[], pod: Pod): boolean {
    return terms.length > 0 && terms.every((t) => this.matches(t, pod));
  }

  private namespaceLabels(namespace: string): Labels {
    return this.current?.get(namespace) ?? this.nameOnly.get(namespace, nameOnlyLabels);
  }

  private withoutTerms(pod: Pod): PodTerms {
    const labels = pod.metadata.labels;
    const byNamespace = labels ? this.withoutTermsByLabels.get(labels, newNamespaceTable) : this.withoutTermsUnlabelled;
    return byNamespace.get(podNamespace(pod), () => this.podTerms(pod, [], [], [], []));
  }

  /** The terms with the keys the shared counts are kept by. */
  private podTerms(
    pod: Pod,
    required: readonly AffinityTerm[],
    requiredAnti: readonly AffinityTerm[],
    preferred: readonly WeightedAffinityTerm[],
    preferredAnti: readonly WeightedAffinityTerm[],
  ): PodTerms {
    const identity = JSON.stringify([podNamespace(pod), pod.metadata.labels ?? {}]);
    return {
      requiredAffinity: required,
      requiredAntiAffinity: requiredAnti,
      preferredAffinity: preferred,
      preferredAntiAffinity: preferredAnti,
      requiredKey: this.keys.intern(`${identity}|${keyOf(required, requiredAnti)}`),
      preferredKey: this.keys.intern(`${identity}|${keyOf(preferred, preferredAnti)}`),
    };
  }
}

const nameOnlyLabels = (namespace: string): Labels => Object.freeze({ [NAMESPACE_NAME_LABEL]: namespace });
const newNamespaceTable = () => new BoundedMap<PodTerms>(NAMESPACES_KEPT);

/** Without namespaces or a namespaceSelector, a term selects pods of its own pod's namespace. */
function compileTerm(owner: Pod, term: PodAffinityTerm): AffinityTerm {
  const namespaces = new Set(term.namespaces ?? []);
  if (!term.namespaceSelector && namespaces.size === 0) namespaces.add(podNamespace(owner));
  const selector =
    term.labelSelector && withLabelKeys(term.labelSelector, owner.metadata.labels, term.matchLabelKeys, term.mismatchLabelKeys);
  return {
    key: JSON.stringify([term.topologyKey, [...namespaces], term.namespaceSelector ?? null, selector ?? null]),
    topologyKey: term.topologyKey,
    namespaces,
    namespaceSelector: compileSelector(term.namespaceSelector),
    selector: compileSelector(selector),
  };
}

const compileWeighted = (owner: Pod, terms: readonly WeightedPodAffinityTerm[] | undefined): WeightedAffinityTerm[] =>
  (terms ?? []).map((t) => {
    const compiled = compileTerm(owner, t.podAffinityTerm);
    return { ...compiled, key: `${t.weight}${compiled.key}`, weight: t.weight };
  });

const keyOf = (...lists: ReadonlyArray<readonly AffinityTerm[]>): string =>
  lists.map((terms) => terms.map((t) => t.key).join(',')).join('|');
