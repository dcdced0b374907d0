// Leader election against a real kube-apiserver, through the test's proxy (test/real/proxy.ts),
// which holds the Lease's renewals unanswered as an overloaded API server would: `podplan run`
// loses its Lease at the renew deadline, stops scheduling, takes the Lease back once the API server
// answers and finishes its work; stopped while it does not hold the Lease, it says what it left and
// does not exit 0. Short lease timings (from --config) keep each step to a few seconds.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, node, pod, startRealCluster, type RealCluster, type Spawned } from './cluster';
import { startFaultProxy, type FaultProxy } from './proxy';

describe('real kube-apiserver: podplan run losing its Lease', function () {
  this.timeout(180_000);
  let cluster: RealCluster;

  before(async () => {
    cluster = await startRealCluster();
    await cluster.apply(node('lease-a', { cpu: '8', memory: '32Gi', pods: '110' }));
  });
  after(async () => {
    await cluster?.stop();
  });

  /** A configuration whose Lease is `name`, renewed every second within a 5 s deadline. */
  const config = (name: string) => {
    const file = join(cluster.dir, `${name}.yaml`);
    writeFileSync(
      file,
      `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: podplan
leaderElection:
  leaderElect: true
  resourceName: ${name}
  resourceNamespace: kube-system
  leaseDuration: 7s
  renewDeadline: 5s
  retryPeriod: 1s
`,
    );
    return file;
  };

  /** `podplan run --once` through the proxy, its metrics served; resolves once it leads and its first binding is held. */
  async function leadingRun(proxy: FaultProxy, ns: string, lease: string): Promise<{ running: Spawned; pending: () => Promise<number> }> {
    await cluster.apply(pod('first', { namespace: ns, cpu: '100m' }));
    const running = cluster.spawnPodplan([
      'run',
      '--context',
      'proxy',
      '--kubeconfig',
      proxy.kubeconfig,
      '--config',
      config(lease),
      '--once',
      '--no-history',
      '--identity',
      `${lease}-copy`,
      '--metrics-address',
      '127.0.0.1:0',
    ]);
    await running.waitFor((o) => o.stderr.includes(`${lease}-copy leads; scheduling`), 'the Lease taken');
    await running.waitFor((o) => /\/metrics on 127\.0\.0\.1:\d+/.test(o.stderr), 'the metrics listener');
    const base = `http://${/on (127\.0\.0\.1:\d+)/.exec(running.output.stderr)![1]}`;
    const pending = async () => {
      const text = await (await fetch(`${base}/metrics`)).text();
      return Number(/^scheduler_pending_pods\{queue="active"\} (\d+)$/m.exec(text)?.[1] ?? NaN);
    };
    await eventually(async () => (proxy.held.bindings > 0 ? true : undefined), 'the binding of the first pod held');
    return { running, pending };
  }

  /** Holds the Lease's renewals until the run says it lost the Lease; then adds `count` pods and waits until the run has them in its queue. */
  async function loseLease(proxy: FaultProxy, running: Spawned, pending: () => Promise<number>, ns: string, count: number) {
    const mark = running.output.stderr.length;
    proxy.hold('leaseWrites', true);
    await running.waitFor((o) => o.stderr.slice(mark).includes('lost the Lease'), 'the Lease lost', 30_000);
    await cluster.apply(...Array.from({ length: count }, (_, i) => pod(`late-${i}`, { namespace: ns, cpu: '100m' })));
    await eventually(async () => ((await pending()) === count ? true : undefined), `the ${count} new pods waiting in activeQ`);
  }

  /** Waits for the run to exit (`otherwise` called and the test failed with its output when it does not within a minute). */
  const exited = async (running: Spawned, otherwise?: () => void) => {
    await eventually(async () => (running.child.exitCode !== null ? true : undefined), 'podplan run to exit', 60_000).catch(
      (e: unknown) => {
        otherwise?.();
        throw new Error(`${String(e)}\nstderr:\n${running.output.stderr}\nstdout:\n${running.output.stdout}`);
      },
    );
    return running.stop();
  };

  it('--once takes the Lease back once its renewals are answered again, binds every pod (each once) and exits 0', async () => {
    const ns = 'retake';
    const proxy = await startFaultProxy(cluster, {}, 7, { leaseWrites: false, bindings: true });
    let running: Spawned | undefined;
    try {
      const started = await leadingRun(proxy, ns, 'retake');
      running = started.running;
      const { pending } = started;
      await loseLease(proxy, running, pending, ns, 5);
      assert.equal(await pending(), 5, 'while it does not lead, nothing leaves activeQ');
      const mark = running.output.stderr.length;
      proxy.hold('leaseWrites', false);
      await running.waitFor((o) => o.stderr.slice(mark).includes('retake-copy leads again; scheduling'), 'the Lease taken back');
      proxy.hold('bindings', false);
      const run = await exited(running);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /^6 pods bound, 0 not placed\.$/m);
      assert.ok(proxy.held.everLeaseWrites > 0);
      const listed = await cluster.pods(ns);
      assert.equal(listed.filter((p) => p.spec.nodeName === 'lease-a').length, 6);
      assert.equal(proxy.accepted.size, 6);
      assert.ok(
        [...proxy.accepted.values()].every((n) => n === 1),
        'one accepted binding per pod',
      );
    } finally {
      await running?.stop();
      await proxy.close();
    }
  });

  it('stopped while it does not hold the Lease, --once says which pods it left untried and exits 1', async () => {
    const ns = 'standby';
    const proxy = await startFaultProxy(cluster, {}, 7, { leaseWrites: false, bindings: true });
    let running: Spawned | undefined;
    try {
      const started = await leadingRun(proxy, ns, 'standby');
      running = started.running;
      await loseLease(proxy, running, started.pending, ns, 3);
      running.child.kill('SIGTERM');
      const run = await exited(running, () => running?.child.kill('SIGKILL'));
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, /stopped before trying 3 pods \(this copy did not hold the Lease: it lost it (once|\d+ times)\)/);
      // The first pod's binding was still held: aborted at the stop deadline, not bound.
      assert.match(run.stdout, /^0 pods bound, 1 not placed, 3 not tried\.$/m);
      assert.equal((await cluster.pods(ns)).filter((p) => p.spec.nodeName).length, 0);
    } finally {
      await running?.stop();
      await proxy.close();
    }
  });
});
