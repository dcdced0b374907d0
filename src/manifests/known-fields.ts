// What kubectl's strict field validation knows and the decoders do not: the field names of the
// Kubernetes objects Podplan reads (those scheduling ignores included), the built-in kinds, and the
// name rules. A field not in the schema is a warning at its key ("unknown field"), as
// `kubectl apply --validate=warn` prints; a misspelt `nodeSelectr` is never read silently as absent.
import type { DecodeContext } from './decode';
import { isPlainObject } from './decode';
import { joinPath } from './source-map';

/** A mapping's fields; `true`: any value (not checked further). The same schema applies to each item of a list. */
interface Schema {
  readonly [field: string]: Schema | true;
}

const any = true;

const fields = (names: string, nested: Record<string, Schema | true> = {}): Schema => {
  const out: Record<string, Schema | true> = {};
  for (const n of names.split(/\s+/).filter(Boolean)) out[n] = any;
  return { ...out, ...nested };
};

const ownerReference = fields('apiVersion kind name uid controller blockOwnerDeletion');

const objectMeta = fields(
  'name generateName namespace selfLink uid resourceVersion generation creationTimestamp deletionTimestamp deletionGracePeriodSeconds labels annotations finalizers managedFields',
  {
    ownerReferences: ownerReference,
  },
);

const labelSelector = fields('matchLabels', { matchExpressions: fields('key operator values') });
const nodeSelectorTerm = fields('', { matchExpressions: fields('key operator values'), matchFields: fields('key operator values') });
const podAffinityTerm = fields('namespaces topologyKey matchLabelKeys mismatchLabelKeys', {
  labelSelector,
  namespaceSelector: labelSelector,
});
const podAffinity = fields('', {
  requiredDuringSchedulingIgnoredDuringExecution: podAffinityTerm,
  preferredDuringSchedulingIgnoredDuringExecution: fields('weight', { podAffinityTerm }),
});

const affinity = fields('', {
  nodeAffinity: fields('', {
    requiredDuringSchedulingIgnoredDuringExecution: fields('', { nodeSelectorTerms: nodeSelectorTerm }),
    preferredDuringSchedulingIgnoredDuringExecution: fields('weight', { preference: nodeSelectorTerm }),
  }),
  podAffinity,
  podAntiAffinity: podAffinity,
});

const resources = fields('requests limits claims');

const container = fields(
  'name image command args workingDir envFrom env volumeMounts volumeDevices livenessProbe readinessProbe startupProbe lifecycle terminationMessagePath terminationMessagePolicy imagePullPolicy securityContext stdin stdinOnce tty resizePolicy restartPolicy restartPolicyRules',
  { resources, ports: fields('name hostPort containerPort protocol hostIP') },
);

const podSpec = fields(
  'volumes restartPolicy terminationGracePeriodSeconds activeDeadlineSeconds dnsPolicy nodeSelector serviceAccountName serviceAccount automountServiceAccountToken nodeName hostNetwork hostPID hostIPC shareProcessNamespace securityContext imagePullSecrets hostname subdomain schedulerName priorityClassName priority dnsConfig readinessGates runtimeClassName enableServiceLinks preemptionPolicy overhead setHostnameAsFQDN os hostUsers resourceClaims hostAliases',
  {
    containers: container,
    initContainers: container,
    ephemeralContainers: container,
    affinity,
    tolerations: fields('key operator value effect tolerationSeconds'),
    topologySpreadConstraints: fields(
      'maxSkew topologyKey whenUnsatisfiable minDomains nodeAffinityPolicy nodeTaintsPolicy matchLabelKeys',
      { labelSelector },
    ),
    schedulingGates: fields('name'),
    resources,
  },
);

const podTemplate = fields('', { metadata: objectMeta, spec: podSpec });

const top = (spec: Schema, status: Schema | true = any): Schema => fields('apiVersion kind', { metadata: objectMeta, spec, status });

const workloadSpec = (names: string): Schema => fields(names, { selector: labelSelector, template: podTemplate });

