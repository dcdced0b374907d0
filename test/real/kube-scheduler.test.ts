// The same unschedulable pods given to the real kube-scheduler v1.37.2 and to podplan run, through
// the same kube-apiserver: the FailedScheduling events and PodScheduled conditions say the same.
import assert from 'node:assert/strict';
import {
  eventually,
  node,
  pod,
  priorityClass,
  startKubeScheduler,
  startRealCluster,
  type KubeObject,
  type PodInit,
  type RealCluster,
} from './cluster';

describe('real kube-apiserver: kube-scheduler and podplan run say the same', function () {
  this.timeout(240_000);
  let cluster: RealCluster;

  before(async () => {
    cluster = await startRealCluster();
  });
  after(async () => {
    await cluster?.stop();
  });

  it('FailedScheduling notes and PodScheduled messages are equal for pods that fit nowhere', async () => {
    const tainted: KubeObject = {
      ...node('ks-tainted', { cpu: '4', memory: '16Gi', pods: '110' }, { zone: 'b' }),
      spec: { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] },
    };
    await cluster.apply(
      priorityClass('ks-low', 1),
      node('ks-small', { cpu: '1', memory: '2Gi', pods: '110' }, { zone: 'a' }),
      node('ks-big', { cpu: '4', memory: '16Gi', pods: '110' }, { zone: 'a' }),
      tainted,
      { ...node('ks-cordoned', { cpu: '4', memory: '16Gi', pods: '110' }, { zone: 'c' }), spec: { unschedulable: true } },
    );
    // Room the pods below could take by preemption, for the second case.
    await cluster.apply(
      pod('ks-filler', {
        namespace: 'ks-fill',
        cpu: '3',
        nodeName: 'ks-big',
        priorityClassName: 'ks-low',
        schedulerName: 'default-scheduler',
      }),
    );
    const cases: Array<[string, PodInit]> = [
      ['cpu', { cpu: '6' }],
      ['memory-and-selector', { memory: '20Gi', nodeSelector: { zone: 'a' } }],
      ['selector', { nodeSelector: { zone: 'nowhere' } }],
      ['extended', { extended: { 'example.com/fpga': '1' } }],
    ];
    const make = (ns: string, schedulerName: string) => cases.map(([name, init]) => pod(name, { ...init, namespace: ns, schedulerName }));
    await cluster.apply(...make('by-kube', 'default-scheduler'), ...make('by-podplan', 'podplan'));

    const scheduler = startKubeScheduler(cluster);
    const running = cluster.spawnPodplan([
      'run',
      ...cluster.admin,
      '--no-history',
      '--identity',
      'ks-test',
      '--lease-namespace',
      'kube-system',
    ]);
    try {
      const conditions = async (ns: string) => {
        const pods = await cluster.pods(ns);
        const messages = new Map(
          pods.map((p) => [p.metadata.name, p.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False')?.message]),
        );
        return [...messages.values()].every((m) => m !== undefined) && messages.size === cases.length ? messages : undefined;
      };
      const kube = await eventually(() => conditions('by-kube'), "kube-scheduler's conditions", 60_000).catch((e: unknown) => {
        throw new Error(`${String(e)}; kube-scheduler's log ends: ${scheduler.log().slice(-1500)}`);
      });
      const ours = await eventually(() => conditions('by-podplan'), 'podplan run’s conditions', 60_000);
      for (const [name] of cases) assert.equal(ours.get(name), kube.get(name), `pod ${name}`);
      const notes = async (ns: string) =>
        new Map((await cluster.events(ns)).filter((e) => e.reason === 'FailedScheduling').map((e) => [e.regarding.name, e.note]));
      const kubeNotes = await notes('by-kube');
      const ourNotes = await notes('by-podplan');
      for (const [name] of cases) assert.equal(ourNotes.get(name), kubeNotes.get(name), `event of ${name}`);
    } finally {
      scheduler.stop();
      await running.stop();
    }
  });
});
