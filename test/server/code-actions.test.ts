// Each quick fix, over stdio: asked for at its diagnostic, applied to the text, and the file
// re-validated clean. After each test the file is closed, so the disk's text is the file again.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CodeActionRequest, CodeLensRequest, type CodeAction, type Diagnostic } from 'vscode-languageserver-protocol';
import { startLspSession, type LspSession } from './lsp-client';
import { applyWorkspaceEdit } from './text';

const WORKSPACE = 'test/fixtures/workspaces/problems';

/** file → the title of the fix to apply, and a line the fixed file must then contain. */
const FIXES: Array<[string, string, string]> = [
  ['required-state.yaml', 'Add state: Planning', '  state: Planning'],
  ['required-label.yaml', 'Add the label planner.ciena.io/pod-set: unlabelled', '  labels: { planner.ciena.io/pod-set: unlabelled }'],
  ['state-case.yaml', 'Change to Planning', '  state: Planning'],
  ['unknown-field.yaml', 'Remove the unknown field priority', '  state: Planning'],
  ['bad-name.yaml', 'Rename to bad-name', '  name: bad-name'],
  ['quiet-time-words.yaml', 'Rewrite the quiet time as 2m0s', '    planner.ciena.io/quiet-time: 2m0s'],
  ['quiet-time-micro.yaml', 'Rewrite the quiet time as 300us', '    planner.ciena.io/quiet-time: 300us'],
  ['scheduler-name.yaml', 'Set schedulerName to podset-planner-scheduler', '  schedulerName: podset-planner-scheduler'],
  ['unknown-pod.yaml', 'Change to worker', '    - pod: worker'],
  ['unknown-node.yaml', 'Change to big-1', '      node: big-1'],
  ['duplicate-pod.yaml', 'Remove the entry of twice-0', '      node: small-1'],
  [
    'pod-outside-set.yaml',
    'Add the label planner.ciena.io/pod-set: outsider to pod stray',
    '  labels: { planner.ciena.io/pod-set: outsider }',
  ],
  ['node-infeasible.yaml', 'Move tainted-0 to big-1, the best node where it fits', '      node: big-1'],
  ['node-overcommitted.yaml', 'Move crowded-2 to big-1, the best node where it fits', '      node: big-1'],
  ['missing-pods.yaml', 'Add 1 missing pod to the plan, each on the best node left', '    - pod: missing-1'],
  ['no-plan.yaml', 'Create a SchedulePlan for this trigger', 'kind: SchedulePlan'],
  ['profile-unknown-plugin.yaml', 'Change to NodeResourcesFit', '          - name: NodeResourcesFit'],
];

describe('server code actions (over stdio, on the problems workspace)', () => {
  let session: LspSession;
  before(async () => (session = await startLspSession(WORKSPACE, { historyDatabase: false })));
  after(async () => session.shutdown());

  const diskText = (uri: string) => readFileSync(fileURLToPath(uri), 'utf8');
  const actionsAt = (uri: string, d: Diagnostic) =>
    session.connection.sendRequest(CodeActionRequest.type, {
      textDocument: { uri },
      range: d.range,
      context: { diagnostics: [d] },
    }) as Promise<CodeAction[]>;

  for (const [file, title, line] of FIXES) {
    it(`${file}: "${title}" leaves the file clean`, async () => {
      const uri = session.uri(file);
      const [diagnostic, ...others] = session.diagnostics(uri) ?? [];
      assert.ok(diagnostic && others.length === 0, `${file} should have exactly one diagnostic`);
      const actions = await actionsAt(uri, diagnostic);
      const fix = actions.find((a) => a.title === title);
      assert.ok(fix?.edit, `no "${title}" among ${JSON.stringify(actions.map((a) => a.title))}`);
      assert.deepEqual(
        fix.diagnostics?.map((d) => d.code),
        [diagnostic.code],
      );
      const changed = applyWorkspaceEdit(fix.edit, diskText);
      try {
        for (const [target, text] of changed) await session.edit(target, text);
        assert.ok(changed.get(uri)?.split('\n').includes(line), `the fixed text has no line ${JSON.stringify(line)}:\n${changed.get(uri)}`);
        assert.deepEqual(session.diagnostics(uri), []);
      } finally {
        for (const target of changed.keys()) await session.close(target);
      }
    });
  }

  it('after a fix is undone (the buffer closed) the disk text and its diagnostic are back', () => {
    assert.deepEqual(
      session.diagnostics(session.uri('state-case.yaml'))?.map((d) => d.code),
      ['schema/enum'],
    );
  });

  it('problems without a safe fix get no quick fix', async () => {
    for (const file of ['wrong-type.yaml', 'empty-set.yaml', 'depends-on-unresolved.yaml', 'profile-bad-weight.yaml', 'yaml-syntax.yaml']) {
      const uri = session.uri(file);
      const d = session.diagnostics(uri)?.[0];
      assert.ok(d);
      const actions = await actionsAt(uri, d);
      assert.deepEqual(
        actions.filter((a) => a.kind === 'quickfix').map((a) => a.title),
        [],
        file,
      );
    }
  });

  it('on any trigger with pods to place, "Create a SchedulePlan" is offered as a refactoring', async () => {
    const uri = session.uri('unknown-field.yaml');
    const actions = (await session.connection.sendRequest(CodeActionRequest.type, {
      textDocument: { uri },
      range: { start: { line: 3, character: 2 }, end: { line: 3, character: 2 } },
      context: { diagnostics: [] },
    })) as CodeAction[];
    assert.deepEqual(
      actions.map((a) => [a.title, a.kind]),
      [['Create a SchedulePlan for this trigger', 'refactor']],
    );
    const misspelt = await session.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri: session.uri('state-case.yaml') } });
    assert.ok(misspelt?.length, 'a trigger with a misspelt state keeps its lenses (it reads as Planning)');
  });
});

// The quick fix of a plan entry that over-commits a node's devices (test/fixtures/dra/plan: three
// one-GPU pods on g1, which has two GPUs): it moves the pod to the best node with a GPU free on the
// cluster as the plan's other entries leave it, and the plan is clean after.
describe('server code actions on a plan with devices (over stdio, on test/fixtures/dra/plan)', () => {
  let session: LspSession;
  before(async () => (session = await startLspSession('test/fixtures/dra/plan', { historyDatabase: false })));
  after(async () => session.shutdown());

  it('"Move train-2 to g2, the best node where it fits" leaves the plan clean', async () => {
    const uri = session.uri('plan.yaml');
    const [diagnostic, ...others] = session.diagnostics(uri) ?? [];
    assert.ok(diagnostic && others.length === 0, 'plan.yaml should have exactly one diagnostic');
    assert.equal(diagnostic.code, 'plan/node-overcommitted');
    const actions = (await session.connection.sendRequest(CodeActionRequest.type, {
      textDocument: { uri },
      range: diagnostic.range,
      context: { diagnostics: [diagnostic] },
    })) as CodeAction[];
    assert.deepEqual(
      actions.map((a) => a.title),
      ['Move train-2 to g2, the best node where it fits'],
    );
    const changed = applyWorkspaceEdit(actions[0]!.edit!, (u) => readFileSync(fileURLToPath(u), 'utf8'));
    try {
      for (const [target, text] of changed) await session.edit(target, text);
      assert.deepEqual(changed.get(uri)?.split('\n').slice(13, 15), ['    - pod: train-2', '      node: g2']);
      assert.deepEqual(session.diagnostics(uri), []);
    } finally {
      for (const target of changed.keys()) await session.close(target);
    }
  });
});
