import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';

const RPC = fileURLToPath(new URL('../../src/rpc', import.meta.url));

// A script that serves the planner API from an esbuild bundle and calls it once, as dist/cli.cjs will.
const SCRIPT = `
import { connectPlanner, startPlannerServer } from ${JSON.stringify(RPC)};

async function main() {
  const server = await startPlannerServer({
    port: 0,
    planner: async (request) => ({ ok: true, value: { [request.scheduledPod]: request.eligibleNodes[0] ?? '' } }),
  });
  if (!server.ok) throw new Error(server.error);
  const client = connectPlanner(server.value.address, { deadlineMs: 10000 });
  if (!client.ok) throw new Error(client.error);
  const answer = await client.value.buildSchedulePlan({ namespace: 'default', podSet: 'web', scheduledPod: 'web-0', eligibleNodes: ['node-a'] });
  client.value.close();
  await server.value.close();
  process.stdout.write(JSON.stringify(answer));
}
void main();
`;

describe('rpc from an esbuild bundle', () => {
  let dir = '';
  before(async () => (dir = await mkdtemp(path.join(tmpdir(), 'podplan-rpc-bundle-'))));
  after(async () => rm(dir, { recursive: true, force: true }));

  it('loads the service definition with no file beside the bundle, serves a call and exits', async () => {
    const entry = path.join(dir, 'entry.ts');
    const outfile = path.join(dir, 'entry.cjs');
    await writeFile(entry, SCRIPT);
    // The options scripts/build.mjs uses for the Node bundles.
    const result = await build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      logLevel: 'silent',
    });
    assert.deepEqual(result.errors, []);
    // Run where no node_modules can be found, so everything it needs must be inside the bundle.
    const { stdout } = await promisify(execFile)(process.execPath, [outfile], { cwd: dir });
    assert.deepEqual(JSON.parse(stdout), { ok: true, value: { 'web-0': 'node-a' } });
  });
});
