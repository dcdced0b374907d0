// Every diagnostic code, over stdio, on the problems workspace: each file of
// test/fixtures/workspaces/problems holds one kind of problem, and nothing else.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { CODES } from '../../src/server/service/codes';
import { startLspSession, type LspSession } from './lsp-client';

const WORKSPACE = 'test/fixtures/workspaces/problems';

/** file → [code, 1-based line, severity (1 error, 2 warning, 3 information)] of each diagnostic. */
const EXPECTED: Record<string, Array<[string, number, number]>> = {
  'cluster.yaml': [],
  'required-state.yaml': [['schema/required', 9, 1]],
  'required-label.yaml': [['schema/required', 4, 1]],
  'wrong-type.yaml': [['schema/type', 11, 1]],
  'state-case.yaml': [['schema/enum', 10, 1]],
  'unknown-field.yaml': [['schema/unknown-field', 11, 2]],
  'schema-value.yaml': [['schema/value', 14, 1]],
  'bad-name.yaml': [['name/invalid', 5, 1]],
  'bad-labels.yaml': [
    ['label/key-invalid', 9, 1],
    ['label/value-invalid', 10, 1],
  ],
  'quiet-time-words.yaml': [['quiet-time/not-duration', 9, 1]],
  'quiet-time-micro.yaml': [['quiet-time/not-label-value', 9, 1]],
  'empty-set.yaml': [['pod-set/empty', 8, 2]],
  'scheduler-name.yaml': [['pod-set/scheduler-name', 16, 2]],
  'unplaceable.yaml': [['pod-set/unplaceable', 15, 2]],
  'unknown-pod.yaml': [['plan/unknown-pod', 13, 1]],
  'unknown-node.yaml': [['plan/unknown-node', 12, 1]],
  'duplicate-pod.yaml': [['plan/duplicate-pod', 13, 1]],
  'pod-outside-set.yaml': [['plan/pod-outside-set', 11, 2]],
  'node-infeasible.yaml': [['plan/node-infeasible', 12, 1]],
  'node-overcommitted.yaml': [['plan/node-overcommitted', 16, 1]],
  'missing-pods.yaml': [['plan/missing-pods', 20, 2]],
  'no-plan.yaml': [['trigger/no-plan', 10, 3]],
  'depends-on-unresolved.yaml': [['depends-on/unresolved', 12, 1]],
  'depends-on-cycle.yaml': [
    ['depends-on/cycle', 12, 1],
    ['depends-on/cycle', 24, 1],
  ],
  'profile-unknown-plugin.yaml': [['profile/unknown-plugin', 9, 1]],
  'profile-duplicate-plugin.yaml': [['profile/duplicate-plugin', 10, 1]],
  'profile-bad-weight.yaml': [['profile/bad-weight', 10, 1]],
  'profile-bad-args.yaml': [['profile/bad-args', 10, 1]],
  'profile-invalid.yaml': [['profile/invalid', 7, 1]],
  'profile-unsupported.yaml': [['profile/unsupported', 9, 2]],
  'yaml-syntax.yaml': [['yaml-syntax', 5, 1]],
  'duplicate-name.yaml': [['duplicate-name', 15, 1]],
  'bad-quantity.yaml': [['bad-quantity', 24, 1]],
  'quota-not-applied.yaml': [['not-applied', 8, 2]],
  'quota-refused.yaml': [['refused', 17, 2]],
  'replica-not-created.yaml': [
    ['not-created', 22, 2],
    ['refused', 22, 2],
  ],
  'cel-compile.yaml': [
    ['bad-value', 9, 1],
    ['bad-value', 23, 1],
    ['bad-value', 37, 1],
  ],
};

