import assert from 'node:assert/strict';
import type { Node, Pod } from '../../../src/engine/api/types';
import type { QueueingHint } from '../../../src/engine/framework/events';
import {
  isSchedulableAfterNodeChange,
  isSchedulableAfterTargetPodUpdate,
  RESTART_ALL_CONTAINERS,
} from '../../../src/engine/plugins/NodeDeclaredFeatures';
import { makeNode, makePod } from '../../builders';

// upstream nodedeclaredfeatures/nodedeclaredfeatures.go's hints; upstream's
// TestIsSchedulableAfterTargetPodUpdate infers requirements through a test feature registry (a label
// stands for a feature), so these rows use the one feature 1.37 infers for scheduling instead: a
// container restart rule whose action is RestartAllContainers.
describe('engine/plugins/NodeDeclaredFeatures queueing hints', () => {
  const restartsAll = (): Pod => {
    const pod = makePod('p').obj;
    return {
      ...pod,
      spec: { ...pod.spec, containers: [{ ...pod.spec.containers[0]!, restartPolicyRules: [{ action: 'RestartAllContainers' }] }] },
    } as Pod;
  };
  const declaring = (...features: string[]): Node => ({
    ...makeNode('n').obj,
    status: { ...makeNode('n').obj.status, declaredFeatures: features },
  });
  const pods: Array<[name: string, oldPod: Pod, newPod: Pod, hint: QueueingHint]> = [
    ['Pod Update adds requirement', makePod('p').obj, restartsAll(), 'Queue'],
    ['Pod Update removes requirement', restartsAll(), makePod('p').obj, 'Queue'],
    ['Pod Update keeps requirements', makePod('p').obj, makePod('p').labels({ foo: 'bar' }).obj, 'QueueSkip'],
  ];
  for (const [name, oldPod, newPod, hint] of pods)
    it(`isSchedulableAfterTargetPodUpdate: ${name}`, () => assert.equal(isSchedulableAfterTargetPodUpdate(newPod, oldPod, newPod), hint));
  const nodes: Array<[name: string, oldNode: Node | undefined, newNode: Node, hint: QueueingHint]> = [
    ['a node added', undefined, declaring(), 'Queue'],
    ['its declared features changed', declaring(), declaring(RESTART_ALL_CONTAINERS), 'Queue'],
    ['its declared features kept', declaring(RESTART_ALL_CONTAINERS), declaring(RESTART_ALL_CONTAINERS), 'QueueSkip'],
  ];
  for (const [name, oldNode, newNode, hint] of nodes)
    it(`isSchedulableAfterNodeChange: ${name}`, () => assert.equal(isSchedulableAfterNodeChange(restartsAll(), oldNode, newNode), hint));
});
