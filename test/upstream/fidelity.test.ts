// Podplan against upstream kube-scheduler 1.37's own framework (the oracle, built by
// scripts/upstream.sh, which `npm test` runs first): generated cases per family, the bundled
// example, and the regression cases earlier divergences were shrunk to (test/upstream/regressions).
// Longer runs: `npm run fidelity -- --cases 2000` (same generator, same comparison).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import type { ResourceClaim } from '../../src/engine/api/dra';
import type { ClusterSnapshot, Pod } from '../../src/engine/api/types';
import { madeUpClaimName } from '../../src/engine/plugins/dynamicresources/claims';
import { readSnapshot } from '../../src/manifests';
import { FAMILIES, generateCase, type FidelityCase, type K8sObject } from './fidelity/generate';
import { oraclePath } from './fidelity/oracle';
import { runBatch } from './fidelity/suite';

/** Cases per family in the test run; `npm run fidelity` runs as many as asked. */
const CASES = 150;
const SEED = 1;
const ROOT = join(import.meta.dirname, '..', '..');

function report(verdicts: Awaited<ReturnType<typeof runBatch>>): string {
  return verdicts
    .filter((v) => v.divergences.length > 0)
    .slice(0, 3)
    .map((v) => `${v.case.id}:\n  ${v.divergences.slice(0, 8).join('\n  ')}`)
    .join('\n');
}

/**
 * A snapshot folder as the objects a cluster would hold: what Podplan's reader makes of the files,
 * workload replicas and DaemonSet pods included (the pods their controllers would create), each kind
 * with its apiVersion and kind, so the oracle sees the very pods Podplan schedules.
 */
function clusterObjects(dir: string): K8sObject[] {
  const files = readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => ({ name: join(dir, f), text: readFileSync(join(dir, f), 'utf8') }));
  const { cluster } = readSnapshot(files);
  const kinds: Array<[apiVersion: string, kind: string, list: readonly object[] | undefined]> = [
    ['v1', 'Namespace', cluster.namespaces],
    ['scheduling.k8s.io/v1', 'PriorityClass', cluster.priorityClasses],
    ['policy/v1', 'PodDisruptionBudget', cluster.podDisruptionBudgets],
    ['v1', 'PersistentVolumeClaim', cluster.persistentVolumeClaims],
    ['v1', 'PersistentVolume', cluster.persistentVolumes],
    ['storage.k8s.io/v1', 'StorageClass', cluster.storageClasses],
    ['storage.k8s.io/v1', 'CSINode', cluster.csiNodes],
    ['storage.k8s.io/v1', 'CSIDriver', cluster.csiDrivers],
    ['storage.k8s.io/v1', 'CSIStorageCapacity', cluster.csiStorageCapacities],
    ['resource.k8s.io/v1', 'DeviceClass', cluster.deviceClasses],
    ['resource.k8s.io/v1', 'ResourceSlice', cluster.resourceSlices],
    ['resource.k8s.io/v1', 'ResourceClaimTemplate', cluster.resourceClaimTemplates],
    ['resource.k8s.io/v1', 'ResourceClaim', [...(cluster.resourceClaims ?? []), ...controllerClaims(cluster)]],
    ['v1', 'Node', cluster.nodes],
    ['v1', 'Pod', cluster.pods.map(withClaimStatuses)],
  ];
  const objects = kinds.flatMap(([apiVersion, kind, list]) => (list ?? []).map((o) => ({ ...o, apiVersion, kind }) as K8sObject));
  // Made-up replicas name their controller without a uid, which the API server requires.
  for (const o of objects) {
    const meta = o.metadata as { ownerReferences?: Array<{ kind: string; name: string; uid?: string }> };
    meta.ownerReferences = meta.ownerReferences?.map((r) => ({ ...r, uid: r.uid ?? `uid-${r.kind}-${r.name}` }));
  }
  // What PodTopologySpread's default constraints take their selector from: StatefulSets and
  // Services as written; for a Deployment, a Service selecting what its ReplicaSet selects (a
  // ReplicaSet would be read by Podplan as more replicas).
  for (const { text } of files) {
    for (const doc of parseAllDocuments(text)) {
      const o = doc.toJS() as (K8sObject & { metadata: { name: string; namespace?: string }; spec?: Record<string, unknown> }) | null;
      if (!o?.kind) continue;
      if (o.kind === 'StatefulSet' || o.kind === 'Service' || o.kind === 'ReplicationController' || o.kind === 'ReplicaSet')
        objects.push(o);
      const selector = (o.spec?.selector as { matchLabels?: Record<string, string> } | undefined)?.matchLabels;
      if (o.kind === 'Deployment' && selector) {
        objects.push({
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: `${o.metadata.name}-pods`, namespace: o.metadata.namespace ?? 'default' },
          spec: { selector },
        });
      }
    }
  }
  return objects;
}

