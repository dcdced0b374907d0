// `podplan explain` of a pod that only preemption places, or that no preemption can help: the
// victims on the chosen node, every other candidate with the first of upstream's
// pickOneNodeForPreemption criteria it lost on, and the nodes where evicting would not help.
import assert from 'node:assert/strict';
import { cli } from './run-cli';

function node(name: string): string {
  return `apiVersion: v1\nkind: Node\nmetadata: { name: ${name} }\nstatus: { allocatable: { cpu: "2", memory: 8Gi, pods: "110" } }\n`;
}

function pod(name: string, cpu: string, priority: number, extra: { node?: string; labels?: string; policy?: string } = {}): string {
  const spec = [
    extra.node ? `nodeName: ${extra.node}` : '',
    `priority: ${priority}`,
    extra.policy ? `preemptionPolicy: ${extra.policy}` : '',
    `containers: [{ name: c, resources: { requests: { cpu: "${cpu}" } } }]`,
  ]
    .filter(Boolean)
    .join(', ');
  return `apiVersion: v1\nkind: Pod\nmetadata: { name: ${name}, namespace: batch${extra.labels ? `, labels: { ${extra.labels} }` : ''} }\nspec: { ${spec} }\n`;
}

const GUARDED_PDB =
  'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: { name: guarded, namespace: batch }\nspec: { minAvailable: 1, selector: { matchLabels: { app: guarded } } }\n';

/** Four full nodes: n1 two priority-10 pods, n2 one, n3 one of priority 200 (no victims), n4 one of priority 5 under a budget. */
const FULL = [
  node('n1'),
  node('n2'),
  node('n3'),
  node('n4'),
  pod('a', '1', 10, { node: 'n1' }),
  pod('b', '1', 10, { node: 'n1' }),
  pod('c', '2', 10, { node: 'n2' }),
  pod('d', '2', 200, { node: 'n3' }),
  pod('e', '2', 5, { node: 'n4', labels: 'app: guarded' }),
  GUARDED_PDB,
];

function files(...docs: string[]): Record<string, string> {
  return { 'c.yaml': docs.join('---\n') };
}

