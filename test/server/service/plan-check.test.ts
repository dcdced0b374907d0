import assert from 'node:assert/strict';
import type { EntryProblem } from '../../../src/server/service/plan-check';
import { docs, node, plan, pod, workspaceOf } from './fixtures';

const antiAffinity = `  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        - topologyKey: kubernetes.io/hostname
          labelSelector: { matchLabels: { app: s } }
`;

/** The problems of each entry of the plan of set `s`, in short. */
function check(entries: ReadonlyArray<[string, string]>, cluster: string) {
  const ws = workspaceOf({ 'cluster.yaml': cluster, 'plan.yaml': plan('s', entries) });
  const analysis = ws.analysis();
  const result = analysis.planCheck(analysis.model.plans[0]!.value);
  const short = (p: EntryProblem) => {
    switch (p.code) {
      case 'plan/node-infeasible':
        return `${p.code} ${p.status.plugin}: ${p.status.reasons.join(', ')}${p.alone ? '' : ` after ${p.before.join(',')}`}`;
      case 'plan/node-overcommitted':
        return `${p.code} ${p.status.reasons.join(', ')} after ${p.before.join(',')}`;
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
});
