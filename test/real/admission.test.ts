// LimitRanger and ResourceQuota as the real kube-apiserver 1.37 applies them: each real-world case
// of test/manifests/admission-cases.ts (the Kubernetes website's examples) is created, in order, in
// a namespace of its own, and the API server refuses exactly the objects the case says, in the words
// it gives (which test/manifests/admission.test.ts holds Podplan's warnings to). No controller
// manager runs here, so each ResourceQuota's status (hard, nothing used) is written as the quota
// controller would; admission then counts what it admits.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ADMISSION_CASES, unordered } from '../manifests/admission-cases';
import { startRealCluster, type RealCluster } from './cluster';

interface Doc {
  readonly kind: string;
  readonly metadata: { readonly name: string };
  readonly spec?: { readonly hard?: Record<string, unknown> };
}

const docs = (text: string): Doc[] =>
  parseAllDocuments(text)
    .map((d) => d.toJS() as Doc)
    .filter(Boolean);

describe('real kube-apiserver: LimitRanger and ResourceQuota refuse what the real-world cases say, in their words', function () {
  this.timeout(600_000);
  let cluster: RealCluster;
  let dir: string;

  before(async () => {
    cluster = await startRealCluster();
    dir = mkdtempSync(join(tmpdir(), 'podplan-admission-'));
  });

  after(async () => {
    await cluster?.stop();
  });

  const create = async (namespace: string, doc: Doc): Promise<string | undefined> => {
    const file = join(dir, `${namespace}-${doc.kind}-${doc.metadata.name}.json`);
    writeFileSync(file, JSON.stringify(doc));
    const clusterScoped = doc.kind === 'PriorityClass' || doc.kind === 'DeviceClass';
    const args = clusterScoped ? ['create', '-f', file] : ['create', '-n', namespace, '-f', file];
    const run = await cluster.kubectl(args);
    if (run.code === 0) return undefined;
    if (clusterScoped && /AlreadyExists/.test(run.stderr)) return undefined;
    const message = /error when creating "[^"]*": (.*)$/m.exec(run.stderr)?.[1];
    assert.ok(message, `kubectl create ${doc.kind} ${doc.metadata.name}: ${run.stderr}`);
    return message;
  };

  ADMISSION_CASES.forEach((c, i) => {
    it(c.name, async () => {
      const namespace = `admission-${i}`;
      await cluster.namespace(namespace);
      for (const doc of docs(c.setup)) {
        assert.equal(await create(namespace, doc), undefined, `${doc.kind} ${doc.metadata.name} created`);
        if (doc.kind === 'ResourceQuota') {
          const hard = Object.fromEntries(Object.entries(doc.spec?.hard ?? {}).map(([k, v]) => [k, String(v)]));
          const used = Object.fromEntries(Object.keys(hard).map((k) => [k, '0']));
          const patched = await cluster.kubectl([
            ...['patch', 'resourcequota', doc.metadata.name, '-n', namespace, '--subresource=status', '--type=merge'],
            ...['-p', JSON.stringify({ status: { hard, used } })],
          ]);
          assert.equal(patched.code, 0, patched.stderr);
        }
      }
      const refused: Record<string, string> = {};
      for (const doc of docs(c.objects)) {
        const message = await create(namespace, doc);
        if (message !== undefined) refused[doc.metadata.name] = unordered(message);
      }
      assert.deepEqual(refused, Object.fromEntries(Object.entries(c.refused).map(([k, v]) => [k, unordered(v)])));
    });
  });
});
