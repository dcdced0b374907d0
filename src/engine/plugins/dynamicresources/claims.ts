// A pod's ResourceClaims as upstream's resourceclaim.Name and the plugin's foreachPodResourceClaim
// find them: a claim by name, or the claim the ResourceClaim controller created for a template entry
// (named in the pod's status.resourceClaimStatuses, owned by the pod). Where the pod's status names
// none, what happens depends on who asks (`TemplateClaims`): a live scheduler waits, as upstream
// (resourceclaim.Name's "ResourceClaim not created yet"), since kube-controller-manager will create
// the claim and name it; files, previews and planners have no controller, so where the template
// exists Podplan makes up the claim the controller would create: the template's spec, owned by the
// pod, annotated podplan.io/made-up: "true" and named as the controller's generateName would
// (`<pod>-<claim>-` and five characters, here a hash of the pod and claim names, not the API
// server's random ones), unless the cluster says that claim was never created (ResourceQuota
// admission refused it: ClusterObjects.claimsNotCreated), where the pod waits as upstream's does.
import type { PodResourceClaim, ResourceClaim, ResourceClaimTemplate } from '../../api/dra';
import { err, ok, type Result } from '../../api/result';
import { podNamespace, type ClusterObjects, type OwnerReference, type Pod } from '../../api/types';

export const MADE_UP_ANNOTATION = 'podplan.io/made-up';

/** What a pod's claims are looked up in. */
export interface ClaimLookup {
  claim(namespace: string, name: string): ResourceClaim | undefined;
  template(namespace: string, name: string): ResourceClaimTemplate | undefined;
  /** Whether the claim of that name was never created (ClusterObjects.claimsNotCreated). */
  notCreated(namespace: string, name: string): boolean;
}

/** The `namespace/name` of a claim, as ClusterObjects.claimsNotCreated lists it. */
export function resourceClaimKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? 'default'}/${name}`;
}

/** The claims of the objects' list that were never created, by resourceClaimKey. */
export function claimsNotCreated(objects: ClusterObjects): ReadonlySet<string> {
  return new Set(objects.claimsNotCreated ?? []);
}

// The API server's generateName alphabet (no vowels, no look-alikes).
const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** The name Podplan gives the claim it makes up for a template entry (see the file comment). */
export function madeUpClaimName(pod: Pod, podClaim: string): string {
  let h = 2166136261;
  for (const ch of `${podNamespace(pod)}/${pod.metadata.name}/${podClaim}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  let suffix = '';
  for (let i = 0; i < 5; i++) {
    suffix += ALPHABET[h % ALPHABET.length];
    h = Math.floor(h / ALPHABET.length) + i * 7919;
  }
  // The controller truncates the prefix so the name fits 63 characters.
  return `${`${pod.metadata.name}-${podClaim}`.slice(0, 57)}-${suffix}`;
}

/** The controller reference a claim made for the pod carries (a template's claim, the extended resources' claim). */
export function podOwnerReference(pod: Pod): OwnerReference {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    name: pod.metadata.name,
    ...(pod.metadata.uid ? { uid: pod.metadata.uid } : {}),
    controller: true,
  };
}

function madeUpClaim(pod: Pod, podClaim: PodResourceClaim, template: ResourceClaimTemplate): ResourceClaim {
  const meta = template.spec.metadata ?? {};
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: {
      name: madeUpClaimName(pod, podClaim.name),
      namespace: podNamespace(pod),
      ...(meta.labels ? { labels: meta.labels } : {}),
      annotations: { ...(meta.annotations ?? {}), [MADE_UP_ANNOTATION]: 'true', 'resource.kubernetes.io/pod-claim-name': podClaim.name },
      ownerReferences: [podOwnerReference(pod)],
    },
    spec: template.spec.spec,
  };
}

/** upstream resourceclaim.IsForPod; a pod without a uid is matched by the owner's kind and name. */
function isForPod(pod: Pod, claim: ResourceClaim): string | undefined {
  const ns = podNamespace(pod);
  const claimNs = claim.metadata.namespace ?? 'default';
  if (claimNs !== ns)
    return `ResourceClaim ${claimNs}/${claim.metadata.name} is not in the same namespace as Pod ${ns}/${pod.metadata.name}`;
  const controller = claim.metadata.ownerReferences?.find((o) => o.controller === true);
  const owned =
    controller !== undefined &&
    (pod.metadata.uid !== undefined
      ? controller.uid === pod.metadata.uid
      : controller.kind === 'Pod' && controller.name === pod.metadata.name);
  if (!owned)
    return `ResourceClaim ${claimNs}/${claim.metadata.name} was not created for Pod ${ns}/${pod.metadata.name} (Pod is not owner)`;
  return undefined;
}

/**
 * A template entry whose claim the pod's status does not name yet: `made-up` gives the claim the
 * controller would create (no controller runs: files, previews, planning), `wait` is upstream's
 * error (a cluster's controller will create it; the live scheduler holds the pod until then).
 */
export type TemplateClaims = 'made-up' | 'wait';

/** upstream resourceclaim.ErrClaimNotFound */
export const ERR_CLAIM_NOT_CREATED = 'ResourceClaim not created yet';

/** The pod's claims in spec order (entries the controller deliberately made no claim for are left out), or upstream's error. */
export function podResourceClaims(pod: Pod, lookup: ClaimLookup, templates: TemplateClaims = 'made-up'): Result<ResourceClaim[]> {
  const ns = podNamespace(pod);
  const out: ResourceClaim[] = [];
  for (const podClaim of pod.spec.resourceClaims ?? []) {
    let name: string | undefined;
    let checkOwner = false;
    if (podClaim.resourceClaimName !== undefined) name = podClaim.resourceClaimName;
    else if (podClaim.resourceClaimTemplateName !== undefined) {
      const status = pod.status?.resourceClaimStatuses?.find((s) => s.name === podClaim.name);
      if (status) {
        if (status.resourceClaimName === undefined) continue;
        name = status.resourceClaimName;
        checkOwner = true;
      } else {
        const template = templates === 'made-up' ? lookup.template(ns, podClaim.resourceClaimTemplateName) : undefined;
        if (!template || lookup.notCreated(ns, madeUpClaimName(pod, podClaim.name)))
          return err(`pod "${ns}/${pod.metadata.name}": ${ERR_CLAIM_NOT_CREATED}`);
        const made = madeUpClaim(pod, podClaim, template);
        out.push(lookup.claim(ns, made.metadata.name) ?? made);
        continue;
      }
    } else return err(`pod "${ns}/${pod.metadata.name}", spec.resourceClaim "${podClaim.name}": none of the supported fields are set`);
    const claim = lookup.claim(ns, name);
    if (!claim) return err(`could not find ResourceClaim "${ns}/${name}"`);
    if (claim.metadata.deletionTimestamp) return err(`resourceclaim "${claim.metadata.name}" is being deleted`);
    if (checkOwner) {
      const problem = isForPod(pod, claim);
      if (problem) return err(problem);
    }
    out.push(claim);
  }
  return ok(out);
}
