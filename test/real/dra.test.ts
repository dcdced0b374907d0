// Dynamic Resource Allocation against a real kube-apiserver v1.37.2 (resource.k8s.io/v1): a
// DeviceClass, ResourceSlices, ResourceClaims and a ResourceClaimTemplate read from the context
// (`schedule --context` and its `snapshot` give the same verdicts), `podplan run` (the built
// bin/podplan.js) writing each claim's allocation and reservation before binding its pod, and the
// real kube-scheduler v1.37.2 on the same objects writing the same allocations and the same message
// for the pod no device is left for; a pod whose template claim is not created yet left untried by
// both until its status names the claim; and the claim both make at PreBind for an extended resource
// a DeviceClass serves (DRAExtendedResource), with the pod's status.extendedResourceClaimStatus;
// and a device with binding conditions, for which both write the claim and wait for the driver.
//
// No kube-controller-manager runs in this tier, so no controller makes the claim of a template
// entry: the test makes it as the resourceclaim controller would (owned by the pod, annotated with
// the pod's claim name) and names it in the pod's status.resourceClaimStatuses.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  eventually,
  node,
  pod,
  priorityClass,
  startKubeScheduler,
  startRealCluster,
  type KubeObject,
  type PodObject,
  type RealCluster,
} from './cluster';

const DRIVER = 'gpu.example.com';
const API = 'resource.k8s.io/v1';

interface ClaimObject extends KubeObject {
  readonly metadata: KubeObject['metadata'] & { readonly uid: string; readonly finalizers?: string[] };
  readonly status?: {
    readonly allocation?: {
      readonly devices?: { readonly results?: ReadonlyArray<{ request: string; driver: string; pool: string; device: string }> };
      readonly nodeSelector?: unknown;
      readonly allocationTimestamp?: string;
    };
    readonly reservedFor?: ReadonlyArray<{ apiGroup?: string; resource: string; name: string; uid: string }>;
  };
}

const deviceClass: KubeObject = {
  apiVersion: API,
  kind: 'DeviceClass',
  metadata: { name: 'gpu' },
  spec: { selectors: [{ cel: { expression: `device.driver == "${DRIVER}"` } }] },
};

/** Three GPUs on `nodeName`, in a pool of its name. */
const slice = (nodeName: string): KubeObject => ({
  apiVersion: API,
  kind: 'ResourceSlice',
  metadata: { name: `${nodeName}-gpus` },
  spec: {
    driver: DRIVER,
    pool: { name: nodeName, generation: 1, resourceSliceCount: 1 },
    nodeName,
    devices: ['gpu-0', 'gpu-1', 'gpu-2'].map((name) => ({ name, attributes: { model: { string: 'a100' } } })),
  },
});

