import assert from 'node:assert/strict';
import { podKey } from '../../src/engine/api/types';
import { fieldRange, readFile, readSnapshot } from '../../src/manifests';
import { lastAttemptedOrdinal } from '../../src/manifests/workloads';
import { at, covered, fixture } from './fixtures';

describe('manifests/workloads', () => {
  const file = fixture('workloads.yaml');
  const model = readFile(file);
  const pods = (owner: string) => model.pods.filter((p) => p.value.metadata.ownerReferences?.[0]?.name === owner).map((p) => p.value);

  it('reads every workload without errors', () => {
    assert.deepEqual(model.errors, []);
    assert.deepEqual(
      model.workloads.map((w) => `${w.value.kind}/${w.value.metadata.name}`),
      ['Deployment/web', 'ReplicaSet/cache', 'StatefulSet/db', 'Job/report', 'Job/migrate', 'Deployment/idle'],
    );
  });

  describe('how many pods each runs, and their names', () => {
    const table: Array<[workload: string, rule: string, keys: string[]]> = [
      ['web', 'Deployment: spec.replicas, named <name>-<index>', ['shop/web-0', 'shop/web-1', 'shop/web-2']],
      ['cache', 'ReplicaSet: replicas defaults to 1; namespace defaults to default', ['default/cache-0']],
      ['db', 'StatefulSet: ordinals name-0..n-1 as upstream', ['data/db-0', 'data/db-1']],
      ['report', 'Job: parallelism, capped by completions', ['default/report-0', 'default/report-1']],
      ['migrate', 'Job: parallelism defaults to 1', ['default/migrate-0']],
      ['idle', 'replicas 0: no pods', []],
    ];
    for (const [workload, rule, keys] of table) {
      it(rule, () => assert.deepEqual(pods(workload).map(podKey), keys));
    }
  });

  it('a pod gets the template labels and annotations, the workload namespace, and an owner reference', () => {
    const [web0] = pods('web');
    assert.deepEqual(web0?.metadata, {
      name: 'web-0',
      namespace: 'shop',
      labels: { app: 'web', tier: 'front' },
      annotations: { team: 'storefront' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', controller: true }],
    });
    assert.deepEqual(web0?.spec.containers[0]?.resources?.requests, { cpu: '500m', memory: '512Mi' });
  });

  it('controllers add the labels upstream adds: StatefulSet pod name and index, Job name', () => {
    assert.deepEqual(pods('db')[1]?.metadata.labels, {
      app: 'db',
      'statefulset.kubernetes.io/pod-name': 'db-1',
      'apps.kubernetes.io/pod-index': '1',
    });
    assert.deepEqual(pods('db')[1]?.metadata.ownerReferences?.[0]?.uid, '7c1e3a52-0000-4000-8000-000000000001');
    assert.deepEqual(pods('report')[0]?.metadata.labels, { app: 'report', 'batch.kubernetes.io/job-name': 'report', 'job-name': 'report' });
  });

  it("a workload's pods are located at its pod template", () => {
    const web1 = model.pods.find((p) => p.value.metadata.name === 'web-1');
    assert.ok(web1);
    assert.equal(web1.base, 'spec.template');
    const cpu = fieldRange(web1, 'spec.containers[0].resources.requests.cpu');
    assert.equal(at(cpu), '18:30');
    assert.equal(covered(file.text, cpu), '500m');
  });

  describe('checks the API server would make', () => {
    const deployment = (selector: string, extra = '') => `apiVersion: apps/v1
kind: Deployment
metadata: { name: d }
spec:
${selector}  template:
    metadata: { labels: { app: d } }
    spec: { containers: [{ name: a }]${extra} }
`;

    it('a selector that does not select the template is an error at the selector', () => {
      const m = readFile({ name: 'd.yaml', text: deployment('  selector: { matchLabels: { app: other } }\n') });
      assert.deepEqual(
        m.errors.map((e) => [e.code, e.path, at(e.range)]),
        [['selector-mismatch', 'spec.selector', '5:13']],
      );
      assert.equal(m.pods.length, 0);
    });

    it('a missing selector is a warning: it does not change placement', () => {
      const m = readFile({ name: 'd.yaml', text: deployment('') });
      assert.deepEqual(
        m.errors.map((e) => [e.severity, e.code]),
        [['warning', 'missing-field']],
      );
      assert.equal(m.pods.length, 1);
    });

    it('a negative replica count is an error', () => {
      const m = readFile({ name: 'd.yaml', text: deployment('  replicas: -1\n  selector: { matchLabels: { app: d } }\n') });
      assert.deepEqual(
        m.errors.map((e) => [e.code, at(e.range)]),
        [['bad-value', '5:13']],
      );
    });

    it('a bad quantity in a template is reported in the template', () => {
      const m = readFile({ name: 'd.yaml', text: deployment('  selector: { matchLabels: { app: d } }\n', ', overhead: { cpu: lots }') });
      assert.deepEqual(
        m.errors.map((e) => [e.code, e.path, at(e.range)]),
        [['bad-quantity', 'spec.template.spec.overhead.cpu', '8:57']],
      );
    });
  });
});

describe('manifests/workloads: pods that exist are taken as they are', () => {
  const deployment = (replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: shop, uid: d-1 }
spec:
  replicas: ${replicas}
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec: { containers: [{ name: main }] }
`;
  const replicaSet = (replicas: number) => `apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-abc
  namespace: shop
  uid: rs-1
  ownerReferences: [{ apiVersion: apps/v1, kind: Deployment, name: web, uid: d-1, controller: true }]
spec:
  replicas: ${replicas}
  selector: { matchLabels: { app: web, pod-template-hash: abc } }
  template:
    metadata: { labels: { app: web, pod-template-hash: abc } }
    spec: { containers: [{ name: main }] }
`;
  const pod = (name: string, owner: string, phase = 'Running') => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: shop
  labels: { app: web, pod-template-hash: abc }
  ownerReferences: [{ apiVersion: apps/v1, kind: ReplicaSet, name: web-abc, ${owner}controller: true }]
spec: { containers: [{ name: main }] }
status: { phase: ${phase} }
`;
  const podsOf = (...docs: string[]) => {
    const model = readSnapshot([{ name: 'dump.yaml', text: docs.join('---\n') }]);
    return model.pods.map((p) => `${podKey(p.value)}${p.generated ? '*' : ''}`);
  };

  const table: Array<[what: string, docs: string[], pods: string[]]> = [
    [
      'a Deployment, its ReplicaSet and all its pods: nothing made up',
      [deployment(2), replicaSet(2), pod('web-abc-1', 'uid: rs-1, '), pod('web-abc-2', 'uid: rs-1, ')],
      ['shop/web-abc-1', 'shop/web-abc-2'],
    ],
    [
      'a replica without a pod: one made up, for the ReplicaSet only',
      [deployment(3), replicaSet(3), pod('web-abc-1', 'uid: rs-1, '), pod('web-abc-2', 'uid: rs-1, ')],
      ['shop/web-abc-0*', 'shop/web-abc-1', 'shop/web-abc-2'],
    ],
    ['pods matched by owner name when no uid is written', [replicaSet(2), pod('web-abc-1', '')], ['shop/web-abc-0*', 'shop/web-abc-1']],
    [
      'a Deployment without its ReplicaSet counts the pods of its pod-template-hash ReplicaSet',
      [deployment(2), pod('web-abc-1', 'uid: rs-1, ')],
      ['shop/web-0*', 'shop/web-abc-1'],
    ],
    [
      'a finished pod does not count as a replica',
      [replicaSet(1), pod('web-abc-1', 'uid: rs-1, ', 'Succeeded')],
      ['shop/web-abc-0*', 'shop/web-abc-1'],
    ],
    ['a Deployment alone: all its replicas made up', [deployment(2)], ['shop/web-0*', 'shop/web-1*']],
  ];
  for (const [what, docs, pods] of table) it(what, () => assert.deepEqual(podsOf(...docs), pods));

  it('a StatefulSet keeps the ordinals that exist and makes up the missing ones', () => {
    const sts = `apiVersion: apps/v1
kind: StatefulSet
metadata: { name: db }
spec:
  replicas: 3
  selector: { matchLabels: { app: db } }
  template:
    metadata: { labels: { app: db } }
    spec: { containers: [{ name: main }] }
`;
    const existing = `apiVersion: v1
kind: Pod
metadata: { name: db-1, labels: { app: db }, ownerReferences: [{ apiVersion: apps/v1, kind: StatefulSet, name: db, controller: true }] }
spec: { containers: [{ name: main }] }
`;
    assert.deepEqual(podsOf(sts, existing), ['default/db-0*', 'default/db-2*', 'default/db-1']);
  });
});

describe('manifests/workloads: the StatefulSet controller creates a replica only when admission admits its claims', () => {
  it('lastAttemptedOrdinal: OrderedReady stops at the failed replica, Parallel at the end of its slow-start batch (1, 2, 4, …)', () => {
    const table: Array<[failed: number, parallel: boolean, last: number]> = [
      [0, false, 0],
      [3, false, 3],
      [0, true, 0],
      [1, true, 2],
      [2, true, 2],
      [3, true, 6],
      [6, true, 6],
      [7, true, 14],
    ];
    for (const [failed, parallel, last] of table) assert.equal(lastAttemptedOrdinal(failed, parallel), last, `${failed} ${parallel}`);
  });

  // Four replicas of a 2Gi template in a namespace whose quota holds 5Gi: the third claim is refused.
  const files = (policy: string, replicas = 4) => `apiVersion: v1
kind: ResourceQuota
metadata: { name: storagequota, namespace: ns }
spec:
  hard: { requests.storage: 5Gi }
---
apiVersion: apps/v1
kind: StatefulSet
metadata: { name: web, namespace: ns }
spec:
  replicas: ${replicas}${policy ? `\n  podManagementPolicy: ${policy}` : ''}
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      containers: [{ name: c, image: nginx }]
  volumeClaimTemplates:
  - metadata: { name: www }
    spec:
      accessModes: [ReadWriteOnce]
      resources: { requests: { storage: 2Gi } }
`;
  const read = (text: string) => {
    const model = readSnapshot([{ name: 'f.yaml', text }]);
    return {
      pods: model.cluster.pods.map((p) => p.metadata.name),
      claims: (model.cluster.persistentVolumeClaims ?? []).map((c) => c.metadata.name),
      warnings: model.errors.map((e) => e.message),
    };
  };
  const refusal =
    'persistentvolumeclaims "www-web-2" is forbidden: exceeded quota: storagequota, requested: requests.storage=2Gi, used: requests.storage=4Gi, limited: requests.storage=5Gi';

  it('OrderedReady (the default): no pod for the refused replica, and neither claim nor pod past it', () => {
    assert.deepEqual(read(files('')), {
      pods: ['web-0', 'web-1'],
      claims: ['www-web-0', 'www-web-1'],
      warnings: [
        `${refusal} (ResourceQuota admission): ns/www-web-2 left out`,
        `Create Pod web-2 in StatefulSet web failed error: failed to create PVC www-web-2: ${refusal}: pod ns/web-2 left out`,
        'StatefulSet web creates its replicas in order (podManagementPolicy OrderedReady) and stops at web-2, which could not be created: pod ns/web-3 left out',
      ],
    });
  });

  it("Parallel: the rest of the refused replica's batch (web-1, web-2) is tried; the next batch (web-3 on) is not", () => {
    const { pods, claims, warnings } = read(files('Parallel', 5));
    assert.deepEqual(pods, ['web-0', 'web-1']);
    assert.deepEqual(claims, ['www-web-0', 'www-web-1']);
    assert.deepEqual(warnings.slice(1), [
      `Create Pod web-2 in StatefulSet web failed error: failed to create PVC www-web-2: ${refusal}: pod ns/web-2 left out`,
      'StatefulSet web creates its replicas in batches of 1, 2, 4, … (podManagementPolicy Parallel) and stops after the one in which web-2 could not be created: pod ns/web-3 left out',
      'StatefulSet web creates its replicas in batches of 1, 2, 4, … (podManagementPolicy Parallel) and stops after the one in which web-2 could not be created: pod ns/web-4 left out',
    ]);
  });

  it("a claim of the files by the replica's claim name is the one used: the controller creates none, and the pod", () => {
    const claim = `---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: www-web-2, namespace: ns, uid: c2 }
spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 2Gi } } }
`;
    const { pods, warnings } = read(files('', 3) + claim);
    assert.deepEqual(pods, ['web-0', 'web-1', 'web-2']);
    assert.deepEqual(warnings, []);
  });
});
