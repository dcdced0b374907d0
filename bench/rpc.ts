// The planner API over gRPC on loopback: what a BuildSchedulePlan call costs besides planning. The
// planner answers at once (pod i on eligible node i), so the figures are transport and encoding.
import { connectPlanner, startPlannerServer, type PlannerClient } from '../src/rpc';
import { onePodPerNode, planRequest } from '../test/rpc/harness';

const nodes = (count: number): string[] => Array.from({ length: count }, (_, i) => `worker-${String(i).padStart(5, '0')}.example.internal`);

async function onLoopback(body: (client: PlannerClient) => Promise<void>): Promise<void> {
  const server = await startPlannerServer({ port: 0, planner: onePodPerNode });
  if (!server.ok) throw new Error(server.error);
  const client = connectPlanner(server.value.address, { deadlineMs: 60_000 });
  if (!client.ok) throw new Error(client.error);
  // The first call opens the connection; it is not counted.
  await client.value.buildSchedulePlan(planRequest());
  await body(client.value);
  client.value.close();
  await server.value.close();
}

/** Runs `calls` calls with at most `inFlight` at once; prints throughput and latency percentiles. */
async function measure(workload: string, eligibleNodes: number, calls: number, inFlight: number): Promise<void> {
  console.log(`workload: ${workload}`);
  const request = planRequest({ eligibleNodes: nodes(eligibleNodes) });
  await onLoopback(async (client) => {
    const latencies: number[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next++ < calls) {
        const start = performance.now();
        const answer = await client.buildSchedulePlan(request);
        if (!answer.ok) throw new Error(`${answer.error.code}: ${answer.error.message}`);
        latencies.push(performance.now() - start);
      }
    };
    const start = performance.now();
    await Promise.all(Array.from({ length: inFlight }, worker));
    const seconds = (performance.now() - start) / 1000;
    latencies.sort((a, b) => a - b);
    const at = (q: number): string =>
      `${(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN).toFixed(2)} ms`;
    console.log(
      `${calls} calls in ${seconds.toFixed(2)} s: ${Math.round(calls / seconds)} calls/s; latency p50 ${at(0.5)}, p99 ${at(0.99)}, max ${at(1)}`,
    );
  });
}

export const benchmarks: Array<{ name: string; run(): Promise<void> }> = [
  {
    name: 'rpc: BuildSchedulePlan one at a time, 1000 eligible nodes in, 1000 assignments out',
    run: () =>
      measure('500 sequential calls on loopback; request 1000 node names (~30 kB), response 1000 assignments (~40 kB)', 1000, 500, 1),
  },
  {
    name: 'rpc: BuildSchedulePlan with 100 calls in flight, 10 eligible nodes',
    run: () => measure('5000 calls on loopback, 100 in flight on one connection; 10 node names in, 10 assignments out', 10, 5000, 100),
  },
  {
    name: 'rpc: BuildSchedulePlan with 20,000 eligible nodes in, 20,000 assignments out',
    run: () =>
      measure('20 sequential calls on loopback; request 20,000 node names (~620 kB), response 20,000 assignments (~900 kB)', 20_000, 20, 1),
  },
];
