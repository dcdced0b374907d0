// Podplan as a live scheduler over HTTP (src/kube/live): upstream scheduler_perf's SchedulingBasic
// shape (5,000 nodes, 1,000 existing pods, 10,000 measured pods) in the test API server, the
// scheduler's informers synced on the nodes and existing pods, then the measured pods created at
// once; the clock runs until every one of them is bound and seen bound through the watch
// (informer → decision → binding → confirmation). Printed beside the engine-only figure of the same
// workload (bench/scheduler.ts), with the peak RSS. The test API server runs in this process, so the
// figure includes its work (and its memory: every object and the watch history).
import { homedir } from 'node:os';
import type { Node, Pod } from '../src/engine/api/types';
import { KubeBinder } from '../src/kube/binder';
import { KubeHttp } from '../src/kube/http';
import { openContext } from '../src/kube/kubeconfig';
import { bindingPoster, startInformers } from '../src/kube/live/cluster';
import { composeLiveScheduler, PODPLAN_SCHEDULER_NAME } from '../src/kube/live/compose';
import { liveCache, type LiveReport } from '../src/kube/live/scheduler';
import { systemClock } from '../src/platform/clock';
import { startTestApiServer, type KubeObject } from '../test/kube/apiserver';
import type { Benchmark } from './benchmark';
import { benchmarks as scheduler } from './scheduler';
import { schedulerPerfWorkloads } from './workloads/scheduler-perf';

const SCALE = Number(process.env['PODPLAN_BENCH_SCALE'] ?? '1');

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
  const workload = schedulerPerfWorkloads(SCALE).find((w) => w.name === 'SchedulingBasic');
  if (!workload) throw new Error('no SchedulingBasic workload');
  console.log(`workload: ${workload.description}; end to end over HTTPS through the test API server`);
  const server = await startTestApiServer();
  try {
    const namespaces = new Set([...workload.initPods, ...workload.measuredPods].map((p) => p.metadata.namespace ?? 'default'));
    for (const ns of namespaces) if (!server.get({ apiVersion: 'v1', kind: 'Namespace' }, undefined, ns)) server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    server.create(...workload.nodes.map(apiNode));
    // The existing pods are bound already (upstream creates them through the scheduler, unmeasured).
    server.create(...workload.initPods.map((p, i) => apiPod({ ...p, spec: { ...p.spec, nodeName: workload.nodes[i % workload.nodes.length]!.metadata.name } })));
    const context = openContext({ context: 'test', kubeconfig: await server.writeKubeconfig(), env: {}, homedir: homedir(), cwd: process.cwd() });
    if (!context.ok) throw new Error(context.error);
    const http = new KubeHttp(context.value);
    const binder = new KubeBinder({ post: bindingPoster(http), clock: systemClock });
    const composed = composeLiveScheduler({ clock: systemClock, cache: liveCache(systemClock), binder, writer: { writePlan: () => Promise.resolve({ ok: true }), setTriggerState: () => Promise.resolve({ ok: true }) }, report: quiet });
    if (!composed.ok) throw new Error(composed.error.map((e) => e.message).join('; '));
    const live = composed.value;
    const informers = startInformers(http, live, { clock: systemClock, onError: (m) => console.log(`  warning: ${m}`) });
    await informers.synced;
    live.setLeading(true);

    const measured = workload.measuredPods.map((p) => apiPod(p, PODPLAN_SCHEDULER_NAME));
    const start = performance.now();
    server.create(...measured);
    // Done when every measured pod was bound and its bound version came back through the watch.
    await new Promise<void>((resolve) => {
      const look = () => {
        const c = live.counts();
        if (c.bound >= measured.length && c.pending === 0 && c.unconfirmed === 0) resolve();
        else setTimeout(look, 20);
      };
      look();
    });
    const seconds = (performance.now() - start) / 1000;
    const bound = [...server.counters.bindings.values()].filter((n) => n > 0).length;
    console.log(`  measured pods bound: ${bound}/${measured.length} (binder: ${JSON.stringify(binder.counters())})`);
    console.log(`  ${(measured.length / seconds).toFixed(0)} pods/s end to end (${seconds.toFixed(2)} s; target 2,000)`);
    console.log(`  peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB (scheduler and test API server in one process; target under 1 GB)`);
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
