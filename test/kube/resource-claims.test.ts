// The live scheduler's ClaimWriter against the test API server: what kube-scheduler's PreBind writes
// to a claim (the finalizer by an update, then status.allocation with allocationTimestamp and the
// pod in status.reservedFor by a status update), the claim read again and written again after a
// conflict, and each refusal in upstream's words.
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/engine/api/clock';
import type { AllocationResult } from '../../src/engine/api/dra';
import type { ClaimBinding } from '../../src/engine/framework/binder';
import { KubeHttp, type KubeContext } from '../../src/kube';
import type { RequestOptions } from '../../src/kube/http';
import { CLAIM_FINALIZER, resourceClaimWriter, RETRIES } from '../../src/kube/resource-claims';
import { startTestApiServer, type KubeObject, type TestApiServer } from './apiserver';
import { contextOn } from './support';

const CLAIM = { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim' };

const claimObject = (name: string, status?: Record<string, unknown>): KubeObject => ({
  ...CLAIM,
  metadata: { name, namespace: 'default', labels: { team: 'ml' } },
  spec: { devices: { requests: [{ name: 'req', exactly: { deviceClassName: 'gpu', allocationMode: 'ExactCount', count: 1 } }] } },
  ...(status ? { status } : {}),
});

const allocation: AllocationResult = {
  devices: { results: [{ request: 'req', driver: 'gpu.example.com', pool: 'n1', device: 'gpu-0' }] },
  nodeSelector: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }] },
};

const consumer = (name: string) => ({ resource: 'pods', name, uid: `uid-${name}` });

/** KubeHttp that changes the claim on the server just before each of the first `times` PUTs: each meets a real 409. */
class RacingHttp extends KubeHttp {
  puts = 0;
  constructor(
    context: KubeContext,
    private readonly api: TestApiServer,
    private readonly times: number,
  ) {
    super(context);
  }
  override request<T = unknown>(path: string, options: RequestOptions = {}) {
    if (options.method === 'PUT' && this.puts++ < this.times) {
      const current = this.api.get(CLAIM, 'default', 'c1') as KubeObject;
      const labels = { ...((current.metadata as { labels?: Record<string, string> }).labels ?? {}), touched: String(this.puts) };
      this.api.update({ ...current, metadata: { ...current.metadata, labels } });
    }
    return super.request<T>(path, options);
  }
}