describe('server diagnostics (over stdio, on the problems workspace)', () => {
  let session: LspSession;
  before(async () => (session = await startLspSession(WORKSPACE)));
  after(async () => session.shutdown());

  it('has an expectation for every fixture file, and a fixture for every code of the server', () => {
    assert.deepEqual(Object.keys(EXPECTED).sort(), readdirSync(WORKSPACE).sort());
    const covered = new Set(Object.values(EXPECTED).flatMap((list) => list.map(([code]) => code)));
    assert.deepEqual(
      Object.values(CODES).filter((code) => !covered.has(code)),
      [],
    );
  });

  for (const [file, expected] of Object.entries(EXPECTED)) {
    it(`${file}: ${expected.map(([code]) => code).join(', ') || 'nothing'}`, () => {
      const got = session.diagnostics(session.uri(file));
      assert.ok(got, `no diagnostics published for ${file}`);
      assert.deepEqual(
        got.map((d) => [d.code, d.range.start.line + 1, d.severity]),
        expected,
      );
      for (const d of got) {
        assert.equal(d.source, 'podplan');
        assert.ok(
          d.range.end.line > d.range.start.line || d.range.end.character > d.range.start.character,
          `${String(d.code)} has an empty range`,
        );
      }
    });
  }

  describe('messages say what is wrong and how to fix it', () => {
    const message = (file: string, code: string) =>
      String(session.diagnostics(session.uri(file))?.find((d) => d.code === code)?.message ?? '');
    const cases: Array<[string, string, RegExp]> = [
      ['state-case.yaml', 'schema/enum', /"planning" is not a valid state: did you mean Planning\?/],
      ['required-state.yaml', 'schema/required', /missing required field "state": add "state: Planning" \(one of Planning, Schedule\)/],
      [
        'quiet-time-words.yaml',
        'quiet-time/not-duration',
        /not a Go duration \(time: unknown unit " minutes" in duration "2 minutes"\); write 2m0s/,
      ],
      [
        'node-infeasible.yaml',
        'plan/node-infeasible',
        /pod tainted-0 cannot run on node gpu-1: node\(s\) had untolerated taint\(s\) \(TaintToleration\)/,
      ],
      [
        'node-overcommitted.yaml',
        'plan/node-overcommitted',
        /node small-2 is over-committed by this plan: Insufficient cpu \(NodeResourcesFit\) once the 2 pods planned there before this one are placed \(crowded-0, crowded-1\)/,
      ],
      ['unknown-pod.yaml', 'plan/unknown-pod', /no pod "wrker" in namespace p-pod: did you mean "worker"\?/],
      ['depends-on-cycle.yaml', 'depends-on/cycle', /dependency cycle chicken → egg → chicken/],
      [
        'profile-bad-args.yaml',
        'profile/bad-args',
        /scoringStrategy.type: Unsupported value: "Fastest": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"/,
      ],
      [
        'unplaceable.yaml',
        'pod-set/unplaceable',
        /pod huge-0 cannot be placed on any node of the workspace: 0\/4 nodes are available: 1 node\(s\) had untolerated taint\(s\), 3 Insufficient cpu\. preemption: 0\/4 nodes are available: 4 Preemption is not helpful for scheduling; the planner will leave it unplaced/,
      ],
      ['duplicate-name.yaml', 'duplicate-name', /already defined at duplicate-name.yaml:5:9/],
      [
        'quota-not-applied.yaml',
        'not-applied',
        /^spec\.hard\["count\/services"\]: ResourceQuota default\/object-counts: count\/services is not applied: it counts services, which do not affect placement$/,
      ],
      [
        'quota-refused.yaml',
        'refused',
        /^metadata\.name: pods "second" is forbidden: exceeded quota: two-pods, requested: pods=1, used: pods=1, limited: pods=1 \(ResourceQuota admission\): p-quota\/second left out$/,
      ],
      [
        'replica-not-created.yaml',
        'not-created',
        /^spec\.volumeClaimTemplates: Create Pod web-1 in StatefulSet web failed error: failed to create PVC www-web-1: persistentvolumeclaims "www-web-1" is forbidden: exceeded quota: one-claim, requested: persistentvolumeclaims=1, used: persistentvolumeclaims=1, limited: persistentvolumeclaims=1: pod p-claims\/web-1 left out$/,
      ],
    ];
    for (const [file, code, pattern] of cases) it(`${code} (${file})`, () => assert.match(message(file, code), pattern));
  });

  it('a duplicate name points at the first one as related information', () => {
    const uri = session.uri('duplicate-name.yaml');
    const duplicate = session.diagnostics(uri)?.find((d) => d.code === 'duplicate-name');
    assert.deepEqual(duplicate?.relatedInformation?.[0]?.location, {
      uri,
      range: { start: { line: 4, character: 8 }, end: { line: 4, character: 12 } },
    });
    assert.match(duplicate?.relatedInformation?.[0]?.message ?? '', /^the first \w+ "/);
  });

  it('points at the exact value: the infeasible node, the bad state', () => {
    const at = (file: string) => session.diagnostics(session.uri(file))?.[0]?.range;
    assert.deepEqual(at('node-infeasible.yaml'), { start: { line: 11, character: 12 }, end: { line: 11, character: 17 } });
    assert.deepEqual(at('state-case.yaml'), { start: { line: 9, character: 9 }, end: { line: 9, character: 17 } });
  });

  it('a device selector whose CEL does not compile: at the expression, with the compiler’s words', () => {
    const [cls, request] = session.diagnostics(session.uri('cel-compile.yaml')) ?? [];
    assert.deepEqual(cls?.range, { start: { line: 8, character: 20 }, end: { line: 8, character: 59 } });
    assert.match(String(cls?.message ?? ''), /^spec\.selectors\[0\]\.cel\.expression: .*the CEL expression does not compile: /);
    assert.equal(request?.range.start.line, 22);
    assert.match(String(request?.message ?? ''), /^spec\.spec\.devices\.requests\[0\]\.exactly\.selectors\[0\]\.cel\.expression: /);
  });

  it('a device selector over the CEL cost limit: at the expression, in kube-apiserver’s words', () => {
    const [, , claim] = session.diagnostics(session.uri('cel-compile.yaml')) ?? [];
    assert.equal(claim?.range.start.line, 36);
    assert.match(
      String(claim?.message ?? ''),
      /^spec\.devices\.requests\[0\]\.exactly\.selectors\[0\]\.cel\.expression: Forbidden: too complex, exceeds cost limit/,
    );
  });
});