/** The schema of each kind whose fields are checked. */
const KIND_SCHEMAS: Readonly<Record<string, Schema>> = {
  Pod: top(
    podSpec,
    fields(
      'phase conditions message reason nominatedNodeName hostIP hostIPs podIP podIPs startTime initContainerStatuses containerStatuses ephemeralContainerStatuses qosClass resize resourceClaimStatuses observedGeneration extendedResourceClaimStatus',
    ),
  ),
  Node: top(
    fields('podCIDR podCIDRs providerID unschedulable configSource externalID', { taints: fields('key value effect timeAdded') }),
    fields(
      'capacity allocatable phase conditions addresses daemonEndpoints nodeInfo images volumesInUse volumesAttached config runtimeHandlers features declaredFeatures',
    ),
  ),
  Deployment: top(workloadSpec('replicas strategy minReadySeconds revisionHistoryLimit paused progressDeadlineSeconds')),
  ReplicaSet: top(workloadSpec('replicas minReadySeconds')),
  // A ReplicationController's selector is a plain label map.
  ReplicationController: top(fields('replicas minReadySeconds selector', { template: podTemplate })),
  StatefulSet: top(
    workloadSpec(
      'replicas volumeClaimTemplates serviceName podManagementPolicy updateStrategy revisionHistoryLimit minReadySeconds persistentVolumeClaimRetentionPolicy ordinals',
    ),
  ),
  DaemonSet: top(workloadSpec('updateStrategy minReadySeconds revisionHistoryLimit')),
  Job: top(
    workloadSpec(
      'parallelism completions activeDeadlineSeconds podFailurePolicy successPolicy backoffLimit backoffLimitPerIndex maxFailedIndexes manualSelector ttlSecondsAfterFinished completionMode suspend podReplacementPolicy managedBy',
    ),
  ),
};

/** Built-in kinds by API group ('' is the core group, v1), as `kubectl api-resources` lists them. */
const BUILT_IN_KINDS: Readonly<Record<string, readonly string[]>> = {
  '': 'Binding ComponentStatus ConfigMap Endpoints Event LimitRange Namespace Node PersistentVolume PersistentVolumeClaim Pod PodTemplate ReplicationController ResourceQuota Secret Service ServiceAccount List'.split(
    ' ',
  ),
  apps: 'ControllerRevision DaemonSet Deployment ReplicaSet StatefulSet'.split(' '),
  batch: 'CronJob Job'.split(' '),
  autoscaling: ['HorizontalPodAutoscaler'],
  policy: ['PodDisruptionBudget'],
  'scheduling.k8s.io': ['PriorityClass'],
  'storage.k8s.io': 'CSIDriver CSINode CSIStorageCapacity StorageClass VolumeAttachment VolumeAttributesClass'.split(' '),
  'networking.k8s.io': 'Ingress IngressClass NetworkPolicy IPAddress ServiceCIDR'.split(' '),
  'rbac.authorization.k8s.io': 'ClusterRole ClusterRoleBinding Role RoleBinding'.split(' '),
  'node.k8s.io': ['RuntimeClass'],
  'coordination.k8s.io': ['Lease'],
  'discovery.k8s.io': ['EndpointSlice'],
  'apiextensions.k8s.io': ['CustomResourceDefinition'],
  'admissionregistration.k8s.io':
    'MutatingWebhookConfiguration ValidatingWebhookConfiguration ValidatingAdmissionPolicy ValidatingAdmissionPolicyBinding'.split(' '),
  'resource.k8s.io': 'DeviceClass DeviceTaintRule ResourceClaim ResourceClaimTemplate ResourceSlice'.split(' '),
  'certificates.k8s.io': ['CertificateSigningRequest'],
  'events.k8s.io': ['Event'],
  'flowcontrol.apiserver.k8s.io': ['FlowSchema', 'PriorityLevelConfiguration'],
};

function groupOf(apiVersion: string): string | undefined {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** Reports `kind` when its apiVersion names a built-in group that has no such kind (`kind: Nodee`); other groups are custom resources it cannot know. */
export function checkKind(kind: string, apiVersion: unknown, path: string, ctx: DecodeContext): void {
  const group = typeof apiVersion === 'string' ? groupOf(apiVersion) : undefined;
  const known = group === undefined ? Object.values(BUILT_IN_KINDS).flat() : BUILT_IN_KINDS[group];
  if (!known || known.includes(kind) || kind.endsWith('List')) return;
  const near = closest(kind, known);
  const where = group === undefined ? 'is not a Kubernetes kind' : `is not a kind of ${apiVersion as string}`;
  ctx.report(
    joinPath(path, 'kind'),
    'unknown-kind',
    `"${kind}" ${where}${near ? ` (did you mean ${near}?)` : ''}; the object is ignored`,
    'warning',
  );
}

/** Reports every field of an object of `kind` the Kubernetes schema does not have, at its key. */
export function checkFields(kind: string, value: unknown, path: string, ctx: DecodeContext): void {
  const schema = KIND_SCHEMAS[kind];
  if (schema) walk(schema, value, path, ctx, new Set());
}

/** `inside`: the values being walked, so an alias that holds itself (`&a [*a]`) is not walked forever. */
function walk(schema: Schema, value: unknown, path: string, ctx: DecodeContext, inside: Set<unknown>): void {
  if (inside.has(value)) return;
  if (Array.isArray(value)) {
    inside.add(value);
    // A list of mappings; anything else in it (a list of lists) has no fields to check and is the decoder's to report.
    for (const [i, item] of value.entries()) if (isPlainObject(item)) walk(schema, item, joinPath(path, i), ctx, inside);
    inside.delete(value);
    return;
  }
  if (!isPlainObject(value)) return;
  inside.add(value);
  for (const [key, item] of Object.entries(value)) {
    const sub = Object.hasOwn(schema, key) ? schema[key] : undefined;
    if (sub === undefined) {
      const near = closest(key, Object.keys(schema));
      ctx.report(
        joinPath(path, key),
        'unknown-field',
        `unknown field "${key}"${near ? ` (did you mean "${near}"?)` : ''}; it is ignored`,
        'warning',
      );
    } else if (sub !== true) {
      walk(sub, item, joinPath(path, key), ctx, inside);
    }
  }
  inside.delete(value);
}

/** The candidate at edit distance 1–2 from `word` (case aside), if one is. */
function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const c of candidates) {
    const d = distance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best;
}

