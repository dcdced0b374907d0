// server/overlay: the workspace files seen against a live cluster. The cluster's nodes, pods and
// other kinds are what exists; the files add their triggers, plans and the pods they write that the
// cluster does not run yet (pending); a file's bound pod describes another cluster and is left out.
import assert from 'node:assert/strict';
import { readSnapshot } from '../../src/manifests';
import { podKey } from '../../src/engine/api/types';
import { overlayCluster } from '../../src/server/overlay';

const nodeDoc = (name: string) =>
  `apiVersion: v1\nkind: Node\nmetadata:\n  name: ${name}\nstatus:\n  allocatable: { cpu: "4", memory: 8Gi, pods: "110" }\n`;
const podDoc = (name: string, nodeName?: string) =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  namespace: jobs\nspec:\n${nodeName ? `  nodeName: ${nodeName}\n` : ''}  containers:\n    - name: c\n      image: busybox\n`;
const triggerDoc = (name: string) =>
  `apiVersion: planner.ciena.io/v1alpha1\nkind: ScheduleTrigger\nmetadata:\n  name: ${name}\n  namespace: jobs\n  labels: { planner.ciena.io/pod-set: ${name} }\nspec:\n  state: Planning\n`;
const model = (name: string, ...docs: string[]) => readSnapshot([{ name, text: docs.join('---\n') }]);

describe('server/overlay: the files against a live cluster', () => {
  const files = model(
    'file:///ws/all.yaml',
    nodeDoc('ws-1'),
    podDoc('new'),
    podDoc('running'),
    podDoc('elsewhere', 'ws-1'),
    triggerDoc('nightly'),
    triggerDoc('both'),
  );
  const cluster = model('cluster://live', nodeDoc('n1'), podDoc('running', 'n1'), triggerDoc('both'), triggerDoc('weekly'));
  const overlaid = overlayCluster(files, cluster);

  it('takes the nodes from the cluster only', () => {
    assert.deepEqual(
      overlaid.nodes.map((n) => n.value.metadata.name),
      ['n1'],
    );
    assert.deepEqual(
      overlaid.cluster.nodes.map((n) => n.metadata.name),
      ['n1'],
    );
  });

  it('runs the cluster’s pods as they are there, adds the files’ pending pods it lacks, and leaves out a pod the files bind', () => {
    assert.deepEqual(
      overlaid.pods.map((p) => [podKey(p.value), p.value.spec.nodeName ?? null, p.file]),
      [
        ['jobs/running', 'n1', 'cluster://live'],
        ['jobs/new', null, 'file:///ws/all.yaml'],
      ],
    );
    assert.deepEqual(overlaid.cluster.pods.map(podKey), ['jobs/running', 'jobs/new']);
  });

  it('keeps the files’ triggers and plans, and the cluster’s that no file writes', () => {
    assert.deepEqual(
      overlaid.triggers.map((t) => [t.value.name, t.file]),
      [
        ['nightly', 'file:///ws/all.yaml'],
        ['both', 'file:///ws/all.yaml'],
        ['weekly', 'cluster://live'],
      ],
    );
  });

  it('keeps the files themselves, so their diagnostics and features are theirs', () => {
    assert.equal(overlaid.files, files.files);
    assert.equal(overlaid.errors, files.errors);
  });
});
