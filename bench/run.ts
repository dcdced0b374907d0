// `npm run bench [-- filter]`: runs every benchmark whose name contains the filter, printing its figures.
export type BenchmarkModule = { benchmarks: Array<{ name: string; run(): Promise<void> }> };

// One line per area.
const modules: Array<() => Promise<BenchmarkModule>> = [
  () => import('./claims'),
];

const filter = process.argv[2] ?? '';
for (const load of modules) {
  for (const bench of (await load()).benchmarks) {
    if (!bench.name.includes(filter)) continue;
    console.log(`\n## ${bench.name}`);
    await bench.run();
  }
}
