import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { DeviceFailure } from '../../../src/engine/api/device-failures';
import { deviceFailureText } from '../../../src/engine/explain/devices';
import { madeUpClaimName } from '../../../src/engine/plugins/dynamicresources/claims';
import type { EntryProblem } from '../../../src/server/service/plan-check';
import { docs, node, plan, pod, workspaceOf } from './fixtures';

const antiAffinity = `  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        - topologyKey: kubernetes.io/hostname
          labelSelector: { matchLabels: { app: s } }
`;

/** The problems of each entry of the plan of set `s` (or `set`, with more files), in short. */
function check(entries: ReadonlyArray<[string, string]>, cluster: string, set = 's', files: Record<string, string> = {}) {
  const ws = workspaceOf({ ...files, 'cluster.yaml': cluster, 'plan.yaml': plan(set, entries) });
  const analysis = ws.analysis();
  const result = analysis.planCheck(analysis.model.plans[0]!.value);
  const devices = (p: { readonly devices?: readonly DeviceFailure[] }) =>
    (p.devices ?? []).map((d) => ` [${deviceFailureText(d)}]`).join('');
  const short = (p: EntryProblem) => {
    switch (p.code) {
      case 'plan/node-infeasible':
        return `${p.code} ${p.status.plugin}: ${p.status.reasons.join(', ')}${p.alone ? '' : ` after ${p.before.join(',')}`}${devices(p)}`;
      case 'plan/node-overcommitted':
        return `${p.code} ${p.status.reasons.join(', ')} after ${p.before.join(',')}${devices(p)}`;
      case 'plan/unknown-pod':
      case 'plan/unknown-node':
        return `${p.code}${p.suggestion ? ` (${p.suggestion}?)` : ''}`;
      case 'plan/duplicate-pod':
        return `${p.code} of ${p.first}`;
      case 'plan/pod-outside-set':
        return `${p.code} (${p.podSet ?? 'none'})`;
    }
  };
  return { problems: result.entries.map((list) => list.map(short)), result, analysis };
}

