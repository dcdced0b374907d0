// Runs the benchmarks: `npm run bench [filter]` runs those whose name contains the filter. Each
// module exports `benchmarks: Array<{ name, run() }>`; each run prints its workload and figures.
import type { Benchmark } from './benchmark';
import { benchmarks as framework } from './framework';
import { benchmarks as plugins } from './plugins';
import { benchmarks as reconcile } from './reconcile';
import { benchmarks as rpc } from './rpc';
import { benchmarks as scheduler } from './scheduler';
import { benchmarks as manifests } from './manifests';
import { benchmarks as claims } from './claims';
import { benchmarks as cache } from './cache';
import { benchmarks as plugins_affinity } from './plugins-affinity';
import { benchmarks as store } from './store';
import { benchmarks as server } from './server';
import { benchmarks as editor } from './editor';
import { benchmarks as workbench } from './workbench';
import { benchmarks as planner } from './planner';
import { benchmarks as webview } from './webview';
import { benchmarks as cli } from './cli';
import { benchmarks as kube } from './kube';
import { benchmarks as kubeSideBySide } from './kube-side-by-side';
import { benchmarks as dra } from './dra';
import { benchmarks as draPlan } from './dra-plan';
import { benchmarks as celSelectors } from './cel-selectors';

const all: readonly Benchmark[] = [
  ...scheduler,
  ...framework,
  ...plugins,
  ...reconcile,
  ...rpc,
  ...manifests,
  ...claims,
  ...cache,
  ...plugins_affinity,
  ...store,
  ...server,
  ...editor,
  ...workbench,
  ...planner,
  ...webview,
  ...cli,
  ...kube,
  ...kubeSideBySide,
  ...dra,
  ...draPlan,
  ...celSelectors,
];

const filter = process.argv[2] ?? '';
for (const benchmark of all.filter((b) => b.name.includes(filter))) {
  console.log(`\n# ${benchmark.name}`);
  await benchmark.run();
}
