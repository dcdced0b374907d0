// Side by side through one real kube-apiserver v1.37.2 (test/real/cluster.ts): upstream
// scheduler_perf's SchedulingBasic (5,000 nodes, 1,000 existing pods, 10,000 measured pods) scheduled
// once by the real kube-scheduler (client QPS and burst raised to 5,000 as scheduler_perf raises
// them, leader election off) and once by `podplan run` (the built bin/podplan.js), one after the
// other. Each scheduler is started and warmed (one pod bound) before its measured pods are created
// from here, 64 requests at a time; the clock runs from the first create until the watch has shown
// every measured pod bound. Printed: pods per second end to end, the scheduler process's CPU
// seconds over the measured part (/proc/<pid>/stat), its peak resident memory (VmHWM), and the
// ratios. PODPLAN_BENCH_SCALE scales the workload (0.02 for a quick look).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import type { Node, Pod } from '../src/engine/api/types';
import { ROOT, startRealCluster, type KubeObject, type RealCluster } from '../test/real/cluster';
import type { Benchmark } from './benchmark';
import { schedulerPerfWorkloads } from './workloads/scheduler-perf';

const SCALE = Number(process.env['PODPLAN_BENCH_SCALE'] ?? '1');
const CREATE_CONCURRENCY = 64;
const TICKS_PER_SECOND = 100;

const apiNode = (node: Node): KubeObject => ({ ...(node as unknown as KubeObject), apiVersion: 'v1', kind: 'Node' });
const apiPod = (pod: Pod, namespace: string, schedulerName: string, nodeName?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: pod.metadata.name, namespace, ...(pod.metadata.labels ? { labels: pod.metadata.labels } : {}) },
  spec: { ...pod.spec, schedulerName, terminationGracePeriodSeconds: 0, ...(nodeName ? { nodeName } : {}) },
});

