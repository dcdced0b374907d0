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
      [
        'a container that asks for nothing requests nothing, and counts 100m / 200Mi for scoring',
        makePod('p'),
        {},
        { cpu: 100, memory: 200 * Mi },
      ],
      ['one container', makePod('p').req({ cpu: '500m', memory: '1Gi' }), { cpu: 500, memory: Gi }, { cpu: 500, memory: Gi }],
      [
        'several containers add up; each one without a request gets its own default for scoring',
        makePod('p').req({ cpu: '500m', memory: '1Gi' }).container({ cpu: '250m', memory: '512Mi' }).container({ cpu: '1' }),
        { cpu: 1750, memory: 1.5 * Gi },
        { cpu: 1750, memory: 1.5 * Gi + 200 * Mi },
      ],
      [
        'an explicit "0" is not missing: it stays 0 for scoring',
        makePod('p').req({ cpu: '0', memory: '1Gi' }),
        { memory: Gi },
        { memory: Gi },
      ],
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
        makePod('p')
          .req({ cpu: '1', [GPU]: '2' })
          .container({ [GPU]: '1' })
          .init({ [GPU]: '4' }),
        { cpu: 1000, [GPU]: 4 },
        { cpu: 1100, memory: 400 * Mi, [GPU]: 4 },
      ],
      [
        'ephemeral storage',
        makePod('p').req({ 'ephemeral-storage': '2Gi' }),
        { 'ephemeral-storage': 2 * Gi },
        { cpu: 100, memory: 200 * Mi, 'ephemeral-storage': 2 * Gi },
      ],
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

  // k8s.io/component-helpers/resource/helpers_test.go, TestPodLevelResourceRequests (the rows with
  // SkipPodLevelResources false: pod-level resources are on by default since 1.34), then what the
  // scheduler's non-zero requests make of them (pkg/scheduler/framework/types.go, getNonMissingContainerRequests).
  describe('pod-level resources (spec.resources) win over the containers for cpu, memory and hugepages', () => {
    const hp2 = 'hugepages-2Mi';
    const hp1 = 'hugepages-1Gi';
    const table: Array<[what: string, pod: PodBuilder, requests: Record<string, number>, nonZero: Record<string, number>]> = [
      [
        'pod level memory resource with SkipPodLevelResources false (no cpu anywhere: 100m per container for scoring)',
        makePod('p').podResources({ memory: '2Mi' }),
        { memory: 2 * Mi },
        { cpu: 100, memory: 2 * Mi },
      ],
      [
        'pod level memory and container level cpu resources with SkipPodLevelResources false',
        makePod('p').podResources({ memory: '2Mi' }).req({ cpu: '2m' }),
        { memory: 2 * Mi, cpu: 2 },
        { memory: 2 * Mi, cpu: 2 },
      ],
      [
        'pod level unsupported resources set at pod-level with SkipPodLevelResources false (ephemeral-storage is not a pod-level resource)',
        makePod('p').podResources({ 'ephemeral-storage': '2Mi' }).req({ memory: '3Mi' }),
        { memory: 3 * Mi },
        { memory: 3 * Mi, cpu: 100 },
      ],
      [
        'both container-level and pod-level resources set with SkipPodLevelResources false',
        makePod('p').podResources({ memory: '6Mi', cpu: '8m' }).req({ memory: '3Mi', cpu: '2m' }),
        { memory: 6 * Mi, cpu: 8 },
        { memory: 6 * Mi, cpu: 8 },
      ],
      [
        'pod-level resources, container-level resources, init and sidecar container set with SkipPodLevelResources false',
        makePod('p')
          .podResources({ memory: '15Mi', cpu: '18m' })
          .req({ memory: '3Mi', cpu: '2m' })
          .init({ memory: '5Mi', cpu: '4m' }, true)
          .init({ memory: '6Mi', cpu: '8m' }),
        { memory: 15 * Mi, cpu: 18 },
        { memory: 15 * Mi, cpu: 18 },
      ],
      [
        'pod-level resources, hugepage request/limit multiple page sizes',
        makePod('p').podResources({ cpu: '1', [hp2]: '2Mi', [hp1]: '1Gi' }, { [hp2]: '2Mi', [hp1]: '1Gi' }),
        { cpu: 1000, [hp2]: 2 * Mi, [hp1]: Gi },
        { cpu: 1000, memory: 200 * Mi, [hp2]: 2 * Mi, [hp1]: Gi },
      ],
      [
        'pod-level resources, container-level resources, hugepage request/limit single page size',
        makePod('p')
          .podResources({ cpu: '1', [hp2]: '10Mi' }, { [hp2]: '10Mi' })
          .containerResources({ [hp2]: '6Mi' }, { [hp2]: '6Mi' }),
        { cpu: 1000, [hp2]: 10 * Mi },
        { cpu: 1000, memory: 200 * Mi, [hp2]: 10 * Mi },
      ],
      [
        'pod-level resources, container-level resources, hugepage request/limit multiple page sizes between pod-level and container-level',
        makePod('p')
          .podResources({ cpu: '1', [hp2]: '10Mi' }, { [hp2]: '10Mi' })
          .containerResources({ memory: '4Mi', [hp1]: '1Gi' }, { [hp1]: '1Gi' }),
        { cpu: 1000, memory: 4 * Mi, [hp2]: 10 * Mi, [hp1]: Gi },
        { cpu: 1000, memory: 4 * Mi, [hp2]: 10 * Mi, [hp1]: Gi },
      ],
      [
        'overhead is added after the pod-level requests',
        makePod('p').podResources({ cpu: '1', memory: '1Gi' }).req({ cpu: '500m' }).overhead({ cpu: '250m', memory: '100Mi' }),
        { cpu: 1250, memory: Gi + 100 * Mi },
        { cpu: 1250, memory: Gi + 100 * Mi },
      ],
      [
        'a pod-level limit without a request is the request when no container asks (the API server defaults it so)',
        makePod('p').podResources({}, { cpu: '2' }),
        { cpu: 2000 },
        { cpu: 2000, memory: 200 * Mi },
      ],
      [
        'cpu asked by one container only: no 100m default for the other, as pod-level requests are set',
        makePod('p').podResources({ memory: '1Gi' }).req({ cpu: '300m' }).container({ memory: '1Mi' }),
        { cpu: 300, memory: Gi },
        { cpu: 300, memory: Gi },
      ],
    ];
    for (const [what, pod, requests, nonZero] of table) {
      it(what, () => {
        const r = resources(pod);
        assert.deepEqual(r.requests.toRecord(), requests, 'requests');
        assert.deepEqual(r.nonZero.toRecord(), nonZero, 'non-zero requests');
      });
    }
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
      [
        'status.allocatable, with pods and extended resources',
        makeNode('n').alloc({ cpu: '8', memory: '16Gi', pods: '110', [GPU]: '4' }).obj,
        { cpu: 8000, memory: 16 * Gi, pods: 110, [GPU]: 4 },
      ],
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