/** A pod's uid as the oracle gives pods without one. */
const uidOf = (p: Pod) => p.metadata.uid ?? `uid-${p.metadata.namespace ?? 'default'}-${p.metadata.name}`;

/**
 * The claims the ResourceClaim controller creates for pods' template entries (named as Podplan
 * makes them up), so upstream, which waits for the controller, sees what Podplan assumes.
 */
function controllerClaims(cluster: ClusterSnapshot): ResourceClaim[] {
  const templates = new Map(
    (cluster.resourceClaimTemplates ?? []).map((t) => [`${t.metadata.namespace ?? 'default'}/${t.metadata.name}`, t]),
  );
  return cluster.pods.flatMap((p) =>
    (p.spec.resourceClaims ?? []).flatMap((c): ResourceClaim[] => {
      const t = c.resourceClaimTemplateName
        ? templates.get(`${p.metadata.namespace ?? 'default'}/${c.resourceClaimTemplateName}`)
        : undefined;
      if (!t) return [];
      const owner = { apiVersion: 'v1', kind: 'Pod', name: p.metadata.name, uid: uidOf(p), controller: true };
      return [
        {
          metadata: { name: madeUpClaimName(p, c.name), namespace: p.metadata.namespace ?? 'default', ownerReferences: [owner] },
          spec: t.spec.spec,
        },
      ];
    }),
  );
}

/** The pod as the controller leaves it: its uid and the claims made for its template entries in its status. */
function withClaimStatuses(p: Pod): Pod {
  const made = (p.spec.resourceClaims ?? [])
    .filter((c) => c.resourceClaimTemplateName)
    .map((c) => ({ name: c.name, resourceClaimName: madeUpClaimName(p, c.name) }));
  if (made.length === 0) return p;
  return { ...p, metadata: { ...p.metadata, uid: uidOf(p) }, status: { ...p.status, resourceClaimStatuses: made } };
}

describe('upstream fidelity: Podplan against kube-scheduler 1.37 (the oracle)', function () {
  this.timeout(600_000);
  let oracle: string;

  before(() => {
    oracle = oraclePath(false);
  });

  for (const family of FAMILIES) {
    it(`${family}: ${CASES} generated cases (seeds ${SEED}..${SEED + CASES - 1}) agree cycle by cycle`, async () => {
      const cases: FidelityCase[] = [];
      for (let i = 0; i < CASES; i++) cases.push(generateCase(family, SEED + i));
      const verdicts = await runBatch(oracle, cases);
      const diverged = verdicts.filter((v) => v.divergences.length > 0);
      assert.equal(diverged.length, 0, `${diverged.length} of ${CASES} diverged:\n${report(verdicts)}`);
      // The comparison saw real work: cycles on both sides, scores compared.
      assert.ok(verdicts.every((v) => (v.oracle?.cycles.length ?? 0) === v.podplan.cycles.length));
      assert.ok(verdicts.some((v) => v.oracle?.cycles.some((c) => c.scores && Object.keys(c.scores).length > 1)));
    });
  }

  it('the bundled example (examples/cluster) agrees: placements, scores, messages and the preemption', async () => {
    const objects = clusterObjects(join(ROOT, 'examples', 'cluster'));
    const [verdict] = await runBatch(oracle, [{ id: 'examples/cluster', family: 'preemption', objects }]);
    assert.deepEqual(verdict?.divergences, []);
    assert.ok(
      verdict?.oracle?.cycles.some((c) => c.nominated && (c.victims?.length ?? 0) > 0),
      'the example preempts',
    );
  });

  it('the GPU example (examples/dra) agrees: claims from templates, constraints, a prioritized list, a pod no node fits', async () => {
    const objects = clusterObjects(join(ROOT, 'examples', 'dra'));
    const [verdict] = await runBatch(oracle, [{ id: 'examples/dra', family: 'dra-claims', objects }]);
    assert.deepEqual(verdict?.divergences, []);
    const cycles = verdict?.oracle?.cycles ?? [];
    assert.equal(cycles.filter((c) => (c.top ?? []).length > 0).length, 5, 'four trainers and the inference pod are placed');
    assert.ok(cycles.some((c) => c.message?.includes('cannot allocate all claims')));
  });

  describe('regression cases (shrunk from divergences the oracle found)', () => {
    const dir = join(import.meta.dirname, 'regressions');
    let files: string[] = [];
    try {
      files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
    } catch {
      files = [];
    }
    it('there are regression cases to run', () => assert.ok(files.length > 0));
    for (const file of files) {
      it(file, async () => {
        const recorded = parse(readFileSync(join(dir, file), 'utf8')) as {
          id: string;
          family: FidelityCase['family'];
          objects: K8sObject[];
        };
        const [verdict] = await runBatch(oracle, [{ id: recorded.id, family: recorded.family, objects: recorded.objects }]);
        assert.deepEqual(verdict?.divergences, []);
      });
    }
  });
});
