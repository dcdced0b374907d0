import assert from 'node:assert/strict';
import type { Node, Pod } from '../../src/engine/api/types';
import { combine, DAEMON_POD_TOLERATIONS, readFile, runsDaemonPod } from '../../src/manifests';
import { makeNode, makePod, type NodeBuilder, type PodBuilder } from '../builders';
import { fixture } from './fixtures';

describe('manifests/daemonset', () => {
  describe('which nodes a daemon pod may run on (runsDaemonPod)', () => {
    const linux = () => makeNode('n').labels({ os: 'linux', cores: '16' });
    const table: Array<[what: string, pod: PodBuilder, node: NodeBuilder, runs: boolean]> = [
      ['no constraints: every node', makePod('p'), linux(), true],
      ['nodeSelector matches', makePod('p').nodeSelector({ os: 'linux' }), linux(), true],
      ['nodeSelector differs', makePod('p').nodeSelector({ os: 'windows' }), linux(), false],
      ['required In', makePod('p').requireNode({ key: 'os', operator: 'In', values: ['linux', 'bsd'] }), linux(), true],
      ['required NotIn', makePod('p').requireNode({ key: 'os', operator: 'NotIn', values: ['linux'] }), linux(), false],
      ['required Exists', makePod('p').requireNode({ key: 'cores', operator: 'Exists' }), linux(), true],
      ['required DoesNotExist', makePod('p').requireNode({ key: 'cores', operator: 'DoesNotExist' }), linux(), false],
      ['required Gt compares integers', makePod('p').requireNode({ key: 'cores', operator: 'Gt', values: ['8'] }), linux(), true],
      ['required Lt compares integers', makePod('p').requireNode({ key: 'cores', operator: 'Lt', values: ['8'] }), linux(), false],
      [
        'Gt on a label that is not an integer: no match',
        makePod('p').requireNode({ key: 'os', operator: 'Gt', values: ['1'] }),
        linux(),
        false,
      ],
      [
        'terms are ORed',
        makePod('p')
          .requireNode({ key: 'os', operator: 'In', values: ['windows'] })
          .requireNode({ key: 'os', operator: 'In', values: ['linux'] }),
        linux(),
        true,
      ],
      ['untolerated NoSchedule taint', makePod('p'), linux().taint('dedicated', 'gpu', 'NoSchedule'), false],
      ['untolerated NoExecute taint', makePod('p'), linux().taint('dedicated', 'gpu', 'NoExecute'), false],
      ['PreferNoSchedule is not a reason to stay away', makePod('p'), linux().taint('dedicated', 'gpu', 'PreferNoSchedule'), true],
      [
        'tolerated with Equal',
        makePod('p').tolerate({ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }),
        linux().taint('dedicated', 'gpu'),
        true,
      ],
      [
        'Equal with another value does not tolerate',
        makePod('p').tolerate({ key: 'dedicated', operator: 'Equal', value: 'db' }),
        linux().taint('dedicated', 'gpu'),
        false,
      ],
      [
        'Exists without a key tolerates everything',
        makePod('p').tolerate({ operator: 'Exists' }),
        linux().taint('a', 'b', 'NoExecute').taint('c', undefined),
        true,
      ],
      [
        'a toleration for another effect does not apply',
        makePod('p').tolerate({ key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }),
        linux().taint('dedicated', 'gpu'),
        false,
      ],
      ['a template bound to another node', makePod('p').node('elsewhere'), linux(), false],
    ];
    for (const [what, pod, node, runs] of table) {
      it(`${what}: ${runs ? 'runs' : 'does not run'}`, () => assert.equal(runsDaemonPod(pod.obj, node.obj), runs));
    }
  });

  describe('a DaemonSet runs one pod per eligible node', () => {
    const model = combine([readFile(fixture('daemonset.yaml'))]);
    const podsOf = (ds: string): Pod[] => model.pods.filter((p) => p.value.metadata.ownerReferences?.[0]?.name === ds).map((p) => p.value);

    it('by nodeSelector; a cordoned node is tolerated as upstream tolerates node.kubernetes.io/unschedulable', () => {
      assert.deepEqual(
        podsOf('logs').map((p) => p.metadata.name),
        ['logs-plain', 'logs-cordoned'],
        'not gpu (untolerated taint) nor windows (selector)',
      );
    });

    it('by required node affinity and its own toleration', () => {
      assert.deepEqual(
        podsOf('gpu-plugin').map((p) => p.metadata.name),
        ['gpu-plugin-gpu'],
      );
    });

    it('each pod is pinned to its node by node affinity on metadata.name, with the daemon tolerations added', () => {
      const [pod] = podsOf('gpu-plugin');
      assert.deepEqual(pod?.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution, {
        nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['gpu'] }] }],
      });
      assert.deepEqual(pod?.spec.tolerations, [
        { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' },
        ...DAEMON_POD_TOLERATIONS,
      ]);
      assert.equal(pod?.metadata.namespace, 'kube-system');
      assert.equal(pod?.spec.nodeName, undefined, 'scheduled like any pod, as upstream since 1.12');
    });

    it('takes another eligibility predicate, e.g. one built on the engine plugins', () => {
      const onlyPlain = (_pod: Pod, node: Node): boolean => node.metadata.name === 'plain';
      const m = combine([readFile(fixture('daemonset.yaml'))], { daemonSetEligible: onlyPlain });
      assert.deepEqual(
        m.pods.map((p) => p.value.metadata.name),
        ['logs-plain', 'gpu-plugin-plain'],
      );
    });

    it('nodes from other files count: the expansion happens when files are combined', () => {
      const text = fixture('daemonset.yaml').text;
      const split = text.indexOf('apiVersion: apps/v1');
      const [nodesOnly, daemonSets] = [text.slice(0, split), text.slice(split)];
      const m = combine([readFile({ name: 'ds.yaml', text: daemonSets }), readFile({ name: 'nodes.yaml', text: nodesOnly })]);
      assert.equal(m.errors.length, 0);
      assert.equal(m.pods.length, 3);
      assert.equal(readFile({ name: 'ds.yaml', text: daemonSets }).pods.length, 0);
    });
  });
});
