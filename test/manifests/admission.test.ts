import assert from 'node:assert/strict';
import { readSnapshot, formatError } from '../../src/manifests';
import { ADMISSION_CASES, unordered } from './admission-cases';

const pod = (name: string, resources = '', extra = '') => `apiVersion: v1
kind: Pod
metadata: { name: ${name}, namespace: ns${extra} }
spec:
  containers:
  - name: c
    image: nginx${resources ? `\n    resources: ${resources}` : ''}
`;

const containerResources = (text: string) =>
  readSnapshot([{ name: 'f.yaml', text }]).cluster.pods.map((p) => [p.metadata.name, p.spec.containers[0]?.resources ?? {}]);

describe('manifests/admission: LimitRanger and ResourceQuota on pods not yet admitted', () => {
  describe("LimitRanger: a Container LimitRange's defaults, after the LimitRange's own defaulting", () => {
    const table: Array<[what: string, limits: string, resources: string, expected: unknown]> = [
      [
        'default and defaultRequest',
        '{ default: { memory: 512Mi }, defaultRequest: { memory: 256Mi } }',
        '',
        { requests: { memory: '256Mi' }, limits: { memory: '512Mi' } },
      ],
      [
        'default alone: the request is the default too',
        '{ default: { cpu: 500m } }',
        '',
        { requests: { cpu: '500m' }, limits: { cpu: '500m' } },
      ],
      ['max alone: it is the default limit and request', '{ max: { cpu: "1" } }', '', { requests: { cpu: '1' }, limits: { cpu: '1' } }],
      ['min alone: it is the default request', '{ min: { memory: 64Mi } }', '', { requests: { memory: '64Mi' } }],
      [
        'a limit the container sets is its request, not the default request',
        '{ default: { memory: 512Mi }, defaultRequest: { memory: 256Mi } }',
        '{ limits: { memory: 1Gi } }',
        { requests: { memory: '1Gi' }, limits: { memory: '1Gi' } },
      ],
      [
        'a request the container sets stays',
        '{ default: { memory: 512Mi }, defaultRequest: { memory: 256Mi } }',
        '{ requests: { memory: 128Mi } }',
        { requests: { memory: '128Mi' }, limits: { memory: '512Mi' } },
      ],
    ];
    for (const [what, item, resources, expected] of table) {
      it(what, () => {
        const text = `apiVersion: v1\nkind: LimitRange\nmetadata: { name: r, namespace: ns }\nspec:\n  limits: [{ type: Container, ${item.slice(2, -2)} }]\n---\n${pod('p', resources)}`;
        assert.deepEqual(containerResources(text), [['p', expected]]);
      });
    }

    it('leaves alone pods an API server admitted (with a uid), pods of other namespaces and Pod-type items', () => {
      const text = `apiVersion: v1\nkind: LimitRange\nmetadata: { name: r, namespace: ns }\nspec:\n  limits:\n  - type: Container\n    default: { memory: 512Mi }\n  - type: Pod\n    max: { memory: 1Gi }\n---\n${pod('admitted', '', ', uid: 1b2c')}---\n${pod('other').replace('namespace: ns', 'namespace: other')}`;
      assert.deepEqual(containerResources(text), [
        ['admitted', {}],
        ['other', {}],
      ]);
    });
  });

  describe('ResourceQuota', () => {
    const quota = (hard: string, extra = '') =>
      `apiVersion: v1\nkind: ResourceQuota\nmetadata: { name: q, namespace: ns }\nspec:\n  hard: ${hard}${extra}\n---\n`;
    const read = (text: string) => {
      const model = readSnapshot([{ name: 'f.yaml', text }]);
      return { pods: model.cluster.pods.map((p) => p.metadata.name), warnings: model.errors.map(formatError) };
    };

    it('counts pods: the admitted ones use the quota, a new one past it is refused', () => {
      const { pods, warnings } = read(`${quota('{ pods: "2" }')}${pod('a', '', ', uid: u1')}---\n${pod('b')}---\n${pod('c')}`);
      assert.deepEqual(pods, ['a', 'b']);
      assert.deepEqual(warnings, [
        'f.yaml:25:19: warning refused: metadata.name: pods "c" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2 (ResourceQuota admission): ns/c left out',
      ]);
    });

    it('refuses a pod that gives no request for a resource a quota limits, naming the containers', () => {
      const { pods, warnings } = read(`${quota('{ requests.cpu: "1", limits.memory: 1Gi }')}${pod('bare')}`);
      assert.deepEqual(pods, []);
      assert.match(
        warnings[0] ?? '',
        /pods "bare" is forbidden: failed quota: q: must specify limits\.memory for: c; requests\.cpu for: c \(/,
      );
    });

    it('applies a quota only to the pods its scopes match: a BestEffort quota leaves a pod with requests alone', () => {
      const { pods, warnings } = read(
        `${quota('{ pods: "0" }', '\n  scopes: [BestEffort]')}${pod('a', '{ requests: { cpu: 100m } }')}---\n${pod('b')}`,
      );
      assert.deepEqual(pods, ['a']);
      assert.match(warnings[0] ?? '', /pods "b" is forbidden: exceeded quota: q, requested: pods=1, used: pods=0, limited: pods=0/);
    });

    const claim = (name: string, spec: string, extra = '') =>
      `apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: { name: ${name}, namespace: ns${extra} }\nspec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 1Gi } }${spec} }\n---\n`;
    const claims = (text: string) => {
      const model = readSnapshot([{ name: 'f.yaml', text }]);
      return (model.cluster.persistentVolumeClaims ?? []).map((c) => c.metadata.name);
    };

    describe('claims match the VolumeAttributesClass scope alone, by the classes they name (upstream pvcMatchesScopeFunc)', () => {
      const vac = (operator: string, values = '') =>
        quota(
          '{ persistentvolumeclaims: "0" }',
          `\n  scopeSelector: { matchExpressions: [{ scopeName: VolumeAttributesClass, operator: ${operator}${values} }] }`,
        );
      const table: Array<[what: string, quota: string, spec: string, status: string, refused: boolean]> = [
        ['Exists: a claim asking for a class', vac('Exists'), ', volumeAttributesClassName: gold', '', true],
        ['Exists: a claim naming none', vac('Exists'), '', '', false],
        ['DoesNotExist: a claim naming none', vac('DoesNotExist'), '', '', true],
        ['DoesNotExist: a claim asking for a class', vac('DoesNotExist'), ', volumeAttributesClassName: gold', '', false],
        ['In: a class among the values', vac('In', ', values: [gold]'), ', volumeAttributesClassName: gold', '', true],
        ['In: another class', vac('In', ', values: [gold]'), ', volumeAttributesClassName: silver', '', false],
        ['NotIn: a claim naming none', vac('NotIn', ', values: [gold]'), '', '', true],
        ['NotIn: the class it names', vac('NotIn', ', values: [gold]'), ', volumeAttributesClassName: gold', '', false],
        [
          'In: the current class of its status',
          vac('In', ', values: [gold]'),
          '',
          ', status: { currentVolumeAttributesClassName: gold }',
          true,
        ],
        [
          'In: the target class of a modification in its status',
          vac('In', ', values: [gold]'),
          '',
          ', status: { modifyVolumeStatus: { status: InProgress, targetVolumeAttributesClassName: gold } }',
          true,
        ],
        [
          'a pod scope (BestEffort): no claim is charged',
          quota('{ persistentvolumeclaims: "0" }', '\n  scopes: [BestEffort]'),
          '',
          '',
          false,
        ],
      ];
      for (const [what, q, spec, status, isRefused] of table) {
        it(what, () => {
          const text = `${q}${claim('c', spec).replace('\n---', `${status.replace(', ', '\n').replace(/^/, '')}\n---`)}`;
          assert.deepEqual(claims(text), isRefused ? [] : ['c'], text);
        });
      }
    });

    it("an admitted claim's storage counts as the larger of its request and its allocated storage", () => {
      const admitted = claim('old', '', ', uid: u1').replace('\n---', '\nstatus: { allocatedResources: { storage: 3Gi } }\n---');
      assert.deepEqual(claims(`${quota('{ requests.storage: 3Gi }')}${admitted}${claim('new', '')}`), ['old']);
      assert.deepEqual(claims(`${quota('{ requests.storage: 3Gi }')}${claim('old', '', ', uid: u1')}${claim('new', '')}`), ['old', 'new']);
    });

    it('warns once per quota entry it does not apply, at the entry, saying why', () => {
      const hard =
        '\n    count/services: "2"\n    services.loadbalancers: "1"\n    configmaps: "5"\n    secrets: "5"\n    count/deployments.apps: "1"\n    count/resourceclaimtemplates.resource.k8s.io: "2"\n    pods: "4"\n    requests.storage: 5Gi';
      const { warnings } = read(quota(hard));
      assert.deepEqual(warnings, [
        'f.yaml:6:21: warning not-applied: spec.hard["count/services"]: ResourceQuota ns/q: count/services is not applied: it counts services, which do not affect placement',
        'f.yaml:7:29: warning not-applied: spec.hard["services.loadbalancers"]: ResourceQuota ns/q: services.loadbalancers is not applied: it counts services, which do not affect placement',
        'f.yaml:8:17: warning not-applied: spec.hard.configmaps: ResourceQuota ns/q: configmaps is not applied: it counts configmaps, which do not affect placement',
        'f.yaml:9:14: warning not-applied: spec.hard.secrets: ResourceQuota ns/q: secrets is not applied: it counts secrets, which do not affect placement',
        'f.yaml:10:29: warning not-applied: spec.hard["count/deployments.apps"]: ResourceQuota ns/q: count/deployments.apps is not applied: it counts deployments.apps: Podplan holds the pods they make to quotas, not the deployments.apps themselves',
        'f.yaml:11:51: warning not-applied: spec.hard["count/resourceclaimtemplates.resource.k8s.io"]: ResourceQuota ns/q: count/resourceclaimtemplates.resource.k8s.io is not applied: it counts resourceclaimtemplates.resource.k8s.io, which do not affect placement',
      ]);
    });

    it('count/pods counts a finished pod, pods does not', () => {
      const done = pod('done', '', ', uid: u1').replace('spec:', 'status: { phase: Succeeded }\nspec:');
      assert.deepEqual(read(`${quota('{ pods: "1" }')}${done}---\n${pod('new')}`).pods, ['done', 'new']);
      assert.deepEqual(read(`${quota('{ count/pods: "1" }')}${done}---\n${pod('new')}`).pods, ['done']);
    });
  });

  describe('ResourceQuota on the claims the ResourceClaim controller makes from templates for the pods admitted', () => {
    const setup = `apiVersion: v1
kind: ResourceQuota
metadata: { name: gpus, namespace: ns }
spec:
  hard: { gpu.example.com.deviceclass.resource.k8s.io/devices: "3", pods: "3" }
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: { name: two-gpus, namespace: ns }
spec:
  spec:
    devices:
      requests: [{ name: g, exactly: { deviceClassName: gpu.example.com, count: 2 } }]
---
`;
    const gpuPod = (name: string, extra = '') =>
      `apiVersion: v1\nkind: Pod\nmetadata: { name: ${name}, namespace: ns${extra} }\nspec:\n  resourceClaims: [{ name: gpu, resourceClaimTemplateName: two-gpus }]\n  containers: [{ name: c }]\n---\n`;
    const templates = (text: string) => {
      const model = readSnapshot([{ name: 'f.yaml', text }]);
      return {
        pods: model.cluster.pods.map((p) => `${p.metadata.name}:${p.spec.resourceClaims?.[0]?.resourceClaimTemplateName ?? '-'}`),
        notCreated: model.cluster.claimsNotCreated ?? [],
        warnings: model.errors.map(formatError),
        model,
      };
    };

    it("a pod whose claim would pass the quota keeps its pod, and its entry finds no claim (upstream's pod waits for one never created)", () => {
      const { pods, notCreated, warnings } = templates(`${setup}${gpuPod('first')}${gpuPod('second')}`);
      assert.deepEqual(pods, ['first:two-gpus', 'second:two-gpus']);
      assert.deepEqual(notCreated, ['ns/second-gpu-pbxs8']);
      assert.deepEqual(warnings, [
        'f.yaml:26:60: warning refused: spec.resourceClaims[0].resourceClaimTemplateName: PodResourceClaim gpu: create ResourceClaim : resourceclaims.resource.k8s.io "second-gpu-pbxs8" is forbidden: exceeded quota: gpus, requested: gpu.example.com.deviceclass.resource.k8s.io/devices=2, used: gpu.example.com.deviceclass.resource.k8s.io/devices=2, limited: gpu.example.com.deviceclass.resource.k8s.io/devices=3: pod ns/second waits for it',
      ]);
    });

    it('a pod admitted already (a uid), one whose status names its claim, and one the pod quota refuses make no claim', () => {
      const named = gpuPod('named').replace(
        '---\n',
        'status: { resourceClaimStatuses: [{ name: gpu, resourceClaimName: named-gpu }] }\n---\n',
      );
      const { pods, notCreated, warnings } = templates(
        `${setup}${gpuPod('admitted', ', uid: u1')}${named}${gpuPod('first')}${gpuPod('refused')}`,
      );
      assert.deepEqual(pods, ['admitted:two-gpus', 'named:two-gpus', 'first:two-gpus']);
      assert.deepEqual(notCreated, []);
      assert.equal(warnings.length, 1);
      assert.match(warnings[0] ?? '', /pods "refused" is forbidden: exceeded quota: gpus, requested: pods=1/);
    });

    it("the files' own claims count first: a template's claim past what they left is not created", () => {
      const own = `apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: { name: own, namespace: ns }\nspec:\n  devices:\n    requests: [{ name: g, exactly: { deviceClassName: gpu.example.com, count: 2 } }]\n---\n`;
      const { pods, notCreated } = templates(`${setup}${gpuPod('first')}${own}`);
      assert.deepEqual(pods, ['first:two-gpus']);
      assert.deepEqual(notCreated, ['ns/first-gpu-p6cjz']);
    });

    it('a refused claim is data of the cluster, the pod object is the one the files gave (not a copy with its entry rewritten)', () => {
      const text = `${setup}${gpuPod('first')}${gpuPod('second')}`;
      const quotaless = readSnapshot([{ name: 'f.yaml', text: text.replace('"3", pods: "3"', '"9", pods: "3"') }]);
      const { model } = templates(text);
      for (const [i, p] of model.pods.entries()) {
        assert.equal(model.cluster.pods[i], p.value, `${p.value.metadata.name}: the pod the engine gets is the located one`);
        assert.deepEqual(p.value, quotaless.pods[i]?.value, `${p.value.metadata.name}: as without the refusal`);
      }
    });
  });

  describe("the API server's answers to real-world inputs (test/manifests/admission-cases.ts, checked against kube-apiserver in test/real/admission.test.ts)", () => {
    for (const c of ADMISSION_CASES) {
      it(c.name, () => {
        const model = readSnapshot([{ name: 'f.yaml', text: `${c.setup}${c.objects}` }]);
        const refused: Record<string, string> = {};
        const notApplied: string[] = [];
        for (const e of model.errors) {
          const skipped = /^ResourceQuota \S+: (\S+) is not applied: /.exec(e.message);
          if (skipped) {
            notApplied.push(skipped[1] as string);
            continue;
          }
          const m =
            /^((?:pods|persistentvolumeclaims|resourceclaims\.resource\.k8s\.io) "([^"]+)" is forbidden: .*) \((?:LimitRanger|ResourceQuota) admission\): \S+ left out$/.exec(
              e.message,
            );
          assert.ok(m, `an admission warning: ${formatError(e)}`);
          refused[m[2] as string] = unordered(m[1] as string);
        }
        assert.deepEqual(refused, Object.fromEntries(Object.entries(c.refused).map(([k, v]) => [k, unordered(v)])));
        assert.deepEqual(notApplied, c.notApplied ?? []);
        const kept = [
          ...model.cluster.pods.map((p) => p.metadata.name),
          ...(model.cluster.persistentVolumeClaims ?? []).map((p) => p.metadata.name),
          ...(model.cluster.resourceClaims ?? []).map((c) => c.metadata.name),
        ];
        for (const name of Object.keys(c.refused)) assert.ok(!kept.includes(name), `${name} left out`);
      });
    }
  });
});