function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(
        (previous[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = row;
  }
  return previous[b.length] as number;
}

/** RFC 1123 subdomain: what metadata.name of pods, nodes and workloads must be. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** RFC 1123 label: what a namespace must be. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The API server's checks of metadata.name and metadata.namespace, as errors at the field. */
/** A label's name part and value (upstream IsQualifiedName, IsValidLabelValue). */
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_NAME_RULE = "alphanumeric characters, '-', '_' or '.', starting and ending with an alphanumeric character";

/** Why `key` is not a label key the API server accepts (prefix/name), undefined when it is one. */
function labelKeyProblem(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2) return `a label key is a name with an optional prefix and '/' (e.g. 'example.com/MyName'), not "${key}"`;
  const [prefix, name] = parts.length === 2 ? parts : [undefined, parts[0]];
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)))
    return `the prefix of label key "${key}" must be a lowercase RFC 1123 subdomain (lowercase letters, digits, '-' and '.', at most 253 characters)`;
  if (!name) return `label key "${key}" has an empty name part`;
  if (name.length > 63) return `the name part of label key "${key}" must be no more than 63 characters`;
  if (!LABEL_NAME.test(name)) return `the name part of label key "${key}" must consist of ${LABEL_NAME_RULE}`;
  return undefined;
}

function labelValueProblem(key: string, value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined; // a wrong type is the decoder's to report
  if (value.length > 63) return `the value of label "${key}" must be no more than 63 characters`;
  if (value !== '' && !LABEL_NAME.test(value))
    return `the value "${value}" of label "${key}" must be empty or consist of ${LABEL_NAME_RULE}`;
  return undefined;
}

/** Label keys and values as the API server validates them, at `path` (a labels or matchLabels mapping). */
function checkLabels(labels: unknown, path: string, ctx: DecodeContext): void {
  if (!isPlainObject(labels)) return;
  for (const [key, value] of Object.entries(labels)) {
    const at = joinPath(path, key);
    const keyProblem = labelKeyProblem(key);
    if (keyProblem) ctx.reportKey(at, 'invalid-label', keyProblem);
    const valueProblem = labelValueProblem(key, value);
    if (valueProblem) ctx.report(at, 'invalid-label', valueProblem);
  }
}

/** Names, namespaces and labels as the API server validates them: the object's, its pod template's, its selector's. */
export function checkNames(value: unknown, path: string, ctx: DecodeContext): void {
  if (!isPlainObject(value)) return;
  const meta = value['metadata'];
  if (!isPlainObject(meta)) return;
  const at = joinPath(path, 'metadata');
  checkLabels(meta['labels'], joinPath(at, 'labels'), ctx);
  const spec = value['spec'];
  if (isPlainObject(spec)) {
    const template = spec['template'];
    if (isPlainObject(template) && isPlainObject(template['metadata']))
      checkLabels(
        template['metadata']['labels'],
        joinPath(joinPath(joinPath(joinPath(path, 'spec'), 'template'), 'metadata'), 'labels'),
        ctx,
      );
    const selector = spec['selector'];
    if (isPlainObject(selector) && isPlainObject(selector['matchLabels']))
      checkLabels(selector['matchLabels'], joinPath(joinPath(joinPath(path, 'spec'), 'selector'), 'matchLabels'), ctx);
  }
  const name = meta['name'];
  if (typeof name === 'string' && (name.length > 253 || !DNS_SUBDOMAIN.test(name))) {
    ctx.report(
      joinPath(at, 'name'),
      'invalid-name',
      `"${name}" is not a valid name: a lowercase RFC 1123 subdomain (lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters)`,
    );
  }
  const namespace = meta['namespace'];
  if (typeof namespace === 'string' && (namespace.length > 63 || !DNS_LABEL.test(namespace))) {
    ctx.report(
      joinPath(at, 'namespace'),
      'invalid-name',
      `"${namespace}" is not a valid namespace: a lowercase RFC 1123 label (lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters)`,
    );
  }
}
