// What the live scenarios share: a test API server seeded with nodes and pods (plain API JSON), a
// kubeconfig for it, and the CLI run in-process on the real clock with its output captured.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processIO, type CliIO } from '../../../src/cli/io';
import { runCli } from '../../../src/cli/main';
import { startTestApiServer, type KubeObject, type TestApiServer } from '../apiserver';

export const PODPLAN = 'podplan';
export const POD_SETS = 'podset-planner-scheduler';

export const node = (
  name: string,
  allocatable: Record<string, string> = { cpu: '8', memory: '32Gi', pods: '110' },
  labels: Record<string, string> = {},
): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
  status: { allocatable, capacity: allocatable },
});

export interface PodInit {
  readonly namespace?: string;
  readonly schedulerName?: string;
  readonly cpu?: string;
  readonly memory?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
  readonly nodeName?: string;
}

export const pod = (name: string, init: PodInit = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    namespace: init.namespace ?? 'default',
    labels: init.labels ?? {},
    ...(init.annotations ? { annotations: init.annotations } : {}),
  },
  spec: {
    schedulerName: init.schedulerName ?? PODPLAN,
    ...(init.nodeName ? { nodeName: init.nodeName } : {}),
    containers: [
      {
        name: 'main',
        image: 'registry.example/app:1',
        resources: { requests: { cpu: init.cpu ?? '100m', memory: init.memory ?? '128Mi' } },
      },
    ],
  },
  status: { phase: 'Pending' },
});

export interface Cluster {
  readonly server: TestApiServer;
  readonly kubeconfig: string;
  /** A fresh history file for this cluster's runs. */
  readonly db: string;
  close(): Promise<void>;
}

export async function startCluster(objects: readonly KubeObject[] = []): Promise<Cluster> {
  const server = await startTestApiServer();
  const namespaces = new Set(['kube-system', ...objects.flatMap((o) => (o.metadata?.namespace ? [o.metadata.namespace] : []))]);
  for (const ns of namespaces)
    if (!server.get({ apiVersion: 'v1', kind: 'Namespace' }, undefined, ns))
      server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  if (objects.length > 0) server.create(...objects);
  const kubeconfig = await server.writeKubeconfig();
  const dir = mkdtempSync(join(tmpdir(), 'podplan-live-'));
  return {
    server,
    kubeconfig,
    db: join(dir, 'history.db'),
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const podRef = { apiVersion: 'v1', kind: 'Pod' } as const;

/** The pods of the cluster now, by namespace/name. */
export function podsOf(server: TestApiServer): Map<string, KubeObject & { spec: { nodeName?: string; schedulerName?: string } }> {
  return new Map(
    server.list(podRef).map((p) => [`${p.metadata?.namespace}/${p.metadata?.name}`, p as KubeObject & { spec: { nodeName?: string } }]),
  );
}

export interface LiveRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI in-process on the system clock; `stop` resolves the command's stop signal. */
export function runLive(
  argv: readonly string[],
  options: { readonly stop?: Promise<string>; readonly onStdout?: (text: string) => void } = {},
): Promise<LiveRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    ...processIO,
    stdout: (t) => {
      stdout += t;
      options.onStdout?.(t);
    },
    stderr: (t) => void (stderr += t),
    env: {},
    interactive: false,
    stopSignal: () => options.stop ?? new Promise<string>(() => undefined),
  };
  return runCli([...argv], io).then((code) => ({ code, stdout, stderr }));
}

/** `podplan run` arguments for the cluster. */
export const runArgs = (cluster: Cluster, ...extra: string[]): string[] => [
  'run',
  '--context',
  'test',
  '--kubeconfig',
  cluster.kubeconfig,
  '--db',
  cluster.db,
  ...extra,
];

/** Waits (polling every 50 ms) until `condition` holds; fails naming `what` after `limitMs`. */
export async function until(what: string, condition: () => boolean, limitMs = 60_000): Promise<void> {
  for (let waited = 0; !condition(); waited += 50) {
    if (waited > limitMs) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
