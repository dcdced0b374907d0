// Real-world admission inputs, each with what the API server answers: the Kubernetes website's
// LimitRange and ResourceQuota examples (kubernetes/website, content/en/examples/admin/resource/,
// from the tasks "Configure Minimum and Maximum CPU/Memory Constraints for a Namespace", "Limit
// Storage Consumption", "Configure Memory and CPU Quotas for a Namespace", "Configure a Pod Quota
// for a Namespace" and the concept pages "Limit Ranges" and "Resource Quotas"), as YAML, without a
// namespace. test/manifests/admission.test.ts holds Podplan's warnings to `refused`;
// test/real/admission.test.ts creates the same objects, in order, in a namespace of a real
// kube-apiserver 1.37 and holds its answers to `refused` too.

export interface AdmissionCase {
  readonly name: string;
  /** What the pods and claims are created after: LimitRanges, ResourceQuotas, PriorityClasses. */
  readonly setup: string;
  /** Pods and claims, created in this order. */
  readonly objects: string;
  /**
   * Per refused object, the API server's message. One that names several broken limits lists them
   * in brackets; the API server orders them as Go walks a map (at random), so that list is compared
   * without its order.
   */
  readonly refused: Readonly<Record<string, string>>;
  /** The quota entries Podplan warns it does not apply (the API server does; the case's objects never reach them). */
  readonly notApplied?: readonly string[];
}

const pod = (name: string, resources: string, extra = '') => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:${extra}
  containers:
  - name: ${name}-ctr
    image: nginx${resources ? `\n    resources:\n${resources.replace(/^/gm, '      ')}` : ''}
---
`;

const limitRange = (name: string, item: string) => `apiVersion: v1
kind: LimitRange
metadata:
  name: ${name}
spec:
  limits:
  - ${item.replace(/\n/g, '\n    ')}
---
`;

const busybox = (name: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  containers:
  - name: busybox-cnt01
    image: busybox
    resources:
      requests:
        memory: "100Mi"
        cpu: "100m"
      limits:
        memory: "200Mi"
        cpu: "500m"
  - name: busybox-cnt02
    image: busybox
    resources:
      requests:
        memory: "100Mi"
        cpu: "100m"
  - name: busybox-cnt03
    image: busybox
    resources:
      limits:
        memory: "200Mi"
        cpu: "500m"
  - name: busybox-cnt04
    image: busybox
---
`;

const quota = (name: string, hard: string, scopes = '') => `apiVersion: v1
kind: ResourceQuota
metadata:
  name: ${name}
spec:
  hard:
    ${hard.replace(/\n/g, '\n    ')}${scopes ? `\n  ${scopes.replace(/\n/g, '\n  ')}` : ''}
---
`;

const claim = (name: string, storageClass: string, size: string) => `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ${name}
spec:
  storageClassName: ${storageClass}
  accessModes:
    - ReadWriteOnce
  resources:
    requests:
      storage: ${size}
---
`;

/** A claim of the website's policy/gold-vac-pvc.yaml form: a VolumeAttributesClass named, no StorageClass. */
const vacClaim = (name: string, attributesClass: string, size: string) => `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ${name}
spec:
  accessModes:
  - ReadWriteOnce
  resources:
    requests:
      storage: ${size}${attributesClass ? `\n  volumeAttributesClassName: ${attributesClass}` : ''}
---
`;

const priorityClass = (name: string, value: number) => `apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: ${name}
value: ${value}
---
`;

const deviceClass = (name: string, extendedResource = '') => `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: ${name}
spec:
  selectors:
  - cel:
      expression: device.driver == "${name}"${extendedResource ? `\n  extendedResourceName: ${extendedResource}` : ''}
---
`;

/** A ResourceClaim with these device requests (YAML list items). */
const deviceClaim = (name: string, requests: string) => `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: ${name}
spec:
  devices:
    requests:
    ${requests.replace(/\n/g, '\n    ')}
---
`;

