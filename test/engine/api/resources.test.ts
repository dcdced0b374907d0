import assert from 'node:assert/strict';
import { nodeAllocatable, parseResourceList, podResources, Resource, type PodResources } from '../../../src/engine/api/resources';
import type { Node } from '../../../src/engine/api/types';
import { makeNode, makePod, type PodBuilder } from '../../builders';

const Mi = 1024 * 1024;
const Gi = 1024 * Mi;
const GPU = 'nvidia.com/gpu';

function resources(pod: PodBuilder): PodResources {
  const r = podResources(pod.obj);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

describe('engine/api/resources', () => {
  describe("a pod's effective request: max(app containers + sidecars, each init container's peak) + overhead", () => {
    // requests as the fit filter reads them; nonZero as scoring reads them (100m / 200Mi for a container that asks for none)
    const table: Array<[what: string, pod: PodBuilder, requests: Record<string, number>, nonZero: Record<string, number>]> = [
      ['a container that asks for nothing requests nothing, and counts 100m / 200Mi for scoring', makePod('p'), {}, { cpu: 100, memory: 200 * Mi }],
      ['one container', makePod('p').req({ cpu: '500m', memory: '1Gi' }), { cpu: 500, memory: Gi }, { cpu: 500, memory: Gi }],
      [
        'several containers add up; each one without a request gets its own default for scoring',
        makePod('p').req({ cpu: '500m', memory: '1Gi' }).container({ cpu: '250m', memory: '512Mi' }).container({ cpu: '1' }),
        { cpu: 1750, memory: 1.5 * Gi },
        { cpu: 1750, memory: 1.5 * Gi + 200 * Mi },
      ],
      ['an explicit "0" is not missing: it stays 0 for scoring', makePod('p').req({ cpu: '0', memory: '1Gi' }), { memory: Gi }, { memory: Gi }],
      [
        'an init container larger than the app raises each resource separately',
        makePod('p').req({ cpu: '500m', memory: '1Gi' }).init({ cpu: '2', memory: '512Mi' }),
        { cpu: 2000, memory: Gi },
        { cpu: 2000, memory: Gi },
      ],
      [
        'init containers smaller than the app change nothing',
        makePod('p').req({ cpu: '1', memory: '1Gi' }).init({ cpu: '500m', memory: '256Mi' }).init({ cpu: '100m' }),
        { cpu: 1000, memory: Gi },
        { cpu: 1000, memory: Gi },
      ],
      [
        'a sidecar (restartPolicy Always) runs beside the app and beside the init containers after it',
        makePod('p').req({ cpu: '1', memory: '1Gi' }).init({ cpu: '500m', memory: '256Mi' }, true).init({ cpu: '2', memory: '128Mi' }),
        // app + sidecar = 1500m / 1.25Gi; the second init container peaks at 2 + 0.5 cpu
        { cpu: 2500, memory: 1.25 * Gi },
        { cpu: 2500, memory: 1.25 * Gi },
      ],
      [
        'an init container before a sidecar does not run beside it',
        makePod('p').req({ cpu: '1', memory: '1Gi' }).init({ cpu: '3', memory: '1Gi' }).init({ cpu: '1', memory: '1Gi' }, true),
        { cpu: 3000, memory: 2 * Gi },
        { cpu: 3000, memory: 2 * Gi },
      ],
      [
        'overhead is added on top, for scoring too',
        makePod('p').req({ cpu: '1', memory: '1Gi' }).overhead({ cpu: '250m', memory: '120Mi' }),
        { cpu: 1250, memory: Gi + 120 * Mi },
        { cpu: 1250, memory: Gi + 120 * Mi },
      ],
      ['overhead on a pod that asks for nothing', makePod('p').overhead({ cpu: '250m' }), { cpu: 250 }, { cpu: 350, memory: 200 * Mi }],
      [
        'extended resources such as nvidia.com/gpu add across containers and take the init maximum',
        makePod('p').req({ cpu: '1', [GPU]: '2' }).container({ [GPU]: '1' }).init({ [GPU]: '4' }),
        { cpu: 1000, [GPU]: 4 },
        { cpu: 1100, memory: 400 * Mi, [GPU]: 4 },
      ],
      ['ephemeral storage', makePod('p').req({ 'ephemeral-storage': '2Gi' }), { 'ephemeral-storage': 2 * Gi }, { cpu: 100, memory: 200 * Mi, 'ephemeral-storage': 2 * Gi }],
      [
        'a limit without a request is the request, as the API server defaults it',
        makePod('p').limits({ cpu: '2', memory: '1Gi', [GPU]: '1' }),
        { cpu: 2000, memory: Gi, [GPU]: 1 },
        { cpu: 2000, memory: Gi, [GPU]: 1 },
      ],
      [
        'an explicit request wins over the limit',
        makePod('p').req({ cpu: '500m' }).limits({ cpu: '2', memory: '2Gi' }),
        { cpu: 500, memory: 2 * Gi },
        { cpu: 500, memory: 2 * Gi },
      ],
    ];
    for (const [what, pod, requests, nonZero] of table) {
      it(what, () => {
        const r = resources(pod);
        assert.deepEqual(r.requests.toRecord(), requests);
        assert.deepEqual(r.nonZero.toRecord(), nonZero);
      });
    }

    it('is computed once per pod object', () => {
      const pod = makePod('p').req({ cpu: '1' });
      assert.equal(podResources(pod.obj), podResources(pod.obj));
    });
  });

  describe('a malformed quantity is an error naming the field, never NaN', () => {
    const table: Array<[pod: PodBuilder, field: RegExp]> = [
      [makePod('p').req({ cpu: 'lots' }), /^spec\.containers\[0\]\.resources\.requests\.cpu: "lots" is not a quantity/],
      [makePod('p').container({ memory: '1GB' }), /^spec\.containers\[1\]\.resources\.requests\.memory: "1GB"/],
      [makePod('p').init({ [GPU]: 'one' }), /^spec\.initContainers\[0\]\.resources\.requests\.nvidia\.com\/gpu: "one"/],
      [makePod('p').limits({ cpu: '2 cores' }), /^spec\.containers\[0\]\.resources\.limits\.cpu: "2 cores"/],
      [makePod('p').overhead({ memory: '1.2.3Mi' }), /^spec\.overhead\.memory: "1\.2\.3Mi"/],
      [makePod('p').req({ memory: '-1Gi' }), /^spec\.containers\[0\]\.resources\.requests\.memory: "-1Gi" must not be negative/],
      [makePod('p').req({ memory: '100Ei' }), /^spec\.containers\[0\]\.resources\.requests\.memory: "100Ei" is too large/],
    ];
    for (const [pod, field] of table) {
      it(String(field), () => {
        const r = podResources(pod.obj);
        assert.equal(r.ok, false);
        if (!r.ok) assert.match(r.error, field);
      });
    }
  });

  describe('what a node offers pods', () => {
    const bare = (status: Node['status']): Node => ({ metadata: { name: 'n' }, ...(status ? { status } : {}) });
    const table: Array<[what: string, node: Node, offers: Record<string, number>]> = [
      ['status.allocatable, with pods and extended resources', makeNode('n').alloc({ cpu: '8', memory: '16Gi', pods: '110', [GPU]: '4' }).obj, { cpu: 8000, memory: 16 * Gi, pods: 110, [GPU]: 4 }],
      ['allocatable wins over capacity', bare({ capacity: { cpu: '8' }, allocatable: { cpu: '7500m' } }), { cpu: 7500 }],
      ['capacity when allocatable is absent', bare({ capacity: { cpu: '8', memory: '16Gi' } }), { cpu: 8000, memory: 16 * Gi }],
      ['nothing when the node reports neither', bare(undefined), {}],
    ];
    for (const [what, node, offers] of table) {
      it(what, () => {
        const r = nodeAllocatable(node);
        assert.ok(r.ok, 'allocatable parses');
        assert.deepEqual(r.value.toRecord(), offers);
      });
    }

    it('a malformed allocatable is an error naming the field', () => {
      assert.deepEqual(nodeAllocatable(bare({ allocatable: { memory: '16 GB' } })), {
        ok: false,
        error: 'status.allocatable.memory: "16 GB" is not a quantity (examples: 100m, 0.5, 1Gi, 500Mi, 1e3)',
      });
    });
  });

  describe('Resource vectors', () => {
    it('parse cpu in millicores, memory in bytes and anything else as a count', () => {
      const r = parseResourceList({ cpu: '1.5', memory: '1Ki', 'example.com/widget': '3' }, 'x');
      assert.ok(r.ok, 'list parses');
      assert.deepEqual(r.value.toRecord(), { cpu: 1500, memory: 1024, 'example.com/widget': 3 });
      assert.equal(r.value.get('example.com/other'), 0);
    });

    it('add, subtract and take the maximum component by component', () => {
      const a = Resource.of({ milliCPU: 1000, memory: 10, scalar: { [GPU]: 1 } });
      const b = Resource.of({ milliCPU: 500, memory: 20, scalar: { [GPU]: 2 } });
      const sum = a.clone();
      sum.add(b);
      assert.deepEqual(sum.toRecord(), { cpu: 1500, memory: 30, [GPU]: 3 });
      sum.subtract(b);
      assert.deepEqual(sum.toRecord(), a.toRecord());
      const max = a.clone();
      max.setMax(b);
      assert.deepEqual(max.toRecord(), { cpu: 1000, memory: 20, [GPU]: 2 });
    });
  });
});
