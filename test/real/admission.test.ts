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

// The ResourceClaim controller of the real kube-controller-manager 1.37 making a pod's claim from its
// ResourceClaimTemplate under a quota of one device: the second pod's claim is refused, its
// FailedResourceClaimCreation event gives the API server's words, and the pod keeps no claim.
// Podplan on the same files refuses the same claim in the same words (the claim's name aside: the
// API server's generateName is random, Podplan's made up) and leaves the pod waiting for it.
describe("real kube-controller-manager: the ResourceClaim controller's claim past a device quota is refused as Podplan says", function () {
  this.timeout(600_000);
  let cluster: RealCluster;

  before(async () => {
    cluster = await startRealCluster({ controllers: ['resourceclaim-controller'] });
  });

  after(async () => {
    await cluster?.stop();
  });

  const namespace = 'claims-from-templates';
  const setup = `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
---
apiVersion: v1
kind: ResourceQuota
metadata:
  name: gpus
  namespace: ${namespace}
spec:
  hard:
    gpu.example.com.deviceclass.resource.k8s.io/devices: "1"
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: one-gpu
  namespace: ${namespace}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
---
`;
  const pod = (name: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: ${namespace}
spec:
  resourceClaims:
  - name: gpu
    resourceClaimTemplateName: one-gpu
  containers:
  - name: main
    image: registry.k8s.io/pause:3.10
    resources:
      claims:
      - name: gpu
---
`;

  it('the first pod gets its claim, the second one is refused and keeps none', async () => {
    await cluster.namespace(namespace);
    const create = async (name: string, yaml: string) => {
      const file = join(cluster.dir, `${namespace}-${name}.yaml`);
      writeFileSync(file, yaml);
      const created = await cluster.kubectl(['create', '-f', file]);
      assert.equal(created.code, 0, created.stderr);
    };
    await create('setup', setup);
    // No quota controller runs: the quota's status is written as it would write it.
    const patched = await cluster.kubectl([
      ...['patch', 'resourcequota', 'gpus', '-n', namespace, '--subresource=status', '--type=merge'],
      ...[
        '-p',
        JSON.stringify({
          status: {
            hard: { 'gpu.example.com.deviceclass.resource.k8s.io/devices': '1' },
            used: { 'gpu.example.com.deviceclass.resource.k8s.io/devices': '0' },
          },
        }),
      ],
    ]);
    assert.equal(patched.code, 0, patched.stderr);

    const until = async <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => {
      const deadline = Date.now() + 120_000;
      for (;;) {
        const found = await probe();
        if (found !== undefined) return found;
        assert.ok(Date.now() < deadline, `${what} after 120 s`);
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    // One pod at a time, so the first is the one whose claim is created.
    await create('first', pod('first'));
    await until('the claim of pod first', async () => {
      const first = (await cluster.pods(namespace)).find((p) => p.metadata.name === 'first');
      const statuses = (first?.status as { resourceClaimStatuses?: Array<{ resourceClaimName?: string }> } | undefined)
        ?.resourceClaimStatuses;
      return statuses?.[0]?.resourceClaimName;
    });
    await create('second', pod('second'));
    const event = await until('the FailedResourceClaimCreation event of pod second', async () =>
      (await cluster.events(namespace)).find((e) => e.reason === 'FailedResourceClaimCreation' && e.regarding.name === 'second'),
    );
    // The claim's name is the API server's random generateName; the rest is compared word for word.
    const anyName = (text: string) => text.replace(/"second-gpu-\w{5}"/, '"second-gpu-*"');
    const upstream = anyName(event.note ?? '');
    assert.match(
      upstream,
      /^PodResourceClaim gpu: create ResourceClaim : resourceclaims\.resource\.k8s\.io "second-gpu-\*" is forbidden: /,
    );
    const second = (await cluster.pods(namespace)).find((p) => p.metadata.name === 'second');
    assert.equal((second?.status as { resourceClaimStatuses?: unknown[] } | undefined)?.resourceClaimStatuses, undefined);

    // Podplan on the same files: the same refusal, at the pod's entry, and the pod waiting for its claim.
    const file = join(cluster.dir, `${namespace}-all.yaml`);
    const node = 'apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\nstatus:\n  allocatable: { cpu: "4", memory: 8Gi, pods: "110" }\n---\n';
    writeFileSync(file, `${node}${setup}${pod('first')}${pod('second')}`);
    const run = await cluster.podplan(['schedule', file, '--no-history']);
    const warning = run.stderr.split('\n').find((l) => / warning refused: spec\.resourceClaims\[0\]\.resourceClaimTemplateName: /.test(l));
    assert.ok(warning, run.stderr);
    assert.equal(anyName(/resourceClaimTemplateName: (.*): pod \S+ waits for it$/.exec(warning)?.[1] ?? warning), upstream);
    assert.match(run.stdout, new RegExp(`^ {2}${namespace}/second: .*pod "${namespace}/second": ResourceClaim not created yet\\.`, 'm'));
  });
});
