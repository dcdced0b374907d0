// What the kube tests share: temporary directories, kubeconfig files, a KubeContext on the test API
// server, and small builders of the API objects a cluster holds.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { openContext, type KubeContext } from '../../src/kube';
import type { KubeconfigOptions, KubeObject, TestApiServer } from './apiserver';

const made: string[] = [];
process.on('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory removed when the process exits. */
export function tempDir(prefix = 'podplan-kube-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export interface ConfigSpec {
  readonly clusters?: ReadonlyArray<{ name: string; server: string }>;
  readonly users?: ReadonlyArray<{ name: string; token?: string }>;
  readonly contexts?: ReadonlyArray<{ name: string; cluster: string; user: string; namespace?: string }>;
  readonly current?: string;
}

/** A kubeconfig file (no live server needed) written to `dir/name`. */
export function writeConfig(dir: string, name: string, spec: ConfigSpec): string {
  const file = join(dir, name);
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: (spec.clusters ?? []).map((c) => ({ name: c.name, cluster: { server: c.server } })),
    users: (spec.users ?? []).map((u) => ({ name: u.name, user: u.token ? { token: u.token } : {} })),
    contexts: (spec.contexts ?? []).map((c) => ({
      name: c.name,
      context: { cluster: c.cluster, user: c.user, ...(c.namespace ? { namespace: c.namespace } : {}) },
    })),
    ...(spec.current !== undefined ? { 'current-context': spec.current } : {}),
  };
  writeFileSync(file, stringify(doc), { mode: 0o600 });
  return file;
}

/** A context on the test API server through a kubeconfig file it wrote (token user by default). */
export async function contextOn(server: TestApiServer, options: KubeconfigOptions = {}, context?: string): Promise<KubeContext> {
  const file = await server.writeKubeconfig(options);
  const opened = openContext({ kubeconfig: file, env: {}, homedir: tempDir(), cwd: '/', ...(context ? { context } : {}) });
  if (!opened.ok) throw new Error(opened.error);
  return opened.value;
}

export function node(name: string, cpu = '4', labels: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
    status: { allocatable: { cpu, memory: '16Gi', pods: '110' }, capacity: { cpu, memory: '16Gi', pods: '110' } },
  };
}

export interface PodSpec {
  readonly namespace?: string;
  readonly cpu?: string;
  readonly nodeName?: string;
  readonly labels?: Record<string, string>;
  readonly schedulerName?: string;
  readonly owner?: { kind: string; name: string };
  readonly env?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}

export function pod(name: string, o: PodSpec = {}): KubeObject {
  const container: Record<string, unknown> = {
    name: 'main',
    image: 'registry.example/app:1',
    resources: { requests: { cpu: o.cpu ?? '1' } },
  };
  if (o.env) container.env = Object.entries(o.env).map(([k, v]) => ({ name: k, value: v }));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: o.namespace ?? 'default',
      labels: o.labels ?? {},
      ...(o.annotations ? { annotations: o.annotations } : {}),
      ...(o.owner
        ? {
            ownerReferences: [
              { apiVersion: 'apps/v1', kind: o.owner.kind, name: o.owner.name, uid: `uid-${o.owner.name}`, controller: true },
            ],
          }
        : {}),
    },
    spec: {
      containers: [container],
      ...(o.nodeName ? { nodeName: o.nodeName } : {}),
      ...(o.schedulerName ? { schedulerName: o.schedulerName } : {}),
    },
    status: { phase: o.nodeName ? 'Running' : 'Pending' },
  };
}

export function namespace(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
}

/** Waits until `check` holds (polling), failing after `ms`. */
export async function eventually(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** One object of each kind Podplan reads besides nodes and pods (cluster-scoped and in `ns`). */
export function storageAndPolicy(ns = 'default'): KubeObject[] {
  return [
    { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'high' }, value: 1000 },
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'fast' },
      provisioner: 'csi.example',
      volumeBindingMode: 'WaitForFirstConsumer',
    },
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSINode',
      metadata: { name: 'n1' },
      spec: { drivers: [{ name: 'csi.example', nodeID: 'n1', allocatable: { count: 8 } }] },
    },
    { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'csi.example' }, spec: { storageCapacity: true } },
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSIStorageCapacity',
      metadata: { name: 'fast-zone-a', namespace: ns },
      storageClassName: 'fast',
      nodeTopology: { matchLabels: { zone: 'a' } },
      capacity: '100Gi',
      maximumVolumeSize: '20Gi',
    },
    {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pv-1' },
      spec: {
        capacity: { storage: '10Gi' },
        accessModes: ['ReadWriteOnce'],
        storageClassName: 'fast',
        csi: { driver: 'csi.example', volumeHandle: 'h1' },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data', namespace: ns },
      spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'fast', resources: { requests: { storage: '1Gi' } } },
    },
    {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web', namespace: ns },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
    },
  ];
}

/** Dynamic Resource Allocation's API version. */
export const DRA_API = 'resource.k8s.io/v1';
export const GPU_DRIVER = 'gpu.example.com';

/** The DeviceClass `gpu`: every device of GPU_DRIVER. */
export function gpuClass(): KubeObject {
  return {
    apiVersion: DRA_API,
    kind: 'DeviceClass',
    metadata: { name: 'gpu' },
    spec: { selectors: [{ cel: { expression: `device.driver == "${GPU_DRIVER}"` } }] },
  };
}

/** A ResourceSlice `<node>-gpus` of `count` GPUs (gpu-0, …) on `node`, in a pool of its name. */
export function gpuSlice(node: string, count = 1): KubeObject {
  return {
    apiVersion: DRA_API,
    kind: 'ResourceSlice',
    metadata: { name: `${node}-gpus` },
    spec: {
      driver: GPU_DRIVER,
      pool: { name: node, generation: 1, resourceSliceCount: 1 },
      nodeName: node,
      devices: Array.from({ length: count }, (_, i) => ({ name: `gpu-${i}` })),
    },
  };
}

/** The spec of a claim of one GPU (request `gpu`, class `gpu`). */
export const ONE_GPU = { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu', count: 1 } }] } };

/** A ResourceClaim of one GPU. */
export function gpuClaim(name: string, namespace = 'default'): KubeObject {
  return { apiVersion: DRA_API, kind: 'ResourceClaim', metadata: { name, namespace }, spec: ONE_GPU };
}
