// Podplan against upstream kube-scheduler 1.37's own framework (the oracle, built by
// scripts/upstream.sh, which `npm test` runs first): generated cases per family, the bundled
// example, and the regression cases earlier divergences were shrunk to (test/upstream/regressions).
// Longer runs: `npm run fidelity -- --cases 2000` (same generator, same comparison).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { FAMILIES, generateCase, type FidelityCase, type K8sObject } from './fidelity/generate';
import { oraclePath } from './fidelity/oracle';
import { runBatch } from './fidelity/suite';

/** Cases per family in the test run; `npm run fidelity` runs as many as asked. */
const CASES = 150;
const SEED = 1;
const ROOT = join(import.meta.dirname, '..', '..');

function report(verdicts: Awaited<ReturnType<typeof runBatch>>): string {
  return verdicts
    .filter((v) => v.divergences.length > 0)
    .slice(0, 3)
    .map((v) => `${v.case.id}:\n  ${v.divergences.slice(0, 8).join('\n  ')}`)
    .join('\n');
}

function snapshotObjects(dir: string): K8sObject[] {
  const objects: K8sObject[] = [];
  for (const file of readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort()) {
    for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
      const value = doc.toJS() as K8sObject | null;
      if (value?.kind) objects.push(value);
    }
  }
  return objects;
}

describe('upstream fidelity: Podplan against kube-scheduler 1.37 (the oracle)', function () {
  this.timeout(600_000);
  let oracle: string;

  before(() => {
    oracle = oraclePath(false);
  });

  for (const family of FAMILIES) {
    it(`${family}: ${CASES} generated cases (seeds ${SEED}..${SEED + CASES - 1}) agree cycle by cycle`, async () => {
      const cases: FidelityCase[] = [];
      for (let i = 0; i < CASES; i++) cases.push(generateCase(family, SEED + i));
      const verdicts = await runBatch(oracle, cases);
      const diverged = verdicts.filter((v) => v.divergences.length > 0);
      assert.equal(diverged.length, 0, `${diverged.length} of ${CASES} diverged:\n${report(verdicts)}`);
      // The comparison saw real work: cycles on both sides, scores compared.
      assert.ok(verdicts.every((v) => (v.oracle?.cycles.length ?? 0) === v.podplan.cycles.length));
      assert.ok(verdicts.some((v) => v.oracle?.cycles.some((c) => c.scores && Object.keys(c.scores).length > 1)));
    });
  }

  it('the bundled example (examples/cluster) agrees: placements, scores, messages and the preemption', async () => {
    const objects = snapshotObjects(join(ROOT, 'examples', 'cluster'));
    const [verdict] = await runBatch(oracle, [{ id: 'examples/cluster', family: 'preemption', objects }]);
    assert.deepEqual(verdict?.divergences, []);
    assert.ok(verdict?.oracle?.cycles.some((c) => c.nominated && (c.victims?.length ?? 0) > 0), 'the example preempts');
  });

  describe('regression cases (shrunk from divergences the oracle found)', () => {
    const dir = join(import.meta.dirname, 'regressions');
    let files: string[] = [];
    try {
      files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
    } catch {
      files = [];
    }
    it('there are regression cases to run', () => assert.ok(files.length > 0));
    for (const file of files) {
      it(file, async () => {
        const recorded = parse(readFileSync(join(dir, file), 'utf8')) as { id: string; family: FidelityCase['family']; objects: K8sObject[] };
        const [verdict] = await runBatch(oracle, [{ id: recorded.id, family: recorded.family, objects: recorded.objects }]);
        assert.deepEqual(verdict?.divergences, []);
      });
    }
  });
});
