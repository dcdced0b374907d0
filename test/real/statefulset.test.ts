// The StatefulSet controller of the real kube-controller-manager 1.37 (against kube-apiserver 1.37)
// creating the replicas of the Kubernetes website's StatefulSet tutorial (application/web/web.yaml,
// its claim template asking 2Gi) under the storage quota of "Limit Storage Consumption": the replicas
// it creates are the pods Podplan makes up for the same files, and its FailedCreate events are
// Podplan's warnings, word for word (src/manifests/workloads.ts, StatefulSetCreation). No kubelet
// runs: for OrderedReady the test makes each created pod Running and Ready, as a kubelet would.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startRealCluster, type RealCluster } from './cluster';

const files = (replicas: number, policy: string, storage: string) => `apiVersion: v1
kind: ResourceQuota
metadata:
  name: storagequota
spec:
  hard:
    requests.storage: "${storage}"
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: "nginx"
  replicas: ${replicas}
  podManagementPolicy: ${policy}
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: registry.k8s.io/nginx-slim:0.7
        volumeMounts:
        - name: www
          mountPath: /usr/share/nginx/html
  volumeClaimTemplates:
  - metadata:
      name: www
    spec:
      accessModes: [ "ReadWriteOnce" ]
      resources:
        requests:
          storage: 2Gi
`;

describe('real kube-controller-manager: a StatefulSet whose claims a quota refuses gets the replicas Podplan makes up, in the same words', function () {
  this.timeout(600_000);
  let cluster: RealCluster;

  before(async () => {
    cluster = await startRealCluster({ controllers: ['statefulset'] });
  });

  after(async () => {
    await cluster?.stop();
  });

  const table: Array<[what: string, policy: string, replicas: number, storage: string, refused: string[], created: string[]]> = [
    [
      'OrderedReady, 4 replicas, a 5Gi quota: web-2 is refused and web-3 never tried',
      'OrderedReady',
      4,
      '5Gi',
      ['web-2'],
      ['web-0', 'web-1'],
    ],
    [
      'Parallel, 5 replicas, a 3Gi quota: the batch of web-1 and web-2 is refused, the next (web-3, web-4) never tried',
      'Parallel',
      5,
      '3Gi',
      ['web-1', 'web-2'],
      ['web-0'],
    ],
  ];
  table.forEach(([what, policy, replicas, storage, refused, created], i) => {
    it(what, async () => {
      const namespace = `statefulset-${i}`;
      const text = files(replicas, policy, storage).replace(/^metadata:\n/gm, `metadata:\n  namespace: ${namespace}\n`);
      const file = join(cluster.dir, `${namespace}.yaml`);
      writeFileSync(file, text);
      const [quotaText, setText] = text.split(/^---$/m);
      await cluster.namespace(namespace);
      const create = async (name: string, yaml: string) => {
        const part = join(cluster.dir, `${namespace}-${name}.yaml`);
        writeFileSync(part, yaml);
        const created = await cluster.kubectl(['create', '-f', part]);
        assert.equal(created.code, 0, created.stderr);
      };
      // No quota controller runs: the quota's status is written as it would write it, before the set.
      await create('quota', quotaText ?? '');
      const patched = await cluster.kubectl([
        ...['patch', 'resourcequota', 'storagequota', '-n', namespace, '--subresource=status', '--type=merge'],
        ...['-p', JSON.stringify({ status: { hard: { 'requests.storage': storage }, used: { 'requests.storage': '0' } } })],
      ]);
      assert.equal(patched.code, 0, patched.stderr);
      await create('statefulset', setText ?? '');

      // Until the controller has recorded the failed creation of every refused replica.
      const failed = new Map<string, string>();
      const deadline = Date.now() + 120_000;
      while (!refused.every((p) => failed.has(p))) {
        assert.ok(Date.now() < deadline, `FailedCreate events for ${refused.join(', ')} after 120 s: ${[...failed.keys()].join(', ')}`);
        for (const pod of await cluster.pods(namespace)) {
          if (pod.status?.phase === 'Running') continue;
          const status = {
            phase: 'Running',
            conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date().toISOString() }],
          };
          await cluster.kubectl([
            ...['patch', 'pod', pod.metadata.name, '-n', namespace, '--subresource=status', '--type=merge'],
            ...['-p', JSON.stringify({ status })],
          ]);
        }
        for (const e of await cluster.events(namespace)) {
          const m = /^Create Pod (\S+) in StatefulSet web failed error: /.exec(e.note ?? '');
          if (e.reason === 'FailedCreate' && m) failed.set(m[1] as string, e.note as string);
        }
        await new Promise((r) => setTimeout(r, 500));
      }
      const pods = (await cluster.pods(namespace)).map((p) => p.metadata.name).sort();
      assert.deepEqual(pods, created);

      // Podplan on the same files: the replicas it makes up, and its warnings for the others.
      const run = await cluster.podplan(['schedule', file, '--no-history']);
      const madeUp = [...run.stdout.matchAll(new RegExp(`^${namespace}/(web-\\d)\\*`, 'gm'))].map((m) => m[1]);
      assert.deepEqual(madeUp, pods, run.stdout);
      const warned = new Map(
        [
          ...run.stderr.matchAll(
            new RegExp(`spec\\.volumeClaimTemplates: (Create Pod (\\S+) in StatefulSet .*): pod ${namespace}/\\S+ left out$`, 'gm'),
          ),
        ].map((m) => [m[2] as string, m[1] as string]),
      );
      assert.deepEqual(warned, failed);
    });
  });
});
