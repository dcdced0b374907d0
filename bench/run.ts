// Runs the benchmarks: `npm run bench` for all, `npm run bench -- <filter>` for those whose name
// contains the filter. Each prints its workload and figures; nothing is asserted.
export interface Benchmark {
  readonly name: string;
  run(): Promise<void>;
}

const modules: Array<() => Promise<{ benchmarks: readonly Benchmark[] }>> = [
  () => import('./store'),
];

const filter = process.argv[2] ?? '';
for (const load of modules) {
  for (const bench of (await load()).benchmarks) {
    if (!bench.name.includes(filter)) continue;
    console.log(`\n== ${bench.name}`);
    await bench.run();
  }
}
