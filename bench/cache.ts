// Cluster cache workloads: filling it from a cluster listing, the assume → finishBinding → add path a
// scheduler takes for every pod it places, and what a cycle pays to refresh its snapshot after one
// change compared with taking a new one. Figures are medians over several runs.
import { ManualClock } from '../src/engine/api/clock';
import type { Node, Pod } from '../src/engine/api/types';
import { ClusterCache } from '../src/engine/cache/cache';
import type { Benchmark } from './benchmark';

const NODES = 5000;
const PODS = 10000;
const ZONES = 3;
const RUNS = 5;

const WORKLOAD =
  `${NODES} nodes in ${ZONES} zones (32 cpu, 128Gi, 110 pods, 2 images each); ` +
  `${PODS} pods of 50 apps (cpu 100m..1, memory 128Mi..1Gi; every 10th with a host port, every 20th with required anti-affinity)`;

function makeNodes(): Node[] {
  return Array.from({ length: NODES }, (_, i) => ({
    metadata: {
      name: `node-${i}`,
      uid: `node-uid-${i}`,
      labels: { 'kubernetes.io/hostname': `node-${i}`, 'topology.kubernetes.io/zone': `zone-${i % ZONES}` },
    },
    status: {
      allocatable: { cpu: '32', memory: '128Gi', pods: '110' },
      images: [
        { names: ['registry/app:1'], sizeBytes: 200_000_000 },
        { names: [`registry/tool:${i % 7}`], sizeBytes: 50_000_000 },
      ],
    },
  }));
}

/** Fresh pod objects (the engine memoizes per object, so every run parses its pods as a new cluster would). */
function makePods(prefix: string, nodeName?: (i: number) => string): Pod[] {
  return Array.from({ length: PODS }, (_, i) => {
    const app = `app-${i % 50}`;
    return {
      metadata: { name: `${prefix}-${i}`, namespace: 'bench', uid: `${prefix}-uid-${i}`, labels: { app } },
      spec: {
        ...(nodeName ? { nodeName: nodeName(i) } : {}),
        containers: [
          {
            name: 'main',
            resources: { requests: { cpu: `${100 + (i % 10) * 100}m`, memory: `${128 * (1 + (i % 8))}Mi` } },
            ...(i % 10 === 0 ? { ports: [{ containerPort: 8080, hostPort: 8080 + (i % 3) }] } : {}),
          },
        ],
        ...(i % 20 === 0
          ? {
              affinity: {
                podAntiAffinity: {
                  requiredDuringSchedulingIgnoredDuringExecution: [
                    { labelSelector: { matchLabels: { app } }, topologyKey: 'kubernetes.io/hostname' },
                  ],
                },
              },
            }
          : {}),
      },
    };
  });
}

const onNode = (i: number): string => `node-${i % NODES}`;

function newCache(): ClusterCache {
  return new ClusterCache({ clock: new ManualClock(), assumedPodTtlMs: 30_000 });
}

function filledCache(): ClusterCache {
  const cache = newCache();
  for (const node of makeNodes()) cache.addNode(node);
  for (const pod of makePods('bound', onNode)) cache.addPod(pod);
  return cache;
}

function time(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

const ms = (value: number): string => `${value.toFixed(2)} ms`;
const us = (value: number): string => `${(value * 1000).toFixed(2)} µs`;
const perSecond = (count: number, msTaken: number): string => `${Math.round((count / msTaken) * 1000).toLocaleString('en')}/s`;

export const benchmarks: readonly Benchmark[] = [
  {
    name: 'cache: fill with nodes and pods, then a first snapshot',
    run() {
      console.log(`workload: ${WORKLOAD}; all pods added as bound (no assume); ${RUNS} runs`);
      const nodeTimes: number[] = [];
      const podTimes: number[] = [];
      const snapshotTimes: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const cache = newCache();
        const [nodes, pods] = [makeNodes(), makePods(`bound${run}`, onNode)];
        nodeTimes.push(time(() => nodes.forEach((n) => cache.addNode(n))));
        podTimes.push(time(() => pods.forEach((p) => cache.addPod(p))));
        snapshotTimes.push(time(() => cache.snapshot()));
      }
      console.log(`addNode × ${NODES}: ${ms(median(nodeTimes))} (${us(median(nodeTimes) / NODES)} each)`);
      console.log(`addPod × ${PODS}: ${ms(median(podTimes))} (${us(median(podTimes) / PODS)} each, quantity parsing included)`);
      console.log(`snapshot() of ${NODES} nodes: ${ms(median(snapshotTimes))}`);
      return Promise.resolve();
    },
  },
  {
    name: 'cache: assume → finishBinding → add (confirm) throughput',
    run() {
      console.log(
        `workload: on a cache already holding the workload above, ${PODS} more pending pods each assumed on a node, binding finished, then confirmed by the bound pod's add event; ${RUNS} runs`,
      );
      const times: number[] = [];
      const assumeOnly: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const cache = filledCache();
        const pending = makePods(`pending${run}`);
        const bound = makePods(`pending${run}`, onNode);
        const assumed = time(() => pending.forEach((p, i) => cache.assumePod(p, onNode(i))));
        const confirmed = time(() =>
          pending.forEach((p, i) => {
            cache.finishBinding(p);
            cache.addPod(bound[i]!);
          }),
        );
        assumeOnly.push(assumed);
        times.push(assumed + confirmed);
      }
      const total = median(times);
      console.log(`assumePod × ${PODS}: ${ms(median(assumeOnly))} (${perSecond(PODS, median(assumeOnly))})`);
      console.log(`assume + finishBinding + add × ${PODS}: ${ms(total)} (${us(total / PODS)} per pod, ${perSecond(PODS, total)})`);
      return Promise.resolve();
    },
  },
  {
    name: 'cache: snapshot update after one change',
    run() {
      const changes = 1000;
      console.log(
        `workload: the cache above; a snapshot refreshed with updateSnapshot after each of ${changes} single-pod assumes, against a new snapshot() each time`,
      );
      const cache = filledCache();
      const snapshot = cache.snapshot();
      const pending = makePods('one');
      const updates: number[] = [];
      let copied = 0;
      for (let i = 0; i < changes; i++) {
        cache.assumePod(pending[i]!, onNode(i * 7));
        updates.push(time(() => (copied += cache.updateSnapshot(snapshot))));
      }
      const unchanged = Array.from({ length: 100 }, () => time(() => cache.updateSnapshot(snapshot)));
      const full = Array.from({ length: 20 }, () => time(() => cache.snapshot()));
      console.log(
        `updateSnapshot after 1 change: median ${us(median(updates))}, p99 ${us(percentile(updates, 0.99))} (${copied / changes} NodeInfo copied per update)`,
      );
      console.log(`updateSnapshot with nothing changed: median ${us(median(unchanged))}`);
      console.log(`new snapshot() of ${NODES} nodes: median ${ms(median(full))}`);
      return Promise.resolve();
    },
  },
];
