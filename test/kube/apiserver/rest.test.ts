import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { startTestApiServer, type TestApiServer } from './index';
import { clients, names, namespace, node, patchAs, pod, raw, rejectsWith, type Clients } from './client';

describe('test/kube/apiserver: REST through @kubernetes/client-node', () => {
  let server: TestApiServer;
  let c: Clients;

  beforeEach(async () => {
    server = await startTestApiServer();
    c = clients(server);
  });
  afterEach(() => server.close());

  describe('authentication', () => {
    for (const user of ['token', 'cert', 'both'] as const) {
      it(`a kubeconfig user with ${user} credentials is accepted`, async () => {
        server.create(node('n1'));
        assert.deepEqual(names(await clients(server, user).core.listNode()), ['n1']);
      });
    }

    const refused: [string, string | null][] = [
      ['a wrong token', 'not-the-token'],
      ['no credentials', null],
    ];
    for (const [what, token] of refused) {
      it(`${what} gets 401 with an Unauthorized Status`, async () => {
        const answer = await raw(server, 'GET', '/api/v1/nodes', { token });
        assert.equal(answer.status, 401);
        assert.deepEqual(answer.body, {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'Unauthorized',
          reason: 'Unauthorized',
          code: 401,
        });
      });
    }
  });

  describe('discovery', () => {
    it('/api, /apis and /version describe the served groups', async () => {
      const core = await c.kc.makeApiClient(k8s.CoreApi).getAPIVersions();
      assert.deepEqual(core.versions, ['v1']);
      const groups = await c.kc.makeApiClient(k8s.ApisApi).getAPIVersions();
      const served = groups.groups.map((g) => g.name);
      for (const g of ['apps', 'scheduling.k8s.io', 'policy', 'storage.k8s.io', 'coordination.k8s.io', 'apiextensions.k8s.io'])
        assert.ok(served.includes(g), g);
      const version = await c.kc.makeApiClient(k8s.VersionApi).getCode();
      assert.equal(version.gitVersion, 'v1.35.0');
    });

    it('/api/v1 lists pods with their status and binding subresources', async () => {
      const list = await c.core.getAPIResources();
      const pods = list.resources.filter((r) => r.name.startsWith('pods'));
      assert.deepEqual(
        pods.map((r) => [r.name, r.kind, r.verbs.includes('create')]),
        [
          ['pods', 'Pod', true],
          ['pods/status', 'Pod', false],
          ['pods/binding', 'Binding', true],
        ],
      );
    });
  });

  describe('create, get, update, delete', () => {
    it('create answers the stored object with uid, creationTimestamp and resourceVersion; pods get defaults', async () => {
      const created = await c.core.createNamespacedPod({ namespace: 'default', body: pod('web') as k8s.V1Pod });
      assert.ok(created.metadata?.uid);
      assert.ok(created.metadata?.creationTimestamp);
      assert.equal(created.metadata?.resourceVersion, String(server.resourceVersion));
      assert.equal(created.spec?.schedulerName, 'default-scheduler');
      assert.equal(created.spec?.priority, 0);
      assert.equal(created.status?.phase, 'Pending');
    });

    it('errors are Status objects worded as the API server words them', async () => {
      server.create(pod('web'));
      await rejectsWith(c.core.createNamespacedPod({ namespace: 'default', body: pod('web') as k8s.V1Pod }), {
        code: 409,
        reason: 'AlreadyExists',
        message: 'pods "web" already exists',
        details: { name: 'web', kind: 'pods' },
      });
      await rejectsWith(c.core.readNamespacedPod({ namespace: 'default', name: 'nope' }), {
        code: 404,
        reason: 'NotFound',
        message: 'pods "nope" not found',
      });
      await rejectsWith(c.apps.readNamespacedDeployment({ namespace: 'default', name: 'nope' }), {
        code: 404,
        reason: 'NotFound',
        message: 'deployments.apps "nope" not found',
        details: { name: 'nope', group: 'apps', kind: 'deployments' },
      });
      await rejectsWith(c.core.createNamespacedPod({ namespace: 'missing', body: pod('p', { namespace: 'missing' }) as k8s.V1Pod }), {
        code: 404,
        reason: 'NotFound',
        message: 'namespaces "missing" not found',
      });
      await rejectsWith(c.core.createNamespacedPod({ namespace: 'default', body: { metadata: {}, spec: { containers: [] } } }), {
        code: 422,
        reason: 'Invalid',
        message: 'Pod "" is invalid: metadata.name: Required value: name or generateName is required',
      });
    });

    it('dryRun=All answers what would be stored and stores nothing', async () => {
      const answer = await c.core.createNamespacedPod({ namespace: 'default', body: pod('web') as k8s.V1Pod, dryRun: 'All' });
      assert.equal(answer.spec?.schedulerName, 'default-scheduler');
      assert.equal(server.get({ apiVersion: 'v1', kind: 'Pod' }, 'default', 'web'), undefined);
    });

    it('generateName makes a unique name from the prefix', async () => {
      const a = await c.core.createNamespacedPod({
        namespace: 'default',
        body: { metadata: { generateName: 'web-' }, spec: { containers: [{ name: 'c' }] } },
      });
      const b = await c.core.createNamespacedPod({
        namespace: 'default',
        body: { metadata: { generateName: 'web-' }, spec: { containers: [{ name: 'c' }] } },
      });
      assert.match(a.metadata?.name ?? '', /^web-[a-z0-9]{5}$/);
      assert.notEqual(a.metadata?.name, b.metadata?.name);
    });

    it('an update with a stale resourceVersion is a 409 Conflict; with the current one it succeeds', async () => {
      const [stored] = server.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cm', namespace: 'default' },
        data: { a: '1' },
      });
      const body = { ...stored, data: { a: '2' } } as k8s.V1ConfigMap;
      const updated = await c.core.replaceNamespacedConfigMap({ namespace: 'default', name: 'cm', body });
      assert.equal(updated.data?.a, '2');
      await rejectsWith(c.core.replaceNamespacedConfigMap({ namespace: 'default', name: 'cm', body: { ...body, data: { a: '3' } } }), {
        code: 409,
        reason: 'Conflict',
        message:
          'Operation cannot be fulfilled on configmaps "cm": the object has been modified; please apply your changes to the latest version and try again',
      });
    });

    it('leases: create, then updates preconditioned on resourceVersion (leader election)', async () => {
      const lease = await c.coordination.createNamespacedLease({
        namespace: 'kube-system',
        body: { metadata: { name: 'podplan' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15 } },
      });
      const renewed = await c.coordination.replaceNamespacedLease({
        namespace: 'kube-system',
        name: 'podplan',
        body: { ...lease, spec: { ...lease.spec, holderIdentity: 'a' } },
      });
      await rejectsWith(
        c.coordination.replaceNamespacedLease({
          namespace: 'kube-system',
          name: 'podplan',
          body: { ...lease, spec: { holderIdentity: 'b' } },
        }),
        {
          code: 409,
          reason: 'Conflict',
          details: { name: 'podplan', group: 'coordination.k8s.io', kind: 'leases' },
        },
      );
      assert.equal(
        (await c.coordination.readNamespacedLease({ namespace: 'kube-system', name: 'podplan' })).metadata?.resourceVersion,
        renewed.metadata?.resourceVersion,
      );
    });

    it('the status subresource changes only status; the main resource keeps status as stored', async () => {
      server.create(pod('web', { labels: { app: 'web' } }));
      const current = await c.core.readNamespacedPod({ namespace: 'default', name: 'web' });
      const afterStatus = await c.core.replaceNamespacedPodStatus({
        namespace: 'default',
        name: 'web',
        body: { ...current, metadata: { ...current.metadata, labels: { app: 'changed' } }, status: { phase: 'Running' } },
      });
      assert.deepEqual([afterStatus.status?.phase, afterStatus.metadata?.labels], ['Running', { app: 'web' }]);
      const afterMain = await c.core.replaceNamespacedPod({
        namespace: 'default',
        name: 'web',
        body: { ...afterStatus, status: { phase: 'Failed' } },
      });
      assert.equal(afterMain.status?.phase, 'Running');
    });

    const podUpdates: [string, (spec: k8s.V1PodSpec) => void, boolean][] = [
      ['a container image', (spec) => Object.assign(spec.containers[0] as k8s.V1Container, { image: 'nginx:2' }), true],
      ['an added toleration', (spec) => (spec.tolerations = [{ key: 'k', operator: 'Exists' }]), true],
      ['spec.nodeName (only a binding sets it)', (spec) => (spec.nodeName = 'n1'), false],
      [
        "a container's resources",
        (spec) => Object.assign(spec.containers[0] as k8s.V1Container, { resources: { requests: { cpu: '1' } } }),
        false,
      ],
    ];
    for (const [what, change, allowed] of podUpdates) {
      it(`a pod update changing ${what} is ${allowed ? 'accepted' : '422 Forbidden'}`, async () => {
        server.create(pod('web'));
        const current = await c.core.readNamespacedPod({ namespace: 'default', name: 'web' });
        change(current.spec as k8s.V1PodSpec);
        const update = c.core.replaceNamespacedPod({ namespace: 'default', name: 'web', body: current });
        if (allowed) await update;
        else await rejectsWith(update, { code: 422, reason: 'Invalid' });
      });
    }

    it("the scale subresource reads and sets a workload's replicas", async () => {
      server.create({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'default' },
        spec: { replicas: 2, selector: { matchLabels: { app: 'web' } } },
      });
      const scale = await c.apps.readNamespacedDeploymentScale({ namespace: 'default', name: 'web' });
      assert.deepEqual([scale.spec?.replicas, scale.status?.selector], [2, 'app=web']);
      await c.apps.patchNamespacedDeploymentScale(
        { namespace: 'default', name: 'web', body: { spec: { replicas: 5 } } },
        patchAs(k8s.PatchStrategy.MergePatch),
      );
      assert.equal((server.get({ apiVersion: 'apps/v1', kind: 'Deployment' }, 'default', 'web')?.spec as { replicas: number }).replicas, 5);
    });

    it('deletecollection deletes what the selector matches and answers the list of it', async () => {
      server.create(pod('a', { labels: { app: 'web' } }), pod('b', { labels: { app: 'db' } }));
      const answer = await c.core.deleteCollectionNamespacedPod({ namespace: 'default', labelSelector: 'app=web' });
      assert.equal(answer.status, undefined);
      assert.deepEqual(
        server.list({ apiVersion: 'v1', kind: 'Pod' }).map((p) => p.metadata?.name),
        ['b'],
      );
    });

    it('a pod takes its priority from its PriorityClass; an unknown class is forbidden', async () => {
      await c.scheduling.createPriorityClass({ body: { metadata: { name: 'high' }, value: 1000 } });
      const p = await c.core.createNamespacedPod({ namespace: 'default', body: pod('p', { priorityClassName: 'high' }) as k8s.V1Pod });
      assert.equal(p.spec?.priority, 1000);
      await rejectsWith(c.core.createNamespacedPod({ namespace: 'default', body: pod('q', { priorityClassName: 'nope' }) as k8s.V1Pod }), {
        code: 403,
        reason: 'Forbidden',
        message: 'pods "q" is forbidden: no PriorityClass with name nope was found',
      });
    });

    it('delete removes the object; finalizers hold it with a deletionTimestamp until they are cleared', async () => {
      server.create(pod('web'), {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cm', namespace: 'default', finalizers: ['example.com/keep'] },
      });
      const deleted = await c.core.deleteNamespacedPod({ namespace: 'default', name: 'web' });
      assert.equal(deleted.metadata?.name, 'web');
      assert.equal(server.get({ apiVersion: 'v1', kind: 'Pod' }, 'default', 'web'), undefined);
      await c.core.deleteNamespacedConfigMap({ namespace: 'default', name: 'cm' });
      const held = await c.core.readNamespacedConfigMap({ namespace: 'default', name: 'cm' });
      assert.ok(held.metadata?.deletionTimestamp);
      await c.core.replaceNamespacedConfigMap({
        namespace: 'default',
        name: 'cm',
        body: { ...held, metadata: { ...held.metadata, finalizers: [] } },
      });
      assert.equal(server.get({ apiVersion: 'v1', kind: 'ConfigMap' }, 'default', 'cm'), undefined);
    });

    it('deleting a namespace deletes what is in it', async () => {
      server.create(namespace('team'), pod('a', { namespace: 'team' }), pod('b'));
      await c.core.deleteNamespace({ name: 'team' });
      assert.deepEqual(
        server.list({ apiVersion: 'v1', kind: 'Pod' }).map((p) => p.metadata?.name),
        ['b'],
      );
    });
  });

  describe('direct access from the test', () => {
    it('seeds many objects at once and reads them back in key order', () => {
      const nodes = Array.from({ length: 500 }, (_, i) => node(`n${String(i).padStart(3, '0')}`));
      const pods = Array.from({ length: 2000 }, (_, i) => pod(`p${String(i).padStart(4, '0')}`));
      server.create(...nodes, ...pods);
      const stored = server.list({ apiVersion: 'v1', kind: 'Pod' }, 'default');
      assert.equal(stored.length, 2000);
      assert.deepEqual([stored[0]?.metadata?.name, stored[1999]?.metadata?.name], ['p0000', 'p1999']);
      assert.equal(server.list({ apiVersion: 'v1', kind: 'Node' }).length, 500);
    });

    it('writes status and spec as given (playing kubelet or another scheduler), with watch events', async () => {
      server.create(node('n1'), pod('p'));
      const rv = String(server.resourceVersion);
      server.patch({ apiVersion: 'v1', kind: 'Pod' }, 'default', 'p', { spec: { nodeName: 'n1' }, status: { phase: 'Running' } });
      const changed = await c.core.listNamespacedPod({ namespace: 'default', resourceVersion: rv });
      assert.deepEqual([changed.items[0]?.spec?.nodeName, changed.items[0]?.status?.phase], ['n1', 'Running']);
      server.create(pod('q'));
      server.bind('default', 'q', 'n1');
      assert.equal(server.counters.bindings.get('default/q'), 1);
    });
  });

  describe('list', () => {
    beforeEach(() => {
      server.create(
        namespace('team'),
        pod('a', { labels: { app: 'web', tier: 'front' }, nodeName: 'n1', phase: 'Running' }),
        pod('b', { labels: { app: 'web' }, schedulerName: 'podplan' }),
        pod('c', { labels: { app: 'db', tier: 'back' }, nodeName: 'n2', phase: 'Succeeded' }),
        pod('d', { namespace: 'team', labels: { app: 'db' }, schedulerName: 'podplan' }),
      );
    });

    it('answers the current resourceVersion in the list metadata', async () => {
      const list = await c.core.listPodForAllNamespaces();
      assert.equal(list.metadata?.resourceVersion, String(server.resourceVersion));
      assert.deepEqual(names(list), ['a', 'b', 'c', 'd']);
    });

    const labelCases: [string, string[]][] = [
      ['app=web', ['a', 'b']],
      ['app==web', ['a', 'b']],
      ['app!=web', ['c', 'd']],
      ['app in (web,db),tier', ['a', 'c']],
      ['tier notin (front)', ['b', 'c', 'd']],
      ['tier', ['a', 'c']],
      ['!tier', ['b', 'd']],
      ['app=db,!tier', ['d']],
    ];
    for (const [selector, expected] of labelCases) {
      it(`labelSelector ${selector}`, async () => {
        assert.deepEqual(names(await c.core.listPodForAllNamespaces({ labelSelector: selector })), expected);
      });
    }

    const fieldCases: [string, string[]][] = [
      ['spec.nodeName=n1', ['a']],
      ['spec.nodeName=', ['b', 'd']],
      ['spec.nodeName!=', ['a', 'c']],
      ['status.phase=Pending', ['b', 'd']],
      ['status.phase!=Succeeded,status.phase!=Failed', ['a', 'b', 'd']],
      ['spec.schedulerName=podplan,spec.nodeName=', ['b', 'd']],
      ['metadata.name=c', ['c']],
      ['metadata.namespace=team', ['d']],
    ];
    for (const [selector, expected] of fieldCases) {
      it(`fieldSelector ${selector}`, async () => {
        assert.deepEqual(names(await c.core.listPodForAllNamespaces({ fieldSelector: selector })), expected);
      });
    }

    it('an unsupported field selector is a 400', async () => {
      await rejectsWith(c.core.listPodForAllNamespaces({ fieldSelector: 'spec.priority=3' }), {
        code: 400,
        reason: 'BadRequest',
        message: 'field label not supported: spec.priority',
      });
    });

    it('a namespaced list holds only that namespace', async () => {
      assert.deepEqual(names(await c.core.listNamespacedPod({ namespace: 'team' })), ['d']);
    });

    it('limit and continue page through a list at one resourceVersion', async () => {
      const first = await c.core.listPodForAllNamespaces({ limit: 3 });
      assert.deepEqual([names(first), first.metadata?.remainingItemCount], [['a', 'b', 'c'], 1]);
      server.create(pod('e', { namespace: 'team' }));
      const second = await c.core.listPodForAllNamespaces({ limit: 3, _continue: first.metadata?._continue });
      assert.deepEqual(names(second), ['d'], 'a pod created after the first page is not in the later pages');
      assert.equal(second.metadata?.resourceVersion, first.metadata?.resourceVersion);
      assert.equal(second.metadata?._continue, undefined);
    });

    it('a continue token older than the compacted history is 410 Expired', async () => {
      const first = await c.core.listPodForAllNamespaces({ limit: 1 });
      server.create(pod('e'));
      server.compact();
      await rejectsWith(c.core.listPodForAllNamespaces({ limit: 1, _continue: first.metadata?._continue }), {
        code: 410,
        reason: 'Expired',
      });
    });
  });

  describe('patch', () => {
    beforeEach(() => {
      server.create({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'default', labels: { app: 'web', tier: 'front' } },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: {
            spec: {
              containers: [
                { name: 'main', image: 'nginx:1' },
                { name: 'side', image: 'envoy:1' },
              ],
            },
          },
        },
      });
    });
    const containers = (d: k8s.V1Deployment): k8s.V1Container[] => d.spec?.template.spec?.containers ?? [];

    const cases: [string, k8s.PatchStrategy, object, (d: k8s.V1Deployment) => unknown, unknown][] = [
      [
        'merge patch sets and removes (null) keys',
        k8s.PatchStrategy.MergePatch,
        { metadata: { labels: { tier: null, x: 'y' } } },
        (d) => d.metadata?.labels,
        { app: 'web', x: 'y' },
      ],
      [
        'merge patch replaces lists whole',
        k8s.PatchStrategy.MergePatch,
        { spec: { template: { spec: { containers: [{ name: 'main', image: 'nginx:2' }] } } } },
        (d) => containers(d).map((x) => x.name),
        ['main'],
      ],
      [
        'JSON patch applies its operations in order',
        k8s.PatchStrategy.JsonPatch,
        [
          { op: 'add', path: '/metadata/labels/x', value: 'y' },
          { op: 'remove', path: '/metadata/labels/tier' },
          { op: 'replace', path: '/spec/template/spec/containers/1/image', value: 'envoy:2' },
        ],
        (d) => [d.metadata?.labels, containers(d)[1]?.image],
        [{ app: 'web', x: 'y' }, 'envoy:2'],
      ],
      [
        'strategic merge patch merges containers by name',
        k8s.PatchStrategy.StrategicMergePatch,
        { spec: { template: { spec: { containers: [{ name: 'side', image: 'envoy:2' }] } } } },
        (d) => containers(d).map((x) => `${x.name}=${x.image}`),
        ['main=nginx:1', 'side=envoy:2'],
      ],
      [
        'strategic merge patch deletes a list element with $patch: delete',
        k8s.PatchStrategy.StrategicMergePatch,
        { spec: { template: { spec: { containers: [{ name: 'main', $patch: 'delete' }] } } } },
        (d) => containers(d).map((x) => x.name),
        ['side'],
      ],
    ];
    for (const [what, strategy, body, read, expected] of cases) {
      it(what, async () => {
        const patched = await c.apps.patchNamespacedDeployment({ namespace: 'default', name: 'web', body }, patchAs(strategy));
        assert.deepEqual(read(patched), expected);
      });
    }

    it('a JSON patch on a missing path is 422', async () => {
      await rejectsWith(
        c.apps.patchNamespacedDeployment(
          { namespace: 'default', name: 'web', body: [{ op: 'remove', path: '/spec/nope/x' }] },
          patchAs(k8s.PatchStrategy.JsonPatch),
        ),
        { code: 422 },
      );
    });

    it('a patch carrying a stale resourceVersion is a 409 Conflict', async () => {
      await rejectsWith(
        c.apps.patchNamespacedDeployment(
          { namespace: 'default', name: 'web', body: { metadata: { resourceVersion: '1', labels: { x: 'y' } } } },
          patchAs(k8s.PatchStrategy.MergePatch),
        ),
        {
          code: 409,
          reason: 'Conflict',
        },
      );
    });

    it('server-side apply creates, then merges, and records the field manager', async () => {
      const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace: 'default' }, data: { a: '1' } };
      const created = await c.objects.patch(cm, undefined, undefined, 'test-manager', true, k8s.PatchStrategy.ServerSideApply);
      assert.deepEqual((created as k8s.V1ConfigMap).data, { a: '1' });
      const merged = (await c.objects.patch(
        { ...cm, data: { b: '2' } },
        undefined,
        undefined,
        'test-manager',
        true,
        k8s.PatchStrategy.ServerSideApply,
      )) as k8s.V1ConfigMap;
      assert.deepEqual(merged.data, { a: '1', b: '2' });
      assert.deepEqual(
        merged.metadata?.managedFields?.map((m) => [m.manager, m.operation]),
        [['test-manager', 'Apply']],
      );
    });
  });

  describe('binding', () => {
    beforeEach(() => {
      server.create(node('n1'), pod('web'));
    });

    it('pods/{name}/binding sets spec.nodeName and the PodScheduled condition, and answers a Success Status', async () => {
      const binding = JSON.stringify({
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name: 'web' },
        target: { kind: 'Node', name: 'n1' },
      });
      const answer = await raw(server, 'POST', '/api/v1/namespaces/default/pods/web/binding', {
        body: binding,
        contentType: 'application/json',
      });
      assert.deepEqual(
        [answer.status, answer.body],
        [201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 }],
      );
      const bound = server.get({ apiVersion: 'v1', kind: 'Pod' }, 'default', 'web') as k8s.V1Pod;
      assert.equal(bound.spec?.nodeName, 'n1');
      assert.deepEqual(
        bound.status?.conditions?.map((x) => [x.type, x.status]),
        [['PodScheduled', 'True']],
      );
      assert.equal(server.counters.bindings.get('default/web'), 1);
    });

    it('namespaces/{ns}/bindings binds the pod its body names', async () => {
      await c.core.createNamespacedBinding({
        namespace: 'default',
        body: { metadata: { name: 'web' }, target: { kind: 'Node', name: 'n1' } },
      });
      assert.equal((server.get({ apiVersion: 'v1', kind: 'Pod' }, 'default', 'web') as k8s.V1Pod).spec?.nodeName, 'n1');
    });

    it('binding a bound pod is a 409 naming its node; a missing pod is a 404', async () => {
      const bind = (name: string, nodeName: string): Promise<unknown> =>
        c.core.createNamespacedPodBinding({
          namespace: 'default',
          name,
          body: { metadata: { name }, target: { kind: 'Node', name: nodeName } },
        });
      await bind('web', 'n1');
      await rejectsWith(bind('web', 'n2'), {
        code: 409,
        reason: 'Conflict',
        message: 'Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "n1"',
        details: { name: 'web', kind: 'pods/binding' },
      });
      await rejectsWith(bind('ghost', 'n1'), { code: 404, reason: 'NotFound', message: 'pods "ghost" not found' });
      assert.equal(server.counters.bindings.get('default/web'), 1);
    });
  });
});
