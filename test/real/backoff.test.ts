// Back-off as kube-scheduler 1.37 does it with SchedulerPopFromBackoffQ (on by default): the same
// pods and nodes given, one after the other, to the real kube-scheduler v1.37.2 and to `podplan
// run`, both configured with podInitialBackoffSeconds 8 and podMaxBackoffSeconds 16, through one
// real kube-apiserver; the FailedScheduling and Scheduled events each pod gets say the same.
//
// - Empty activeQ: a pod fails (no node of its pool), a node too small arrives (the pod, still
//   backing off, is moved to backoffQ and tried again at once), then a roomy one (again; placed).
// - Busy activeQ: pod a fails; once its back-off is over, pod b (higher priority, preemptionPolicy
//   Never) fails; a node with room for one of them arrives: a is moved to activeQ, b (backing off) to
//   backoffQ. a is tried first and takes the node; b is tried next without waiting out its back-off.
//
// podplan run runs in process on a manual clock that moves only where the test says (the 10 s that
// let a's back-off end), so a retry it makes is one its back-off did not hold. kube-scheduler runs on
// the real clock: the test waits 10 s there instead. Nothing is asserted on time.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ManualClock } from '../../src/engine/api/clock';
import { processIO, type CliIO } from '../../src/cli/io';
import { runCli } from '../../src/cli/main';
import { eventually, node, pod, priorityClass, startKubeScheduler, startRealCluster, type EventObject, type RealCluster } from './cluster';

const BACKOFF = 'podInitialBackoffSeconds: 8\npodMaxBackoffSeconds: 16\n';

/** Per pod, its FailedScheduling and Scheduled events in the order they were written, the namespace left out. */
type History = Record<string, string[]>;

