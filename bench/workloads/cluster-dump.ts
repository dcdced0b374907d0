// A cluster dump as `kubectl get nodes,pods -A -o yaml` (or `-o json`) writes it: one List whose
// items carry what a real API server sends (ownerReferences, status with conditions and container
// statuses, the default tolerations and the service-account token volume; kubectl leaves
// managedFields out), most pods bound to a node, some pending. 500 nodes and 16,600 pods make about
// 50 MB of YAML, the size of the OpenShift dump issue 25 reports.
import { stringify } from 'yaml';

export interface DumpShape {
  readonly nodes: number;
  readonly pods: number;
  /** One pod in this many is pending (no spec.nodeName). */
  readonly pendingEvery: number;
}

export const DUMP_50MB: DumpShape = { nodes: 500, pods: 16600, pendingEvery: 20 };

const TIME = '2026-11-02T09:14:27Z';

function node(i: number): Record<string, unknown> {
  const name = `worker-${String(i).padStart(4, '0')}.prod.example.com`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
      creationTimestamp: TIME,
      labels: {
        'beta.kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'node-role.kubernetes.io/worker': '',
        'node.kubernetes.io/instance-type': 'm5.4xlarge',
        'topology.kubernetes.io/region': 'eu-west-1',
        'topology.kubernetes.io/zone': `eu-west-1${'abc'[i % 3]}`,
      },
      name,
      resourceVersion: String(100000 + i),
      uid: `6f1c0a7e-0000-4000-8000-${String(i).padStart(12, '0')}`,
    },
    spec: { providerID: `aws:///eu-west-1a/i-0${i.toString(16).padStart(16, '0')}` },
    status: {
      addresses: [
        { address: `10.0.${i >> 8}.${i & 255}`, type: 'InternalIP' },
        { address: name, type: 'Hostname' },
      ],
      allocatable: {
        cpu: '15890m',
        'ephemeral-storage': '114396791822',
        'hugepages-1Gi': '0',
        'hugepages-2Mi': '0',
        memory: '62780784Ki',
        pods: '250',
      },
      capacity: {
        cpu: '16',
        'ephemeral-storage': '125293548Ki',
        'hugepages-1Gi': '0',
        'hugepages-2Mi': '0',
        memory: '64453488Ki',
        pods: '250',
      },
      conditions: ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready'].map((type) => ({
        lastHeartbeatTime: TIME,
        lastTransitionTime: TIME,
        message: type === 'Ready' ? 'kubelet is posting ready status' : `kubelet has no ${type.toLowerCase()}`,
        reason: type === 'Ready' ? 'KubeletReady' : `KubeletHasNo${type}`,
        status: type === 'Ready' ? 'True' : 'False',
        type,
      })),
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        architecture: 'amd64',
        bootID: `b00t${i}`,
        containerRuntimeVersion: 'cri-o://1.37.1',
        kernelVersion: '5.14.0-427.el9.x86_64',
        kubeProxyVersion: '',
        kubeletVersion: 'v1.37.2',
        machineID: `m${i}`,
        operatingSystem: 'linux',
        osImage: 'Red Hat Enterprise Linux CoreOS 9.6',
        systemUUID: `ec2${i}`,
      },
    },
  };
}

