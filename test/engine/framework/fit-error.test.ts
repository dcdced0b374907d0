import assert from 'node:assert/strict';
import type { Diagnosis, NodeRejection, StageOutcome } from '../../../src/engine/framework/diagnosis';
import { fitErrorMessage } from '../../../src/engine/framework/fit-error';
import { Code, errorStatus, SKIP, unresolvable, unschedulable, type Status } from '../../../src/engine/framework/status';

/** Rejections of nodes n0, n1, … by a Filter plugin, one list of reasons each. */
const rejected = (...reasons: string[][]): NodeRejection[] =>
  reasons.map((r, i) => ({ node: `n${i}`, plugin: 'Fake', stage: 'Filter', code: Code.Unschedulable, reasons: r }));

function diagnosis(
  nodesTotal: number,
  rejections: NodeRejection[],
  status: Status = { code: Code.Unschedulable, reasons: [], stage: 'Filter' },
  stages: StageOutcome[] = [],
): Diagnosis {
  return {
    pod: 'default/web',
    profile: 'p',
    nodesTotal,
    nodesEvaluated: rejections.length,
    feasibleNodes: 0,
    status,
    rejections,
    filters: [],
    scores: [],
    stages,
  };
}

describe('engine/framework/fit-error', () => {
  const taint = 'node(s) had untolerated taint {dedicated: gpu}';
  const table: Array<[what: string, d: Diagnosis, message: string]> = [
    [
      'counts each reason over the rejected nodes, sorted as text',
      diagnosis(5, rejected(['Insufficient cpu'], [taint], ['Insufficient cpu'], [taint], [taint])),
      '0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint {dedicated: gpu}.',
    ],
    [
      'a node with several reasons counts in each',
      diagnosis(2, rejected(['Insufficient cpu', 'Insufficient memory'], ['Insufficient memory'])),
      '0/2 nodes are available: 1 Insufficient cpu, 2 Insufficient memory.',
    ],
    [
      'sorts as upstream sorts strings: "10 …" before "2 …"',
      diagnosis(12, [...rejected(...Array.from({ length: 10 }, () => ['b'])), ...rejected(['a'], ['a'])]),
      '0/12 nodes are available: 10 b, 2 a.',
    ],
    [
      'a PreFilter rejection is said once, not once per node',
      diagnosis(3, rejected(['x'], ['x'], ['x']), { ...unresolvable("node(s) didn't satisfy plugin NodeName"), stage: 'PreFilter' }),
      "0/3 nodes are available: node(s) didn't satisfy plugin NodeName.",
    ],
    [
      'what PostFilter said follows; a PostFilter that skipped says nothing',
      diagnosis(1, rejected(['Insufficient cpu']), undefined, [
        { stage: 'PostFilter', plugin: 'Skipper', status: SKIP },
        {
          stage: 'PostFilter',
          plugin: 'Preemption',
          status: unschedulable('preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.'),
        },
      ]),
      '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
    ],
    [
      'several PostFilter plugins that leave the pod unschedulable: their reasons joined with ", ", no second period',
      diagnosis(6, rejected(['a'], ['a'], ['a'], ['t'], ['t'], ['t']), undefined, [
        { stage: 'PostFilter', plugin: 'Freer', status: unschedulable('nothing to free') },
        {
          stage: 'PostFilter',
          plugin: 'DefaultPreemption',
          status: unschedulable('preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling.'),
        },
      ]),
      '0/6 nodes are available: 3 a, 3 t. nothing to free, preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling.',
    ],
    [
      // RunPostFilterPlugins returns at once with a plugin's Success: its message alone (1.37: preemption says where).
      'a PostFilter that found a node (nominated): its message alone',
      diagnosis(1, rejected(['Insufficient cpu']), undefined, [
        { stage: 'PostFilter', plugin: 'Freer', status: unschedulable('nothing to free') },
        {
          stage: 'PostFilter',
          plugin: 'DefaultPreemption',
          status: { code: Code.Success, reasons: ['preemption: found a potential placement for pod on node n1, preempting 1 victims'] },
        },
      ]),
      '0/1 nodes are available: 1 Insufficient cpu. preemption: found a potential placement for pod on node n1, preempting 1 victims',
    ],
    [
      // As upstream 1.37 prints it when a PreFilter rejection kept DynamicResources' PreFilter from running.
      'a PostFilter that fails (Error): its words alone, and the stage stops',
      diagnosis(1, [], { ...unresolvable('persistentvolumeclaim "data" not found'), stage: 'PreFilter' }, [
        { stage: 'PostFilter', plugin: 'DynamicResources', status: errorStatus('not found') },
      ]),
      '0/1 nodes are available: persistentvolumeclaim "data" not found. not found',
    ],
    ['no reasons at all', diagnosis(0, []), '0/0 nodes are available:'],
  ];
  for (const [what, d, message] of table) it(what, () => assert.equal(fitErrorMessage(d), message));
});