/** Creates the objects, `CREATE_CONCURRENCY` requests at a time. */
async function createAll(cluster: RealCluster, objects: readonly KubeObject[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < objects.length) {
      const o = objects[next++]!;
      const path = o.kind === 'Node' ? '/api/v1/nodes' : `/api/v1/namespaces/${o.metadata.namespace}/pods`;
      const answer = await cluster.request('POST', path, o);
      if (answer.status !== 201) throw new Error(`creating ${o.kind} ${o.metadata.name}: ${answer.status} ${answer.text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, worker));
}

/**
 * Resolves when `count` distinct pods of the namespace have been seen bound: a list, then a watch
 * from its resourceVersion; a watch the server ends (a watcher that fell behind is closed) is
 * followed by another list and watch.
 */
function watchBound(cluster: RealCluster, namespace: string, count: number): { done: Promise<void>; close(): void } {
  const key = readFileSync(join(cluster.dir, 'admin.key'), 'utf8');
  const cert = readFileSync(join(cluster.dir, 'admin.crt'), 'utf8');
  const bound = new Set<string>();
  let closed = false;
  let current: ReturnType<typeof httpsRequest> | undefined;
  const done = new Promise<void>((resolve, reject) => {
    const check = () => {
      if (bound.size < count) return false;
      closed = true;
      current?.destroy();
      resolve();
      return true;
    };
    const listAndWatch = async (): Promise<void> => {
      if (closed) return;
      const list = await cluster.request<{
        metadata: { resourceVersion: string };
        items: Array<{ metadata: { name: string }; spec: { nodeName?: string } }>;
      }>('GET', `/api/v1/namespaces/${namespace}/pods`);
      for (const p of list.body.items) if (p.spec.nodeName) bound.add(p.metadata.name);
      if (check()) return;
      const path = `/api/v1/namespaces/${namespace}/pods?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`;
      current = httpsRequest(
        `${cluster.server}${path}`,
        { ca: cluster.caCert, cert, key, headers: { accept: 'application/json' } },
        (res) => {
          let buffer = '';
          res.setEncoding('utf8').on('data', (chunk: string) => {
            buffer += chunk;
            let nl: number;
            while ((nl = buffer.indexOf('\n')) >= 0) {
              const line = buffer.slice(0, nl);
              buffer = buffer.slice(nl + 1);
              const event = JSON.parse(line) as { object?: { metadata?: { name?: string }; spec?: { nodeName?: string } } };
              const name = event.object?.metadata?.name;
              if (name && event.object?.spec?.nodeName) bound.add(name);
              if (check()) return;
            }
          });
          res.on('end', () => void (closed ? undefined : listAndWatch().catch(reject)));
        },
      );
      current.on('error', () => void (closed ? undefined : setTimeout(() => void listAndWatch().catch(reject), 200)));
      current.end();
    };
    void listAndWatch().catch(reject);
  });
  return {
    done,
    close: () => {
      closed = true;
      current?.destroy();
    },
  };
}

function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND; // utime, stime
}

function peakRssBytes(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

interface Figures {
  readonly name: string;
  readonly seconds: number;
  readonly cpu: number;
  readonly peakRss: number;
  readonly podsPerSecond: number;
}

async function measure(
  cluster: RealCluster,
  name: string,
  namespace: string,
  schedulerName: string,
  start: () => ChildProcess,
  pods: readonly Pod[],
): Promise<Figures> {
  await cluster.namespace(namespace);
  const child = start();
  let log = '';
  child.stderr?.setEncoding('utf8').on('data', (t: string) => (log = (log + t).slice(-4000)));
  child.stdout?.resume();
  try {
    // Warm: informers synced and scheduling (one pod bound).
    const warm = watchBound(cluster, namespace, 1);
    await createAll(cluster, [apiPod({ ...pods[0]!, metadata: { ...pods[0]!.metadata, name: 'warm-up' } }, namespace, schedulerName)]);
    await Promise.race([
      warm.done,
      new Promise((_, reject) => setTimeout(() => reject(new Error(`${name} bound no pod in 1 minute; its log ends:\n${log}`)), 60_000)),
    ]);
    const pid = child.pid!;
    const cpuBefore = cpuSeconds(pid);
    const watch = watchBound(cluster, namespace, pods.length + 1);
    const started = performance.now();
    await createAll(
      cluster,
      pods.map((p) => apiPod(p, namespace, schedulerName)),
    );
    await watch.done;
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuSeconds(pid) - cpuBefore;
    return { name, seconds, cpu, peakRss: peakRssBytes(pid), podsPerSecond: pods.length / seconds };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) =>
      child.exitCode !== null || child.signalCode !== null ? resolve(undefined) : child.once('exit', resolve),
    );
  }
}

async function run(): Promise<void> {
  const workload = schedulerPerfWorkloads(SCALE)
    .find((w) => w.name === 'SchedulingBasic')
    ?.make();
  if (!workload) throw new Error('no SchedulingBasic workload');
  console.log(`workload: ${workload.description}; through kube-apiserver v1.37.2 + etcd on loopback (test/real/cluster.ts)`);
  const cluster = await startRealCluster({ apiserverArgs: ['--max-requests-inflight=2000', '--max-mutating-requests-inflight=1000'] });
  try {
    const setup = performance.now();
    await cluster.namespace('sched-0');
    await createAll(cluster, workload.nodes.map(apiNode));
    await createAll(
      cluster,
      workload.initPods.map((p, i) => apiPod(p, 'sched-0', 'default-scheduler', workload.nodes[i % workload.nodes.length]!.metadata.name)),
    );
    console.log(`  cluster made in ${((performance.now() - setup) / 1000).toFixed(1)} s`);

    const config = join(cluster.dir, 'kube-scheduler-bench.yaml');
    writeFileSync(
      config,
      `apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nclientConnection: {kubeconfig: ${cluster.kubeconfig}, qps: 5000, burst: 5000}\nleaderElection: {leaderElect: false}\n`,
    );
    const kube = await measure(
      cluster,
      'kube-scheduler',
      'bench-kube',
      'default-scheduler',
      () =>
        spawn(join(cluster.bin, 'kube-scheduler'), [`--config=${config}`, '--secure-port=0', '--v=0'], {
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      workload.measuredPods,
    );
    // The same cluster for the second: the first run's pods go (deleted at once: no grace period).
    await cluster.request('DELETE', '/api/v1/namespaces/bench-kube/pods');
    const podplan = await measure(
      cluster,
      'podplan run',
      'bench-podplan',
      'podplan',
      () =>
        spawn(
          process.execPath,
          [join(ROOT, 'bin/podplan.js'), 'run', ...cluster.admin, '--no-history', '--lease-namespace', 'kube-system'],
          { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
        ),
      workload.measuredPods,
    );
    const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MB`;
    console.log(
      `  ${'scheduler'.padEnd(16)}${'pods/s'.padStart(10)}${'seconds'.padStart(10)}${'CPU s'.padStart(10)}${'CPU ms/pod'.padStart(12)}${'peak RSS'.padStart(10)}`,
    );
    for (const f of [kube, podplan])
      console.log(
        `  ${f.name.padEnd(16)}${f.podsPerSecond.toFixed(0).padStart(10)}${f.seconds.toFixed(2).padStart(10)}${f.cpu.toFixed(2).padStart(10)}${((f.cpu * 1000) / workload.measuredPods.length).toFixed(3).padStart(12)}${mb(f.peakRss).padStart(10)}`,
      );
    console.log(
      `  podplan / kube-scheduler: ${(podplan.podsPerSecond / kube.podsPerSecond).toFixed(2)}× the pods/s, ${(podplan.cpu / kube.cpu).toFixed(2)}× the CPU per pod (target ≤ 0.5), ${(podplan.peakRss / kube.peakRss).toFixed(2)}× the peak memory`,
    );
    console.log(
      `  load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} on ${availableParallelism()} cores (the API server, etcd and this process share them)`,
    );
  } finally {
    await cluster.stop();
  }
}

export const benchmarks: readonly Benchmark[] = [
  { name: 'kube side by side: kube-scheduler and podplan run through kube-apiserver v1.37.2', run },
];
