import assert from 'node:assert/strict';
import { err } from '../../../src/engine/api/result';
import {
  codeActions,
  listPods,
  planSize,
  previewPlan,
  resolvePod,
  scheduleNow,
  takesLong,
  validate,
  workspaceSummary,
} from '../../../src/server/service';
import { noHistory, type History } from '../../../src/server/history';
import { Analysis, EngineCache, type EngineState } from '../../../src/server/service/analysis';
import type { WorkspaceModel } from '../../../src/manifests';
import { noDriverMessage } from '../../../src/store/driver';
import { docs, node, plan, pod, trigger, uriOf, workspaceOf } from './fixtures';

describe('server/service/requests: how much a preview or Schedule Now has to plan, for its progress notification', () => {
  const analysis = workspaceOf({
    'a.yaml': docs(trigger('s'), node('n1'), node('n2'), node('n3'), pod('a', 's'), pod('b', 's'), pod('c', 't')),
  }).analysis();

  const cases: ReadonlyArray<[what: string, params: object, size: unknown]> = [
    ['a trigger’s pod set', { trigger: { name: 's' } }, { podSet: 's', pods: 2, nodes: 3 }],
    ['a pod set by name', { podSet: { name: 't' } }, { podSet: 't', pods: 1, nodes: 3 }],
    ['a trigger that is not there: nothing to plan', { trigger: { name: 'nope' } }, undefined],
    ['a pod set without pods: nothing to plan', { podSet: { name: 'empty' } }, undefined],
  ];
  for (const [what, params, size] of cases) it(what, () => assert.deepEqual(planSize(params, analysis), size));

  it('a plan takes long from 100,000 pod × node pairs on', () => {
    assert.equal(takesLong({ podSet: 's', pods: 199, nodes: 500 }), false);
    assert.equal(takesLong({ podSet: 's', pods: 200, nodes: 500 }), true);
  });
});

