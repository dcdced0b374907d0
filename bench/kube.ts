// Podplan as a live scheduler over HTTP (src/kube/live): upstream scheduler_perf's SchedulingBasic
// shape (5,000 nodes, 1,000 existing pods, 10,000 measured pods) in the test API server, the
// scheduler's informers synced on the nodes and existing pods, then the measured pods created at
// once; the clock runs until every one of them is bound and seen bound through the watch
// (informer → decision → binding → confirmation). Printed beside the engine-only figure of the same
// workload (bench/scheduler.ts), with the peak RSS of both processes: the test API server runs in a
// child process (test/kube/apiserver/process.ts), seeded from here over IPC and reached over
// loopback HTTPS, so the figure and this process's memory are the scheduler's own, as beside a real
// kube-apiserver.
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { availableParallelism, homedir, loadavg } from 'node:os';
import type { Node, Pod } from '../src/engine/api/types';
import { KubeBinder } from '../src/kube/binder';
import { KubeHttp } from '../src/kube/http';
import { openContext } from '../src/kube/kubeconfig';
import { bindingPoster, boundNodeReader, startInformers } from '../src/kube/live/cluster';
import { composeLiveScheduler, PODPLAN_SCHEDULER_NAME } from '../src/kube/live/compose';
import { liveCache, type LiveReport } from '../src/kube/live/scheduler';
import { systemClock } from '../src/platform/clock';
import type { KubeObject } from '../test/kube/apiserver';
import { TestApiServerProcess } from '../test/kube/apiserver/process';
import type { Benchmark } from './benchmark';
import { benchmarks as scheduler } from './scheduler';
import { schedulerPerfWorkloads } from './workloads/scheduler-perf';

const SCALE = Number(process.env['PODPLAN_BENCH_SCALE'] ?? '1');
/** A file to write this process's CPU profile of the measured part to (open it in Chrome's DevTools). */
const PROFILE = process.env['PODPLAN_BENCH_KUBE_PROFILE'];

async function startProfile(): Promise<{ stopInto(file: string): Promise<void> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stopInto(file) {
      const { profile } = await session.post('Profiler.stop');
      await writeFile(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

const apiNode = (node: Node): KubeObject => ({ apiVersion: 'v1', kind: 'Node', ...(node as unknown as KubeObject) });
const apiPod = (pod: Pod, schedulerName?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  ...(pod as unknown as KubeObject),
  metadata: { ...pod.metadata, uid: undefined } as KubeObject['metadata'],
  spec: { ...pod.spec, ...(schedulerName ? { schedulerName } : {}) },
  status: { phase: 'Pending' },
});

const quiet: LiveReport = { decision: () => undefined, plan: () => undefined, triggerScheduled: () => undefined, warning: () => undefined };

async function run(): Promise<void> {
  const workload = schedulerPerfWorkloads(SCALE)
    .find((w) => w.name === 'SchedulingBasic')
    ?.make();
  if (!workload) throw new Error('no SchedulingBasic workload');
  console.log(`workload: ${workload.description}; end to end over HTTPS through the test API server`);
  const server = await TestApiServerProcess.start();
  try {
    const namespaces = new Set([...workload.initPods, ...workload.measuredPods].map((p) => p.metadata.namespace ?? 'default'));
    await server.create(...[...namespaces].map((ns): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })));
    await server.create(...workload.nodes.map(apiNode));
    // The existing pods are bound already (upstream creates them through the scheduler, unmeasured).
    await server.create(
      ...workload.initPods.map((p, i) =>
        apiPod({ ...p, spec: { ...p.spec, nodeName: workload.nodes[i % workload.nodes.length]!.metadata.name } }),
      ),
    );
    const context = openContext({
      context: 'test',
      kubeconfig: await server.writeKubeconfig(),
      env: {},
      homedir: homedir(),
      cwd: process.cwd(),
    });
    if (!context.ok) throw new Error(context.error);
    const http = new KubeHttp(context.value);
    const binder = new KubeBinder({ post: bindingPoster(http), readBoundNode: boundNodeReader(http), clock: systemClock });
    const composed = composeLiveScheduler({
      clock: systemClock,
      cache: liveCache(systemClock),
      binder,
      writer: { writePlan: () => Promise.resolve({ ok: true }), setTriggerState: () => Promise.resolve({ ok: true }) },
      report: quiet,
    });
    if (!composed.ok) throw new Error(composed.error.map((e) => e.message).join('; '));
    const live = composed.value;
    const informers = startInformers(http, live, { clock: systemClock, onError: (m) => console.log(`  warning: ${m}`) });
    await informers.synced;
    live.setLeading(true);

    const measured = workload.measuredPods.map((p) => apiPod(p, PODPLAN_SCHEDULER_NAME));
    const profile = PROFILE ? await startProfile() : undefined;
    const serverCpuBefore = (await server.stats()).cpuMicros;
    const cpuBefore = process.cpuUsage();
    const start = performance.now();
    await server.create(...measured);
    // Done when every measured pod was bound and its bound version came back through the watch.
    await new Promise<void>((resolve) => {
      const look = () => {
        const c = live.counts();
        if (c.bound >= measured.length && c.pending === 0 && c.unconfirmed === 0) resolve();
        else setTimeout(look, 5);
      };
      look();
    });
    const seconds = (performance.now() - start) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    if (profile && PROFILE) await profile.stopInto(PROFILE);
    const stats = await server.stats();
    const bound = Object.values(stats.bindings).filter((n) => n > 0).length;
    const schedulerCpu = (cpu.user + cpu.system) / 1e6;
    const serverCpu = (stats.cpuMicros - serverCpuBefore) / 1e6;
    const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
    console.log(`  measured pods bound: ${bound}/${measured.length} (binder: ${JSON.stringify(binder.counters())})`);
    console.log(
      `  ${(measured.length / seconds).toFixed(0)} pods/s end to end (${seconds.toFixed(2)} s; target 2,000); load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} on ${availableParallelism()} cores`,
    );
    console.log(
      `  CPU meanwhile: scheduler ${schedulerCpu.toFixed(2)} s (${(measured.length / schedulerCpu).toFixed(0)} pods per CPU-second), test API server ${serverCpu.toFixed(2)} s`,
    );
    console.log(
      `  peak RSS: scheduler ${mb(process.resourceUsage().maxRSS * 1024)} (target under 1 GB); test API server (its own process) ${mb(stats.peakRssBytes)}`,
    );
    await live.stop();
    await informers.stop();
  } finally {
    await server.close();
  }
  const engineOnly = scheduler.find((b) => b.name === 'scheduler SchedulingBasic');
  if (engineOnly) {
    console.log('engine only, the same workload (bench/scheduler.ts):');
    await engineOnly.run();
  }
}

export const benchmarks: readonly Benchmark[] = [{ name: 'kube SchedulingBasic end to end', run }];
