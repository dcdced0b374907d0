import assert from 'node:assert/strict';
import type { Node, Pod } from '../../../src/engine/api/types';
import {
  ActionType,
  clusterEvent,
  eventLabel,
  EventUnschedulableTimeout,
  matchClusterEvents,
  nodeSchedulingPropertiesChange,
  podSchedulingPropertiesChange,
  type ClusterEvent,
} from '../../../src/engine/framework/events';
import { makeNode, makePod, type NodeBuilder, type PodBuilder } from '../../builders';

const names = (events: readonly ClusterEvent[]) => events.map(eventLabel);

describe('engine/framework/events', () => {
  // upstream framework/events_test.go TestNodeSchedulingPropertiesChange: one event per part of the
  // node that changed, in upstream's order; none when nothing scheduling reads changed.
  describe('nodeSchedulingPropertiesChange', () => {
    const node = () => makeNode('n');
    const withCondition = (n: NodeBuilder, status: string): Node => ({
      ...n.obj,
      status: {
        ...n.obj.status,
        conditions: [{ type: 'Ready', status } as NonNullable<NonNullable<Node['status']>['conditions']>[number]],
      },
    });
    const withAnnotation = (value: string): Node => ({ ...node().obj, metadata: { ...node().obj.metadata, annotations: { foo: value } } });
    const table: Array<[name: string, newNode: Node, oldNode: Node, want: string[]]> = [
      ['no specific changed applied', node().obj, node().obj, []],
      ['only node spec unavailable changed', node().obj, node().unschedulable().obj, ['NodeUpdateNodeTaint']],
      [
        'only node allocatable changed',
        node().alloc({ cpu: '1000m', memory: '100m', pods: '110' }).obj,
        node().alloc({ cpu: '1000m', memory: '200m', pods: '110' }).obj,
        ['NodeUpdateNodeAllocatable'],
      ],
      ['only node label changed', node().labels({ foo: 'bar' }).obj, node().labels({ foo: 'fuz' }).obj, ['NodeUpdateNodeLabel']],
      [
        'only node taint changed',
        node().taint('key', 'value', 'NoSchedule').obj,
        node().taint('key', 'value', 'PreferNoSchedule').obj,
        ['NodeUpdateNodeTaint'],
      ],
      ['only node annotation changed', withAnnotation('bar'), withAnnotation('fuz'), ['NodeUpdateNodeAnnotation']],
      ['only node condition changed', withCondition(node(), 'True'), withCondition(node(), 'False'), ['NodeUpdateNodeCondition']],
      [
        'both node label and node taint changed',
        node().labels({ foo: 'bar' }).taint('key', 'value', 'NoSchedule').obj,
        node().taint('key', 'value', 'PreferNoSchedule').obj,
        ['NodeUpdateNodeLabel', 'NodeUpdateNodeTaint'],
      ],
    ];
    for (const [name, newNode, oldNode, want] of table)
      it(name, () => assert.deepEqual(names(nodeSchedulingPropertiesChange(newNode, oldNode)), want));
  });

  // upstream framework/events_test.go Test_podSchedulingPropertiesChange (the rows with
  // DynamicResourceAllocation off are left out: it is on in 1.37).
  describe('podSchedulingPropertiesChange', () => {
    const claims = (...names: string[]): Pod => ({
      ...makePod('p').obj,
      status: { resourceClaimStatuses: names.map((n) => ({ name: `my-${n}`, resourceClaimName: n })) },
    });
    const extended = (claim: string): Pod => ({
      ...makePod('p').obj,
      status: {
        extendedResourceClaimStatus: {
          requestMappings: [{ requestName: 'request', containerName: 'c', resourceName: 'example.com/gpu' }],
          resourceClaimName: claim,
        },
      } as Pod['status'],
    });
    const gates = (...names: string[]) => names.reduce((p: PodBuilder, g) => p.gate(g), makePod('p'));
    const tolerating = (...keys: string[]) =>
      keys.reduce((p: PodBuilder, key) => p.tolerate({ key, operator: 'Exists', effect: 'NoSchedule' }), makePod('p'));
    const table: Array<[name: string, newPod: Pod, oldPod: Pod, isTarget: boolean, want: string[]]> = [
      [
        'assigned pod is updated',
        makePod('p').labels({ foo: 'bar' }).node('node').obj,
        makePod('p').labels({ foo: 'bar2' }).node('node').obj,
        false,
        ['AssignedPodUpdatePodLabel'],
      ],
      [
        'unscheduled pod label is updated',
        makePod('p').labels({ foo: 'bar' }).obj,
        makePod('p').labels({ foo: 'bar2' }).obj,
        false,
        ['UnscheduledPodUpdatePodLabel'],
      ],
      [
        "pod's resource request is scaled down",
        makePod('p').req({ cpu: '100m' }).obj,
        makePod('p').req({ cpu: '101m' }).obj,
        false,
        ['UnscheduledPodUpdatePodScaleDown'],
      ],
      [
        "pod's resource request is scaled up",
        makePod('p').req({ cpu: '101m' }).obj,
        makePod('p').req({ cpu: '100m' }).obj,
        false,
        ['UnscheduledPodUpdatePodScaleUp'],
      ],
      [
        "both pod's resource request and label are updated",
        makePod('p').req({ cpu: '100m' }).labels({ foo: 'bar' }).obj,
        makePod('p').req({ cpu: '101m' }).obj,
        false,
        ['UnscheduledPodUpdatePodLabel', 'UnscheduledPodUpdatePodScaleDown'],
      ],
      [
        'untracked properties of pod is updated',
        makePod('p').annotations({ foo: 'bar' }).obj,
        makePod('p').annotations({ foo: 'bar2' }).obj,
        false,
        ['UnscheduledPodUpdate'],
      ],
      ['scheduling gate is eliminated', makePod('p').obj, gates('foo').obj, true, ['TargetPodUpdatePodSchedulingGatesEliminated']],
      ['scheduling gate is removed, but not completely eliminated', gates('foo').obj, gates('foo', 'bar').obj, true, ['TargetPodUpdate']],
      ["pod's tolerations are updated", tolerating('key', 'key2').obj, tolerating('key').obj, true, ['TargetPodUpdatePodToleration']],
      ['pod claim statuses change, feature enabled', claims('claim'), makePod('p').obj, true, ['TargetPodUpdatePodGeneratedResourceClaim']],
      [
        'pod claim statuses swapped',
        claims('claim', 'claim-2'),
        claims('claim-2', 'claim'),
        true,
        ['TargetPodUpdatePodGeneratedResourceClaim'],
      ],
      [
        'pod extended resource claim status change, feature enabled',
        extended('claim'),
        makePod('p').obj,
        true,
        ['TargetPodUpdatePodGeneratedResourceClaim'],
      ],
      [
        'pod extended resource claim status swapped',
        extended('claim-2'),
        extended('claim'),
        true,
        ['TargetPodUpdatePodGeneratedResourceClaim'],
      ],
      [
        'scheduling gate is eliminated for an assigned pod, it takes precedence over target pod resource type',
        makePod('p').node('node').obj,
        gates('foo').node('node').obj,
        true,
        ['AssignedPodUpdatePodSchedulingGatesEliminated'],
      ],
    ];
    for (const [name, newPod, oldPod, isTarget, want] of table)
      it(name, () => assert.deepEqual(names(podSchedulingPropertiesChange(newPod, oldPod, isTarget)), want));
  });

  // upstream framework/types.go MatchClusterEvents: the incoming event is the registered one or more
  // specific; Pod stands for AssignedPod, UnscheduledPod and TargetPod; a wildcard matches only a
  // registered wildcard.
  describe('matchClusterEvents', () => {
    const table: Array<[registered: ClusterEvent, incoming: ClusterEvent, matches: boolean]> = [
      [clusterEvent('Node', ActionType.Update), clusterEvent('Node', ActionType.UpdateNodeLabel), true],
      [clusterEvent('Node', ActionType.UpdateNodeLabel), clusterEvent('Node', ActionType.Update), false],
      [clusterEvent('Node', ActionType.Add | ActionType.UpdateNodeLabel), clusterEvent('Node', ActionType.UpdateNodeLabel), true],
      [clusterEvent('Node', ActionType.Add | ActionType.UpdateNodeLabel), clusterEvent('Node', ActionType.UpdateNodeAnnotation), false],
      [clusterEvent('Pod', ActionType.Delete), clusterEvent('AssignedPod', ActionType.Delete), true],
      [clusterEvent('AssignedPod', ActionType.Delete), clusterEvent('UnscheduledPod', ActionType.Delete), false],
      [clusterEvent('Node', ActionType.All), EventUnschedulableTimeout, false],
      [clusterEvent('*', ActionType.All), clusterEvent('Node', ActionType.Add), true],
    ];
    for (const [registered, incoming, matches] of table)
      it(`${eventLabel(registered) || registered.resource} ${matches ? 'matches' : 'does not match'} ${eventLabel(incoming)}`, () =>
        assert.equal(matchClusterEvents(registered, incoming), matches));
  });

  it('labels events as upstream ClusterEvent.Label (metrics): resource and action type, or the custom label', () => {
    assert.deepEqual(
      [
        clusterEvent('Node', ActionType.UpdateNodeLabel),
        clusterEvent('AssignedPod', ActionType.Delete),
        clusterEvent('resource.k8s.io/ResourceClaim', ActionType.Add),
        EventUnschedulableTimeout,
      ].map(eventLabel),
      ['NodeUpdateNodeLabel', 'AssignedPodDelete', 'resource.k8s.io/ResourceClaimAdd', 'UnschedulableTimeout'],
    );
  });
});
