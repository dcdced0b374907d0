import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { startTestApiServer, type KubeObject, type TestApiServer } from './index';
import { clients, patchAs, raw, rejectsWith, type Clients } from './client';

const WIDGETS: k8s.V1CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['size'],
                properties: {
                  size: { type: 'integer' },
                  color: { type: 'string', _enum: ['red', 'blue'] },
                  extra: { type: 'object', x_kubernetes_preserve_unknown_fields: true },
                },
              },
              // as Pallet publishes SchedulePlan's status: a bare object, so every field under it is pruned
              status: { type: 'object' },
            },
          },
        },
      },
    ],
  },
};

const G = { group: 'example.com', version: 'v1', plural: 'widgets', namespace: 'default' };

function widget(name: string, spec: Record<string, unknown>, more: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'default' }, spec, ...more };
}

describe('test/kube/apiserver: CRDs and custom resources', () => {
  let server: TestApiServer;
  let c: Clients;

  beforeEach(async () => {
    server = await startTestApiServer();
    c = clients(server);
    await c.crds.createCustomResourceDefinition({ body: WIDGETS });
  });
  afterEach(() => server.close());

  it('a created CRD is Established and its group, resource and status subresource are discovered', async () => {
    const crd = await c.crds.readCustomResourceDefinition({ name: 'widgets.example.com' });
    assert.deepEqual(
      crd.status?.conditions?.map((x) => [x.type, x.status]),
      [
        ['NamesAccepted', 'True'],
        ['Established', 'True'],
      ],
    );
    const groups = await c.kc.makeApiClient(k8s.ApisApi).getAPIVersions();
    assert.deepEqual(
      { ...groups.groups.find((g) => g.name === 'example.com')?.preferredVersion },
      { groupVersion: 'example.com/v1', version: 'v1' },
    );
    const resources = await c.custom.getAPIResources({ group: 'example.com', version: 'v1' });
    assert.deepEqual(
      resources.resources.map((r) => [r.name, r.kind, r.namespaced, r.shortNames]),
      [
        ['widgets', 'Widget', true, ['wd']],
        ['widgets/status', 'Widget', true, undefined],
      ],
    );
  });

  it('custom resources are created, read, listed and merge-patched under their group path', async () => {
    await c.custom.createNamespacedCustomObject({ ...G, body: widget('w1', { size: 1 }) });
    const patched = (await c.custom.patchNamespacedCustomObject(
      { ...G, name: 'w1', body: { spec: { color: 'red' } } },
      patchAs(k8s.PatchStrategy.MergePatch),
    )) as KubeObject;
    assert.deepEqual(patched.spec, { size: 1, color: 'red' });
    const list = (await c.custom.listNamespacedCustomObject(G)) as { kind: string; items: KubeObject[] };
    assert.deepEqual([list.kind, list.items.map((i) => i.metadata?.name)], ['WidgetList', ['w1']]);
  });

  it('unknown fields are pruned, with a Warning header under the default fieldValidation', async () => {
    const body = JSON.stringify(widget('w1', { size: 1, shape: 'round', extra: { free: 'form' } }, { status: { phase: 'x' }, top: 1 }));
    const answer = await raw(server, 'POST', '/apis/example.com/v1/namespaces/default/widgets', { body, contentType: 'application/json' });
    assert.equal(answer.status, 201);
    const stored = answer.body as KubeObject;
    assert.deepEqual([stored.spec, stored.status, stored.top], [{ size: 1, extra: { free: 'form' } }, {}, undefined]);
    assert.equal(
      answer.headers.warning,
      '299 - "unknown field \\"spec.shape\\"", 299 - "unknown field \\"status.phase\\"", 299 - "unknown field \\"top\\""',
    );
  });

  it('fieldValidation=Strict rejects unknown fields with a 400 naming them all', async () => {
    await rejectsWith(
      c.custom.createNamespacedCustomObject({
        ...G,
        body: widget('w1', { size: 1, shape: 'round', weight: 2 }),
        fieldValidation: 'Strict',
      }),
      {
        code: 400,
        reason: 'BadRequest',
        message:
          'Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.shape", unknown field "spec.weight"',
      },
    );
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    [
      'a wrong type',
      { size: 'big' },
      'Widget.example.com "w1" is invalid: spec.size: Invalid value: "big": spec.size in body must be of type integer: "string"',
    ],
    ['a missing required field', {}, 'Widget.example.com "w1" is invalid: spec.size: Required value'],
    [
      'a value outside the enum',
      { size: 1, color: 'green' },
      'Widget.example.com "w1" is invalid: spec.color: Unsupported value: "green": supported values: "red", "blue"',
    ],
  ];
  for (const [what, spec, message] of invalid) {
    it(`${what} is 422 Invalid`, async () => {
      await rejectsWith(c.custom.createNamespacedCustomObject({ ...G, body: widget('w1', spec) }), {
        code: 422,
        reason: 'Invalid',
        message,
      });
    });
  }

  it('a strategic merge patch on a custom resource is 415', async () => {
    server.create(widget('w1', { size: 1 }));
    await rejectsWith(
      c.custom.patchNamespacedCustomObject(
        { ...G, name: 'w1', body: { spec: { size: 2 } } },
        patchAs(k8s.PatchStrategy.StrategicMergePatch),
      ),
      {
        code: 415,
        reason: 'UnsupportedMediaType',
      },
    );
  });

  it('with a status subresource: the main resource ignores status and bumps generation on spec changes; /status changes only status', async () => {
    const [created] = server.create(widget('w1', { size: 1 }));
    const main = (await c.custom.replaceNamespacedCustomObject({
      ...G,
      name: 'w1',
      body: { ...created, spec: { size: 2 }, status: { x: 1 } },
    })) as KubeObject;
    assert.deepEqual([main.metadata?.generation, main.status], [2, undefined]);
    const status = (await c.custom.replaceNamespacedCustomObjectStatus({
      ...G,
      name: 'w1',
      body: { ...main, spec: { size: 9 }, status: {} },
    })) as KubeObject;
    assert.deepEqual([status.metadata?.generation, status.spec], [2, { size: 2 }]);
  });

  it('an invalid CRD is 422; deleting a CRD deletes its resources and stops serving them', async () => {
    await rejectsWith(c.crds.createCustomResourceDefinition({ body: { ...WIDGETS, metadata: { name: 'wrong.example.com' } } }), {
      code: 422,
      reason: 'Invalid',
      message:
        'CustomResourceDefinition.apiextensions.k8s.io "wrong.example.com" is invalid: metadata.name: Invalid value: "wrong.example.com": must be spec.names.plural+"."+spec.group',
    });
    server.create(widget('w1', { size: 1 }));
    await c.crds.deleteCustomResourceDefinition({ name: 'widgets.example.com' });
    await rejectsWith(c.custom.listNamespacedCustomObject(G), {
      code: 404,
      reason: 'NotFound',
      message: 'the server could not find the requested resource',
    });
    assert.equal((await raw(server, 'GET', '/apis/example.com/v1')).status, 404);
  });

  it('a cluster-scoped custom resource is served without a namespace', async () => {
    const crd = structuredClone(WIDGETS);
    Object.assign(crd.spec, { group: 'cluster.example.com', scope: 'Cluster' });
    crd.metadata = { name: 'widgets.cluster.example.com' };
    await c.crds.createCustomResourceDefinition({ body: crd });
    await c.custom.createClusterCustomObject({
      group: 'cluster.example.com',
      version: 'v1',
      plural: 'widgets',
      body: { apiVersion: 'cluster.example.com/v1', kind: 'Widget', metadata: { name: 'global' }, spec: { size: 1 } },
    });
    const got = (await c.custom.getClusterCustomObject({
      group: 'cluster.example.com',
      version: 'v1',
      plural: 'widgets',
      name: 'global',
    })) as KubeObject;
    assert.equal(got.metadata?.namespace, undefined);
  });
});