describe('server/service/plan-check: a plan applied entry by entry on a copy of the cluster', () => {
  const cluster = docs(
    node('n1', '2'),
    node('n2', '8'),
    pod('a', 's'),
    pod('b', 's'),
    pod('c', 's'),
    pod('d', 's', '4'),
    pod('other', 't'),
  );

  it('a plan that fits has no problems; the pods are on their nodes in its copy of the cluster only', () => {
    const { problems, result, analysis } = check(
      [
        ['a', 'n1'],
        ['b', 'n1'],
      ],
      cluster,
    );
    assert.deepEqual(problems, [[], []]);
    assert.deepEqual(
      [...result.assumed],
      [
        ['a', 'n1'],
        ['b', 'n1'],
      ],
    );
    assert.equal(result.cluster.snapshot.get('n1')?.pods.length, 2);
    assert.equal(analysis.engine.snapshot.get('n1')?.pods.length, 0);
    assert.equal(result.cluster.snapshot.get('n2'), analysis.engine.snapshot.get('n2'), 'a node the plan leaves alone is not copied');
    assert.deepEqual(result.missing, ['c', 'd']);
  });

  it('a node that fits each pod alone but not all of them is over-committed at the entry that tips it; a pod too big for it alone is infeasible', () => {
    assert.deepEqual(
      check(
        [
          ['a', 'n1'],
          ['b', 'n1'],
          ['c', 'n1'],
          ['d', 'n1'],
        ],
        cluster,
      ).problems,
      [[], [], ['plan/node-overcommitted Insufficient cpu after a,b'], ['plan/node-infeasible NodeResourcesFit: Insufficient cpu']],
    );
  });

  it('a constraint between planned pods (required anti-affinity) is broken at the second pod', () => {
    const spread = docs(node('n1', '8'), node('n2', '8'), pod('a', 's', '1', antiAffinity), pod('b', 's', '1', antiAffinity));
    assert.deepEqual(
      check(
        [
          ['a', 'n1'],
          ['b', 'n1'],
        ],
        spread,
      ).problems,
      [[], ["plan/node-infeasible InterPodAffinity: node(s) didn't match pod anti-affinity rules after a"]],
    );
    assert.deepEqual(
      check(
        [
          ['a', 'n1'],
          ['b', 'n2'],
        ],
        spread,
      ).problems,
      [[], []],
    );
  });

  it('names that resolve to nothing get a near miss; a pod twice, or from another set, is said so', () => {
    assert.deepEqual(
      check(
        [
          ['a', 'n1'],
          ['bb', 'n3'],
          ['a', 'n2'],
          ['other', 'n2'],
          ['zzz', 'n2'],
        ],
        cluster,
      ).problems,
      [
        [],
        ['plan/unknown-pod (b?)', 'plan/unknown-node (n1?)'],
        ['plan/duplicate-pod of 0'],
        ['plan/pod-outside-set (t)'],
        ['plan/unknown-pod'],
      ],
    );
  });

  it('a pod bound already counts where it is bound: planned there it is fine, elsewhere the NodeName filter says no', () => {
    const bound = docs(node('n1', '2'), node('n2', '2'), pod('a', 's', '2', '  nodeName: n1\n'));
    assert.deepEqual(check([['a', 'n1']], bound).problems, [[]]);
    assert.deepEqual(check([['a', 'n2']], bound).problems, [
      ["plan/node-infeasible NodeName: node(s) didn't match the requested node name"],
    ]);
  });

  it('a misspelt pod is never matched to a pod the plan names already (it is placed): the nearest one left is', () => {
    assert.deepEqual(
      check(
        [
          ['b', 'n1'],
          ['bc', 'n2'],
        ],
        cluster,
      ).problems[1],
      ['plan/unknown-pod (c?)'],
    );
    assert.deepEqual(
      check(
        [
          ['a', 'n1'],
          ['b', 'n1'],
          ['c', 'n1'],
          ['d', 'n1'],
          ['zz', 'n2'],
        ],
        docs(node('n1', '8'), node('n2', '8'), pod('a', 's'), pod('b', 's'), pod('c', 's'), pod('d', 's')),
      ).problems[4],
      ['plan/unknown-pod'],
    );
  });

  it('the plan’s copy of the cluster carries its other objects: a pod with a claim on a volume is judged with the claim found', () => {
    const withVolume = pod('a', 's', '1', '  volumes: [{ name: d, persistentVolumeClaim: { claimName: data } }]\n');
    const claim = `apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: { name: data }\nspec: { storageClassName: standard, accessModes: [ReadWriteOnce], resources: { requests: { storage: 1Gi } } }\n`;
    const storageClass = `apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: { name: standard }\nprovisioner: example.com/x\nvolumeBindingMode: WaitForFirstConsumer\n`;
    assert.deepEqual(check([['a', 'n1']], docs(node('n1', '2'), withVolume, claim, storageClass)).problems, [[]]);
    assert.deepEqual(check([['a', 'n1']], docs(node('n1', '2'), withVolume)).problems, [
      ['plan/node-infeasible VolumeRestrictions: persistentvolumeclaim "data" not found'],
    ]);
  });

  describe('devices (DRA): the claims of the pods planned before are allocated where they are, as the planners count them', () => {
    // test/fixtures/dra/plan: g1 and g2 with two GPUs each, c1 without; pods train-0…4 with one GPU each (a template's claim).
    const dir = 'test/fixtures/dra/plan';
    const files = { 'gang.yaml': readFileSync(`${dir}/gang.yaml`, 'utf8') };
    const cluster = readFileSync(`${dir}/cluster.yaml`, 'utf8');
    const claim = (pod: string) =>
      `claim default/${madeUpClaimName({ metadata: { name: pod, namespace: 'default' }, spec: { containers: [] } }, 'gpu')}, request gpu (1 × gpu.example.com)`;
    const table: Array<[string, Array<[string, string]>, string[][]]> = [
      [
        'two pods on a node with two GPUs fit',
        [
          ['train-0', 'g1'],
          ['train-1', 'g1'],
          ['train-2', 'g2'],
        ],
        [[], [], []],
      ],
      [
        'the third one-GPU pod on a two-GPU node over-commits its devices, in upstream’s words and the detail podplan explain gives',
        [
          ['train-0', 'g1'],
          ['train-1', 'g1'],
          ['train-2', 'g1'],
          ['train-3', 'g2'],
        ],
        [
          [],
          [],
          [
            `plan/node-overcommitted cannot allocate all claims after train-0,train-1 [${claim('train-2')}: 0 of the node's 2 matching devices free, 2 taken by 2 devices for pods placed earlier in this plan]`,
          ],
          [],
        ],
      ],
      [
        'a node without devices rejects the pod alone',
        [
          ['train-0', 'c1'],
          ['train-1', 'g1'],
        ],
        [[`plan/node-infeasible DynamicResources: cannot allocate all claims [${claim('train-0')}: the node has no devices]`], []],
      ],
    ];
    for (const [name, entries, want] of table) it(name, () => assert.deepEqual(check(entries, cluster, 'train', files).problems, want));
  });
});