describe('cli explain: preemption', () => {
  describe('the chosen node, its victims, and why each other candidate lost (text)', () => {
    const table: Array<[name: string, docs: string[], expected: RegExp[]]> = [
      [
        'the node of one victim beats one of two (smaller priority sum) and one that breaks a budget (fewer PDB violations)',
        [...FULL, pod('urgent', '2', 100)],
        [
          /^Decision: placed on n2$/m,
          /^Preemption: evicting batch\/c from n2 makes room\.$/m,
          /^ {4}n2\s+batch\/c \(10\)\s+0\s+chosen$/m,
          /^ {4}n1\s+batch\/a \(10\), batch\/b \(10\)\s+0\s+lost: n2 has smaller sum of victim priorities$/m,
          /^ {4}n4\s+batch\/e \(5, breaks a PDB\)\s+1\s+lost: n2 has fewer PDB violations$/m,
          /^ {2}Nodes where evicting would not help:\n {4}1 × No preemption victims found for incoming pod: n3$/m,
        ],
      ],
      [
        'lowest highest-victim priority: a node whose victim has priority 20 loses to one whose victims have 10',
        [
          node('n1'),
          node('n2'),
          pod('a', '1', 10, { node: 'n1' }),
          pod('b', '1', 10, { node: 'n1' }),
          pod('c', '2', 20, { node: 'n2' }),
          pod('urgent', '2', 100),
        ],
        [
          /^Preemption: evicting batch\/a, batch\/b from n1 makes room\.$/m,
          /^ {4}n2\s+batch\/c \(20\)\s+0\s+lost: n1 has lower highest victim priority$/m,
        ],
      ],
      [
        'a pod no eviction helps (n2 still lacks cpu without its low-priority pod): the preemption part of the message and the nodes it tried',
        [
          node('n1'),
          node('n2'),
          pod('d', '2', 200, { node: 'n1' }),
          pod('f', '1', 10, { node: 'n2' }),
          pod('g', '1', 300, { node: 'n2' }),
          pod('urgent', '2', 100),
        ],
        [
          /^Decision: not placed: 0\/2 nodes are available: 2 Insufficient cpu\. preemption: 0\/2 nodes are available: 1 Insufficient cpu, 1 No preemption victims found for incoming pod\.$/m,
          /^Preemption: no eviction of lower-priority pods makes room on any node\.$/m,
          /^ {4}1 × Insufficient cpu: n2$/m,
          /^ {4}1 × No preemption victims found for incoming pod: n1$/m,
        ],
      ],
    ];
    for (const [name, docs, expected] of table) {
      it(name, async () => {
        const { stdout, stderr } = await cli(['explain', 'c.yaml', 'batch/urgent'], files(...docs));
        assert.equal(stderr, '');
        for (const line of expected) assert.match(stdout, line);
      });
    }
  });

  it('a pod with preemptionPolicy Never is not eligible: no preemption part is printed', async () => {
    const { code, stdout } = await cli(['explain', 'c.yaml', 'batch/urgent'], files(...FULL, pod('urgent', '2', 100, { policy: 'Never' })));
    assert.equal(code, 1);
    assert.match(stdout, /preemption: not eligible due to preemptionPolicy=Never\.$/m);
    assert.doesNotMatch(stdout, /^Preemption/m);
  });

  it('a pod of a pod set: the plan does not preempt, and explain says what preemption would evict', async () => {
    const member = pod('urgent', '2', 100, { labels: 'planner.ciena.io/pod-set: s' }).replace(
      'spec: { ',
      'spec: { schedulerName: podset-planner-scheduler, ',
    );
    const { code, stdout } = await cli(
      ['explain', 'c.yaml', 'batch/urgent'],
      files(node('n1'), pod('filler', '2', 10, { node: 'n1' }), member),
    );
    assert.equal(code, 1);
    assert.match(
      stdout,
      /^Preemption \(not done: plans do not preempt unless the profile allows it: PodSetPlanner args allowPreemption\): evicting batch\/filler from n1 would make room\.$/m,
    );
    assert.match(stdout, /^ {4}n1\s+batch\/filler \(10\)\s+0\s+chosen$/m);
  });

  it('--json carries the same: chosen node, victims with priority and budget, each candidate’s lostOn', async () => {
    const { stdout } = await cli(['explain', 'c.yaml', 'batch/urgent', '--json'], files(...FULL, pod('urgent', '2', 100)));
    const report = JSON.parse(stdout) as {
      preemption: {
        node: string;
        victims: string[];
        reportOnly: boolean;
        candidates: Array<{ node: string; victims: Array<{ pod: string; priority: number; violatesPdb: boolean }>; lostOn?: string }>;
        failures: Array<{ reason: string; nodes: string[] }>;
      };
    };
    const p = report.preemption;
    assert.deepEqual([p.node, p.victims, p.reportOnly], ['n2', ['batch/c'], false]);
    assert.equal(p.candidates[0]?.node, 'n2', 'the chosen node first');
    assert.deepEqual(
      p.candidates.map((c) => [c.node, c.victims.map((v) => `${v.pod}:${v.priority}:${v.violatesPdb}`), c.lostOn ?? null]).sort(),
      [
        ['n1', ['batch/a:10:false', 'batch/b:10:false'], 'smaller sum of victim priorities'],
        ['n2', ['batch/c:10:false'], null],
        ['n4', ['batch/e:5:true'], 'fewer PDB violations'],
      ],
    );
    assert.deepEqual(
      p.failures.map((f) => [f.reason, f.nodes]),
      [['No preemption victims found for incoming pod', ['n3']]],
    );
  });
});
