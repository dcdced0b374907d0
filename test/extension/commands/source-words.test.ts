// Apply Plan's confirmation names the context and every object and field written; the status bar
// says which source the server plans from and how a running scheduler does.
import assert from 'node:assert/strict';
import { applyWords, schedulerWords, sourceStatusWords } from '../../../src/extension/commands/source-words';
import type { ApplyPlanResult, SchedulerStatus } from '../../../src/protocol/requests';
import type { PlanView } from '../../../src/protocol/webview';

const result = (unplaced: string[]): ApplyPlanResult => ({
  context: 'prod',
  token: 1,
  applied: false,
  plan: {
    podSet: 'cart',
    assignments: [
      { pod: 'cart-0', node: 'n1' },
      { pod: 'cart-1', node: 'n2' },
    ],
    unplaced: unplaced.map((pod) => ({ pod, message: 'no' })),
  } as unknown as PlanView,
  writes: [
    {
      uri: '',
      object: 'SchedulePlan shop/cart-x',
      created: true,
      fields: ['spec.plan: 2 pods to nodes', 'metadata.annotations["podplan.io/plan-status"]: planner greedy'],
    },
    { uri: '', object: 'ScheduleTrigger shop/cart', created: false, fields: ['spec.state: Planning → Schedule'] },
  ],
});

const running: SchedulerStatus = { running: true, context: 'prod', bound: 12, unplaced: 1, pending: 3, errors: ['lease: conflict'] };

describe('extension/commands/source-words', () => {
  it('asks to apply a plan naming the context, each object and field', () => {
    assert.deepEqual(applyWords(result([])), {
      question: 'Apply the plan of cart to context prod? 2 pods placed; this writes 2 objects to the cluster.',
      detail:
        'creates SchedulePlan shop/cart-x: spec.plan: 2 pods to nodes; metadata.annotations["podplan.io/plan-status"]: planner greedy\nchanges ScheduleTrigger shop/cart: spec.state: Planning → Schedule',
      action: 'Apply to Cluster',
      done: 'the plan of cart was applied to context prod (2 objects written).',
    });
  });

  it('names the pods a partial plan leaves out', () => {
    assert.match(applyWords(result(['cart-2'])).detail, /\n\nNot placed: cart-2$/);
  });

  const cases: Array<[string, Parameters<typeof sourceStatusWords>, string]> = [
    ['workspace files', [{ kind: 'workspace', name: 'ws' }, undefined], '$(folder) Workspace files'],
    ['a context', [{ kind: 'cluster', name: 'prod', server: 'https://10.0.0.1' }, undefined], '$(cloud) prod'],
    ['a context with the scheduler running', [{ kind: 'cluster', name: 'prod' }, running], '$(cloud) prod $(sync~spin) 12 bound'],
    [
      'a context with the scheduler stopped',
      [
        { kind: 'cluster', name: 'prod' },
        { ...running, running: false },
      ],
      '$(cloud) prod',
    ],
  ];
  for (const [what, args, text] of cases) {
    it(`status bar text for ${what}`, () => assert.equal(sourceStatusWords(...args).text, text));
  }

  it('the tooltip says where plans come from, how the scheduler does and its latest errors', () => {
    assert.equal(
      sourceStatusWords({ kind: 'cluster', name: 'prod', server: 'https://10.0.0.1' }, running).tooltip,
      'Podplan plans from kube context prod (https://10.0.0.1). Click to switch.\nscheduler running on prod: 12 pods bound, 3 pending, 1 not placed, 1 error\nlease: conflict',
    );
    assert.equal(schedulerWords({ ...running, running: false, errors: [] }), 'scheduler stopped: 12 pods bound, 3 pending, 1 not placed');
  });
});
