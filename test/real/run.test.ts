// `podplan run` (the built bin/podplan.js) against a real kube-apiserver v1.37.2 and etcd: pods
// bound once; the Events and the PodScheduled condition written as kube-scheduler writes them, read
// back through the API and with the built `kubectl describe`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { node, pod, startRealCluster, eventually, type RealCluster, type EventObject, type KubeObject } from './cluster';

describe('real kube-apiserver: podplan run', function () {
  this.timeout(180_000);
  let cluster: RealCluster;

  before(async () => {
    cluster = await startRealCluster();
  });
  after(async () => {
    await cluster?.stop();
  });

  const eventsOf = async (ns: string, name: string, reason?: string): Promise<EventObject[]> =>
    (await cluster.events(ns)).filter((e) => e.regarding.name === name && (reason === undefined || e.reason === reason));

  it('binds each pod once, writes Scheduled events, and FailedScheduling with the PodScheduled condition for a pod that fits nowhere', async () => {
    const ns = 'plain';
    await cluster.apply(
      node('plain-a', { cpu: '2', memory: '8Gi', pods: '110' }, { pool: 'plain' }),
      node('plain-b', { cpu: '2', memory: '8Gi', pods: '110' }, { pool: 'plain' }),
    );
    const pods = Array.from({ length: 6 }, (_, i) => pod(`web-${i}`, { namespace: ns, cpu: '500m', nodeSelector: { pool: 'plain' } }));
    await cluster.apply(...pods, pod('huge', { namespace: ns, cpu: '3', nodeSelector: { pool: 'plain' } }));

    // The preview first: schedule --context takes the podplan pods as its own, and writes nothing.
    const preview = await cluster.podplan(['schedule', ...cluster.admin, '--no-history', '--json']);
    assert.equal(preview.code, 1, preview.stderr);
    const outcomes = preview.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; pod?: string; node?: string | null });
    const previewed = outcomes.filter((o) => o.type === 'outcome');
    assert.deepEqual(
      previewed
        .filter((o) => o.node?.startsWith('plain-'))
        .map((o) => o.pod)
        .sort(),
      pods.map((p) => `${ns}/${p.metadata.name}`).sort(),
      preview.stdout,
    );
    assert.ok(previewed.some((o) => o.pod === `${ns}/huge` && o.node === null));
    assert.ok(
      (await cluster.pods(ns)).every((p) => !p.spec.nodeName),
      'the preview bound nothing',
    );

    // snapshot writes what the other commands read back, from the real server's objects.
    const snapshotDir = join(cluster.dir, 'snapshot');
    const snapshot = await cluster.podplan(['snapshot', ...cluster.admin, '-o', snapshotDir]);
    assert.equal(snapshot.code, 0, snapshot.stderr);
    assert.match(readFileSync(join(snapshotDir, 'nodes.yaml'), 'utf8'), /name: plain-a/);
    const snapshotPods = readFileSync(join(snapshotDir, ns, 'pods.yaml'), 'utf8');
    for (const p of [...pods.map((x) => x.metadata.name), 'huge']) assert.match(snapshotPods, new RegExp(`name: ${p}\\n`));

    const run = await cluster.podplan(['run', ...cluster.admin, '--once', '--no-history', '--lease-namespace', 'kube-system']);
    assert.equal(run.code, 1, run.stderr);
    for (let i = 0; i < 6; i++)
      assert.equal(run.stdout.split('\n').filter((l) => l.startsWith(`bound ${ns}/web-${i} to `)).length, 1, run.stdout);

    const listed = await cluster.pods(ns);
    const byName = new Map(listed.map((p) => [p.metadata.name, p]));
    for (let i = 0; i < 6; i++) {
      const p = byName.get(`web-${i}`)!;
      assert.ok(p.spec.nodeName?.startsWith('plain-'), `web-${i} bound`);
      const scheduled = await eventually(async () => {
        const e = await eventsOf(ns, `web-${i}`, 'Scheduled');
        return e.length > 0 ? e : undefined;
      }, `the Scheduled event of web-${i}`);
      assert.equal(scheduled.length, 1);
      assert.equal(scheduled[0]!.note, `Successfully assigned ${ns}/web-${i} to ${p.spec.nodeName}`);
      assert.equal(scheduled[0]!.action, 'Binding');
      assert.equal(scheduled[0]!.type, 'Normal');
      assert.equal(scheduled[0]!.reportingController, 'podplan');
      assert.match(scheduled[0]!.reportingInstance, /^podplan-/);
      assert.equal(scheduled[0]!.regarding.uid, p.metadata.uid);
    }

    const message =
      '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.';
    const huge = byName.get('huge')!;
    assert.equal(huge.spec.nodeName, undefined);
    const condition = huge.status?.conditions?.find((c) => c.type === 'PodScheduled');
    assert.deepEqual(
      {
        status: condition?.status,
        reason: condition?.reason,
        message: condition?.message,
        observedGeneration: condition?.observedGeneration,
      },
      { status: 'False', reason: 'Unschedulable', message, observedGeneration: huge.metadata.generation },
    );
    // One per try, at most two objects (a second try after the condition patch names the pod's new resourceVersion).
    const failed = await eventsOf(ns, 'huge', 'FailedScheduling');
    assert.ok(failed.length >= 1 && failed.length <= 2, `${failed.length} FailedScheduling events`);
    for (const e of failed)
      assert.deepEqual(
        { type: e.type, action: e.action, note: e.note, controller: e.reportingController },
        { type: 'Warning', action: 'Scheduling', note: message, controller: 'podplan' },
      );

    const describe = await cluster.kubectl(['describe', 'pod', '-n', ns, 'huge']);
    assert.equal(describe.code, 0, describe.stderr);
    assert.match(describe.stdout, /PodScheduled\s+False/);
    assert.match(
      describe.stdout,
      /Warning\s+FailedScheduling\s+\S+\s+podplan\s+0\/2 nodes are available: 2 Insufficient cpu\. preemption:/,
    );
    const bound = await cluster.kubectl(['describe', 'pod', '-n', ns, 'web-0']);
    assert.match(bound.stdout, new RegExp(`Normal\\s+Scheduled\\s+\\S+\\s+podplan\\s+Successfully assigned ${ns}/web-0 to plain-`));
  });

  it('cuts a FailedScheduling note at 1,024 bytes as upstream, keeps the full message in the condition, and folds repeated failures into an event series', async () => {
    const ns = 'long';
    // 30 extended resources no node has: the message names 30 distinct reasons.
    const extended = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [`example.com/accelerator-${String(i).padStart(2, '0')}`, '1']),
    );
    await cluster.apply(pod('picky', { namespace: ns, cpu: '100m', extended }));
    const running = cluster.spawnPodplan(['run', ...cluster.admin, '--no-history', '--identity', 'long-test']);
    try {
      await running.waitFor((o) => o.stdout.includes(`not placed ${ns}/picky`), 'the first failure');
      const first = await eventually(async () => (await eventsOf(ns, 'picky', 'FailedScheduling'))[0], 'the FailedScheduling event');
      const pickyPod = (await cluster.pods(ns)).find((p) => p.metadata.name === 'picky')!;
      const full = await eventually(
        async () =>
          (await cluster.pods(ns)).find((p) => p.metadata.name === 'picky')?.status?.conditions?.find((c) => c.type === 'PodScheduled')
            ?.message,
        'the condition',
      );
      assert.ok(full.length > 1024, `the message is ${full.length} long`);
      assert.ok(full.startsWith('0/'), full);
      assert.equal(Buffer.byteLength(first.note ?? ''), 1024);
      assert.equal(first.note, `${full.slice(0, 1020)} ...`);
      assert.equal(pickyPod.status?.conditions?.find((c) => c.type === 'PodScheduled')?.reason, 'Unschedulable');

      // Each deletion of a bound pod wakes the pod; it fails again with the same message.
      const attempts = () => running.output.stdout.split('\n').filter((l) => l.startsWith(`not placed ${ns}/picky:`)).length;
      for (let i = 0; attempts() < 4 && i < 30; i++) {
        const filler = pod(`filler-${i}`, { namespace: ns, nodeName: 'plain-a', schedulerName: 'default-scheduler' });
        await cluster.apply(filler);
        await cluster.request('DELETE', `/api/v1/namespaces/${ns}/pods/filler-${i}`);
        const before = attempts();
        await eventually(async () => (attempts() > before ? true : undefined), 'another attempt', 15_000).catch(() => undefined);
      }
      const tries = attempts();
      assert.ok(tries >= 4, `tried ${tries} times`);
      // The first failure's event, then (the condition patch changed the pod's resourceVersion, which
      // the event's regarding names) one more that becomes a series of 2: never one object per try.
      const series = await eventually(async () => {
        const events = await eventsOf(ns, 'picky', 'FailedScheduling');
        return events.some((e) => e.series?.count === 2) ? events : undefined;
      }, 'an event series');
      assert.equal(series.length, 2, JSON.stringify(series.map((e) => e.series)));
      const describe = await cluster.kubectl(['describe', 'pod', '-n', ns, 'picky']);
      assert.match(describe.stdout, /Warning\s+FailedScheduling\s+\S+ \(x2 over \S+\)\s+podplan/);
    } finally {
      await running.stop();
    }
  });

  it("pod sets: dependsOn with requireReady holds a set until its dependency's pods are Ready; a late pod is placed at once; each bound once", async () => {
    const ns = 'sets';
    const crds = await cluster.podplan(['install-crds', ...cluster.admin]);
    assert.equal(crds.code, 0, crds.stderr);
    await eventually(
      async () => ((await cluster.request('GET', '/apis/planner.ciena.io/v1alpha1')).status === 200 ? true : undefined),
      'the planner API served',
    );
    await cluster.apply(node('sets-a', { cpu: '4', memory: '16Gi', pods: '110' }, { pool: 'sets' }));
    const member = (name: string, set: string) =>
      pod(name, {
        namespace: ns,
        schedulerName: 'podset-planner-scheduler',
        cpu: '500m',
        nodeSelector: { pool: 'sets' },
        labels: { 'planner.ciena.io/pod-set': set },
      });
    const trigger = (name: string, spec: Record<string, unknown>): KubeObject => ({
      apiVersion: 'planner.ciena.io/v1alpha1',
      kind: 'ScheduleTrigger',
      metadata: { name, namespace: ns, labels: { 'planner.ciena.io/pod-set': name } },
      spec,
    });
    await cluster.apply(
      trigger('db', { state: 'Schedule' }),
      trigger('web', { state: 'Schedule', dependsOn: [{ name: 'db' }], requireReady: true }),
      member('db-0', 'db'),
      member('db-1', 'db'),
      member('web-0', 'web'),
    );
    const running = cluster.spawnPodplan([
      'run',
      ...cluster.admin,
      '--no-history',
      '--identity',
      'sets-test',
      '--lease-namespace',
      'kube-system',
    ]);
    try {
      const nodeOf = async (name: string) => (await cluster.pods(ns)).find((p) => p.metadata.name === name)?.spec.nodeName;
      await eventually(async () => ((await nodeOf('db-0')) && (await nodeOf('db-1')) ? true : undefined), 'the db set bound');
      await running.waitFor(
        (o) => o.stderr.includes(`ScheduleTrigger ${ns}/web waits for ScheduleTrigger/${ns}/db (their pods Ready)`),
        'web held',
      );
      assert.equal(await nodeOf('web-0'), undefined, 'web is held while db is bound but not Ready');
      // Play the kubelet: the db pods become Ready.
      for (const name of ['db-0', 'db-1']) {
        const patched = await cluster.request(
          'PATCH',
          `/api/v1/namespaces/${ns}/pods/${name}/status`,
          { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } },
          'application/merge-patch+json',
        );
        assert.equal(patched.status, 200, patched.text);
      }
      await eventually(async () => ((await nodeOf('web-0')) ? true : undefined), 'web bound once db is Ready');
      // A late pod of a planned set is placed at once.
      await cluster.apply(member('db-2', 'db'));
      await eventually(async () => ((await nodeOf('db-2')) ? true : undefined), 'the late pod bound');
      // A plan is written once it settles (planWriteDelayMs), which can be after its pods are bound.
      const listPlans = () =>
        cluster.request<{ items: Array<{ metadata: { name: string } }> }>(
          'GET',
          `/apis/planner.ciena.io/v1alpha1/namespaces/${ns}/scheduleplans`,
        );
      await eventually(async () => ((await listPlans()).body.items.length >= 2 ? true : undefined), "both sets' plans written").catch(
        () => undefined,
      );
      const plans = await listPlans();
      assert.equal(plans.body.items.length, 2, JSON.stringify(plans.body.items.map((p) => p.metadata.name)));
    } finally {
      const stopped = await running.stop();
      for (const p of ['db-0', 'db-1', 'db-2', 'web-0'])
        assert.equal(stopped.stdout.split('\n').filter((l) => l.startsWith(`bound ${ns}/${p} to `)).length, 1, stopped.stdout);
    }
  });

  it('claim: two claimers racing for a warm pool through the real API server get six different pods', async () => {
    const ns = 'pool';
    await cluster.apply(node('pool-a', { cpu: '4', memory: '16Gi', pods: '110' }));
    const idle = (name: string): KubeObject => {
      const base = pod(name, { namespace: ns, nodeName: 'pool-a', labels: { 'planner.ciena.io/pool': 'warm' } }) as KubeObject & {
        metadata: Record<string, unknown>;
      };
      return { ...base, metadata: { ...base.metadata, annotations: { 'planner.ciena.io/phase': 'Idle' } } };
    };
    await cluster.apply(...Array.from({ length: 6 }, (_, i) => idle(`warm-${i}`)));
    const claim = () => cluster.podplan(['claim', ...cluster.admin, '--pool', 'warm', '--count', '3', '-n', ns, '--no-history']);
    const [a, b] = await Promise.all([claim(), claim()]);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    const pods = await cluster.pods(ns);
    const annotations = pods.map((p) => (p.metadata as { annotations?: Record<string, string> }).annotations ?? {});
    assert.ok(
      annotations.every((x) => x['planner.ciena.io/phase'] === 'Starting' && x['planner.ciena.io/claimed-by']),
      JSON.stringify(annotations),
    );
    const named = (out: string) => [...out.matchAll(/warm-\d/g)].map((m) => m[0]);
    const claimed = [...named(a.stdout), ...named(b.stdout)];
    assert.equal(claimed.length, 6, `${a.stdout}\n${b.stdout}`);
    assert.equal(new Set(claimed).size, 6, 'no pod handed out twice');
  });
});
