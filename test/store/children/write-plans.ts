// A second process for the store's tests: writes plans for one pod set into the history and reports
// each on stdout, "writing <n>" before and "saved <id>" after its commit, so a test can kill it
// mid-write, race two of them, or run it under another Node.
//   node --import tsx write-plans.ts <db file> <pod set> <count, or 0 for until killed> <seed> [plans kept per pod set]
import { openStore } from '../../../src/store/store';
import { syntheticPlan } from '../synthetic';

const [file, podSet, countText, seedText, keepText] = process.argv.slice(2);
if (!file || !podSet) {
  console.error('usage: write-plans.ts <db file> <pod set> <count> <seed>');
  process.exit(2);
}
const count = Number(countText ?? 1);
const seed = Number(seedText ?? 1);

const opened = await openStore(file, { keepPerPodSet: Number(keepText ?? 10_000) });
if (!opened.ok) {
  console.log(`error ${opened.error.kind}: ${opened.error.message}`);
  process.exit(1);
}
const store = opened.value;
console.log(`driver ${store.driver}`);
const run = store.startRun({ kind: 'workspace', name: `writer-${podSet}` }, 'preview');
if (!run.ok) {
  console.log(`error ${run.error.message}`);
  process.exit(1);
}
for (let i = 0; count === 0 || i < count; i++) {
  // Sizes vary so a kill lands in plans of every size, diagnoses chunked or not.
  const pods = 50 + ((i * 97) % 400);
  const plan = syntheticPlan({ podSet, pods, unplaced: i % 9, nodes: 300, rejections: 8, scores: 3, seed: seed * 100_000 + i });
  console.log(`writing ${i}`);
  const saved = store.savePlan(run.value, plan, { profileHash: `profile-${seed}` });
  if (!saved.ok) {
    console.log(`error ${saved.error.message}`);
    process.exit(1);
  }
  console.log(`saved ${saved.value}`);
}
store.finishRun(run.value, 'succeeded');
store.close();
