// Queueing hints as kube-scheduler 1.37 has them (SchedulerQueueingHints, GA): the same nodes, pods
// and node changes given, one after the other, to the real kube-scheduler v1.37.2 and to `podplan
// run`, through one real kube-apiserver; the events each pod gets and the counts of
// scheduler_queue_incoming_pods_total (by queue and event) are the same.
//
// - Pod `sel` (nodeSelector hint=sel) fails: the only nodes are `sel-node` (hint=other) and
//   `taint-node` (hint=taint, tainted). Then on sel-node: an annotation changes
//   (Node/UpdateNodeAnnotation: no plugin of the pod registered it), a label is added that its
//   selector does not read (Node/UpdateNodeLabel: NodeAffinity's hint says QueueSkip), then hint=sel
//   (NodeAffinity's hint: Queue). It is tried once more, from backoffQ, and placed.
// - Pod `taint` (nodeSelector hint=taint) fails with `sel`: NodeAffinity and TaintToleration reject
//   it. sel-node's label changes do not move it (NodeAffinity's hint: sel-node does not match its
//   selector); the taint's removal does (TaintToleration's hint: Queue), and it is placed.
// - Pod `room` (2 cpu, nodeSelector hint=room) fails: `room-node` has 1 cpu left beside a bound pod
//   `filler`. The filler's labels change (AssignedPod/UpdatePodLabel: not registered by
//   NodeResourcesFit), then it is deleted (AssignedPod/Delete: NodeResourcesFit's hint: Queue).
//
// Both run with podInitialBackoffSeconds 8, so a pod moved within 8 s of its failure goes to backoffQ
// (backoff/NodeUpdateNodeLabel) and, activeQ being empty, is popped from it (active/PopFromBackoffQ).
// podplan run runs in process on a manual clock that does not move; kube-scheduler on the real clock,
// where the whole scenario takes well under 8 s. Nothing is asserted on time.
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock } from '../../src/engine/api/clock';
import { processIO, type CliIO } from '../../src/cli/io';
import { runCli } from '../../src/cli/main';
import {
  eventually,
  freePort,
  node,
  pod,
  startKubeScheduler,
  startRealCluster,
  type EventObject,
  type KubeObject,
  type RealCluster,
} from './cluster';

const BACKOFF = 'podInitialBackoffSeconds: 8\npodMaxBackoffSeconds: 16\n';

/** Per pod, its FailedScheduling and Scheduled events in the order they were written. */
type History = Record<string, string[]>;

/** scheduler_queue_incoming_pods_total by `queue/event`. */
type Incoming = Record<string, number>;

