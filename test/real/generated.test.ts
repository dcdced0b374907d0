// The differential suite's generated cases (test/upstream/fidelity) are objects the real
// kube-apiserver 1.37 accepts: every one of them passes its validation and admission
// (`kubectl create --dry-run=server`), with the namespaces, PriorityClasses and the RuntimeClass the
// cases refer to created first, as a cluster would have them.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAMILIES, generateCase } from '../upstream/fidelity/generate';
import { startRealCluster, type RealCluster } from './cluster';

const CASES_PER_FAMILY = 10;

describe('real kube-apiserver: the fidelity generator makes valid objects', function () {
  this.timeout(600_000);
  let cluster: RealCluster;
  let dir: string;

  before(async () => {
    cluster = await startRealCluster();
    dir = mkdtempSync(join(tmpdir(), 'podplan-generated-'));
    for (const ns of ['team-a', 'team-b']) await cluster.namespace(ns);
    // The DRA families' claims with adminAccess: allowed in a namespace labelled for it (as their Namespace object is).
    const labelled = await cluster.kubectl(['label', 'namespace', 'default', 'resource.kubernetes.io/admin-access=true']);
    assert.equal(labelled.code, 0, labelled.stderr);
    // What the cases refer to: their PriorityClasses (from any case) and the RuntimeClass of the pods with overhead.
    const classes = generateCase('preemption', 1).objects.filter((o) => o.kind === 'PriorityClass');
    const runtimeClass = {
      apiVersion: 'node.k8s.io/v1',
      kind: 'RuntimeClass',
      metadata: { name: 'kata' },
      handler: 'kata',
      overhead: { podFixed: { cpu: '250m', memory: '120Mi' } },
    };
    const setup = join(dir, 'setup.json');
    writeFileSync(setup, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [...classes, runtimeClass] }));
    const made = await cluster.kubectl(['create', '-f', setup]);
    assert.equal(made.code, 0, made.stderr);
  });

  after(async () => {
    await cluster?.stop();
  });

  for (const family of FAMILIES) {
    it(`${family}: ${CASES_PER_FAMILY} cases, every object accepted`, async () => {
      const refused: string[] = [];
      for (let seed = 1; seed <= CASES_PER_FAMILY; seed++) {
        const c = generateCase(family, seed);
        const objects = c.objects.filter((o) => o.kind !== 'Namespace' && o.kind !== 'PriorityClass');
        const file = join(dir, `${c.id}.json`);
        writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
        const run = await cluster.kubectl(['create', '--dry-run=server', '-f', file, '-o', 'name']);
        if (run.code !== 0) refused.push(`${c.id}: ${run.stderr.trim()}`);
        else assert.equal(run.stdout.trim().split('\n').length, objects.length);
      }
      assert.deepEqual(refused, []);
    });
  }
});
