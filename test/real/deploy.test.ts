// deploy/ on a real kube-apiserver: `kubectl apply -k deploy/` is accepted; `podplan run
// --in-cluster` with the ConfigMap's KubeSchedulerConfiguration, as the podplan-scheduler service
// account's token (mounted as in a pod), schedules plain pods, an unschedulable one, a preemption
// and a pod set with its trigger and plan, and is never refused; `kubectl auth can-i --list` shows
// that account exactly the rules of deploy/rbac.yaml (and the defaults every account has).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { eventually, node, pod, priorityClass, ROOT, startRealCluster, type KubeObject, type RealCluster } from './cluster';

const SA_DIR = 'var/run/secrets/kubernetes.io/serviceaccount';

describe('real kube-apiserver: deploy/ and least RBAC', function () {
  this.timeout(240_000);
  let cluster: RealCluster;

  before(async () => {
    cluster = await startRealCluster();
  });
  after(async () => {
    await cluster?.stop();
  });

  /** A folder laid out as a pod's service-account mount, for the account's fresh token. */
  async function mountServiceAccount(account: string): Promise<{ root: string; env: Record<string, string> }> {
    const answer = await cluster.request<{ status: { token: string } }>(
      'POST',
      `/api/v1/namespaces/podplan-system/serviceaccounts/${account}/token`,
      { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
    );
    assert.equal(answer.status, 201, answer.text);
    const root = join(cluster.dir, `mount-${account}`);
    mkdirSync(join(root, SA_DIR), { recursive: true });
    writeFileSync(join(root, SA_DIR, 'token'), answer.body.status.token);
    writeFileSync(join(root, SA_DIR, 'ca.crt'), cluster.caCert);
    writeFileSync(join(root, SA_DIR, 'namespace'), 'podplan-system');
    const port = new URL(cluster.server).port;
    return {
      root,
      env: {
        KUBERNETES_SERVICE_HOST: '127.0.0.1',
        KUBERNETES_SERVICE_PORT: port,
        PODPLAN_IN_CLUSTER_ROOT: root,
        KUBECONFIG: '/nonexistent',
      },
    };
  }

  it('applies with kubectl apply -k, and podplan run --in-cluster schedules every live scenario as its service account, never refused', async () => {
    const applied = await cluster.kubectl(['apply', '-k', join(ROOT, 'deploy')]);
    assert.equal(applied.code, 0, applied.stderr);
    const crds = await cluster.podplan(['install-crds', ...cluster.admin]);
    assert.equal(crds.code, 0, crds.stderr);
    await eventually(
      async () => ((await cluster.request('GET', '/apis/planner.ciena.io/v1alpha1')).status === 200 ? true : undefined),
      'the planner API served',
    );

    // The configuration the Deployment mounts.
    const configMap = await cluster.request<{ data: Record<string, string> }>(
      'GET',
      '/api/v1/namespaces/podplan-system/configmaps/podplan-scheduler-config',
    );
    const configFile = join(cluster.dir, 'scheduler-config.yaml');
    writeFileSync(configFile, configMap.body.data['config.yaml']!);

    const ns = 'rbac';
    const members = ['a', 'b'].map((n) =>
      pod(`cart-${n}`, {
        namespace: ns,
        schedulerName: 'podset-planner-scheduler',
        cpu: '500m',
        priorityClassName: 'rbac-mid',
        labels: { 'planner.ciena.io/pod-set': 'cart' },
      }),
    );
    const trigger: KubeObject = {
      apiVersion: 'planner.ciena.io/v1alpha1',
      kind: 'ScheduleTrigger',
      metadata: { name: 'cart', namespace: ns, labels: { 'planner.ciena.io/pod-set': 'cart', 'planner.ciena.io/quiet-time': '1s' } },
      spec: { state: 'Planning' },
    };
    await cluster.apply(
      priorityClass('rbac-low', 10),
      priorityClass('rbac-mid', 500),
      priorityClass('rbac-high', 2000),
      node('rbac-1', { cpu: '2', memory: '8Gi', pods: '110' }, { pool: 'rbac' }),
      node('rbac-2', { cpu: '2', memory: '8Gi', pods: '110' }, { pool: 'rbac' }),
      // rbac-1 is full with `low`: the rest land on rbac-2, and the preemptor's cheapest victim is `low`.
      pod('low', { namespace: ns, cpu: '1900m', nodeName: 'rbac-1', priorityClassName: 'rbac-low' }),
      pod('plain', { namespace: ns, cpu: '200m', nodeSelector: { pool: 'rbac' }, priorityClassName: 'rbac-mid' }),
      pod('too-big', { namespace: ns, cpu: '8', nodeSelector: { pool: 'rbac' }, priorityClassName: 'rbac-mid' }),
      trigger,
      ...members,
    );
    const { env } = await mountServiceAccount('podplan-scheduler');
    const running = cluster.spawnPodplan(['run', '--in-cluster', '--config', configFile, '--no-history', '--identity', 'rbac-test'], env);
    try {
      await running.waitFor((o) => o.stderr.includes('rbac-test leads'), 'leading');
      // The preemptor arrives once the rest is placed: it must evict `low` to fit.
      await eventually(
        async () => ((await cluster.pods(ns)).filter((p) => p.spec.nodeName).length >= 4 ? true : undefined),
        'plain and the pod set bound',
      );
      await cluster.apply(pod('urgent', { namespace: ns, cpu: '1800m', nodeSelector: { pool: 'rbac' }, priorityClassName: 'rbac-high' }));
      const pods = await eventually(async () => {
        const listed = await cluster.pods(ns);
        return listed.find((p) => p.metadata.name === 'urgent')?.spec.nodeName ? listed : undefined;
      }, 'the preemptor bound');
      const byName = new Map(pods.map((p) => [p.metadata.name, p]));
      assert.equal(byName.get('low'), undefined, 'the victim was deleted');
      for (const name of ['plain', 'cart-a', 'cart-b', 'urgent']) assert.ok(byName.get(name)?.spec.nodeName, `${name} bound`);
      assert.equal(byName.get('too-big')?.status?.conditions?.find((c) => c.type === 'PodScheduled')?.reason, 'Unschedulable');
      const plans = await cluster.request<{ items: unknown[] }>('GET', `/apis/planner.ciena.io/v1alpha1/namespaces/${ns}/scheduleplans`);
      assert.equal(plans.body.items.length, 1);
      const flipped = await cluster.request<{ spec: { state: string } }>(
        'GET',
        `/apis/planner.ciena.io/v1alpha1/namespaces/${ns}/scheduletriggers/cart`,
      );
      assert.equal(flipped.body.spec.state, 'Schedule');
      const events = await cluster.events(ns);
      for (const reason of ['Scheduled', 'FailedScheduling', 'Preempted'])
        assert.ok(
          events.some((e) => e.reason === reason),
          `a ${reason} event`,
        );
      const lease = await cluster.request<{ spec: { holderIdentity: string; leaseDurationSeconds: number } }>(
        'GET',
        '/apis/coordination.k8s.io/v1/namespaces/podplan-system/leases/podplan-scheduler',
      );
      assert.deepEqual(
        { holder: lease.body.spec.holderIdentity, duration: lease.body.spec.leaseDurationSeconds },
        { holder: 'rbac-test', duration: 15 },
      );
    } finally {
      const stopped = await running.stop();
      assert.doesNotMatch(stopped.stderr, /forbidden|Forbidden|403/, stopped.stderr);
    }

    // serve-planner --in-cluster as its own account: reads the cluster and serves.
    const planner = await mountServiceAccount('podplan-planner');
    const serving = cluster.spawnPodplan(['serve-planner', '--in-cluster', '--port', '0'], planner.env);
    try {
      await serving.waitFor((o) => /serving|listening/i.test(o.stdout + o.stderr), 'serve-planner listening');
    } finally {
      const stopped = await serving.stop();
      assert.doesNotMatch(stopped.stderr, /forbidden|Forbidden|403/, stopped.stderr);
    }
  });

  it('kubectl auth can-i --list shows each account exactly the rules of deploy/rbac.yaml and nothing more', async () => {
    const documents = (await import('node:fs'))
      .readFileSync(join(ROOT, 'deploy/rbac.yaml'), 'utf8')
      .split(/^---$/m)
      .map(
        (d) =>
          parse(d) as {
            kind: string;
            metadata: { name: string };
            rules?: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>;
          },
      );
    const expected = (roles: string[]) => {
      const rows = new Set<string>();
      for (const doc of documents) {
        if (!doc?.rules || !roles.includes(doc.metadata.name)) continue;
        for (const rule of doc.rules)
          for (const group of rule.apiGroups)
            for (const resource of rule.resources) {
              const [base, sub] = resource.split('/');
              rows.add(`${base}${group ? `.${group}` : ''}${sub ? `/${sub}` : ''} ${[...rule.verbs].sort().join(',')}`);
            }
      }
      return rows;
    };
    // What every service account may do (the bootstrap roles every authenticated user has): a bare account's rows.
    let defaults = new Set<string>();
    const granted = async (account: string, namespace: string) => {
      const user = account.includes(':') ? account : `system:serviceaccount:podplan-system:${account}`;
      const listed = await cluster.kubectl(['auth', 'can-i', '--list', `--as=${user}`, '-n', namespace]);
      assert.equal(listed.code, 0, listed.stderr);
      const rows = new Set<string>();
      for (const line of listed.stdout.split('\n').slice(1)) {
        // Resources  Non-Resource URLs  Resource Names  Verbs
        const m = /^(\S+)\s+\[([^\]]*)\]\s+\[([^\]]*)\]\s+\[([^\]]*)\]/.exec(line.trim());
        if (!m || m[1] === undefined || m[4] === undefined) continue;
        const row = `${m[1]} ${m[4].split(' ').filter(Boolean).sort().join(',')}`;
        if (!defaults.has(row)) rows.add(row);
      }
      return rows;
    };
    await cluster.namespace('bare');
    defaults = await granted('system:serviceaccount:bare:default', 'bare');
    assert.ok(defaults.has('selfsubjectaccessreviews.authorization.k8s.io create'), [...defaults].join('\n'));
    assert.deepEqual(
      [...(await granted('podplan-scheduler', 'podplan-system'))].sort(),
      [...expected(['podplan-scheduler', 'podplan-scheduler-lease'])].sort(),
    );
    assert.deepEqual([...(await granted('podplan-scheduler', 'default'))].sort(), [...expected(['podplan-scheduler'])].sort());
    assert.deepEqual([...(await granted('podplan-planner', 'podplan-system'))].sort(), [...expected(['podplan-planner'])].sort());
  });
});