function incomingOf(metrics: string): Incoming {
  const out: Incoming = {};
  for (const m of metrics.matchAll(/^scheduler_queue_incoming_pods_total\{([^}]*)\} (\d+)$/gm)) {
    const labels = Object.fromEntries([...(m[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    out[`${labels['queue']}/${labels['event']}`] = Number(m[2]);
  }
  return out;
}

/** kube-scheduler's /metrics over HTTPS (its self-signed certificate). */
function kubeMetrics(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port, path: '/metrics', rejectUnauthorized: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (t: string) => (body += t));
      res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`/metrics: ${res.statusCode} ${body}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('real kube-apiserver: queueing hints, kube-scheduler v1.37.2 and podplan run', function () {
  this.timeout(300_000);
  let cluster: RealCluster;

  before(async () => {
    cluster = await startRealCluster();
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
  const placed = (h: History, name: string) => h[name]?.some((e) => e.startsWith('Scheduled')) === true;
  const patchNode = async (name: string, patch: unknown) => {
    const answer = await cluster.request('PATCH', `/api/v1/nodes/${name}`, patch, 'application/merge-patch+json');
    if (answer.status !== 200) throw new Error(`patching node ${name}: ${answer.status} ${answer.text}`);
  };

  /** The scenario for one scheduler. */
  async function scenario(ns: string, schedulerName: string): Promise<History> {
    const tainted: KubeObject = {
      ...node('taint-node', { cpu: '4', memory: '8Gi', pods: '110' }, { hint: 'taint' }),
      spec: { taints: [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }] },
    };
    await cluster.apply(node('sel-node', { cpu: '4', memory: '8Gi', pods: '110' }, { hint: 'other' }), tainted);
    await cluster.apply(
      pod('sel', { namespace: ns, schedulerName, nodeSelector: { hint: 'sel' } }),
      pod('taint', { namespace: ns, schedulerName, nodeSelector: { hint: 'taint' } }),
    );
    await until(ns, (h) => h['sel']?.length === 1 && h['taint']?.length === 1, 'the first attempts');
    await patchNode('sel-node', { metadata: { annotations: { note: 'unrelated' } } });
    await patchNode('sel-node', { metadata: { labels: { unrelated: 'yes' } } });
    await patchNode('sel-node', { metadata: { labels: { hint: 'sel' } } });
    await until(ns, (h) => placed(h, 'sel'), 'sel placed');
    await patchNode('taint-node', { spec: { taints: null } });
    await until(ns, (h) => placed(h, 'taint'), 'taint placed');

    // Room: a bound pod relabelled frees nothing (AssignedPod/UpdatePodLabel: NodeResourcesFit did
    // not register it); its deletion does (AssignedPod/Delete: NodeResourcesFit's hint says Queue).
    await cluster.apply(
      node('room-node', { cpu: '4', memory: '8Gi', pods: '110' }, { hint: 'room' }),
      pod('filler', { namespace: ns, schedulerName, cpu: '3', nodeName: 'room-node' }),
    );
    await cluster.apply(pod('room', { namespace: ns, schedulerName, cpu: '2', nodeSelector: { hint: 'room' } }));
    await until(ns, (h) => h['room']?.length === 1, "room's first attempt");
    const relabelled = await cluster.request(
      'PATCH',
      `/api/v1/namespaces/${ns}/pods/filler`,
      { metadata: { labels: { seen: 'yes' } } },
      'application/merge-patch+json',
    );
    if (relabelled.status !== 200) throw new Error(`relabelling filler: ${relabelled.status} ${relabelled.text}`);
    const deleted = await cluster.request('DELETE', `/api/v1/namespaces/${ns}/pods/filler?gracePeriodSeconds=0`);
    if (deleted.status !== 200) throw new Error(`deleting filler: ${deleted.status} ${deleted.text}`);
    return until(ns, (h) => placed(h, 'room'), 'room placed');
  }

  /** Removes the nodes a scenario made (its pods go with its namespace's end of use), so the next one meets the same cluster. */
  async function clear(ns: string) {
    for (const name of ['sel', 'taint', 'room'])
      await cluster.request('DELETE', `/api/v1/namespaces/${ns}/pods/${name}?gracePeriodSeconds=0`);
    for (const n of ['sel-node', 'taint-node', 'room-node']) await cluster.request('DELETE', `/api/v1/nodes/${n}`);
    await eventually(async () => ((await cluster.pods(ns)).length === 0 ? true : undefined), 'the pods gone');
  }

  it('the same retries and the same scheduler_queue_incoming_pods_total', async () => {
    const port = await freePort();
    const scheduler = startKubeScheduler(cluster, 'hints-kube-scheduler', BACKOFF, port);
    let kube: History;
    let kubeIncoming: Incoming;
    try {
      kube = await scenario('kube-hints', 'default-scheduler').catch((e: unknown) => {
        throw new Error(`${String(e)}; kube-scheduler's log ends: ${scheduler.log().slice(-1500)}`);
      });
      kubeIncoming = await eventually(async () => incomingOf(await kubeMetrics(port)), "kube-scheduler's metrics");
    } finally {
      scheduler.stop();
    }
    await clear('kube-hints');

    const config = join(cluster.dir, 'hints.yaml');
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
    const run = runCli(['run', ...cluster.admin, '--config', config, '--no-history', '--metrics-address', '127.0.0.1:0'], io);
    let ours: History;
    let ourIncoming: Incoming;
    try {
      const base = await eventually(
        async () => /serving \/livez, \/readyz and \/metrics on (127\.0\.0\.1:\d+)/.exec(output.stderr)?.[1],
        'the metrics listener',
      );
      ours = await scenario('podplan-hints', 'podplan').catch((e: unknown) => {
        throw new Error(`${String(e)}; podplan run's output: ${output.stdout.slice(-1500)} ${output.stderr.slice(-1500)}`);
      });
      ourIncoming = incomingOf(await (await fetch(`http://${base}/metrics`)).text());
    } finally {
      stop('SIGTERM');
    }
    assert.equal(await run, 0, output.stderr);

    // What kube-scheduler did: each pod tried twice (the unrelated changes moved neither), the second
    // time popped from backoffQ after the change that matters.
    const kinds = (h: History, name: string) => h[name]?.map((e) => e.split(':')[0]);
    assert.deepEqual(kinds(kube, 'sel'), ['FailedScheduling', 'Scheduled'], JSON.stringify(kube));
    assert.deepEqual(kinds(kube, 'taint'), ['FailedScheduling', 'Scheduled'], JSON.stringify(kube));
    assert.deepEqual(kinds(kube, 'room'), ['FailedScheduling', 'Scheduled'], JSON.stringify(kube));
    assert.deepEqual(
      kubeIncoming,
      {
        'active/UnscheduledPodAdd': 3,
        'unschedulable/ScheduleAttemptFailure': 3,
        'backoff/NodeUpdateNodeLabel': 1,
        'backoff/NodeUpdateNodeTaint': 1,
        'backoff/AssignedPodDelete': 1,
        'active/PopFromBackoffQ': 3,
      },
      JSON.stringify(kubeIncoming),
    );
    // podplan run: the same events, word for word, and the same counts.
    assert.deepEqual(ours, kube);
    assert.deepEqual(ourIncoming, kubeIncoming);
  });
});
