// The status bar's words: the server's state, then what it read of the workspace.
import assert from 'node:assert/strict';
import { statusWords } from '../../src/extension/summary';
import type { WorkspaceSummary } from '../../src/protocol/requests';

const summary: WorkspaceSummary = {
  folders: ['file:///w'],
  files: 4,
  nodes: 5,
  pods: 12,
  workloads: 3,
  triggers: 1,
  plans: 0,
  profiles: ['default-scheduler'],
  podSets: [
    { namespace: 'analytics', name: 'nightly-batch', pods: 6, pending: 6, trigger: 'nightly-batch', state: 'Planning' },
    { namespace: 'web', name: 'canary', pods: 1, pending: 1 },
  ],
  problems: { errors: 1, warnings: 2 },
  history: { available: false, reason: 'turned off (historyDatabase: false)' },
};

describe('extension status words', () => {
  const cases: Array<[string, Parameters<typeof statusWords>, string]> = [
    ['starting', ['starting'], '$(sync~spin) Podplan'],
    ['stopped', ['stopped', summary], '$(error) Podplan'],
    ['running, nothing read yet', ['running'], '$(server-process) Podplan'],
    [
      'running, with errors and warnings: each beside its own icon',
      ['running', summary],
      '$(server-process) 5 nodes, 7 pods to place $(error) 1 $(warning) 2',
    ],
    [
      'running, errors only: no warning icon',
      ['running', { ...summary, problems: { errors: 2, warnings: 0 } }],
      '$(server-process) 5 nodes, 7 pods to place $(error) 2',
    ],
    [
      'running, one pod: singular',
      [
        'running',
        { ...summary, podSets: [{ namespace: 'web', name: 'canary', pods: 1, pending: 1 }], problems: { errors: 0, warnings: 1 } },
      ],
      '$(server-process) 5 nodes, 1 pod to place $(warning) 1',
    ],
    [
      'running, clean',
      ['running', { ...summary, nodes: 1, podSets: [], problems: { errors: 0, warnings: 0 } }],
      '$(server-process) 1 node, 0 pods to place',
    ],
    [
      'running, thousands written with a separator',
      [
        'running',
        {
          ...summary,
          nodes: 5000,
          podSets: [{ namespace: 'big', name: 'big-set', pods: 1300, pending: 1300 }],
          problems: { errors: 0, warnings: 0 },
        },
      ],
      '$(server-process) 5,000 nodes, 1,300 pods to place',
    ],
  ];
  for (const [name, args, text] of cases) {
    it(name, () => assert.equal(statusWords(...args).text, text));
  }

  it('details the workspace and the history in the tooltip', () => {
    assert.equal(
      statusWords('running', summary).tooltip,
      [
        'Podplan: 4 files read',
        '5 nodes, 12 pods, 3 workloads',
        '2 pod sets, 1 trigger, 0 plans',
        '1 error, 2 warnings',
        'Plan history: off (turned off (historyDatabase: false))',
      ].join('\n'),
    );
  });

  it('names the SQLite driver the history runs on', () => {
    const tooltip = statusWords('running', { ...summary, history: { available: true, driver: 'node:sqlite' } }).tooltip;
    assert.equal(tooltip.split('\n').at(-1), 'Plan history: on (node:sqlite)');
  });
});