describe('server/service/requests: errors reach the user, never dropped', () => {
  const badPlanner = `apiVersion: planner.ciena.io/v1alpha1\nkind: ScheduleTrigger\nmetadata:\n  name: s\n  labels:\n    planner.ciena.io/pod-set: s\n    planner.ciena.io/planner: magic\nspec:\n  state: Planning\n`;
  const files = { 'a.yaml': docs(node('n1'), pod('a', 's')), 't.yaml': badPlanner };

  it('Schedule Now of a trigger whose plan cannot be made says why', () => {
    const made = scheduleNow({ trigger: { name: 's' } }, workspaceOf(files).analysis(), noHistory('off'));
    assert.equal(made.ok, false);
    assert.match(made.ok ? '' : made.error, /^the plan of default\/s cannot be made: .*unknown planner "magic"/);
  });

  it('the trigger’s Create a SchedulePlan action is shown disabled with that reason', () => {
    const analysis = workspaceOf(files).analysis();
    const actions = codeActions(uriOf('t.yaml'), { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, [], analysis);
    const create = actions.find((a) => a.title === 'Create a SchedulePlan for this trigger');
    assert.match(create?.disabled?.reason ?? '', /^the plan of default\/s cannot be made: .*unknown planner "magic"/);
  });

  it('a preview the history fails to keep is shown with why it is not kept', async () => {
    const failing = { ...noHistory('unused'), unavailable: undefined, savePreview: () => err('the disk is full') } as History;
    const view = await previewPlan(
      { podSet: { name: 's' } },
      workspaceOf({ 'a.yaml': docs(node('n1'), pod('a', 's')) }).analysis(),
      failing,
    );
    assert.ok(view.ok);
    assert.equal(view.value.historyError, 'the plan is not kept in the plan history: the disk is full');
    const off = await previewPlan(
      { podSet: { name: 's' } },
      workspaceOf({ 'a.yaml': docs(node('n1'), pod('a', 's')) }).analysis(),
      noHistory('turned off'),
    );
    assert.equal(off.ok && off.value.historyError, undefined, 'history turned off is not an error of each preview');
  });
});

describe('server/service/requests: the workspace summary says why there is no history, as data', () => {
  const table: Array<[what: string, history: History, expected: unknown]> = [
    ['turned off', noHistory('turned off (historyDatabase: false)'), { available: false, reason: 'turned off (historyDatabase: false)' }],
    [
      'no SQLite driver loads: the flag the editor tells the user by',
      noHistory(noDriverMessage('v20.0.0', '115', 'linux-x64'), true),
      { available: false, reason: noDriverMessage('v20.0.0', '115', 'linux-x64'), noDriver: true },
    ],
  ];
  for (const [what, history, expected] of table) {
    it(what, () =>
      assert.deepEqual(workspaceSummary(workspaceOf({}).analysis(), [], { errors: 0, warnings: 0 }, history).history, expected),
    );
  }
});

describe('server/service/requests: the workspace summary follows the document', () => {
  const history = { unavailable: 'off' } as unknown as History;

  it("is made without the engine's snapshot of the cluster (the status bar waits for it; diagnostics build the snapshot after)", () => {
    let snapshots = 0;
    const cache = new (class extends EngineCache {
      override state(model: WorkspaceModel): EngineState {
        snapshots++;
        return super.state(model);
      }
    })();
    const text = docs(trigger('s'), node('n1'), pod('a', 's'));
    const analysis = new Analysis(workspaceOf({ 'a.yaml': text }).model(), () => undefined, cache);
    const summary = workspaceSummary(analysis, [], { errors: 0, warnings: 0 }, history);
    assert.deepEqual([summary.nodes, summary.pods, summary.profiles, summary.podSets[0]?.pending], [1, 1, [], 1]);
    assert.equal(snapshots, 0);
    assert.equal(analysis.engine.snapshot.list().length, 1);
    assert.equal(snapshots, 1);
  });
  const summaryOf = (text: string) =>
    workspaceSummary(workspaceOf({ 'a.yaml': text }).analysis(), [], { errors: 0, warnings: 0 }, history).podSets[0];

  it('a misspelt state is shown as written and invalid (read as Planning), and its diagnostic has a quick fix', () => {
    const text = docs(trigger('s', 'Planing'), node('n1'), pod('a', 's'));
    assert.deepEqual([summaryOf(text)?.state, summaryOf(text)?.invalidState], ['Planning', 'Planing']);
    const analysis = workspaceOf({ 'a.yaml': text }).analysis();
    const d = validate(uriOf('a.yaml'), analysis).find((x) => x.code === 'schema/enum');
    assert.ok(d, 'a diagnostic on the state');
    assert.deepEqual(
      codeActions(uriOf('a.yaml'), d.range, [d], analysis)
        .filter((a) => a.kind === 'quickfix')
        .map((a) => a.title),
      ['Change to Planning'],
    );
    assert.equal(summaryOf(docs(trigger('s'), node('n1'), pod('a', 's')))?.invalidState, undefined);
  });

  it('a scheduled set’s pods in its plan are planned, not “to place”', () => {
    const scheduled = summaryOf(docs(trigger('s', 'Schedule'), plan('s', [['a', 'n1']]), node('n1'), pod('a', 's'), pod('b', 's')));
    assert.deepEqual([scheduled?.pending, scheduled?.planned], [1, 1]);
    const planning = summaryOf(docs(trigger('s'), plan('s', [['a', 'n1']]), node('n1'), pod('a', 's'), pod('b', 's')));
    assert.deepEqual([planning?.pending, planning?.planned], [2, undefined]);
  });
});

describe('server/service/requests: Explain finds the pod the user means', () => {
  const ns = (name: string, namespace: string) => pod(name, 'x').replace('metadata: { name:', `metadata: { namespace: ${namespace}, name:`);
  const analysis = workspaceOf({
    'a.yaml': docs(
      node('n1'),
      ns('trainer', 'ml'),
      ns('web', 'a'),
      ns('web', 'b'),
      pod('trainer-2', 'x').replace('spec:', 'spec:\n  nodeName: n1'),
    ),
  }).analysis();
  const cases: ReadonlyArray<[what: string, ref: { namespace?: string; name: string }, expected: string]> = [
    ['a bare name unique across namespaces', { name: 'trainer' }, 'ok ml/trainer'],
    [
      'a bare name in two namespaces: both named',
      { name: 'web' },
      'error 2 pods are named web in the workspace: a/web, b/web; give the namespace',
    ],
    ['a typo: the near miss suggested', { name: 'trainr' }, 'error no pod trainr in the workspace; did you mean ml/trainer?'],
    ['namespace and name', { namespace: 'b', name: 'web' }, 'ok b/web'],
    ['a wrong namespace: no guess from another', { namespace: 'zz', name: 'web' }, 'error no pod zz/web in the workspace'],
  ];
  for (const [what, ref, expected] of cases) {
    it(what, () => {
      const r = resolvePod(ref, analysis);
      assert.equal(
        r.ok ? `ok ${r.value.value.metadata.namespace ?? 'default'}/${r.value.value.metadata.name}` : `error ${r.error}`,
        expected,
      );
    });
  }

  it('lists every pod for the pick list, those not placed first', () => {
    assert.deepEqual(
      listPods(analysis).map((p) => `${p.namespace}/${p.name}${p.node ? `@${p.node}` : ''}`),
      ['a/web', 'b/web', 'ml/trainer', 'default/trainer-2@n1'],
    );
  });
});