describe('kube/resource-claims (what PreBind writes to a ResourceClaim)', () => {
  let server: TestApiServer;
  let context: KubeContext;
  const warnings: string[] = [];
  const clock = new ManualClock(Date.parse('2026-11-27T14:05:06.789Z'));

  beforeEach(async () => {
    server = await startTestApiServer();
    context = await contextOn(server);
    warnings.length = 0;
  });
  afterEach(() => server.close());

  const binding = (name: string, extra: Partial<ClaimBinding> = {}): ClaimBinding => ({
    namespace: 'default',
    name,
    consumer: consumer('p1'),
    ...extra,
  });
  const writer = (http = new KubeHttp(context)) => resourceClaimWriter(http, { clock, onWarning: (m) => warnings.push(m) });
  const stored = (name: string) => server.get(CLAIM, 'default', name) as KubeObject & { metadata: { finalizers?: string[]; uid: string } };

  it('adds the finalizer, then stores the allocation (with its timestamp) and the reservation; answers the claim as written, decoded', async () => {
    server.create(claimObject('c1'));
    const uid = stored('c1').metadata.uid;
    const written = await writer().bindClaim(binding('c1', { uid, allocation }));
    assert.ok(written.ok, written.ok ? '' : written.error);
    const claim = stored('c1');
    assert.deepEqual(claim.metadata.finalizers, [CLAIM_FINALIZER]);
    assert.deepEqual(claim['status'], {
      allocation: { ...allocation, allocationTimestamp: '2026-11-27T14:05:06Z' },
      reservedFor: [consumer('p1')],
    });
    assert.deepEqual((claim.metadata as { labels?: unknown }).labels, { team: 'ml' }, 'the rest of the object is kept');
    assert.equal(written.value.metadata.resourceVersion, (claim.metadata as { resourceVersion: string }).resourceVersion);
    assert.deepEqual(written.value.status?.reservedFor, [consumer('p1')]);
    assert.deepEqual(written.value.status?.allocation?.devices, allocation.devices);
  });

  it('an allocated claim gets the reservation only, appended to those it has, without the finalizer update', async () => {
    server.create(claimObject('c1', { allocation, reservedFor: [consumer('p0')] }));
    const written = await writer().bindClaim(binding('c1'));
    assert.ok(written.ok, written.ok ? '' : written.error);
    assert.equal(stored('c1').metadata.finalizers, undefined);
    assert.deepEqual(stored('c1')['status'], { allocation, reservedFor: [consumer('p0'), consumer('p1')] });
  });

  it('a conflict reads the claim again and writes again; after RETRIES conflicts it gives up saying so', async () => {
    server.create(claimObject('c1'));
    const racing = new RacingHttp(context, server, 2);
    const written = await writer(racing).bindClaim(binding('c1', { allocation }));
    assert.ok(written.ok, written.ok ? '' : written.error);
    assert.equal(
      (stored('c1').metadata as { labels?: Record<string, string> }).labels?.['touched'],
      '2',
      'the changes made meanwhile are kept',
    );
    assert.deepEqual((stored('c1')['status'] as { reservedFor: unknown }).reservedFor, [consumer('p1')]);

    const always = new RacingHttp(context, server, Number.MAX_SAFE_INTEGER);
    const failed = await writer(always).bindClaim(binding('c1', { allocation: undefined, consumer: consumer('p2') }));
    assert.deepEqual(failed, { ok: false, error: `claim default/c1 changed while it was written, ${RETRIES} times` });
  });

  const refused: Array<[what: string, setup: () => ClaimBinding, error: string]> = [
    ['a claim that is gone', () => binding('gone', { allocation }), 'claim default/gone got deleted in the meantime'],
    [
      'another claim under the name (its uid differs)',
      () => (server.create(claimObject('c1')), binding('c1', { uid: 'an-older-uid', allocation })),
      'claim default/c1 got deleted in the meantime',
    ],
    [
      'a claim being deleted',
      () => {
        const [made] = server.create(claimObject('c1'));
        server.update({ ...made!, metadata: { ...made!.metadata, deletionTimestamp: '2026-11-27T14:00:00Z' } });
        return binding('c1', { allocation });
      },
      'claim default/c1 got deleted in the meantime',
    ],
    [
      'a claim allocated since the cycle read it',
      () => (server.create(claimObject('c1', { allocation })), binding('c1', { allocation })),
      'claim default/c1 got allocated elsewhere in the meantime',
    ],
  ];
  for (const [what, setup, error] of refused) {
    it(`refuses ${what}, writing nothing`, async () => {
      const b = setup();
      const before = server.get(CLAIM, 'default', b.name);
      assert.deepEqual(await writer().bindClaim(b), { ok: false, error });
      assert.deepEqual(server.get(CLAIM, 'default', b.name), before);
    });
  }

  it('a write the API server refuses is an error naming the step and the answer', async () => {
    server.create(claimObject('c1'));
    const forbidden = new (class extends KubeHttp {
      override request<T = unknown>(path: string, options: RequestOptions = {}) {
        return path.endsWith('/status') ? super.request<T>(`${path}-nope`, options) : super.request<T>(path, options);
      }
    })(context);
    const failed = await writer(forbidden).bindClaim(binding('c1', { allocation }));
    assert.ok(!failed.ok);
    assert.match(failed.error, /^add allocation and reservation to claim default\/c1: 404 /);
  });

  it('unreserve takes the pod back out of reservedFor and keeps the allocation; a claim gone is a warning', async () => {
    server.create(claimObject('c1', { allocation, reservedFor: [consumer('p0'), consumer('p1')] }));
    const w = writer();
    w.unreserveClaim(binding('c1'));
    await until(() => (stored('c1')['status'] as { reservedFor: unknown[] }).reservedFor.length === 1);
    assert.deepEqual(stored('c1')['status'], { allocation, reservedFor: [consumer('p0')] });
    w.unreserveClaim(binding('gone'));
    await until(() => warnings.length > 0);
    assert.deepEqual(warnings, [
      'unreserve: pod p1 is still in the reservedFor of claim default/gone: claim default/gone got deleted in the meantime',
    ]);
  });
  describe("the claim for a pod's extended resources (created, the pod's status patched, deleted for a pod not bound)", () => {
    const POD = { apiVersion: 'v1', kind: 'Pod' };
    const special = {
      metadata: {
        name: '',
        generateName: 'p1-extended-resources-',
        namespace: 'default',
        annotations: { 'resource.kubernetes.io/extended-resource-claim': 'true' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p1', uid: 'uid-p1', controller: true }],
      },
      spec: {
        devices: {
          requests: [
            { name: 'container-0-request-0', exactly: { deviceClassName: 'gpu', allocationMode: 'ExactCount' as const, count: 1 } },
          ],
        },
      },
    };

    it('creates it under a name the API server makes from generateName; answers it decoded, with its uid', async () => {
      const created = await writer().createClaim(special);
      assert.ok(created.ok, created.ok ? '' : created.error);
      assert.match(created.value.metadata.name, /^p1-extended-resources-[a-z0-9]{5}$/);
      const object = stored(created.value.metadata.name);
      assert.equal(created.value.metadata.uid, object.metadata.uid);
      assert.deepEqual(object['spec'], special.spec);
      assert.deepEqual((object.metadata as { annotations?: unknown }).annotations, special.metadata.annotations);
      assert.deepEqual((object.metadata as { ownerReferences?: unknown }).ownerReferences, special.metadata.ownerReferences);
    });

    it("patches the pod's status.extendedResourceClaimStatus, keeping the rest of its status; a pod gone is an error", async () => {
      server.create({
        ...POD,
        metadata: { name: 'p1', namespace: 'default' },
        spec: { containers: [{ name: 'main', image: 'x' }] },
        status: { phase: 'Pending' },
      });
      const status = {
        requestMappings: [{ containerName: 'main', resourceName: 'example.com/gpu', requestName: 'container-0-request-0' }],
        resourceClaimName: 'p1-extended-resources-abcde',
      };
      const pod = { metadata: { name: 'p1', namespace: 'default' }, spec: { containers: [{ name: 'main' }] } };
      const patched = await writer().patchPodExtendedResourceClaimStatus(pod, status);
      assert.ok(patched.ok, patched.ok ? '' : patched.error);
      assert.deepEqual((server.get(POD, 'default', 'p1') as KubeObject)['status'], {
        phase: 'Pending',
        extendedResourceClaimStatus: status,
      });
      const gone = await writer().patchPodExtendedResourceClaimStatus({ ...pod, metadata: { name: 'p9', namespace: 'default' } }, status);
      assert.ok(!gone.ok);
      assert.match(gone.error, /^404 /);
    });

    it('deletes it, its finalizer taken off first', async () => {
      server.create(claimObject('c1'));
      await writer().bindClaim(binding('c1', { uid: stored('c1').metadata.uid, allocation }));
      assert.deepEqual(stored('c1').metadata.finalizers, [CLAIM_FINALIZER]);
      const w = writer();
      w.deleteClaim('default', 'c1');
      await until(() => server.get(CLAIM, 'default', 'c1') === undefined);
      assert.deepEqual(warnings, []);
    });
  });
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(check(), 'the condition never held');
}
