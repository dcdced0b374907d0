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
        'f.yaml:25:19: warning bad-value: metadata.name: pods "c" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2 (ResourceQuota admission): ns/c left out',
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

    it('count/pods counts a finished pod, pods does not', () => {
      const done = pod('done', '', ', uid: u1').replace('spec:', 'status: { phase: Succeeded }\nspec:');
      assert.deepEqual(read(`${quota('{ pods: "1" }')}${done}---\n${pod('new')}`).pods, ['done', 'new']);
      assert.deepEqual(read(`${quota('{ count/pods: "1" }')}${done}---\n${pod('new')}`).pods, ['done']);
    });
  });

  describe("the API server's answers to real-world inputs (test/manifests/admission-cases.ts, checked against kube-apiserver in test/real/admission.test.ts)", () => {
    for (const c of ADMISSION_CASES) {
      it(c.name, () => {
        const model = readSnapshot([{ name: 'f.yaml', text: `${c.setup}${c.objects}` }]);
        const refused: Record<string, string> = {};
        for (const e of model.errors) {
          const m =
            /^((?:pods|persistentvolumeclaims) "([^"]+)" is forbidden: .*) \((?:LimitRanger|ResourceQuota) admission\): \S+ left out$/.exec(
              e.message,
            );
          assert.ok(m, `an admission warning: ${formatError(e)}`);
          refused[m[2] as string] = unordered(m[1] as string);
        }
        assert.deepEqual(refused, Object.fromEntries(Object.entries(c.refused).map(([k, v]) => [k, unordered(v)])));
        const kept = [
          ...model.cluster.pods.map((p) => p.metadata.name),
          ...(model.cluster.persistentVolumeClaims ?? []).map((p) => p.metadata.name),
        ];
        for (const name of Object.keys(c.refused)) assert.ok(!kept.includes(name), `${name} left out`);
      });
    }
  });
});