const claimSpec = { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu', allocationMode: 'ExactCount', count: 1 } }] } };

const claim = (namespace: string, name: string): KubeObject => ({
  apiVersion: API,
  kind: 'ResourceClaim',
  metadata: { name, namespace },
  spec: claimSpec,
});

/** A pod of `schedulerName` on the nodes of `pool` using one claim by name or from a template. */
const gpuPod = (
  namespace: string,
  name: string,
  schedulerName: string,
  source: { resourceClaimName: string } | { resourceClaimTemplateName: string },
  priorityClassName?: string,
) => {
  const base = pod(name, {
    namespace,
    schedulerName,
    nodeSelector: { pool: namespace },
    ...(priorityClassName ? { priorityClassName } : {}),
  });
  const spec = base['spec'] as { containers: Array<Record<string, unknown>> };
  return {
    ...base,
    spec: {
      ...spec,
      containers: spec.containers.map((c) => ({ ...c, resources: { ...(c['resources'] as object), claims: [{ name: 'gpu' }] } })),
      resourceClaims: [{ name: 'gpu', ...source }],
    },
  };
};

describe('real kube-apiserver: Dynamic Resource Allocation', function () {
  this.timeout(300_000);
  let cluster: RealCluster;

  before(async () => {
    cluster = await startRealCluster();
    await cluster.apply(deviceClass, priorityClass('dra-first', 100));
  });
  after(async () => {
    await cluster?.stop();
  });

  const claimsOf = async (ns: string): Promise<Map<string, ClaimObject>> => {
    const answer = await cluster.request<{ items: ClaimObject[] }>('GET', `/apis/${API}/namespaces/${ns}/resourceclaims`);
    assert.equal(answer.status, 200, answer.text);
    return new Map(answer.body.items.map((c) => [c.metadata.name, c]));
  };
  const podsByName = async (ns: string) => new Map((await cluster.pods(ns)).map((p) => [p.metadata.name, p]));

  /**
   * Namespace `ns` as a user and the controller would leave it: claims a, b, c by name, a template,
   * and pods a, b, c, t (t from the template, its claim made as the resourceclaim controller makes
   * it) for `schedulerName`, on two nodes of pool `ns`, one of them with three GPUs.
   */
  /** What the resourceclaim controller does for pod t's template entry gpu: the claim, owned by the pod, then its name in the pod's status. */
  async function createTemplateClaim(ns: string): Promise<void> {
    const t = (await podsByName(ns)).get('t')!;
    const generated = `t-gpu-${ns.slice(0, 5)}`;
    await cluster.apply({
      apiVersion: API,
      kind: 'ResourceClaim',
      metadata: {
        name: generated,
        namespace: ns,
        annotations: { 'resource.kubernetes.io/pod-claim-name': 'gpu' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 't', uid: t.metadata.uid, controller: true, blockOwnerDeletion: true }],
      },
      spec: claimSpec,
    });
    const patched = await cluster.request(
      'PATCH',
      `/api/v1/namespaces/${ns}/pods/t/status`,
      { status: { resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: generated }] } },
      'application/merge-patch+json',
    );
    assert.equal(patched.status, 200, patched.text);
  }

  async function populate(ns: string, schedulerName: string): Promise<void> {
    await cluster.apply(
      node(`${ns}-gpu`, { cpu: '8', memory: '32Gi', pods: '110' }, { pool: ns }),
      node(`${ns}-cpu`, { cpu: '8', memory: '32Gi', pods: '110' }, { pool: ns }),
      slice(`${ns}-gpu`),
      claim(ns, 'a'),
      claim(ns, 'b'),
      claim(ns, 'c'),
      { apiVersion: API, kind: 'ResourceClaimTemplate', metadata: { name: 'one-gpu', namespace: ns }, spec: { spec: claimSpec } },
      gpuPod(ns, 'a', schedulerName, { resourceClaimName: 'a' }, 'dra-first'),
      gpuPod(ns, 'b', schedulerName, { resourceClaimName: 'b' }, 'dra-first'),
      gpuPod(ns, 't', schedulerName, { resourceClaimTemplateName: 'one-gpu' }, 'dra-first'),
    );
    await createTemplateClaim(ns);
    // The last pod, of a lower priority, comes after the others in both queues: no GPU is left for it.
    await cluster.apply(gpuPod(ns, 'c', schedulerName, { resourceClaimName: 'c' }));
  }

  /** Each pod's allocation as `device @ node-kind`, and whether its claim is reserved for it (by uid), finalized. */
  async function allocations(ns: string): Promise<Record<string, string>> {
    const claims = await claimsOf(ns);
    const pods = await podsByName(ns);
    const out: Record<string, string> = {};
    for (const [name, p] of pods) {
      const claimName = name === 't' ? `t-gpu-${ns.slice(0, 5)}` : name;
      const c = claims.get(claimName)!;
      const results = c.status?.allocation?.devices?.results ?? [];
      const reserved = (c.status?.reservedFor ?? []).map((r) => `${r.resource}/${r.name}/${r.uid === p.metadata.uid ? 'uid' : r.uid}`);
      const where = p.spec.nodeName ? p.spec.nodeName.slice(ns.length + 1) : 'unbound';
      out[name] =
        results.length === 0
          ? `${where}, not allocated, reserved for [${reserved.join(' ')}]`
          : `${where}, ${results.map((r) => `${r.request}:${r.driver}/${r.pool.slice(ns.length + 1)}/${r.device}`).join(' ')}, ` +
            `reserved for [${reserved.join(' ')}], finalizers [${(c.metadata.finalizers ?? []).join(' ')}], ` +
            `timestamp ${c.status?.allocation?.allocationTimestamp ? 'set' : 'unset'}, node selector ${JSON.stringify(c.status?.allocation?.nodeSelector).replaceAll(ns, '<ns>')}`;
    }
    return out;
  }

  it('schedule --context and its snapshot agree; podplan run writes each allocation and reservation before binding, as kube-scheduler does', async () => {
    // Both namespaces first, so both schedulers see the same four nodes.
    await populate('dra', 'podplan');
    await populate('ks', 'default-scheduler');

    // schedule --context reads the four kinds: in each namespace three pods on the GPU node, c not placed.
    const fromContext = await cluster.podplan(['schedule', ...cluster.admin, '--no-history', '--json']);
    assert.equal(fromContext.code, 1, fromContext.stderr);
    const outcomes = (text: string) =>
      text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; pod?: string; node?: string | null; message?: string })
        .filter((o) => o.type === 'outcome')
        .map((o) => `${o.pod} → ${o.node ?? `not placed: ${o.message}`}`)
        .sort();
    const verdicts = outcomes(fromContext.stdout);
    const ours = verdicts.filter((v) => v.startsWith('dra/'));
    assert.deepEqual(
      ours.map((v) => v.replace(/: 0\/.*$/, ': …')),
      ['dra/a → dra-gpu', 'dra/b → dra-gpu', 'dra/c → not placed: …', 'dra/t → dra-gpu'],
      fromContext.stdout,
    );
    assert.match(ours[2]!, /cannot allocate all claims/);

    // The snapshot holds the four kinds and gives the same verdicts.
    const dir = join(cluster.dir, 'dra-snapshot');
    const snapshot = await cluster.podplan(['snapshot', ...cluster.admin, '-o', dir]);
    assert.equal(snapshot.code, 0, snapshot.stderr);
    assert.match(readFileSync(join(dir, 'deviceclasses.yaml'), 'utf8'), /name: gpu\n/);
    assert.match(readFileSync(join(dir, 'resourceslices.yaml'), 'utf8'), /name: dra-gpu-gpus\n/);
    const claimsFile = readFileSync(join(dir, 'dra/resourceclaims.yaml'), 'utf8');
    for (const name of ['a', 'b', 'c', 't-gpu-dra']) assert.match(claimsFile, new RegExp(`name: ${name}\\n`));
    assert.match(readFileSync(join(dir, 'dra/resourceclaimtemplates.yaml'), 'utf8'), /name: one-gpu\n/);
    const fromSnapshot = await cluster.podplan(['schedule', dir, '--no-history', '--json']);
    assert.equal(fromSnapshot.code, 1, fromSnapshot.stderr);
    // From files, the pods of the default scheduler are the ones scheduled (from a context, podplan's too): ks's pods, the same verdicts.
    const kube = (list: string[]) => list.filter((v) => v.startsWith('ks/'));
    assert.deepEqual(
      kube(verdicts).map((v) => v.replace(/: 0\/.*$/, ': …')),
      ['ks/a → ks-gpu', 'ks/b → ks-gpu', 'ks/c → not placed: …', 'ks/t → ks-gpu'],
    );
    assert.deepEqual(kube(outcomes(fromSnapshot.stdout)), kube(verdicts));

    // podplan run: the claims written, then the pods bound; c left with upstream's message.
    const run = await cluster.podplan(['run', ...cluster.admin, '--once', '--no-history', '--lease-namespace', 'kube-system']);
    assert.equal(run.code, 1, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /^3 pods bound, 1 not placed\.$/m);
    const written = await allocations('dra');

    // kube-scheduler on the same objects in namespace ks (its own two nodes and slice).
    const scheduler = startKubeScheduler(cluster, 'dra-kube-scheduler');
    const unschedulable = (p: PodObject | undefined) =>
      p?.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.status === 'False')?.message;
    try {
      await eventually(
        async () => {
          const pods = await podsByName('ks');
          return ['a', 'b', 't'].every((n) => pods.get(n)?.spec.nodeName) && unschedulable(pods.get('c')) ? true : undefined;
        },
        "kube-scheduler's bindings",
        90_000,
      ).catch((e: unknown) => {
        throw new Error(`${String(e)}; kube-scheduler's log ends: ${scheduler.log().slice(-2000)}`);
      });
    } finally {
      scheduler.stop();
    }
    const theirs = await allocations('ks');
    // Which pod of the same priority gets which GPU follows each queue's order; what is written is the same.
    const anyDevice = (all: Record<string, string>) =>
      Object.fromEntries(Object.entries(all).map(([k, v]) => [k, v.replace(/gpu-\d/, 'gpu-N')]));
    const devicesOf = (all: Record<string, string>) =>
      Object.values(all)
        .map((v) => /gpu-\d/.exec(v)?.[0] ?? '-')
        .sort();
    assert.deepEqual(anyDevice(written), anyDevice(theirs));
    assert.deepEqual(devicesOf(written), devicesOf(theirs));
    assert.match(
      written['a']!,
      /^gpu, gpu:gpu\.example\.com\/gpu\/gpu-\d, reserved for \[pods\/a\/uid\], finalizers \[resource\.kubernetes\.io\/delete-protection\], timestamp set/,
    );
    assert.match(written['c']!, /^unbound, not allocated, reserved for \[\]$/);
    const devices = ['a', 'b', 't'].map((n) => /gpu-\d/.exec(written[n]!)?.[0]);
    assert.equal(new Set(devices).size, 3, `each pod its own device: ${devices.join(' ')}`);
    const message = (ns: string) => podsByName(ns).then((pods) => unschedulable(pods.get('c'))?.replaceAll(`${ns}-`, '<ns>-'));
    assert.equal(await message('dra'), await message('ks'));
  });
  // upstream DynamicResources.PreEnqueue: a pod whose template claim the resourceclaim controller has
  // not created and named yet waits outside the active queue, never tried: no FailedScheduling event,
  // no PodScheduled condition. Once the claim exists and the pod's status names it, it is scheduled.
  it('a pod whose template claim is not created yet waits untried, as in kube-scheduler, and is placed once its status names the claim', async () => {
    /** In `ns`: a GPU node, a template, pod t from it (no claim yet), then pod s with a claim by name. */
    const hold = async (ns: string, schedulerName: string) => {
      await cluster.apply(
        node(`${ns}-gpu`, { cpu: '8', memory: '32Gi', pods: '110' }, { pool: ns }),
        slice(`${ns}-gpu`),
        { apiVersion: API, kind: 'ResourceClaimTemplate', metadata: { name: 'one-gpu', namespace: ns }, spec: { spec: claimSpec } },
        gpuPod(ns, 't', schedulerName, { resourceClaimTemplateName: 'one-gpu' }),
        claim(ns, 's'),
        gpuPod(ns, 's', schedulerName, { resourceClaimName: 's' }),
      );
    };
    /** Pod t as the schedulers left it: bound or not, its PodScheduled condition, the events about it. */
    const untried = async (ns: string) => {
      const t = (await podsByName(ns)).get('t')!;
      const events = (await cluster.events(ns)).filter((e) => e.regarding.name === 't');
      return {
        node: t.spec.nodeName ?? null,
        conditions: t.status?.conditions ?? [],
        events: events.map((e) => `${e.reason}: ${e.note ?? ''}`),
      };
    };
    await hold('held', 'podplan');
    await hold('kheld', 'default-scheduler');

    // podplan run: s is bound, t never tried (--once ends: nothing of its own pending).
    const first = await cluster.podplan(['run', ...cluster.admin, '--once', '--no-history', '--lease-namespace', 'kube-system']);
    assert.match(first.stdout, /^bound held\/s /m, `${first.stdout}\n${first.stderr}`);
    assert.doesNotMatch(first.stdout, /held\/t/);
    const scheduler = startKubeScheduler(cluster, 'dra-held-kube-scheduler');
    try {
      // t came into kube-scheduler's queue before s, at the same priority: s bound means t was passed over.
      await eventually(
        async () => ((await podsByName('kheld')).get('s')?.spec.nodeName ? true : undefined),
        "kube-scheduler's binding of s",
        90_000,
      );
      const expected = { node: null, conditions: [], events: [] };
      assert.deepEqual(await untried('kheld'), expected);
      assert.deepEqual(await untried('held'), expected);

      await createTemplateClaim('held');
      await createTemplateClaim('kheld');
      await eventually(
        async () => ((await podsByName('kheld')).get('t')?.spec.nodeName ? true : undefined),
        "kube-scheduler's binding of t",
        90_000,
      ).catch((e: unknown) => {
        throw new Error(`${String(e)}; kube-scheduler's log ends: ${scheduler.log().slice(-2000)}`);
      });
    } finally {
      scheduler.stop();
    }
    const second = await cluster.podplan(['run', ...cluster.admin, '--once', '--no-history', '--lease-namespace', 'kube-system']);
    assert.match(second.stdout, /^bound held\/t /m, `${second.stdout}\n${second.stderr}`);
    const ours = await allocations('held');
    const theirs = await allocations('kheld');
    const anyDevice = (all: Record<string, string>) =>
      Object.fromEntries(Object.entries(all).map(([k, v]) => [k, v.replace(/gpu-\d/, 'gpu-N')]));
    assert.deepEqual(anyDevice(ours), anyDevice(theirs));
    assert.match(
      ours['t']!,
      /^gpu, gpu:gpu\.example\.com\/gpu\/gpu-\d, reserved for \[pods\/t\/uid\], finalizers \[resource\.kubernetes\.io\/delete-protection\]/,
    );
  });
  // DRAExtendedResource (GA in 1.37): a pod asking for an extended resource no node's device plugin
  // serves, but a DeviceClass's spec.extendedResourceName does, gets a claim made for it at PreBind
  // (upstream createExtendedResourceClaimInAPI) and the pod's status.extendedResourceClaimStatus.
  it('a pod asking for an extended resource a DeviceClass serves gets the same claim and pod status from podplan run as from kube-scheduler', async () => {
    const RESOURCE = 'example.com/gpu';
    await cluster.apply({
      apiVersion: API,
      kind: 'DeviceClass',
      metadata: { name: 'gpu-ext' },
      spec: { selectors: [{ cel: { expression: `device.driver == "${DRIVER}"` } }], extendedResourceName: RESOURCE },
    });
    const populateExt = async (ns: string, schedulerName: string) => {
      await cluster.apply(
        node(`${ns}-gpu`, { cpu: '8', memory: '32Gi', pods: '110' }, { pool: ns }),
        slice(`${ns}-gpu`),
        pod('x', { namespace: ns, schedulerName, nodeSelector: { pool: ns }, extended: { [RESOURCE]: '2' } }),
      );
    };
    await populateExt('ext', 'podplan');
    await populateExt('kext', 'default-scheduler');

    const run = await cluster.podplan(['run', ...cluster.admin, '--once', '--no-history', '--lease-namespace', 'kube-system']);
    assert.match(run.stdout, /^bound ext\/x to ext-gpu$/m, `${run.stdout}\n${run.stderr}`);
    const scheduler = startKubeScheduler(cluster, 'dra-ext-kube-scheduler');
    try {
      await eventually(
        async () => ((await podsByName('kext')).get('x')?.spec.nodeName ? true : undefined),
        "kube-scheduler's binding of x",
        90_000,
      ).catch((e: unknown) => {
        throw new Error(`${String(e)}; kube-scheduler's log ends: ${scheduler.log().slice(-2000)}`);
      });
    } finally {
      scheduler.stop();
    }

    /** The claim made for x and x's status, with the namespace, uids, times and the random name suffix taken out. */
    const made = async (ns: string) => {
      const claims = [...(await claimsOf(ns)).values()];
      assert.equal(claims.length, 1, JSON.stringify(claims));
      const c = claims[0]! as ClaimObject & {
        metadata: { generateName?: string; annotations?: Record<string, string>; ownerReferences?: Array<Record<string, unknown>> };
        spec: unknown;
      };
      const x = (await podsByName(ns)).get('x')! as PodObject & {
        status?: { extendedResourceClaimStatus?: { resourceClaimName: string } };
      };
      const strip = (text: string) => text.replaceAll(x.metadata.uid, '<pod-uid>').replaceAll(`${ns}-`, '<ns>-');
      const { allocationTimestamp, ...allocation } = c.status?.allocation ?? {};
      return {
        name: c.metadata.name.replace(/[a-z0-9]{5}$/, '<random>'),
        generateName: c.metadata.generateName,
        annotations: c.metadata.annotations,
        finalizers: c.metadata.finalizers,
        ownerReferences: strip(JSON.stringify(c.metadata.ownerReferences)),
        spec: c.spec,
        allocation: strip(JSON.stringify(allocation)),
        allocationTimestamp: allocationTimestamp ? 'set' : 'unset',
        reservedFor: strip(JSON.stringify(c.status?.reservedFor)),
        node: x.spec.nodeName?.slice(ns.length + 1),
        extendedResourceClaimStatus: strip(JSON.stringify(x.status?.extendedResourceClaimStatus).replaceAll(c.metadata.name, '<claim>')),
      };
    };
    const ours = await made('ext');
    const theirs = await made('kext');
    assert.deepEqual(ours, theirs);
    assert.equal(ours.name, 'x-extended-resources-<random>');
    // Not equal for want of anything: two devices allocated on the GPU node, reserved for x, which names the claim.
    assert.equal(ours.node, 'gpu');
    assert.equal((ours.allocation.match(/"device":"gpu-\d"/g) ?? []).length, 2, ours.allocation);
    assert.match(ours.reservedFor, /^\[\{"resource":"pods","name":"x","uid":"<pod-uid>"\}\]$/);
    assert.match(ours.extendedResourceClaimStatus, /"resourceName":"example\.com\/gpu".*"resourceClaimName":"<claim>"/);
  });
  // DRADeviceBindingConditions (on by default in 1.37): a device with binding conditions makes
  // PreBind wait, after the claim is written, until the driver reports them True in the claim's
  // status.devices; then the pod is bound. No driver runs here: the test reports as one would.
  it('a device with binding conditions: podplan run and kube-scheduler write the claim, wait for the driver, then bind', async () => {
    const attachable = (nodeName: string): KubeObject => {
      const base = slice(nodeName) as KubeObject & { spec: { devices: Array<Record<string, unknown>> } };
      return {
        ...base,
        spec: {
          ...base.spec,
          devices: base.spec.devices.map((d) => ({ ...d, bindingConditions: ['attached'], bindingFailureConditions: ['failed'] })),
        },
      };
    };
    const populateBc = async (ns: string, schedulerName: string) => {
      await cluster.apply(
        node(`${ns}-gpu`, { cpu: '8', memory: '32Gi', pods: '110' }, { pool: ns }),
        attachable(`${ns}-gpu`),
        claim(ns, 'x'),
        gpuPod(ns, 'x', schedulerName, { resourceClaimName: 'x' }),
      );
    };
    await populateBc('bc', 'podplan');
    await populateBc('kbc', 'default-scheduler');
    const written = async (ns: string) => {
      const c = (await claimsOf(ns)).get('x');
      return c?.status?.reservedFor?.length ? c : undefined;
    };
    /** What a driver does once the device is attached: the condition True in the claim's status. */
    const attach = async (ns: string) => {
      const c = (await written(ns))!;
      const result = c.status!.allocation!.devices!.results![0]!;
      const patched = await cluster.request(
        'PATCH',
        `/apis/${API}/namespaces/${ns}/resourceclaims/x/status`,
        {
          status: {
            devices: [
              {
                driver: result.driver,
                pool: result.pool,
                device: result.device,
                conditions: [
                  {
                    type: 'attached',
                    status: 'True',
                    reason: 'Attached',
                    message: '',
                    lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
                  },
                ],
              },
            ],
          },
        },
        'application/merge-patch+json',
      );
      assert.equal(patched.status, 200, patched.text);
    };

    const run = cluster.spawnPodplan(['run', ...cluster.admin, '--once', '--no-history', '--lease-namespace', 'kube-system']);
    const scheduler = startKubeScheduler(cluster, 'dra-bc-kube-scheduler');
    try {
      // Both have written the claim and wait: kube-scheduler says so with its event.
      await eventually(() => written('bc'), "podplan run's claim write", 60_000);
      await eventually(() => written('kbc'), "kube-scheduler's claim write", 60_000);
      /** The BindingConditionsPending event about x, as both record it (the namespace taken out). */
      const pendingEvent = (ns: string) =>
        eventually(
          async () => {
            const e = (await cluster.events(ns)).find((e) => e.regarding.name === 'x' && e.reason === 'BindingConditionsPending');
            return e && `${e.type} ${e.reason} ${e.action} ${e.reportingController}: ${(e.note ?? '').replaceAll(ns, '<ns>')}`;
          },
          `the BindingConditionsPending event in ${ns}`,
          60_000,
        );
      const theirs = await pendingEvent('kbc');
      assert.equal(
        theirs,
        'Normal BindingConditionsPending Scheduling default-scheduler: waiting for binding conditions for device on node <ns>-gpu',
      );
      assert.equal(await pendingEvent('bc'), theirs.replace('default-scheduler', 'podplan'));
      for (const ns of ['bc', 'kbc']) assert.equal((await podsByName(ns)).get('x')?.spec.nodeName, undefined, `${ns}/x waits`);
      await attach('bc');
      await attach('kbc');
      await eventually(
        async () => ((await podsByName('kbc')).get('x')?.spec.nodeName ? true : undefined),
        "kube-scheduler's binding",
        60_000,
      );
    } finally {
      scheduler.stop();
    }
    await run.waitFor((o) => /^bound bc\/x to bc-gpu$/m.test(o.stdout), 'the binding of bc/x', 60_000);
    await run.stop();
    const claimOf = async (ns: string) => {
      const c = (await claimsOf(ns)).get('x')!;
      const { allocationTimestamp, ...allocation } = c.status?.allocation ?? {};
      return {
        allocation: JSON.stringify(allocation)
          .replaceAll(ns, '<ns>')
          .replace(/gpu-\d/, 'gpu-N'),
        allocationTimestamp: allocationTimestamp ? 'set' : 'unset',
        reservedFor: c.status?.reservedFor?.map((r) => r.name),
        finalizers: c.metadata.finalizers,
      };
    };
    const ours = await claimOf('bc');
    assert.deepEqual(ours, await claimOf('kbc'));
    assert.match(ours.allocation, /"bindingConditions":\["attached"\],"bindingFailureConditions":\["failed"\]/);
  });
});