const exactly = (className: string, more = '') =>
  `- name: req-0\n  exactly:\n    deviceClassName: ${className}${more ? `\n    ${more.replace(/\n/g, '\n    ')}` : ''}`;

export const ADMISSION_CASES: readonly AdmissionCase[] = [
  {
    name: 'cpu-constraints.yaml: a container above the max cpu, one below the min, one given the defaults',
    setup: limitRange('cpu-min-max-demo-lr', 'max:\n  cpu: "800m"\nmin:\n  cpu: "200m"\ntype: Container'),
    objects: [
      pod('constraints-cpu-demo', 'limits:\n  cpu: "800m"\nrequests:\n  cpu: "500m"'),
      pod('constraints-cpu-demo-2', 'limits:\n  cpu: "1.5"\nrequests:\n  cpu: "500m"'),
      pod('constraints-cpu-demo-3', 'limits:\n  cpu: "800m"\nrequests:\n  cpu: "100m"'),
      pod('constraints-cpu-demo-4', ''),
    ].join(''),
    refused: {
      'constraints-cpu-demo-2': 'pods "constraints-cpu-demo-2" is forbidden: maximum cpu usage per Container is 800m, but limit is 1500m',
      'constraints-cpu-demo-3': 'pods "constraints-cpu-demo-3" is forbidden: minimum cpu usage per Container is 200m, but request is 100m',
    },
  },
  {
    name: 'memory-constraints.yaml: a 1.5Gi limit above the 1Gi max (printed 1536Mi), a request below the min',
    setup: limitRange('mem-min-max-demo-lr', 'max:\n  memory: 1Gi\nmin:\n  memory: 500Mi\ntype: Container'),
    objects: [
      pod('constraints-mem-demo', 'limits:\n  memory: "800Mi"\nrequests:\n  memory: "600Mi"'),
      pod('constraints-mem-demo-2', 'limits:\n  memory: "1.5Gi"\nrequests:\n  memory: "800Mi"'),
      pod('constraints-mem-demo-3', 'limits:\n  memory: "800Mi"\nrequests:\n  memory: "100Mi"'),
      pod('constraints-mem-demo-4', ''),
    ].join(''),
    refused: {
      'constraints-mem-demo-2':
        'pods "constraints-mem-demo-2" is forbidden: maximum memory usage per Container is 1Gi, but limit is 1536Mi',
      'constraints-mem-demo-3':
        'pods "constraints-mem-demo-3" is forbidden: minimum memory usage per Container is 500Mi, but request is 100Mi',
    },
  },
  {
    name: "limit-mem-cpu-container.yaml and limit-mem-cpu-pod.yaml: busybox2 (limit-range-pod-2.yaml), its containers given the defaults, passes the Pod's max cpu and memory",
    setup: [
      limitRange(
        'limit-mem-cpu-per-container',
        'max:\n  cpu: "800m"\n  memory: "1Gi"\nmin:\n  cpu: "100m"\n  memory: "99Mi"\ndefault:\n  cpu: "700m"\n  memory: "900Mi"\ndefaultRequest:\n  cpu: "110m"\n  memory: "111Mi"\ntype: Container',
      ),
      limitRange('limit-mem-cpu-per-pod', 'max:\n  cpu: "2"\n  memory: "2Gi"\ntype: Pod'),
    ].join(''),
    objects: busybox('busybox2'),
    refused: {
      busybox2:
        'pods "busybox2" is forbidden: [maximum cpu usage per Pod is 2, but limit is 2400m, maximum memory usage per Pod is 2Gi, but limit is 2200Mi]',
    },
  },
  {
    name: 'limit-memory-ratio-pod.yaml: busybox3 (limit-range-pod-3.yaml) with a memory limit three times its request',
    setup: limitRange('limit-memory-ratio-pod', 'maxLimitRequestRatio:\n  memory: 2\ntype: Pod'),
    objects: pod('busybox3', 'limits:\n  memory: "300Mi"\nrequests:\n  memory: "100Mi"'),
    refused: {
      busybox3: 'pods "busybox3" is forbidden: memory max limit to request ratio per Pod is 2, but provided ratio is 3.000000',
    },
  },
  {
    name: 'storagelimits.yaml: pvc-limit-lower.yaml below the min, pvc-limit-greater.yaml above the max',
    setup: limitRange('storagelimits', 'type: PersistentVolumeClaim\nmax:\n  storage: 2Gi\nmin:\n  storage: 1Gi'),
    objects: ['pvc-limit-lower', 'pvc-limit-greater']
      .map(
        (name) =>
          `kind: PersistentVolumeClaim\napiVersion: v1\nmetadata:\n  name: ${name}\nspec:\n  accessModes:\n    - ReadWriteOnce\n  resources:\n    requests:\n      storage: ${name.endsWith('lower') ? '500Mi' : '5Gi'}\n---\n`,
      )
      .join(''),
    refused: {
      'pvc-limit-lower':
        'persistentvolumeclaims "pvc-limit-lower" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi',
      'pvc-limit-greater':
        'persistentvolumeclaims "pvc-limit-greater" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi',
    },
  },
  {
    name: 'quota-mem-cpu.yaml: quota-mem-cpu-demo-2.yaml passes requests.memory after quota-mem-cpu-demo.yaml; a pod without requests must specify them',
    setup: quota('mem-cpu-demo', 'requests.cpu: "1"\nrequests.memory: 1Gi\nlimits.cpu: "2"\nlimits.memory: 2Gi'),
    objects: [
      pod('quota-mem-cpu-demo', 'limits:\n  memory: "800Mi"\n  cpu: "800m"\nrequests:\n  memory: "600Mi"\n  cpu: "400m"'),
      pod('quota-mem-cpu-demo-2', 'limits:\n  memory: "1Gi"\n  cpu: "800m"\nrequests:\n  memory: "700Mi"\n  cpu: "400m"'),
      pod('quota-mem-cpu-demo-3', ''),
    ].join(''),
    refused: {
      'quota-mem-cpu-demo-2':
        'pods "quota-mem-cpu-demo-2" is forbidden: exceeded quota: mem-cpu-demo, requested: requests.memory=700Mi, used: requests.memory=600Mi, limited: requests.memory=1Gi',
      'quota-mem-cpu-demo-3':
        'pods "quota-mem-cpu-demo-3" is forbidden: failed quota: mem-cpu-demo: must specify limits.cpu for: quota-mem-cpu-demo-3-ctr; limits.memory for: quota-mem-cpu-demo-3-ctr; requests.cpu for: quota-mem-cpu-demo-3-ctr; requests.memory for: quota-mem-cpu-demo-3-ctr',
    },
  },
  {
    name: 'quota-pod.yaml: pods "2", the third pod refused (count quota)',
    setup: quota('pod-demo', 'pods: "2"'),
    objects: ['pod-quota-demo-1', 'pod-quota-demo-2', 'pod-quota-demo-3'].map((n) => pod(n, '')).join(''),
    refused: {
      'pod-quota-demo-3':
        'pods "pod-quota-demo-3" is forbidden: exceeded quota: pod-demo, requested: pods=1, used: pods=2, limited: pods=2',
    },
  },
  {
    name: 'quota-objects-priority.yaml: quotas scoped by PriorityClass, each counting only its class',
    setup: [
      priorityClass('high', 1000),
      priorityClass('low', 10),
      ...[
        ['pods-high', 'cpu: "1000"\nmemory: 200Gi\npods: "10"', 'high'],
        ['pods-low', 'cpu: "5"\nmemory: 10Gi\npods: "1"', 'low'],
      ].map(([name, hard, cls]) =>
        quota(
          name as string,
          hard as string,
          `scopeSelector:\n  matchExpressions:\n  - operator : In\n    scopeName: PriorityClass\n    values: ["${cls}"]`,
        ),
      ),
    ].join(''),
    objects: [
      pod(
        'high-priority',
        'requests:\n  memory: "10Gi"\n  cpu: "500m"\nlimits:\n  memory: "10Gi"\n  cpu: "500m"',
        '\n  priorityClassName: high',
      ),
      pod('low-priority', 'requests:\n  memory: "1Gi"\n  cpu: "1"', '\n  priorityClassName: low'),
      pod('low-priority-2', 'requests:\n  memory: "1Gi"\n  cpu: "1"', '\n  priorityClassName: low'),
      pod('no-priority', ''),
    ].join(''),
    refused: {
      'low-priority-2': 'pods "low-priority-2" is forbidden: exceeded quota: pods-low, requested: pods=1, used: pods=1, limited: pods=1',
    },
  },
  {
    name: 'Resource Quotas, "Quota Scopes": a BestEffort quota of one pod and a NotBestEffort one of cpu, a Terminating quota of one pod',
    setup: [
      quota('besteffort', 'pods: "1"', 'scopes: ["BestEffort"]'),
      quota('not-besteffort', 'requests.cpu: "1"', 'scopes: ["NotBestEffort"]'),
      quota('terminating', 'pods: "1"', 'scopes: ["Terminating"]'),
    ].join(''),
    objects: [
      pod('best-effort-1', ''),
      pod('best-effort-2', ''),
      pod('burstable-1', 'requests:\n  cpu: "600m"'),
      pod('burstable-2', 'requests:\n  cpu: "600m"'),
      pod('job-like-1', 'requests:\n  cpu: "100m"', '\n  activeDeadlineSeconds: 600'),
      pod('job-like-2', 'requests:\n  cpu: "100m"', '\n  activeDeadlineSeconds: 600'),
    ].join(''),
    refused: {
      'best-effort-2': 'pods "best-effort-2" is forbidden: exceeded quota: besteffort, requested: pods=1, used: pods=1, limited: pods=1',
      'burstable-2':
        'pods "burstable-2" is forbidden: exceeded quota: not-besteffort, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1',
      'job-like-2': 'pods "job-like-2" is forbidden: exceeded quota: terminating, requested: pods=1, used: pods=1, limited: pods=1',
    },
  },
  {
    name: 'Resource Quotas, "Resource quota for extended resources": requests.nvidia.com/gpu: 4, a third pod of two GPUs refused',
    setup: quota('gpu-quota', 'requests.nvidia.com/gpu: 4'),
    objects: ['gpu-1', 'gpu-2', 'gpu-3'].map((n) => pod(n, 'limits:\n  nvidia.com/gpu: 2\nrequests:\n  nvidia.com/gpu: 2')).join(''),
    refused: {
      'gpu-3':
        'pods "gpu-3" is forbidden: exceeded quota: gpu-quota, requested: requests.nvidia.com/gpu=2, used: requests.nvidia.com/gpu=4, limited: requests.nvidia.com/gpu=4',
    },
  },
  {
    name: 'quota-objects.yaml: persistentvolumeclaims "1", quota-objects-pvc-2.yaml refused after quota-objects-pvc.yaml',
    setup: quota('object-quota-demo', 'persistentvolumeclaims: "1"\nservices.loadbalancers: "2"\nservices.nodeports: "0"'),
    objects: [
      ['pvc-quota-demo', '3Gi'],
      ['pvc-quota-demo-2', '4Gi'],
    ]
      .map(([name, size]) => claim(name as string, 'manual', size as string))
      .join(''),
    refused: {
      'pvc-quota-demo-2':
        'persistentvolumeclaims "pvc-quota-demo-2" is forbidden: exceeded quota: object-quota-demo, requested: persistentvolumeclaims=1, used: persistentvolumeclaims=1, limited: persistentvolumeclaims=1',
    },
    notApplied: ['services.loadbalancers', 'services.nodeports'],
  },
  {
    name: 'Resource Quotas, "Storage Resource Quota": requests.storage and a storage class\'s own requests.storage',
    setup: quota('storage', 'requests.storage: 10Gi\ngold.storageclass.storage.k8s.io/requests.storage: 2Gi'),
    objects: [
      claim('gold-1', 'gold', '1Gi'),
      claim('gold-2', 'gold', '2Gi'),
      claim('silver-1', 'silver', '8Gi'),
      claim('silver-2', 'silver', '1500Mi'),
    ].join(''),
    refused: {
      'gold-2':
        'persistentvolumeclaims "gold-2" is forbidden: exceeded quota: storage, requested: gold.storageclass.storage.k8s.io/requests.storage=2Gi, used: gold.storageclass.storage.k8s.io/requests.storage=1Gi, limited: gold.storageclass.storage.k8s.io/requests.storage=2Gi',
      'silver-2':
        'persistentvolumeclaims "silver-2" is forbidden: exceeded quota: storage, requested: requests.storage=1500Mi, used: requests.storage=9Gi, limited: requests.storage=10Gi',
    },
  },
  {
    name: "Limit Storage Consumption (storagelimits and storagequota): the third claim of a StatefulSet's 2Gi template passes the 5Gi quota, a 10Gi one the 2Gi max",
    setup: [
      limitRange('storagelimits', 'type: PersistentVolumeClaim\nmax:\n  storage: 2Gi\nmin:\n  storage: 1Gi'),
      quota('storagequota', 'persistentvolumeclaims: "5"\nrequests.storage: "5Gi"'),
    ].join(''),
    objects: ['www-web-0', 'www-web-1', 'www-web-2', 'www-big']
      .map((name) => vacClaim(name, '', name === 'www-big' ? '10Gi' : '2Gi'))
      .join(''),
    refused: {
      'www-web-2':
        'persistentvolumeclaims "www-web-2" is forbidden: exceeded quota: storagequota, requested: requests.storage=2Gi, used: requests.storage=4Gi, limited: requests.storage=5Gi',
      'www-big':
        'persistentvolumeclaims "www-big" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 10Gi',
    },
  },
  {
    name: 'Resource Quotas, "Storage Resource Quota": a storage class\'s own persistentvolumeclaims and requests.storage, and count/persistentvolumeclaims',
    setup: quota(
      'storage-classes',
      'gold.storageclass.storage.k8s.io/requests.storage: 500Gi\nbronze.storageclass.storage.k8s.io/requests.storage: 100Gi\nbronze.storageclass.storage.k8s.io/persistentvolumeclaims: "1"\ncount/persistentvolumeclaims: "3"',
    ),
    objects: [
      claim('gold-1', 'gold', '400Gi'),
      claim('gold-2', 'gold', '200Gi'),
      claim('bronze-1', 'bronze', '50Gi'),
      claim('bronze-2', 'bronze', '10Gi'),
      claim('silver-1', 'silver', '1Ti'),
      claim('silver-2', 'silver', '1Gi'),
    ].join(''),
    refused: {
      'gold-2':
        'persistentvolumeclaims "gold-2" is forbidden: exceeded quota: storage-classes, requested: gold.storageclass.storage.k8s.io/requests.storage=200Gi, used: gold.storageclass.storage.k8s.io/requests.storage=400Gi, limited: gold.storageclass.storage.k8s.io/requests.storage=500Gi',
      'bronze-2':
        'persistentvolumeclaims "bronze-2" is forbidden: exceeded quota: storage-classes, requested: bronze.storageclass.storage.k8s.io/persistentvolumeclaims=1, used: bronze.storageclass.storage.k8s.io/persistentvolumeclaims=1, limited: bronze.storageclass.storage.k8s.io/persistentvolumeclaims=1',
      'silver-2':
        'persistentvolumeclaims "silver-2" is forbidden: exceeded quota: storage-classes, requested: count/persistentvolumeclaims=1, used: count/persistentvolumeclaims=3, limited: count/persistentvolumeclaims=3',
    },
  },
  {
    name: 'quota-vac.yaml and gold-vac-pvc.yaml: quotas scoped by VolumeAttributesClass, each counting only the claims of its class',
    setup: [
      ['pvcs-gold', '10Gi', 'gold'],
      ['pvcs-silver', '20Gi', 'silver'],
      ['pvcs-copper', '30Gi', 'copper'],
    ]
      .map(([name, storage, cls]) =>
        quota(
          name as string,
          `requests.storage: "${storage}"\npersistentvolumeclaims: "10"`,
          `scopeSelector:\n  matchExpressions:\n  - operator: In\n    scopeName: VolumeAttributesClass\n    values: ["${cls}"]`,
        ),
      )
      .join(''),
    objects: [
      vacClaim('gold-vac-pvc', 'gold', '2Gi'),
      vacClaim('gold-vac-pvc-2', 'gold', '9Gi'),
      vacClaim('silver-vac-pvc', 'silver', '9Gi'),
      vacClaim('no-vac-pvc', '', '50Gi'),
      vacClaim('gold-vac-pvc-3', 'gold', '8Gi'),
    ].join(''),
    refused: {
      'gold-vac-pvc-2':
        'persistentvolumeclaims "gold-vac-pvc-2" is forbidden: exceeded quota: pvcs-gold, requested: requests.storage=9Gi, used: requests.storage=2Gi, limited: requests.storage=10Gi',
    },
  },
  {
    name: "quota-vac.yaml's scopeSelector with Exists and DoesNotExist: one quota for the claims naming any class, one for those naming none",
    setup: [
      ['pvcs-any-class', '2', 'Exists'],
      ['pvcs-no-class', '1', 'DoesNotExist'],
    ]
      .map(([name, count, operator]) =>
        quota(
          name as string,
          `persistentvolumeclaims: "${count}"`,
          `scopeSelector:\n  matchExpressions:\n  - operator: ${operator}\n    scopeName: VolumeAttributesClass`,
        ),
      )
      .join(''),
    objects: [
      vacClaim('gold-vac-pvc', 'gold', '1Gi'),
      vacClaim('silver-vac-pvc', 'silver', '1Gi'),
      vacClaim('copper-vac-pvc', 'copper', '1Gi'),
      vacClaim('plain-pvc', '', '1Gi'),
      vacClaim('plain-pvc-2', '', '1Gi'),
    ].join(''),
    refused: {
      'copper-vac-pvc':
        'persistentvolumeclaims "copper-vac-pvc" is forbidden: exceeded quota: pvcs-any-class, requested: persistentvolumeclaims=1, used: persistentvolumeclaims=2, limited: persistentvolumeclaims=2',
      'plain-pvc-2':
        'persistentvolumeclaims "plain-pvc-2" is forbidden: exceeded quota: pvcs-no-class, requested: persistentvolumeclaims=1, used: persistentvolumeclaims=1, limited: persistentvolumeclaims=1',
    },
  },
  {
    name: "quota-vac.yaml's scopeSelector with NotIn: a quota for every claim but gold ones, those naming no class included",
    setup: quota(
      'pvcs-not-gold',
      'requests.storage: "5Gi"',
      'scopeSelector:\n  matchExpressions:\n  - operator: NotIn\n    scopeName: VolumeAttributesClass\n    values: ["gold"]',
    ),
    objects: [
      vacClaim('gold-vac-pvc', 'gold', '20Gi'),
      vacClaim('silver-vac-pvc', 'silver', '4Gi'),
      vacClaim('plain-pvc', '', '1Gi'),
      vacClaim('copper-vac-pvc', 'copper', '1Gi'),
    ].join(''),
    refused: {
      'copper-vac-pvc':
        'persistentvolumeclaims "copper-vac-pvc" is forbidden: exceeded quota: pvcs-not-gold, requested: requests.storage=1Gi, used: requests.storage=5Gi, limited: requests.storage=5Gi',
    },
  },
  // Dynamic Resource Allocation: the Resource Quotas concept page's quotas on ResourceClaims
  // (count/resourceclaims.resource.k8s.io, <device class>.deviceclass.resource.k8s.io/devices) and
  // the extended resource a DeviceClass serves. DeviceClasses are cluster-wide (one API server runs
  // every case): a case that gives a class an extendedResourceName names a class of its own.
  {
    name: 'count/resourceclaims.resource.k8s.io: the third claim is refused; a quota with a scope counts no claim',
    setup: [
      deviceClass('gpu.example.com'),
      quota('claims', 'count/resourceclaims.resource.k8s.io: "2"'),
      quota('best-effort-claims', 'count/resourceclaims.resource.k8s.io: "0"', 'scopes: ["BestEffort"]'),
    ].join(''),
    objects: [
      deviceClaim('claim-a', exactly('gpu.example.com')),
      deviceClaim('claim-b', exactly('gpu.example.com')),
      deviceClaim('claim-c', exactly('gpu.example.com')),
    ].join(''),
    refused: {
      'claim-c':
        'resourceclaims.resource.k8s.io "claim-c" is forbidden: exceeded quota: claims, requested: count/resourceclaims.resource.k8s.io=1, used: count/resourceclaims.resource.k8s.io=2, limited: count/resourceclaims.resource.k8s.io=2',
    },
  },
  {
    name: 'devices per DeviceClass: exactly with a count, allocationMode All counted as 32, the default count of 1',
    setup: [deviceClass('gpu.example.com'), quota('gpus', 'gpu.example.com.deviceclass.resource.k8s.io/devices: "4"')].join(''),
    objects: [
      deviceClaim('two-gpus', exactly('gpu.example.com', 'allocationMode: ExactCount\ncount: 2')),
      deviceClaim('all-gpus', exactly('gpu.example.com', 'allocationMode: All')),
      deviceClaim('one-gpu', exactly('gpu.example.com')),
      deviceClaim('two-more', exactly('gpu.example.com', 'count: 2')),
      deviceClaim('other-class', exactly('fpga.example.com', 'count: 8')),
    ].join(''),
    refused: {
      'all-gpus':
        'resourceclaims.resource.k8s.io "all-gpus" is forbidden: exceeded quota: gpus, requested: gpu.example.com.deviceclass.resource.k8s.io/devices=32, used: gpu.example.com.deviceclass.resource.k8s.io/devices=2, limited: gpu.example.com.deviceclass.resource.k8s.io/devices=4',
      'two-more':
        'resourceclaims.resource.k8s.io "two-more" is forbidden: exceeded quota: gpus, requested: gpu.example.com.deviceclass.resource.k8s.io/devices=2, used: gpu.example.com.deviceclass.resource.k8s.io/devices=3, limited: gpu.example.com.deviceclass.resource.k8s.io/devices=4',
    },
  },
  {
    name: 'firstAvailable: per class the most any entry asks for, added to the other requests of the claim',
    setup: [
      deviceClass('gpu.example.com'),
      deviceClass('small.example.com'),
      quota(
        'devices',
        'gpu.example.com.deviceclass.resource.k8s.io/devices: "3"\nsmall.example.com.deviceclass.resource.k8s.io/devices: "1"',
      ),
    ].join(''),
    objects: [
      deviceClaim(
        'either',
        '- name: req-0\n  firstAvailable:\n  - name: two\n    deviceClassName: gpu.example.com\n    count: 2\n  - name: one\n    deviceClassName: gpu.example.com\n  - name: small\n    deviceClassName: small.example.com',
      ),
      deviceClaim('small-too', '- name: req-0\n  firstAvailable:\n  - name: small\n    deviceClassName: small.example.com'),
      deviceClaim(
        'mixed',
        `${exactly('gpu.example.com')}\n- name: req-1\n  firstAvailable:\n  - name: one\n    deviceClassName: gpu.example.com`,
      ),
    ].join(''),
    refused: {
      'small-too':
        'resourceclaims.resource.k8s.io "small-too" is forbidden: exceeded quota: devices, requested: small.example.com.deviceclass.resource.k8s.io/devices=1, used: small.example.com.deviceclass.resource.k8s.io/devices=1, limited: small.example.com.deviceclass.resource.k8s.io/devices=1',
      mixed:
        'resourceclaims.resource.k8s.io "mixed" is forbidden: exceeded quota: devices, requested: gpu.example.com.deviceclass.resource.k8s.io/devices=2, used: gpu.example.com.deviceclass.resource.k8s.io/devices=2, limited: gpu.example.com.deviceclass.resource.k8s.io/devices=3',
    },
  },
  {
    name: 'the extended resource a DeviceClass serves (extendedResourceName), and the implicit one every class serves',
    setup: [
      deviceClass('served-gpu.example.com', 'example.com/gpu'),
      deviceClass('plain.example.com'),
      quota('extended', 'requests.example.com/gpu: "2"'),
      quota('implicit', 'requests.deviceclass.resource.kubernetes.io/served-gpu.example.com: "3"'),
      quota('plain', 'requests.deviceclass.resource.kubernetes.io/plain.example.com: "1"'),
    ].join(''),
    objects: [
      deviceClaim('two-gpus', exactly('served-gpu.example.com', 'count: 2')),
      deviceClaim('one-more', exactly('served-gpu.example.com')),
      deviceClaim('five-plain', exactly('plain.example.com', 'count: 5')),
    ].join(''),
    refused: {
      'one-more':
        'resourceclaims.resource.k8s.io "one-more" is forbidden: exceeded quota: extended, requested: requests.example.com/gpu=1, used: requests.example.com/gpu=2, limited: requests.example.com/gpu=2',
      'five-plain':
        'resourceclaims.resource.k8s.io "five-plain" is forbidden: exceeded quota: plain, requested: requests.deviceclass.resource.kubernetes.io/plain.example.com=5, used: requests.deviceclass.resource.kubernetes.io/plain.example.com=0, limited: requests.deviceclass.resource.kubernetes.io/plain.example.com=1',
    },
  },
  {
    name: "a ResourceClaim's extended resource and a pod's add up in one quota: the pod asking for one more is refused",
    setup: [deviceClass('shared-gpu.example.com', 'example.com/shared-gpu'), quota('shared', 'requests.example.com/shared-gpu: "2"')].join(
      '',
    ),
    objects: [
      deviceClaim('two-gpus', exactly('shared-gpu.example.com', 'count: 2')),
      pod('one-gpu-pod', 'requests:\n  example.com/shared-gpu: "1"\nlimits:\n  example.com/shared-gpu: "1"'),
    ].join(''),
    refused: {
      'one-gpu-pod':
        'pods "one-gpu-pod" is forbidden: exceeded quota: shared, requested: requests.example.com/shared-gpu=1, used: requests.example.com/shared-gpu=2, limited: requests.example.com/shared-gpu=2',
    },
  },
];

/** The message with a bracketed list's items sorted, for comparing lists the API server orders at random. */
export function unordered(message: string): string {
  const m = /^(.*?is forbidden: )\[(.*)\]$/.exec(message);
  if (!m) return message;
  const items = (m[2] ?? '').split(/, (?=(?:maximum|minimum) |\S+ max limit to request ratio )/);
  return `${m[1]}[${items.sort().join(', ')}]`;
}
