import assert from 'node:assert/strict';
import type { Pod } from '../../../src/engine/api/types';
import { podInfo } from '../../../src/engine/framework/node-info';
import { Code } from '../../../src/engine/framework/status';
import type { QueueingHint } from '../../../src/engine/framework/events';
import { factory, isSchedulableAfterAssignedPodDeleted } from '../../../src/engine/plugins/NodePorts';
import { makeNode, makePod, nodeInfoOf, type PodBuilder } from '../../builders';
import { argsError, build, runFilter, type Verdict } from './harness';

const conflict: Verdict = { code: Code.Unschedulable, reasons: ["node(s) didn't have free ports for the requested pod ports"] };

/** A node holding one pod bound to host port 8080 with this protocol and address. */
const nodeUsing = (protocol: 'TCP' | 'UDP', hostIP?: string) =>
  nodeInfoOf(makeNode('n'), makePod('holder').hostPort(8080, protocol, hostIP));

describe('engine/plugins/NodePorts', () => {
  const plugin = build(factory);

  it('PreFilter skips a pod without host ports (Filter is not needed)', () => {
    assert.equal(runFilter(plugin, makePod('p').info, []).preFilter, 'skip');
  });

  describe('Filter: a wanted host port must be free on the node', () => {
    const table: Array<[why: string, pod: PodBuilder, node: ReturnType<typeof nodeInfoOf>, verdict: Verdict]> = [
      ['free node', makePod('p').hostPort(8080), nodeInfoOf(makeNode('n')), 'ok'],
      ['same port and protocol', makePod('p').hostPort(8080), nodeUsing('TCP'), conflict],
      ['same port, other protocol', makePod('p').hostPort(8080), nodeUsing('UDP'), 'ok'],
      ['0.0.0.0 wanted clashes with a specific address in use', makePod('p').hostPort(8080), nodeUsing('TCP', '10.0.0.1'), conflict],
      ['another specific address is free', makePod('p').hostPort(8080, 'TCP', '10.0.0.2'), nodeUsing('TCP', '10.0.0.1'), 'ok'],
      ['a specific address clashes with 0.0.0.0 in use', makePod('p').hostPort(8080, 'TCP', '10.0.0.2'), nodeUsing('TCP'), conflict],
      ['one of several ports taken', makePod('p').hostPort(9090).hostPort(8080), nodeUsing('TCP'), conflict],
    ];
    for (const [why, pod, node, expected] of table) {
      it(why, () => assert.deepEqual(runFilter(plugin, pod.info, [node]), { preFilter: 'ok', filter: [expected] }));
    }
  });

  it("counts sidecars' host ports, on the pod and on the node", () => {
    const withSidecar = (name: string): Pod => ({
      metadata: { name, namespace: 'default' },
      spec: {
        initContainers: [{ name: 'proxy', restartPolicy: 'Always', ports: [{ containerPort: 15000, hostPort: 15000 }] }],
        containers: [{ name: 'main' }],
      },
    });
    const pod = podInfo(withSidecar('p'));
    assert.ok(pod.ok);
    const node = nodeInfoOf(makeNode('n'), withSidecar('holder'));
    assert.deepEqual(runFilter(plugin, pod.value, [node, nodeInfoOf(makeNode('free'))]).filter, [conflict, 'ok']);
  });

  it('takes no args', () => assert.equal(argsError(factory, { ports: [] }), 'NodePorts: unknown field "ports"'));
});

// upstream nodeports/node_ports_test.go Test_isSchedulableAfterAssignedPodDeleted (the row giving the
// hint an object of another kind is left out: the queue hands it pods only).
describe('NodePorts queueing hint: isSchedulableAfterAssignedPodDeleted', () => {
  const pod = makePod('p').hostPort(8080).obj;
  const table: Array<[name: string, deleted: Pod, hint: QueueingHint]> = [
    ['skip-queue-on-unscheduled', makePod('d').obj, 'QueueSkip'],
    ['skip-queue-on-non-hostport', makePod('d').node('fake-node').obj, 'QueueSkip'],
    ['skip-queue-on-unrelated-hostport', makePod('d').node('fake-node').hostPort(8081).obj, 'QueueSkip'],
    ['queue-on-released-hostport', makePod('d').node('fake-node').hostPort(8080).obj, 'Queue'],
  ];
  for (const [name, deleted, hint] of table) it(name, () => assert.equal(isSchedulableAfterAssignedPodDeleted(pod, deleted), hint));
});
