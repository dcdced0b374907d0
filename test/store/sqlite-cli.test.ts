// The history is an ordinary SQLite file: the sqlite3 command-line tool (Debian's sqlite3) opens it
// while Podplan has it open, and its tables read sensibly without Podplan.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PlanStore } from '../../src/store/store';
import { openTestStore, useTempDir, value } from './helpers';
import { syntheticPlan } from './synthetic';

const SQLITE3 = '/usr/bin/sqlite3';

describe('store: read with the sqlite3 command-line tool', () => {
  const dir = useTempDir();
  let store: PlanStore;
  let file: string;

  before(async function () {
    // CI installs it (.ci/run); say plainly when it is not there rather than pass.
    assert.ok(existsSync(SQLITE3), `${SQLITE3} is missing: apt-get install sqlite3`);
    file = join(dir.path, 'history.db');
    store = await openTestStore(file);
    const run = value(store.startRun({ kind: 'kube-context', name: 'prod', server: 'https://10.0.0.1:6443' }, 'trigger'));
    const plan = syntheticPlan({ pods: 4, unplaced: 1, nodes: 3, trigger: 'web-trigger' });
    value(store.savePlan(run, { ...plan, victims: [{ pod: 'batch/low-0', node: 'node-0001', by: 'web-0' }] }, { profileHash: 'sha256:p' }));
  });
  after(() => store.close());

  const sqlite3 = (...args: string[]): string => execFileSync(SQLITE3, [file, ...args], { encoding: 'utf8' });

  it('lists the tables', () => {
    assert.deepEqual(sqlite3('.tables').trim().split(/\s+/).sort(), [
      'allocations',
      'assignments',
      'claims',
      'clusters',
      'diagnoses',
      'diagnosis_chunks',
      'plans',
      'runs',
      'sources',
      'trigger_transitions',
      'unplaced',
      'victims',
    ]);
  });

  it('reads a plan, its assignments, why a pod was not placed and the pods it evicts, in plain columns', () => {
    assert.equal(
      sqlite3('-separator', '|', 'SELECT pod_set, namespace, trigger_name, status, placed, unplaced, evicted FROM plans').trim(),
      'web|default|web-trigger|draft|3|1|1',
    );
    assert.equal(sqlite3('-separator', '|', 'SELECT pod, node, preemptor FROM victims ORDER BY seq').trim(), 'batch/low-0|node-0001|web-0');
    assert.equal(
      sqlite3('-separator', '|', 'SELECT s.kind, s.name, s.server FROM sources s').trim(),
      'kube-context|prod|https://10.0.0.1:6443',
    );
    assert.match(sqlite3('SELECT node FROM assignments ORDER BY seq').trim(), /^node-\d{4}\nnode-\d{4}\nnode-\d{4}$/);
    assert.match(sqlite3('SELECT message FROM unplaced').trim(), /^0\/3 nodes are available: \d+ /);
    // The histogram is JSON that sqlite's own json functions read.
    const total = sqlite3(
      "SELECT sum(json_extract(r.value, '$.count')) FROM diagnoses d, json_each(d.reasons) r WHERE d.pod = 'web-3'",
    ).trim();
    assert.equal(total, '3');
  });

  it('finds the database whole', () => {
    assert.equal(sqlite3('PRAGMA integrity_check').trim(), 'ok');
    assert.equal(sqlite3('PRAGMA journal_mode').trim(), 'wal');
  });
});
