// The plan history's targets (issue 7): persist a 10,000-pod plan with diagnoses in under 300 ms,
// list 1,000 plans in under 10 ms, diff two 10,000-pod plans in under 100 ms. Real files in a temp
// dir, better-sqlite3, WAL, synchronous=FULL. Wall time is what a user waits; CPU time of this
// process is printed beside it because a busy machine stretches the first and not the second.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Plan } from '../src/engine/planner/plan';
import { openStore, type PlanStore } from '../src/store/store';
import { syntheticPlan } from '../test/store/synthetic';
import type { Benchmark } from './benchmark';

const BIG = { pods: 10_000, unplaced: 50, nodes: 5_000, rejections: 20, scores: 10 } as const;
/** The same plan with smaller diagnoses: what persisting costs per recorded rejection or score. */
const LIGHT = { ...BIG, rejections: 5, scores: 3 } as const;

interface Sample {
  readonly wall: number;
  readonly cpu: number;
}

function measure(body: () => void): Sample {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  body();
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { wall, cpu: (cpu.user + cpu.system) / 1000 };
}

function report(what: string, samples: readonly Sample[], target: number): void {
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const wall = samples.map((s) => s.wall);
  const cpu = samples.map((s) => s.cpu);
  const f = (x: number): string => (x < 10 ? x.toFixed(2) : x.toFixed(0));
  console.log(
    `  ${what}: median ${f(median(wall))} ms (min ${f(Math.min(...wall))}, max ${f(Math.max(...wall))}), cpu median ${f(median(cpu))} ms, target < ${target} ms, ${samples.length} runs`,
  );
}

async function withStore(body: (store: PlanStore, file: string) => void, keepPerPodSet = 100): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'podplan-bench-'));
  const file = join(dir, 'history.db');
  try {
    const opened = await openStore(file, { keepPerPodSet });
    if (!opened.ok) throw new Error(opened.error.message);
    try {
      console.log(
        `  driver ${opened.value.driver}, load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
      );
      body(opened.value, file);
    } finally {
      opened.value.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function runOf(store: PlanStore): number {
  const run = store.startRun({ kind: 'workspace', name: 'bench' }, 'preview');
  if (!run.ok) throw new Error(run.error.message);
  return run.value;
}

function save(store: PlanStore, run: number, plan: Plan): number {
  const saved = store.savePlan(run, plan, { profileHash: 'bench' });
  if (!saved.ok) throw new Error(saved.error.message);
  return saved.value;
}

/** `plan` with every 10th placed pod moved, every 100th unplaced, and half the unplaced ones placed. */
function replanned(plan: Plan): Plan {
  const moved = plan.assignments.map((a, i) => (i % 10 === 0 ? { ...a, node: `${a.node}-b` } : a));
  const lost = moved.filter((_, i) => i % 100 === 1);
  const keptUnplaced = plan.unplaced.filter((_, i) => i % 2 === 0);
  const found = plan.unplaced.filter((_, i) => i % 2 === 1).map((u) => ({ pod: u.pod, node: 'node-0000' }));
  const template = plan.unplaced[0]!;
  return {
    ...plan,
    assignments: [...moved.filter((_, i) => i % 100 !== 1), ...found],
    unplaced: [
      ...keptUnplaced,
      ...lost.map((a) => ({
        pod: a.pod,
        message: template.message,
        diagnosis: { ...template.diagnosis, pod: `${plan.namespace}/${a.pod}` },
      })),
    ],
  };
}

type Workload = typeof BIG | typeof LIGHT;

const describe = (w: Workload): string =>
  `${w.pods} pods on ${w.nodes} nodes: ${w.pods - w.unplaced} placed, each diagnosis with ${w.rejections} rejected and ${w.scores} scored nodes (4 plugins each); ${w.unplaced} unplaced, each rejected by all ${w.nodes} nodes`;

const records = (w: Workload): number => w.unplaced * w.nodes + (w.pods - w.unplaced) * (w.rejections + w.scores);

async function persist(w: Workload): Promise<void> {
  console.log(
    `  workload: ${describe(w)}; ${records(w).toLocaleString('en')} rejection and score records per plan; one transaction per plan (plan, assignments, unplaced pods, diagnoses, retention)`,
  );
  const plans = [1, 2, 3, 4, 5, 6, 7, 8].map((seed) => syntheticPlan({ ...w, seed }));
  await withStore((store, file) => {
    const run = runOf(store);
    const fresh: Sample[] = [];
    const pruning: Sample[] = [];
    plans.forEach((plan, i) => (i < 3 ? fresh : pruning).push(measure(() => save(store, run, plan))));
    report('first 3 plans of the pod set', fresh, 300);
    report('next 5, each also pruning a 10,000-pod plan (keep 3)', pruning, 300);
    console.log(
      `  file ${(statSync(file).size / 1e6).toFixed(1)} MB + WAL ${(statSync(`${file}-wal`).size / 1e6).toFixed(1)} MB holding 3 plans`,
    );
  }, 3);
}

export const benchmarks: readonly Benchmark[] = [
  { name: 'store: persist a 10,000-pod plan with diagnoses', run: () => persist(BIG) },
  { name: 'store: persist a 10,000-pod plan with light diagnoses', run: () => persist(LIGHT) },
  {
    name: 'store: list 1,000 plans',
    async run() {
      console.log('  workload: 1,000 plans of 20 pods in 10 pod sets; history() newest first, one page of 1,000 with source and counts');
      await withStore((store) => {
        const run = runOf(store);
        for (let i = 0; i < 1000; i++)
          save(store, run, syntheticPlan({ podSet: `set-${i % 10}`, pods: 20, unplaced: 1, nodes: 10, rejections: 2, scores: 2, seed: i }));
        let listed = 0;
        const samples = Array.from({ length: 30 }, () =>
          measure(() => {
            const page = store.history({ limit: 1000 });
            if (!page.ok) throw new Error(page.error.message);
            listed = page.value.items.length;
          }),
        );
        report(`history({ limit: 1000 }) → ${listed} plans`, samples.slice(5), 10);
        report(
          'history({ podSet, limit: 50 })',
          Array.from({ length: 30 }, () => measure(() => void store.history({ podSet: 'set-3', limit: 50 }))).slice(5),
          10,
        );
      });
    },
  },
  {
    name: 'store: diff two 10,000-pod plans',
    async run() {
      const a = syntheticPlan({ ...BIG, seed: 11 });
      const b = replanned(a);
      console.log(`  workload: ${describe(BIG)}; the second plan moves every 10th pod, unplaces every 100th, places half the unplaced`);
      await withStore((store) => {
        const run = runOf(store);
        const ida = save(store, run, a);
        const idb = save(store, run, b);
        let summary = '';
        const samples = Array.from({ length: 12 }, () =>
          measure(() => {
            const diff = store.diffPlans(ida, idb);
            if (!diff.ok) throw new Error(diff.error.message);
            const d = diff.value;
            summary = `${d.moved.length} moved, ${d.becamePlaced.length} became placed, ${d.becameUnplaced.length} became unplaced, ${d.unchanged} unchanged`;
          }),
        );
        report(`diffPlans → ${summary}`, samples.slice(2), 100);
      });
    },
  },
];
