// The reconcile driver: how long a large graph takes to reach its fixpoint. The bodies are the
// test fake (answers after two microtasks), so the figure is the driver's own overhead.
import { Reconciler } from '../src/engine/reconcile/reconciler';
import { FakeDispatcher, randomDag, type Table } from '../test/engine/reconcile/fake';

const POOL = 16;
const ROUNDS = 5;

/** Runs `table` to its fixpoint ROUNDS times and prints the times and the first round's counters. */
async function measure(workload: string, table: Table, order: readonly string[]): Promise<void> {
  console.log(`workload: ${workload}; pool ${POOL}; ${ROUNDS} rounds`);
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const reconciler = new Reconciler(new FakeDispatcher(table), { poolSize: POOL });
    const start = performance.now();
    reconciler.seed(order);
    await reconciler.run();
    times.push(performance.now() - start);
    if (round === 0) console.log('counters:', JSON.stringify(reconciler.counters()));
  }
  times.sort((a, b) => a - b);
  const ms = (t: number | undefined): string => `${(t ?? NaN).toFixed(1)} ms`;
  console.log(`time to fixpoint: min ${ms(times[0])}, median ${ms(times[Math.floor(ROUNDS / 2)])}, max ${ms(times.at(-1))}`);
}

async function randomDagFixpoint(): Promise<void> {
  const dag = randomDag(10_000, 2024);
  const workload = `10,000 nodes, ${dag.edges} edges (each needs up to 4 of the 50 nodes before it), seeded in random order (seed 2024), all end ready`;
  await measure(workload, dag.table, dag.order);
}

async function missingLeafCascade(): Promise<void> {
  const chain: Record<string, readonly string[]> = {};
  for (let i = 0; i < 10_000; i++) chain[`n${i}`] = [i === 9_999 ? 'missing' : `n${i + 1}`];
  const workload = '10,000-node chain seeded dependents first, its leaf missing: every node fails by Cascade, messages carried up';
  await measure(workload, chain, Object.keys(chain));
}

export const benchmarks: Array<{ name: string; run(): Promise<void> }> = [
  { name: 'reconcile: 10,000-node random DAG to fixpoint', run: randomDagFixpoint },
  { name: 'reconcile: 10,000-node chain failing by Cascade', run: missingLeafCascade },
];
