// Preemption for real, against kube-apiserver v1.37.2: the victims get the DisruptionTarget
// condition and are deleted, the preemptor is nominated, held on that node while a victim is still
// terminating, and bound there once the room is free.
import assert from 'node:assert/strict';
import { eventually, node, pod, priorityClass, startRealCluster, type KubeObject, type RealCluster } from './cluster';

describe('real kube-apiserver: preemption by podplan run', function () {
  this.timeout(180_000);
  let cluster: RealCluster;

  before(async () => {
    cluster = await startRealCluster();
  });
  after(async () => {
    await cluster?.stop();
  });

  it('marks and deletes the victims, nominates the preemptor, and binds it once the last victim is gone', async () => {
    const ns = 'prem';
    await cluster.apply(priorityClass('low', 100), priorityClass('high', 1000), node('prem-a', { cpu: '2', memory: '8Gi', pods: '110' }));
    // A finalizer holds one victim in Terminating until the test lets it go.
    const held = pod('low-held', { namespace: ns, cpu: '900m', nodeName: 'prem-a', priorityClassName: 'low' }) as KubeObject & {
      metadata: Record<string, unknown>;
    };
    await cluster.apply(
      { ...held, metadata: { ...held.metadata, finalizers: ['podplan.test/hold'] } },
      pod('low-free', { namespace: ns, cpu: '900m', nodeName: 'prem-a', priorityClassName: 'low' }),
    );
    await cluster.apply(pod('urgent', { namespace: ns, cpu: '1500m', priorityClassName: 'high' }));

    const running = cluster.spawnPodplan([
      'run',
      ...cluster.admin,
      '--no-history',
      '--identity',
      'prem-test',
      '--metrics-address',
      '127.0.0.1:0',
    ]);
    try {
      await running.waitFor((o) => /serving \/livez, \/readyz and \/metrics on 127\.0\.0\.1:\d+/.test(o.stderr), 'the metrics listener');
      const base = `http://${/on (127\.0\.0\.1:\d+)/.exec(running.output.stderr)![1]}`;
      const urgent = await eventually(async () => {
        const p = (await cluster.pods(ns)).find((x) => x.metadata.name === 'urgent');
        return p?.status?.nominatedNodeName ? p : undefined;
      }, 'the preemptor nominated');
      assert.equal(urgent.status?.nominatedNodeName, 'prem-a');
      assert.equal(urgent.spec.nodeName, undefined);

      const victim = await eventually(async () => {
        const p = (await cluster.pods(ns)).find((x) => x.metadata.name === 'low-held');
        return p?.metadata.deletionTimestamp ? p : undefined;
      }, 'the held victim terminating');
      const target = victim.status?.conditions?.find((c) => c.type === 'DisruptionTarget');
      assert.deepEqual(
        { status: target?.status, reason: target?.reason, message: target?.message },
        { status: 'True', reason: 'PreemptionByScheduler', message: 'podplan: preempting to accommodate a higher priority pod' },
      );
      await eventually(
        async () => ((await cluster.pods(ns)).some((x) => x.metadata.name === 'low-free') ? undefined : true),
        'the other victim deleted',
      );

      const preempted = await eventually(async () => {
        const events = (await cluster.events(ns)).filter((e) => e.reason === 'Preempted');
        return events.length === 2 ? events : undefined;
      }, 'two Preempted events');
      for (const e of preempted) {
        assert.equal(e.note, `Preempted by pod ${urgent.metadata.uid} on node prem-a`);
        assert.equal(e.action, 'Preempting');
        assert.equal(e.related?.name, 'urgent');
      }
      const failed = (await cluster.events(ns)).filter((e) => e.reason === 'FailedScheduling' && e.regarding.name === 'urgent');
      assert.ok(failed.length >= 1);
      const condition = urgent.status?.conditions?.find((c) => c.type === 'PodScheduled');
      assert.equal(condition?.reason, 'Unschedulable');
      assert.match(condition?.message ?? '', /^0\/1 nodes are available: 1 Insufficient cpu\. preemption: /);
      // Still terminating: the preemptor waits for the room.
      assert.equal((await cluster.pods(ns)).find((x) => x.metadata.name === 'urgent')?.spec.nodeName, undefined);

      await cluster.request(
        'PATCH',
        `/api/v1/namespaces/${ns}/pods/low-held`,
        { metadata: { finalizers: null } },
        'application/merge-patch+json',
      );
      const bound = await eventually(
        async () => (await cluster.pods(ns)).find((x) => x.metadata.name === 'urgent' && x.spec.nodeName),
        'the preemptor bound',
      );
      assert.equal(bound.spec.nodeName, 'prem-a');
      await eventually(
        async () => ((await cluster.events(ns)).some((e) => e.reason === 'Scheduled' && e.regarding.name === 'urgent') ? true : undefined),
        'its Scheduled event',
      );
      const describe = await cluster.kubectl(['describe', 'pod', '-n', ns, 'urgent']);
      assert.match(describe.stdout, /Normal\s+Scheduled\s+\S+\s+podplan\s+Successfully assigned prem\/urgent to prem-a/);

      // Health and metrics, with kube-scheduler's names.
      assert.equal((await fetch(`${base}/livez`)).status, 200);
      const ready = await fetch(`${base}/readyz`);
      assert.equal(ready.status, 200, await ready.text());
      const metrics = await (await fetch(`${base}/metrics`)).text();
      assert.match(metrics, /^scheduler_schedule_attempts_total\{result="scheduled",profile="podplan"\} 1$/m);
      assert.match(metrics, /^scheduler_schedule_attempts_total\{result="unschedulable",profile="podplan"\} [1-9]\d*$/m);
      assert.match(metrics, /^scheduler_preemption_attempts_total [1-9]\d*$/m);
      assert.match(metrics, /^scheduler_preemption_victims_sum 2$/m);
      assert.match(metrics, /^scheduler_pending_pods\{queue="active"\} 0$/m);
      assert.match(metrics, /^scheduler_pod_scheduling_sli_duration_seconds_count\{attempts="\d+"\} 1$/m);
      assert.match(metrics, /^scheduler_scheduling_attempt_duration_seconds_bucket\{le="\+Inf",result="scheduled",profile="podplan"\} 1$/m);
      assert.match(metrics, /^process_cpu_seconds_total /m);
    } catch (e) {
      // The failure as it happened, with what podplan printed (the check below would hide it).
      const stopped = await running.stop();
      throw new Error(`${e instanceof Error ? e.message : String(e)}\npodplan printed:\n${stopped.stdout}\n${stopped.stderr}`, {
        cause: e,
      });
    }
    const stopped = await running.stop();
    assert.equal(stopped.stdout.split('\n').filter((l) => l.startsWith(`bound ${ns}/urgent to `)).length, 1, stopped.stdout);
  });
});
