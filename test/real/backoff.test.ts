// `podplan run --config` with podInitialBackoffSeconds / podMaxBackoffSeconds, in process against a
// real kube-apiserver v1.37.2 on a manual clock: the live queue keeps a pod that failed in backoffQ
// for the configured times (8 s after the first attempt, then 12 s, not 16), even when a node that
// could take it arrives meanwhile, each to the end of the whole second its back-off expires in, as
// upstream's backoffQueue (alignToWindow, isEntityBackingoff; flushes on whole seconds). The clock
// starts on a whole second. Time moves only when the test moves it; what the queue holds is read
// from /metrics (scheduler_pending_pods) and the attempts from the run's output.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock } from '../../src/engine/api/clock';
import { processIO, type CliIO } from '../../src/cli/io';
import { runCli } from '../../src/cli/main';
import { eventually, node, pod, startRealCluster, type RealCluster } from './cluster';

describe('real kube-apiserver: podplan run --config back-off seconds', function () {
  this.timeout(180_000);
  let cluster: RealCluster;

  before(async () => {
    cluster = await startRealCluster();
  });
  after(async () => {
    await cluster?.stop();
  });

  it('a failed pod waits podInitialBackoffSeconds, then at most podMaxBackoffSeconds, in backoffQ before it is tried again', async () => {
    const ns = 'backoff';
    const config = join(cluster.dir, 'backoff.yaml');
    writeFileSync(
      config,
      `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
podInitialBackoffSeconds: 8
podMaxBackoffSeconds: 12
profiles:
  - schedulerName: podplan
leaderElection:
  leaderElect: false
`,
    );
    await cluster.apply(
      node('bo-small', { cpu: '1', memory: '8Gi', pods: '110' }, { pool: 'backoff' }),
      pod('big', { namespace: ns, cpu: '2', nodeSelector: { pool: 'backoff' } }),
    );
    const clock = new ManualClock(Math.ceil(Date.now() / 1000) * 1000);
    const output = { stdout: '', stderr: '' };
    let stop: (signal: string) => void = () => undefined;
    const stopped = new Promise<string>((resolve) => (stop = resolve));
    const io: CliIO = {
      ...processIO,
      stdout: (t) => void (output.stdout += t),
      stderr: (t) => void (output.stderr += t),
      env: {},
      interactive: false,
      clock,
      stopSignal: () => stopped,
    };
    const run = runCli(['run', ...cluster.admin, '--config', config, '--no-history', '--metrics-address', '127.0.0.1:0'], io);
    try {
      const attempts = () => output.stdout.split('\n').filter((l) => l.startsWith(`not placed ${ns}/big:`)).length;
      const waitOutput = (what: string, check: () => boolean) => eventually(async () => (check() ? true : undefined), what);
      await waitOutput('the metrics listener', () => /\/metrics on 127\.0\.0\.1:\d+/.test(output.stderr));
      const base = `http://${/on (127\.0\.0\.1:\d+)/.exec(output.stderr)![1]}`;
      const queue = async () => {
        const text = await (await fetch(`${base}/metrics`)).text();
        const count = (name: string) => Number(new RegExp(`^scheduler_pending_pods\\{queue="${name}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
        return { active: count('active'), backoff: count('backoff'), unschedulable: count('unschedulable') };
      };
      const inBackoff = async (what: string) => {
        const q = await eventually(async () => {
          const now = await queue();
          return now.backoff === 1 ? now : undefined;
        }, what);
        assert.deepEqual(q, { active: 0, backoff: 1, unschedulable: 0 }, what);
      };

      // Attempt 1 at t0: no node fits.
      await waitOutput('the first attempt', () => attempts() === 1);
      clock.advance(2_000);
      // A node arrives at t0+2 s that lets the pod try again (still too small): the pod goes to
      // backoffQ, not activeQ, as its 8 s have not passed (the default 1 s would have).
      await cluster.apply(node('bo-mid', { cpu: '1500m', memory: '8Gi', pods: '110' }, { pool: 'backoff' }));
      await inBackoff('the pod in backoffQ after the node arrived');
      clock.advance(5_500); // t0+7.5 s: the queue flushed backoffQ every second; the pod stays
      assert.deepEqual(await queue(), { active: 0, backoff: 1, unschedulable: 0 }, 'still backing off at t0+7.5 s');
      assert.equal(attempts(), 1);
      clock.advance(1_000); // t0+8.5 s: its expiry, t0+8 s, is in the current second; the pod stays
      assert.deepEqual(await queue(), { active: 0, backoff: 1, unschedulable: 0 }, 'still backing off at t0+8.5 s');
      assert.equal(attempts(), 1);
      clock.advance(1_000); // t0+9.5 s: released at the t0+9 s flush, tried at once
      await waitOutput('the second attempt', () => attempts() === 2);

      // Attempt 2 at t1 = t0+9.5 s: its back-off is min(2 × 8, 12) = 12 s, to t0+21.5 s, in second t0+21.
      clock.advance(1_000);
      await cluster.apply(node('bo-roomy', { cpu: '4', memory: '8Gi', pods: '110' }, { pool: 'backoff' }));
      await inBackoff('the pod in backoffQ after the roomy node arrived');
      clock.advance(10_500); // t1+11.5 s: past the default maximum (10 s); the pod stays
      assert.deepEqual(await queue(), { active: 0, backoff: 1, unschedulable: 0 }, 'still backing off at t1+11.5 s');
      assert.doesNotMatch(output.stdout, /^bound /m);
      clock.advance(1_000); // t1+12.5 s: released at the t0+22 s flush (16 s would hold it until t1+16 s)
      await waitOutput('the pod bound', () => output.stdout.includes(`bound ${ns}/big to bo-roomy`));
      assert.equal(attempts(), 2);
    } finally {
      stop('SIGTERM');
      await run;
    }
    assert.equal(await run, 0, output.stderr);
    assert.equal((await cluster.pods(ns)).find((p) => p.metadata.name === 'big')?.spec.nodeName, 'bo-roomy');
  });
});