describe('real kube-apiserver: back-off and popping from backoffQ, kube-scheduler v1.37.2 and podplan run', function () {
  this.timeout(300_000);
  let cluster: RealCluster;

  before(async () => {
    cluster = await startRealCluster();
    // A node of no pool, so a pod without a node of its pool is rejected by plugins (with no node at
    // all it would be an error, which backs off in the error heap, never popped early).
    await cluster.apply(node('pf-other', { cpu: '4', memory: '8Gi', pods: '110' }, { pool: 'elsewhere' }), {
      ...priorityClass('pf-high', 1000),
      preemptionPolicy: 'Never',
    });
  });
  after(async () => {
    await cluster?.stop();
  });

  const history = async (ns: string): Promise<History> => {
    const events = (await cluster.events(ns)).filter((e) => e.reason === 'FailedScheduling' || e.reason === 'Scheduled');
    const version = (e: EventObject) => Number((e.metadata as { resourceVersion?: string }).resourceVersion);
    events.sort((x, y) => version(x) - version(y));
    const out: History = {};
    for (const e of events) {
      (out[e.regarding.name] ??= []).push(
        `${e.reason}${e.series ? ` (${e.series.count} times)` : ''}: ${(e.note ?? '').replaceAll(`${ns}/`, '')}`,
      );
    }
    return out;
  };
  const until = (ns: string, check: (h: History) => boolean, what: string) =>
    eventually(async () => {
      const h = await history(ns);
      return check(h) ? h : undefined;
    }, `${what} (${ns})`);
  const count = (h: History, name: string) => h[name]?.length ?? 0;

  /** The two cases for one scheduler; `wait` lets its clock move on. */
  async function scenario(who: string, schedulerName: string, wait: (ms: number) => Promise<void>) {
    const empty = `${who}-empty`;
    const busy = `${who}-busy`;
    await cluster.apply(pod('big', { namespace: empty, schedulerName, cpu: '2', nodeSelector: { pool: 'pf-empty' } }));
    await until(empty, (h) => count(h, 'big') === 1, 'the first attempt');
    await cluster.apply(node('pf-mid', { cpu: '1500m', memory: '8Gi', pods: '110' }, { pool: 'pf-empty' }));
    await until(empty, (h) => count(h, 'big') === 2, 'the attempt on the node too small');
    await cluster.apply(node('pf-roomy', { cpu: '4', memory: '8Gi', pods: '110' }, { pool: 'pf-empty' }));
    await until(empty, (h) => h['big']?.some((e) => e.startsWith('Scheduled')) === true, 'the pod placed');

    await cluster.apply(pod('a', { namespace: busy, schedulerName, cpu: '2', nodeSelector: { pool: 'pf-busy' } }));
    await until(busy, (h) => count(h, 'a') === 1, "a's first attempt");
    await wait(10_000); // a's 8 s back-off ends
    await cluster.apply(
      pod('b', { namespace: busy, schedulerName, cpu: '2', nodeSelector: { pool: 'pf-busy' }, priorityClassName: 'pf-high' }),
    );
    await until(busy, (h) => count(h, 'b') === 1, "b's first attempt");
    await cluster.apply(node('pf-busy-roomy', { cpu: '3', memory: '8Gi', pods: '110' }, { pool: 'pf-busy' }));
    await until(busy, (h) => count(h, 'a') + count(h, 'b') === 4, 'both tried after the node arrived');
    return { empty: await history(empty), busy: await history(busy) };
  }

  /** Removes what a scenario made, so the next one meets the same cluster. */
  async function clear(who: string) {
    const names = async (ns: string) => {
      const answer = await cluster.request<{ items?: Array<{ metadata: { name: string } }> }>('GET', `/api/v1/namespaces/${ns}/pods`);
      if (!answer.body.items) throw new Error(`listing the pods of ${ns}: ${answer.status} ${answer.text}`);
      return answer.body.items.map((p) => p.metadata.name);
    };
    const spaces = [`${who}-empty`, `${who}-busy`];
    for (const ns of spaces)
      for (const name of await names(ns)) {
        const answer = await cluster.request('DELETE', `/api/v1/namespaces/${ns}/pods/${name}?gracePeriodSeconds=0`);
        if (answer.status !== 200) throw new Error(`deleting ${ns}/${name}: ${answer.status} ${answer.text}`);
      }
    for (const n of ['pf-mid', 'pf-roomy', 'pf-busy-roomy']) await cluster.request('DELETE', `/api/v1/nodes/${n}`);
    await eventually(
      async () => ((await names(spaces[0]!)).length + (await names(spaces[1]!)).length === 0 ? true : undefined),
      'the pods gone',
    );
  }

  it('the same attempts and events, with an empty activeQ and with a busy one', async () => {
    const scheduler = startKubeScheduler(cluster, 'kube-scheduler', BACKOFF);
    let kube: { empty: History; busy: History };
    try {
      kube = await scenario('kube', 'default-scheduler', (ms) => sleep(ms)).catch((e: unknown) => {
        throw new Error(`${String(e)}; kube-scheduler's log ends: ${scheduler.log().slice(-1500)}`);
      });
    } finally {
      scheduler.stop();
    }
    await clear('kube');

    const config = join(cluster.dir, 'backoff.yaml');
    writeFileSync(
      config,
      `apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n${BACKOFF}profiles:\n  - schedulerName: podplan\nleaderElection:\n  leaderElect: false\n`,
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
    const run = runCli(['run', ...cluster.admin, '--config', config, '--no-history'], io);
    let ours: { empty: History; busy: History };
    try {
      ours = await scenario('podplan', 'podplan', async (ms) => void clock.advance(ms)).catch((e: unknown) => {
        throw new Error(`${String(e)}; podplan run's output: ${output.stdout.slice(-1500)} ${output.stderr.slice(-1500)}`);
      });
    } finally {
      stop('SIGTERM');
    }
    // b is left unplaced: the run exits 1, as for any pod it could not place.
    assert.equal(await run, 1, output.stderr);

    // What kube-scheduler did: retried at once each time, the pod in activeQ first.
    const kinds = (h: History, name: string) => h[name]?.map((e) => e.split(':')[0]);
    assert.deepEqual(kinds(kube.empty, 'big'), ['FailedScheduling', 'FailedScheduling', 'Scheduled'], JSON.stringify(kube));
    assert.deepEqual(kinds(kube.busy, 'a'), ['FailedScheduling', 'Scheduled'], JSON.stringify(kube));
    assert.deepEqual(kinds(kube.busy, 'b'), ['FailedScheduling', 'FailedScheduling'], JSON.stringify(kube));
    assert.match(kube.busy['a']?.[1] ?? '', /pf-busy-roomy/);
    // podplan run: the same events, word for word.
    assert.deepEqual(ours.empty, kube.empty);
    assert.deepEqual(ours.busy, kube.busy);
  });
});
