import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { useTempDir } from '../store/helpers';
import { clusterYaml } from './cluster-yaml';
import { runPodplan } from './run-cli-process';

// The full scale (5,000 nodes / 10,000 pods) runs in `npm run bench -- cli`; this is the same run reduced.
describe('cli at scale (child process)', () => {
  const dir = useTempDir();

  it('schedule --json streams one object per pod at 500 nodes / 1,000 pods', async () => {
    const file = path.join(dir.path, 'cluster.yaml');
    writeFileSync(file, clusterYaml({ nodes: 500, pods: 1000, podSet: 0 }));
    const { code, stdout, stderr } = await runPodplan(['schedule', file, '--json', '--no-history']);
    assert.equal(code, 1, stderr);
    const lines = stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; node?: string | null; diagnosis?: { rejectedNodes: number } });
    const outcomes = lines.filter((l) => l.type === 'outcome');
    assert.equal(outcomes.length, 1000);
    const unplaced = outcomes.filter((o) => o.node === null);
    assert.equal(unplaced.length, 5, 'the five pods larger than any node');
    assert.ok(unplaced.every((o) => o.diagnosis?.rejectedNodes === 500));
    assert.deepEqual(lines.at(-1), { type: 'summary', placed: 995, pending: 1000 });
    assert.match(stderr, /^scheduling: \d+ cycles, 1000 pods$/m, 'progress on stderr');
  });
});
