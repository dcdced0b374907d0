import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DidChangeWatchedFilesNotification, FileChangeType } from 'vscode-languageserver-protocol';
import { Workspace } from '../../src/server/workspace';
import { startLspSession, type LspSession } from './lsp-client';

const trigger = (name: string, state = 'Planning') => `apiVersion: planner.ciena.io/v1alpha1
kind: ScheduleTrigger
metadata:
  name: ${name}
  labels: { planner.ciena.io/pod-set: ${name} }
spec:
  state: ${state}
`;
const node = (name: string) =>
  `apiVersion: v1\nkind: Node\nmetadata: { name: ${name} }\nstatus: { allocatable: { cpu: "4", memory: 8Gi, pods: "110" } }\n`;
const plan = (entries: string) => `apiVersion: planner.ciena.io/v1alpha1
kind: SchedulePlan
metadata:
  name: p
  labels: { planner.ciena.io/pod-set: s }
spec:
  plan: ${entries}
`;

describe('server/workspace: the model of every YAML file, open buffers first', () => {
  it('an open buffer wins over the disk; closing it brings the disk’s text back', () => {
    const ws = new Workspace();
    ws.setDisk('file:///w/a.yaml', trigger('a'));
    ws.setBuffer('file:///w/a.yaml', trigger('b'), 1);
    assert.deepEqual(
      ws.model().triggers.map((t) => t.value.name),
      ['b'],
    );
    ws.setDisk('file:///w/a.yaml', trigger('c'));
    assert.deepEqual(
      ws.model().triggers.map((t) => t.value.name),
      ['b'],
      'a change on disk while open is not the file',
    );
    ws.closeBuffer('file:///w/a.yaml');
    assert.deepEqual(
      ws.model().triggers.map((t) => t.value.name),
      ['c'],
    );
  });

  it('a buffer never saved disappears when closed; a file deleted on disk stays while open', () => {
    const ws = new Workspace();
    ws.setBuffer('untitled:1', trigger('draft'), 1);
    ws.closeBuffer('untitled:1');
    assert.equal(ws.files().length, 0);
    ws.setDisk('file:///w/a.yaml', trigger('a'));
    ws.setBuffer('file:///w/a.yaml', trigger('a'), 1);
    ws.deleteDisk('file:///w/a.yaml');
    assert.deepEqual(
      ws.model().triggers.map((t) => t.value.name),
      ['a'],
    );
    ws.closeBuffer('file:///w/a.yaml');
    assert.equal(ws.files().length, 0);
  });

  it('editing one file re-reads that file only, and in it only the documents that changed', () => {
    const ws = new Workspace();
    ws.setDisk('file:///w/a.yaml', `${trigger('a')}---\n${trigger('b')}`);
    ws.setDisk('file:///w/nodes.yaml', node('n1'));
    const nodes = ws.file('file:///w/nodes.yaml')?.model;
    const before = ws.file('file:///w/a.yaml')?.model.documents[1]?.value;
    ws.setBuffer('file:///w/a.yaml', `${trigger('a', 'Schedule')}---\n${trigger('b')}`, 1);
    assert.equal(ws.file('file:///w/nodes.yaml')?.model, nodes);
    assert.equal(ws.file('file:///w/a.yaml')?.model.documents[1]?.value, before);
    assert.equal(ws.model().triggers[0]?.value.state, 'Schedule');
  });

  it('the engine’s view is kept while nodes, pods and profiles are the same objects; a plan is checked again only when it changed', () => {
    const ws = new Workspace();
    ws.setDisk('file:///w/nodes.yaml', node('n1'));
    ws.setDisk('file:///w/t.yaml', trigger('s'));
    ws.setDisk('file:///w/p.yaml', plan('[]'));
    const first = ws.analysis();
    const check = first.planCheck(first.model.plans[0]!.value);
    ws.setBuffer('file:///w/t.yaml', trigger('s', 'Schedule'), 1);
    const second = ws.analysis();
    assert.notEqual(second, first);
    assert.equal(second.engine, first.engine);
    assert.equal(second.planCheck(second.model.plans[0]!.value), check);
    ws.setBuffer('file:///w/nodes.yaml', node('n2'), 1);
    assert.notEqual(ws.analysis().engine, first.engine);
  });

  describe('over stdio: files watched on disk', () => {
    let dir: string;
    let session: LspSession;
    before(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'podplan-ws-'));
      cpSync('test/fixtures/workspaces/cluster', dir, { recursive: true });
      session = await startLspSession(dir, { historyDatabase: false });
    });
    after(async () => {
      await session.shutdown();
      rmSync(dir, { recursive: true, force: true });
    });

    async function changed(file: string, type: FileChangeType): Promise<void> {
      const done = session.settled();
      await session.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes: [{ uri: session.uri(file), type }] });
      await done;
    }

    it('a file created on disk is read and checked', async () => {
      writeFileSync(path.join(dir, 'late.yaml'), trigger('late'));
      await changed('late.yaml', FileChangeType.Created);
      assert.deepEqual(
        session.diagnostics(session.uri('late.yaml'))?.map((d) => d.code),
        ['pod-set/empty'],
      );
    });

    it('a file changed on disk changes what other files are checked against', async () => {
      const nodes = path.join(dir, 'nodes.yaml');
      writeFileSync(nodes, readFileSync(nodes, 'utf8').replace('name: node-3', 'name: node-9'));
      await changed('nodes.yaml', FileChangeType.Changed);
      assert.deepEqual(
        session.diagnostics(session.uri('plan.yaml'))?.map((d) => [d.code, d.range.start.line + 1]),
        [
          ['plan/unknown-node', 15],
          ['plan/unknown-node', 17],
        ],
      );
    });

    it('a file deleted on disk leaves the model and its diagnostics are cleared', async () => {
      unlinkSync(path.join(dir, 'late.yaml'));
      await changed('late.yaml', FileChangeType.Deleted);
      assert.deepEqual(session.diagnostics(session.uri('late.yaml')), []);
    });
  });
});
