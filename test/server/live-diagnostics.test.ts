// The diagnostics that depend on the cluster, over stdio, while a kube context is the source: the
// workspace files are checked against the live cluster's nodes and pods (a plan naming a node the
// cluster does not have, a pod no node of the cluster can run, a nodeSelector no node of it
// matches), checked again when the cluster changes, and against the files' own nodes once the
// source is switched back.
import assert from 'node:assert/strict';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import type { Result } from '../../src/engine/api/result';
import { SelectSourceRequest, type SourceView } from '../../src/protocol/requests';
import { node } from '../kube/live/cluster';
import { useLiveServer } from './live-session';

const SET = 'planner.ciena.io/pod-set';
const pending = (name: string, cpu: string, extra = '') => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: jobs
  labels: { ${SET}: nightly }
spec:
  schedulerName: podset-planner-scheduler
${extra}  containers:
    - name: main
      image: busybox
      resources: { requests: { cpu: "${cpu}" } }
`;

/** The workspace: two big nodes of its own, a trigger, a plan placing on them, a big pod and a pod selecting ssd nodes. */
const FILES: Record<string, string> = {
  'nodes.yaml': ['ws-1', 'ws-2']
    .map(
      (n) =>
        `apiVersion: v1\nkind: Node\nmetadata:\n  name: ${n}\n  labels: { kubernetes.io/hostname: ${n}, disk: ssd }\nstatus:\n  allocatable: { cpu: "16", memory: 64Gi, pods: "110" }\n`,
    )
    .join('---\n'),
  'trigger.yaml': `apiVersion: planner.ciena.io/v1alpha1\nkind: ScheduleTrigger\nmetadata:\n  name: nightly\n  namespace: jobs\n  labels: { ${SET}: nightly }\nspec:\n  state: Planning\n`,
  'plan.yaml': `apiVersion: planner.ciena.io/v1alpha1\nkind: SchedulePlan\nmetadata:\n  name: nightly\n  namespace: jobs\n  labels: { ${SET}: nightly }\nspec:\n  plan:\n    - pod: small\n      node: ws-1\n`,
  'pods.yaml': [pending('small', '1'), pending('big', '12'), pending('picky', '1', '  nodeSelector: { disk: ssd }\n')].join('---\n'),
};

describe('server: diagnostics against the live cluster while a kube context is the source (over stdio)', function () {
  this.timeout(60_000);
  const live = useLiveServer({
    namespaces: ['jobs'],
    // The cluster: small nodes with other names, none labelled disk: ssd.
    objects: [node('n1', { cpu: '4', memory: '16Gi', pods: '110' }), node('n2', { cpu: '4', memory: '16Gi', pods: '110' })],
    context: { name: 'live', namespace: 'jobs' },
    workspace: FILES,
  });

  const messages = (file: string): string[] =>
    (live.session.diagnostics(live.session.uri(file)) ?? []).map((d: Diagnostic) => `${d.code}: ${d.message}`);
  async function until(what: string, condition: () => boolean): Promise<void> {
    for (let waited = 0; !condition(); waited += 50) {
      if (waited > 30_000)
        assert.fail(
          `gave up waiting: ${what}; plan.yaml ${JSON.stringify(messages('plan.yaml'))}, pods.yaml ${JSON.stringify(messages('pods.yaml'))}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const select = (context?: string) =>
    live.session.connection.sendRequest(SelectSourceRequest, context === undefined ? {} : { context }) as Promise<Result<SourceView>>;
  const unplaceable = (pod: string) =>
    messages('pods.yaml').filter((m) => m.startsWith('pod-set/unplaceable') && m.includes(`pod ${pod} `));

  it('on the workspace files, the plan and the pods fit the files’ own nodes', () => {
    assert.deepEqual(messages('plan.yaml'), []);
    assert.deepEqual(messages('pods.yaml'), []);
  });

  it('with a kube context picked, the files are checked against the cluster: unknown nodes, pods no node of it can run, a nodeSelector none of its nodes matches', async () => {
    const selected = await select('live');
    assert.ok(selected.ok && selected.value.kind === 'cluster');
    await until('the plan is checked against the cluster', () => messages('plan.yaml').length > 0);
    assert.deepEqual(messages('plan.yaml'), [
      'plan/unknown-node: no node "ws-1" in context live: name a node of context live (completion ranks them by fit for this pod)',
    ]);
    await until('the pods are checked against the cluster', () => unplaceable('big').length > 0 && unplaceable('picky').length > 0);
    assert.match(
      unplaceable('big')[0] ?? '',
      /pod big cannot be placed on any node of context live: 0\/2 nodes are available: 2 Insufficient cpu/,
    );
    assert.match(
      unplaceable('picky')[0] ?? '',
      /pod picky cannot be placed on any node of context live: 0\/2 nodes are available: 2 node\(s\) didn't match Pod's node affinity\/selector/,
    );
    assert.deepEqual(unplaceable('small'), []);
    assert.ok(!JSON.stringify(messages('pods.yaml')).includes(live.api.token));
  });

  it('follows the cluster: a node added there clears what it fixes, without any edit', async () => {
    live.api.create(node('ws-1', { cpu: '16', memory: '64Gi', pods: '110' }, { disk: 'ssd' }));
    await until(
      'the new node is seen',
      () => messages('plan.yaml').length === 0 && unplaceable('big').length === 0 && unplaceable('picky').length === 0,
    );
  });

  it('back on the workspace files, their own nodes are the cluster again', async () => {
    live.api.delete({ apiVersion: 'v1', kind: 'Node' }, undefined, 'ws-1');
    await until('the node removal is seen', () => unplaceable('big').length > 0);
    const back = await select(undefined);
    assert.ok(back.ok && back.value.kind === 'workspace');
    await until('the files’ nodes again', () => messages('plan.yaml').length === 0 && messages('pods.yaml').length === 0);
  });
});
