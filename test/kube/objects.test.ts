import assert from 'node:assert/strict';
import {
  cleanObject,
  decodeNode,
  decodeObject,
  decodePod,
  LAST_APPLIED_ANNOTATION,
  NODE,
  POD,
  snapshotFile,
  sortForSnapshot,
  sourceName,
  WatchedPods,
  type ApiObject,
} from '../../src/kube';
import { podInfo } from '../../src/engine/framework/node-info';
import { eventLabel, podSchedulingPropertiesChange } from '../../src/engine/framework/events';
import { formatError } from '../../src/manifests';

const listItem = (name: string, ns?: string, extra: Record<string, unknown> = {}) => ({
  metadata: { name, ...(ns ? { namespace: ns } : {}) },
  ...extra,
});

describe('kube/objects (API objects as Podplan keeps them)', () => {
  it('gives list items their apiVersion and kind, and leaves the input alone', () => {
    const raw = listItem('n1', undefined, { status: { allocatable: { cpu: '2' } } });
    const before = JSON.stringify(raw);
    assert.deepEqual(cleanObject(NODE, raw), {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n1' },
      status: { allocatable: { cpu: '2' } },
    });
    assert.equal(JSON.stringify(raw), before);
  });

  it('drops managedFields, the last-applied annotation and literal env values, in every container list', () => {
    const container = (name: string) => ({
      name,
      env: [
        { name: 'TOKEN', value: 'abc' },
        { name: 'FROM', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
      ],
    });
    const raw = {
      metadata: {
        name: 'p',
        namespace: 'ns',
        managedFields: [{ manager: 'kubectl' }],
        annotations: { [LAST_APPLIED_ANNOTATION]: '{}', keep: 'me' },
      },
      spec: { containers: [container('c')], initContainers: [container('i')], ephemeralContainers: [container('e')] },
    };
    const clean = cleanObject(POD, raw) as unknown as { metadata: Record<string, unknown>; spec: Record<string, Array<{ env: unknown }>> };
    assert.deepEqual(clean.metadata, { name: 'p', namespace: 'ns', annotations: { keep: 'me' } });
    for (const list of ['containers', 'initContainers', 'ephemeralContainers']) {
      assert.deepEqual(
        clean.spec[list]?.[0]?.env,
        [{ name: 'TOKEN' }, { name: 'FROM', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
        list,
      );
    }
  });

  it('skips what is not an object with a name', () => {
    for (const raw of [null, 'x', [], { metadata: {} }, { metadata: { name: 3 } }]) assert.equal(cleanObject(POD, raw), undefined);
  });

  const node = cleanObject(NODE, listItem('n1')) as ApiObject;
  const podB = cleanObject(POD, listItem('b', 'shop')) as ApiObject;
  const podA = cleanObject(POD, listItem('a', 'shop')) as ApiObject;
  const podZ = cleanObject(POD, listItem('z', 'batch')) as ApiObject;

  it('names snapshot files by kind (and namespace for namespaced kinds)', () => {
    assert.equal(snapshotFile(NODE, node), 'nodes.yaml');
    assert.equal(snapshotFile(POD, podA), 'shop/pods.yaml');
  });

  it('orders objects as a snapshot directory is read back: by file path, then by name', () => {
    const sorted = sortForSnapshot([
      { resource: POD, object: podB },
      { resource: NODE, object: node },
      { resource: POD, object: podA },
      { resource: POD, object: podZ },
    ]);
    assert.deepEqual(
      sorted.map((t) => t.object.metadata.name),
      ['z', 'n1', 'a', 'b'],
    );
  });

  it('gives each object a synthetic source name', () => {
    assert.equal(sourceName('prod', podA), 'context/prod/Pod/shop/a');
    assert.equal(sourceName('prod', node), 'context/prod/Node/n1');
  });

  it('decodes through the manifests decoder; a bad object is reported at its source name', () => {
    const good = decodeObject(
      'prod',
      cleanObject(POD, {
        metadata: { name: 'a', namespace: 'shop' },
        spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] },
      }) as ApiObject,
    );
    assert.deepEqual(good.errors, []);
    assert.equal(good.pods[0]?.value.metadata.name, 'a');
    const bad = decodeObject(
      'prod',
      cleanObject(POD, { metadata: { name: 'b', namespace: 'shop' }, spec: { containers: 'none' } }) as ApiObject,
    );
    assert.equal(bad.pods.length, 0);
    assert.match(formatError(bad.errors[0]!), /^context\/prod\/Pod\/shop\/b:1:1: error /);
  });

  it('adapts a watched Pod or Node to the engine type, or says why not', () => {
    const pod = decodePod(
      'prod',
      cleanObject(POD, { metadata: { name: 'a', namespace: 'shop' }, spec: { nodeName: 'n1', containers: [{ name: 'c' }] } }) as ApiObject,
    );
    assert.ok(pod.ok);
    assert.deepEqual([pod.value.metadata.name, pod.value.spec.nodeName], ['a', 'n1']);
    const node = decodeNode('prod', cleanObject(NODE, { metadata: { name: 'n1' }, status: { allocatable: { cpu: '2' } } }) as ApiObject);
    assert.ok(node.ok);
    assert.equal(node.value.metadata.name, 'n1');
    const bad = decodePod(
      'prod',
      cleanObject(POD, { metadata: { name: 'b', namespace: 'shop' }, spec: { containers: 'none' } }) as ApiObject,
    );
    assert.ok(!bad.ok);
    assert.match(bad.error[0] ?? '', /^context\/prod\/Pod\/shop\/b:1:1: error /);
    const wrongKind = decodeNode(
      'prod',
      cleanObject(POD, { metadata: { name: 'c', namespace: 'shop' }, spec: { containers: [{ name: 'c' }] } }) as ApiObject,
    );
    assert.deepEqual(wrongKind, { ok: false, error: ['context/prod/Pod/shop/c: not a Node'] });
  });

  // A watched pod keeps status.extendedResourceClaimStatus, so the update that writes it is
  // UpdatePodGeneratedResourceClaim (upstream PodSchedulingPropertiesChange's extended-claim half);
  // a malformed one is a located error, as any other field's.
  describe('decodes status.extendedResourceClaimStatus: an update that writes it is UpdatePodGeneratedResourceClaim', () => {
    const mapping = { containerName: 'c', resourceName: 'example.com/gpu', requestName: 'container-0-request-0' };
    const table: Array<{ name: string; status?: unknown; events?: string[]; error?: RegExp }> = [
      {
        name: 'written',
        status: { resourceClaimName: 'a-extended-resources-x7k', requestMappings: [mapping] },
        events: ['UnscheduledPodUpdatePodGeneratedResourceClaim'],
      },
      {
        name: 'written with requestMappings null',
        status: { resourceClaimName: 'a-x', requestMappings: null },
        events: ['UnscheduledPodUpdatePodGeneratedResourceClaim'],
      },
      { name: 'absent: the plain update', events: ['UnscheduledPodUpdate'] },
      {
        name: 'a mapping without its requestName',
        status: { resourceClaimName: 'a-x', requestMappings: [{ containerName: 'c', resourceName: 'r' }] },
        error: /requestName/,
      },
      { name: 'no resourceClaimName', status: { requestMappings: [] }, error: /resourceClaimName/ },
    ];
    for (const row of table) {
      it(row.name, () => {
        const raw = (status?: unknown) =>
          cleanObject(POD, {
            metadata: { name: 'a', namespace: 'shop', labels: { app: 'web' } },
            spec: { containers: [{ name: 'c' }] },
            status: { phase: 'Pending', ...(status !== undefined ? { extendedResourceClaimStatus: status } : {}) },
          }) as ApiObject;
        const before = decodePod('prod', raw());
        const after = decodePod('prod', raw(row.status));
        assert.ok(before.ok);
        if (row.error) {
          assert.ok(!after.ok);
          assert.match(after.error.join('\n'), /^context\/prod\/Pod\/shop\/a:\d+:\d+: error /);
          assert.match(after.error.join('\n'), row.error);
          return;
        }
        assert.ok(after.ok, !after.ok ? after.error.join('\n') : '');
        if (row.status !== undefined)
          assert.deepEqual(after.value.status?.extendedResourceClaimStatus, {
            ...(row.status as object),
            requestMappings: (row.status as { requestMappings: unknown }).requestMappings ?? [],
          });
        assert.deepEqual(podSchedulingPropertiesChange(after.value, before.value, false).map(eventLabel), row.events);
      });
    }
  });

  describe('WatchedPods: a new version that only binds the pod reuses the decoded one', () => {
    const pending = {
      metadata: { name: 'a', namespace: 'shop', uid: 'u1', resourceVersion: '10', labels: { app: 'web' } },
      spec: { schedulerName: 'podplan', containers: [{ name: 'c', resources: { requests: { cpu: '100m' } } }] },
      status: { phase: 'Pending' },
    };
    const version = (change: (raw: typeof pending) => object) => cleanObject(POD, change(structuredClone(pending))) as ApiObject;
    const bound = (raw: typeof pending) => ({
      ...raw,
      metadata: { ...raw.metadata, resourceVersion: '11' },
      spec: { ...raw.spec, nodeName: 'n1' },
      status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True' }] },
    });
    const cases: Array<{ readonly name: string; readonly next: ApiObject; readonly reused: boolean }> = [
      { name: 'bound: node, resourceVersion and status changed', next: version(bound), reused: true },
      {
        name: 'status only (Running, Ready)',
        next: version((r) => ({
          ...r,
          status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], startTime: '2026-11-25T00:00:00Z' },
        })),
        reused: true,
      },
      { name: 'bound and its status dropped', next: version((r) => ({ ...bound(r), status: undefined })), reused: true },
      {
        name: 'a request changed',
        next: version((r) => ({
          ...bound(r),
          spec: { ...bound(r).spec, containers: [{ name: 'c', resources: { requests: { cpu: '200m' } } }] },
        })),
        reused: false,
      },
      {
        name: 'a label changed',
        next: version((r) => ({ ...bound(r), metadata: { ...bound(r).metadata, labels: { app: 'db' } } })),
        reused: false,
      },
      {
        name: 'being deleted',
        next: version((r) => ({ ...bound(r), metadata: { ...bound(r).metadata, deletionTimestamp: '2026-11-25T00:00:00Z' } })),
        reused: false,
      },
      {
        name: 'a new pod of the same name (other uid)',
        next: version((r) => ({ ...bound(r), metadata: { ...bound(r).metadata, uid: 'u2' } })),
        reused: false,
      },
    ];
    for (const { name, next, reused } of cases) {
      it(`${name}: ${reused ? 'reused' : 'decoded again'}, equal to what the decoder makes of it`, () => {
        const pods = new WatchedPods('prod');
        const first = pods.decode(version((r) => r));
        const second = pods.decode(next);
        assert.ok(first.ok && second.ok);
        assert.deepEqual(second.value, (decodePod('prod', next) as { value: unknown }).value);
        assert.equal(second.value.spec.containers === first.value.spec.containers, reused);
        // Its engine PodInfo is shared too (its requests not read again), for its own object.
        const [before, after] = [podInfo(first.value), podInfo(second.value)];
        assert.ok(before.ok && after.ok);
        assert.equal(after.value.pod, second.value);
        assert.equal(after.value.requests === before.value.requests, reused);
      });
    }

    it('a status the decoder rejects is reported as the decoder reports it, and the pod forgotten', () => {
      const pods = new WatchedPods('prod');
      pods.decode(version((r) => r));
      const bad = version((r) => ({ ...bound(r), status: { phase: 'Sleeping' } }));
      assert.deepEqual(pods.decode(bad), decodePod('prod', bad));
      assert.ok(!pods.decode(bad).ok);
    });

    it('after forget (the delete), the next version is decoded afresh', () => {
      const pods = new WatchedPods('prod');
      const first = pods.decode(version((r) => r));
      pods.forget(version((r) => r));
      const again = pods.decode(version(bound));
      assert.ok(first.ok && again.ok);
      assert.notEqual(again.value.spec.containers, first.value.spec.containers);
    });
  });
});
