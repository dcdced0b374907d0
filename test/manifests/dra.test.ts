import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { formatError } from '../../src/manifests/errors';
import { readSnapshot } from '../../src/manifests/workspace';

// The resource.k8s.io/v1 kinds of Dynamic Resource Allocation, from files and `kubectl get -o yaml`
// Lists, with located errors.
const SLICES = `apiVersion: v1
kind: List
items:
  - apiVersion: resource.k8s.io/v1
    kind: ResourceSlice
    metadata: { name: n1-gpu }
    spec:
      driver: gpu.example.com
      nodeName: n1
      pool: { name: n1, generation: 1, resourceSliceCount: 1 }
      devices:
        - name: gpu-0
          attributes: { model: { string: a100 }, numa: { int: 0 } }
          capacity: { memory: { value: 80Gi } }
`;
const CLAIMS = `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: { name: gpu }
spec:
  selectors: [{ cel: { expression: 'device.driver == "gpu.example.com"' } }]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: { name: c1 }
spec:
  devices:
    requests:
      - name: gpu
        exactly: { deviceClassName: gpu, count: 2 }
    constraints:
      - matchAttribute: gpu.example.com/numa
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: { name: t1 }
spec:
  spec:
    devices:
      requests:
        - name: gpu
          firstAvailable: [{ name: big, deviceClassName: gpu, count: 2 }, { name: one, deviceClassName: gpu }]
---
apiVersion: v1
kind: Pod
metadata: { name: p }
spec:
  resourceClaims: [{ name: a, resourceClaimName: c1 }, { name: b, resourceClaimTemplateName: t1 }]
  containers: [{ name: main, resources: { claims: [{ name: a }] } }]
`;