function pod(i: number, shape: DumpShape): Record<string, unknown> {
  const app = `svc-${i % 97}`;
  const namespace = `team-${i % 23}`;
  const replicaSet = `${app}-7d9f8b${(i % 97).toString(36)}`;
  const name = `${replicaSet}-${i.toString(36).padStart(5, 'x')}`;
  const pending = i % shape.pendingEvery === shape.pendingEvery - 1;
  const nodeName = `worker-${String(i % shape.nodes).padStart(4, '0')}.prod.example.com`;
  const cpu = `${50 + (i % 9) * 25}m`;
  const memory = `${64 + (i % 5) * 64}Mi`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      annotations: {
        'k8s.ovn.org/pod-networks': `{"default":{"ip_addresses":["10.128.${(i >> 8) & 255}.${i & 255}/23"],"mac_address":"0a:58:0a:80:00:01","gateway_ips":["10.128.0.1"]}}`,
        'openshift.io/scc': 'restricted-v2',
      },
      creationTimestamp: TIME,
      generateName: `${replicaSet}-`,
      labels: { app, 'pod-template-hash': `7d9f8b${(i % 97).toString(36)}`, tier: i % 2 ? 'backend' : 'frontend', version: 'v2' },
      name,
      namespace,
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          blockOwnerDeletion: true,
          controller: true,
          kind: 'ReplicaSet',
          name: replicaSet,
          uid: `0b5e2c11-0000-4000-8000-${String(i % 97).padStart(12, '0')}`,
        },
      ],
      resourceVersion: String(200000 + i),
      uid: `a3c9e6f2-0000-4000-8000-${String(i).padStart(12, '0')}`,
    },
    spec: {
      containers: [
        {
          image: `registry.example.com/${namespace}/${app}@sha256:${'0123456789abcdef'.repeat(4)}`,
          imagePullPolicy: 'IfNotPresent',
          name: 'main',
          ports: [{ containerPort: 8080, name: 'http', protocol: 'TCP' }],
          resources: { limits: { memory: memory }, requests: { cpu, memory } },
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          volumeMounts: [{ mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', name: 'kube-api-access', readOnly: true }],
        },
      ],
      dnsPolicy: 'ClusterFirst',
      enableServiceLinks: true,
      ...(pending ? {} : { nodeName }),
      preemptionPolicy: 'PreemptLowerPriority',
      priority: 0,
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
      securityContext: { fsGroup: 1000680000, seLinuxOptions: { level: 's0:c26,c5' }, seccompProfile: { type: 'RuntimeDefault' } },
      serviceAccount: 'default',
      serviceAccountName: 'default',
      terminationGracePeriodSeconds: 30,
      tolerations: [
        { effect: 'NoExecute', key: 'node.kubernetes.io/not-ready', operator: 'Exists', tolerationSeconds: 300 },
        { effect: 'NoExecute', key: 'node.kubernetes.io/unreachable', operator: 'Exists', tolerationSeconds: 300 },
      ],
      volumes: [
        {
          name: 'kube-api-access',
          projected: {
            defaultMode: 420,
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
              { configMap: { items: [{ key: 'ca.crt', path: 'ca.crt' }], name: 'kube-root-ca.crt' } },
            ],
          },
        },
      ],
    },
    status: pending
      ? {
          conditions: [
            {
              lastProbeTime: null,
              lastTransitionTime: TIME,
              message: '0/500 nodes are available: 500 Insufficient cpu.',
              reason: 'Unschedulable',
              status: 'False',
              type: 'PodScheduled',
            },
          ],
          phase: 'Pending',
          qosClass: 'Burstable',
        }
      : {
          conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({
            lastProbeTime: null,
            lastTransitionTime: TIME,
            status: 'True',
            type,
          })),
          containerStatuses: [
            {
              containerID: `cri-o://${'9f'.repeat(32)}`,
              image: `registry.example.com/${namespace}/${app}:2.4.1`,
              imageID: `registry.example.com/${namespace}/${app}@sha256:${'0123456789abcdef'.repeat(4)}`,
              lastState: {},
              name: 'main',
              ready: true,
              restartCount: 0,
              started: true,
              state: { running: { startedAt: TIME } },
            },
          ],
          hostIP: `10.0.${(i % shape.nodes) >> 8}.${(i % shape.nodes) & 255}`,
          phase: 'Running',
          podIP: `10.128.${(i >> 8) & 255}.${i & 255}`,
          podIPs: [{ ip: `10.128.${(i >> 8) & 255}.${i & 255}` }],
          qosClass: 'Burstable',
          startTime: TIME,
        },
  };
}

function list(shape: DumpShape): Record<string, unknown> {
  const items: unknown[] = [];
  for (let i = 0; i < shape.nodes; i++) items.push(node(i));
  for (let i = 0; i < shape.pods; i++) items.push(pod(i, shape));
  return { apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } };
}

/** The dump as `kubectl get -o yaml` writes it (keys sorted, sequences not indented). */
export function dumpYaml(shape: DumpShape): string {
  return stringify(list(shape), { indentSeq: false, lineWidth: 0 });
}

/** The dump as `kubectl get -o json` writes it. */
export function dumpJson(shape: DumpShape): string {
  return `${JSON.stringify(list(shape), null, 4)}\n`;
}