describe('manifests: Dynamic Resource Allocation kinds', () => {
  it('reads slices from a List, classes, claims, templates and pod references', () => {
    const model = readSnapshot([
      { name: 'slices.yaml', text: SLICES },
      { name: 'claims.yaml', text: CLAIMS },
    ]);
    assert.deepEqual(model.errors.map(formatError), []);
    const c = model.cluster;
    assert.deepEqual(
      c.resourceSlices?.map((s) => [s.metadata.name, s.spec.devices?.[0]?.attributes?.['model']?.string]),
      [['n1-gpu', 'a100']],
    );
    assert.deepEqual(
      c.deviceClasses?.map((d) => d.metadata.name),
      ['gpu'],
    );
    assert.deepEqual(
      c.resourceClaims?.map((r) => [r.metadata.name, r.spec.devices?.constraints?.[0]?.matchAttribute]),
      [['c1', 'gpu.example.com/numa']],
    );
    assert.deepEqual(
      c.resourceClaimTemplates?.map((t) => t.spec.spec.devices?.requests?.[0]?.firstAvailable?.map((s) => s.name)),
      [['big', 'one']],
    );
    assert.deepEqual(c.pods[0]?.spec.resourceClaims, [
      { name: 'a', resourceClaimName: 'c1' },
      { name: 'b', resourceClaimTemplateName: 't1' },
    ]);
  });

  const bad: Array<[what: string, text: string, error: string]> = [
    [
      'a request with neither exactly nor firstAvailable',
      CLAIMS.replace('exactly: { deviceClassName: gpu, count: 2 }', 'count: 2'),
      'claims.yaml:13:9: error bad-value: spec.devices.requests[0]: exactly one of exactly and firstAvailable must be set',
    ],
    [
      'a count that is not a number',
      CLAIMS.replace('count: 2 }\n    constraints', 'count: two }\n    constraints'),
      'claims.yaml:14:49: error wrong-type: spec.devices.requests[0].exactly.count: expected an integer, got a string ("two")',
    ],
    [
      'a pod claim naming both a claim and a template',
      CLAIMS.replace('{ name: a, resourceClaimName: c1 }', '{ name: a, resourceClaimName: c1, resourceClaimTemplateName: t1 }'),
      'claims.yaml:32:20: error bad-value: spec.resourceClaims[0]: exactly one of resourceClaimName and resourceClaimTemplateName must be set',
    ],
  ];
  for (const [what, text, error] of bad) {
    it(`${what}: an error at its file, line and column`, () => {
      const model = readSnapshot([{ name: 'claims.yaml', text }]);
      assert.deepEqual(model.errors.map(formatError), [error]);
    });
  }

  it('a CEL selector that does not compile is an error at its expression', () => {
    const model = readSnapshot([{ name: 'claims.yaml', text: CLAIMS.replace('device.driver == "gpu.example.com"', 'device.driver ==') }]);
    assert.deepEqual(
      model.errors.map((e) => [e.code, e.range.start.line, e.path]),
      [['bad-value', 5, 'spec.selectors[0].cel.expression']],
    );
    assert.match(model.errors[0]?.message ?? '', /^the CEL expression does not compile: /);
  });

  it('a CEL selector calling an undeclared function is an error at its expression', () => {
    const model = readSnapshot([
      {
        name: 'claims.yaml',
        text: CLAIMS.replace('device.driver == "gpu.example.com"', 'device.driver.nope() && sets.contains([1], [1])'),
      },
    ]);
    assert.deepEqual(
      model.errors.map((e) => [e.code, e.range.start.line, e.path, e.message]),
      [
        [
          'bad-value',
          5,
          'spec.selectors[0].cel.expression',
          "the CEL expression does not compile: <input>:1:19: undeclared reference to 'nope' (in container '')",
        ],
      ],
    );
  });

  it('a CEL selector kube-apiserver refuses to compile for its types or as a new expression is an error at its expression, in its words', () => {
    // The oracle's -celcost mode (k8s.io/dynamic-resource-allocation v0.37.2, new expressions) refused each.
    const cases: Array<[expression: string, error: string]> = [
      ['device.attributes["gpu.example.com"].model.split("0")', 'must evaluate to bool or the unknown type, not list(string)'],
      ['semver("1.2.3").major()', 'must evaluate to bool or the unknown type, not int'],
      ['s == device.driver', "<input>:1:1: undeclared reference to 's' (in container '')"],
      ['device.attributes["gpu.example.com"].model.includes("a")', "<input>:1:52: undeclared reference to 'includes' (in container '')"],
      // The optional syntax's errors; several errors, one a line, in the order of their places.
      [
        'device.attributes.?x == 1',
        "<input>:1:22: found no matching overload for '_==_' applied to '(optional_type(map(string, any)), int)'",
      ],
      ['has(device.attributes.?x)', '<input>:1:22: invalid argument to has() macro'],
      [
        '[?1] == [1] && s',
        "<input>:1:3: expected type 'optional_type(int)' but found 'int'\n<input>:1:16: undeclared reference to 's' (in container '')",
      ],
    ];
    for (const [expression, error] of cases) {
      const model = readSnapshot([{ name: 'claims.yaml', text: CLAIMS.replace('device.driver == "gpu.example.com"', expression) }]);
      assert.deepEqual(
        model.errors.map((e) => [e.code, e.range.start.line, e.path, e.message]),
        [['bad-value', 5, 'spec.selectors[0].cel.expression', `the CEL expression does not compile: ${error}`]],
        expression,
      );
    }
  });

  it('a CEL selector whose estimated cost exceeds the limit is refused at its expression, in kube-apiserver words', () => {
    // kube-apiserver 1.37 refused this one (7239678): string() of an int has no size bound.
    const tooComplex = 'ip("fe80::" + string(device.attributes["gpu.example.com"].index + 1)).isLinkLocalUnicast()';
    const cases: Array<[from: string, to: string, path: string, line: number]> = [
      ['expression: \'device.driver == "gpu.example.com"\'', `expression: '${tooComplex}'`, 'spec.selectors[0].cel.expression', 5],
      [
        'exactly: { deviceClassName: gpu, count: 2 }',
        `exactly: { deviceClassName: gpu, count: 2, selectors: [{ cel: { expression: '${tooComplex}' } }] }`,
        'spec.devices.requests[0].exactly.selectors[0].cel.expression',
        14,
      ],
    ];
    for (const [from, to, path, line] of cases) {
      const model = readSnapshot([{ name: 'claims.yaml', text: CLAIMS.replace(from, to) }]);
      assert.deepEqual(
        model.errors.map((e) => [e.code, e.range.start.line, `${e.path}: ${e.message}`]),
        [['bad-value', line, `${path}: Forbidden: too complex, exceeds cost limit`]],
        to,
      );
    }
    // Under the limit, nothing to say (kube-apiserver accepted these in the same run).
    const fine = readSnapshot([
      {
        name: 'claims.yaml',
        text: CLAIMS.replace(
          'device.driver == "gpu.example.com"',
          'cidr("10.0.0.0/31").containsIP("10.0.0." + string(device.attributes["gpu.example.com"].index))',
        ),
      },
    ]);
    assert.deepEqual(fine.errors, []);
  });

  it("an admitted object's selector (it has a uid: the cluster stored it) is not refused for its estimated cost nor for a function new expressions lack", () => {
    const admitted = (expression: string): string =>
      CLAIMS.replace('device.driver == "gpu.example.com"', expression).replace(
        'metadata: { name: gpu }',
        'metadata: { name: gpu, uid: 7d1c }',
      );
    for (const expression of ['lists.range(166665).all(i, i >= 0)', '[1, 2].includes(1)']) {
      assert.deepEqual(readSnapshot([{ name: 'claims.yaml', text: admitted(expression) }]).errors, [], expression);
      assert.equal(
        readSnapshot([{ name: 'claims.yaml', text: CLAIMS.replace('device.driver == "gpu.example.com"', expression) }]).errors.length,
        1,
        expression,
      );
    }
    // One that does not compile is refused all the same.
    assert.equal(readSnapshot([{ name: 'claims.yaml', text: admitted('device.nope(') }]).errors.length, 1);
  });

  it('a quantity that does not parse in a slice is located', () => {
    const model = readSnapshot([{ name: 'slices.yaml', text: SLICES.replace('80Gi', 'lots') }]);
    assert.deepEqual(
      model.errors.map((e) => [e.code, e.range.start.line]),
      [['bad-quantity', 14]],
    );
  });

  it('partitionable devices: a slice with both devices and shared counters, and a counter slice without node selection, are errors at the slice', () => {
    const text = SLICES.replace(
      '      devices:\n',
      '      sharedCounters: [{ name: gpu-0, counters: { memory: { value: 80Gi } } }]\n      devices:\n',
    ).replace('      nodeName: n1\n', '');
    const model = readSnapshot([{ name: 'slices.yaml', text }]);
    assert.deepEqual(model.errors.map(formatError), [
      'slices.yaml:8:7: error bad-value: items[0].spec: exactly one of nodeName, nodeSelector, allNodes and perDeviceNodeSelection must be set',
      'slices.yaml:8:7: error bad-value: items[0].spec: only one of sharedCounters and devices may be set',
    ]);
  });

  it('partitionable devices: counter sets and what devices consume read from a slice', () => {
    const text = `${SLICES.replace('          capacity: { memory: { value: 80Gi } }\n', '          consumesCounters: [{ counterSet: gpu-0, counters: { memory: { value: 40Gi } } }]\n')}  - apiVersion: resource.k8s.io/v1
    kind: ResourceSlice
    metadata: { name: n1-counters }
    spec:
      driver: gpu.example.com
      nodeName: n1
      pool: { name: n1, generation: 1, resourceSliceCount: 2 }
      sharedCounters: [{ name: gpu-0, counters: { memory: { value: 80Gi } } }]
`;
    const model = readSnapshot([{ name: 'slices.yaml', text }]);
    assert.deepEqual(model.errors.map(formatError), []);
    const slices = model.cluster.resourceSlices ?? [];
    assert.deepEqual(slices[0]?.spec.devices?.[0]?.consumesCounters, [{ counterSet: 'gpu-0', counters: { memory: { value: '40Gi' } } }]);
    assert.deepEqual(slices[1]?.spec.sharedCounters, [{ name: 'gpu-0', counters: { memory: { value: '80Gi' } } }]);
  });

  it('DeviceTaintRules read with their selector and taint; a bad effect is an error at its position', () => {
    const rule = `apiVersion: resource.k8s.io/v1
kind: DeviceTaintRule
metadata: { name: gpu-0-maintenance }
spec:
  deviceSelector: { driver: gpu.example.com, pool: n1, device: gpu-0 }
  taint: { key: maintenance, value: "true", effect: NoSchedule }
`;
    const model = readSnapshot([{ name: 'rules.yaml', text: rule }]);
    assert.deepEqual(model.errors.map(formatError), []);
    assert.deepEqual(model.cluster.deviceTaintRules?.[0]?.spec, {
      deviceSelector: { driver: 'gpu.example.com', pool: 'n1', device: 'gpu-0' },
      taint: { key: 'maintenance', value: 'true', effect: 'NoSchedule' },
    });
    const bad = readSnapshot([{ name: 'rules.yaml', text: rule.replace('effect: NoSchedule', 'effect: Sometimes') }]);
    assert.deepEqual(
      bad.errors.map((e) => [e.range.start.line, e.path]),
      [[6, 'spec.taint.effect']],
    );
  });

  it('consumable capacity: a request policy reads; validValues beside validRange is an error at the policy', () => {
    const text = SLICES.replace(
      '          capacity: { memory: { value: 80Gi } }\n',
      '          allowMultipleAllocations: true\n          capacity: { memory: { value: 80Gi, requestPolicy: { default: 8Gi, validRange: { min: 4Gi, step: 4Gi } } } }\n',
    );
    const model = readSnapshot([{ name: 'slices.yaml', text }]);
    assert.deepEqual(model.errors.map(formatError), []);
    assert.deepEqual(model.cluster.resourceSlices?.[0]?.spec.devices?.[0]?.capacity?.['memory'], {
      value: '80Gi',
      requestPolicy: { default: '8Gi', validRange: { min: '4Gi', step: '4Gi' } },
    });
    const bad = readSnapshot([{ name: 'slices.yaml', text: text.replace('validRange:', 'validValues: [8Gi], validRange:') }]);
    assert.deepEqual(
      bad.errors.map((e) => [e.code, e.path, e.message]),
      [['bad-value', 'items[0].spec.devices[0].capacity.memory.requestPolicy', 'only one of validValues and validRange may be set']],
    );
  });

  it('the example (examples/dra) reads without errors', () => {
    const dir = join(import.meta.dirname, '..', '..', 'examples', 'dra');
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => ({ name: f, text: readFileSync(join(dir, f), 'utf8') }));
    const model = readSnapshot(files);
    assert.deepEqual(model.errors.map(formatError), []);
    assert.ok((model.cluster.resourceSlices?.length ?? 0) > 0);
  });
});
