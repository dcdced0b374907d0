import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { writeSchedulePlan } from '../../src/manifests';
import {
  applyCrdInstall,
  KubeHttp,
  PLAN_STATUS_ANNOTATION,
  PlannerObjects,
  planCrdInstall,
  planForCluster,
  SCHEDULE_PLAN_CRD,
  SCHEDULE_TRIGGER_CRD,
  type ApiObject,
} from '../../src/kube';
import { startTestApiServer, type TestApiServer } from './apiserver';
import { contextOn, namespace } from './support';

type Crd = {
  metadata: { name: string };
  spec: {
    group: string;
    scope: string;
    names: Record<string, unknown>;
    versions: Array<{ name: string; served: boolean; storage: boolean; subresources: unknown; schema: { openAPIV3Schema: Schema } }>;
  };
};
type Schema = { type?: string; required?: string[]; properties?: Record<string, Schema>; items?: Schema; enum?: string[] };

/** What Pallet publishes (ciena/pallet config/crd/bases/planner.ciena.io_*.yaml), field by field. */
const PALLET = {
  scheduletriggers: {
    names: {
      kind: 'ScheduleTrigger',
      listKind: 'ScheduleTriggerList',
      plural: 'scheduletriggers',
      shortNames: ['st'],
      singular: 'scheduletrigger',
    },
    required: { '': ['spec'], spec: ['state'] },
    enums: { 'spec.state': ['Planning', 'Schedule'] },
  },
  scheduleplans: {
    names: { kind: 'SchedulePlan', listKind: 'SchedulePlanList', plural: 'scheduleplans', shortNames: ['sp'], singular: 'scheduleplan' },
    required: { '': ['spec'], spec: ['plan'], 'spec.plan[]': ['node', 'pod'] },
    enums: {},
  },
} as const;

function at(schema: Schema, path: string): Schema {
  if (!path) return schema;
  return path
    .split('.')
    .reduce<Schema>(
      (s, part) => (part.endsWith('[]') ? (s.properties?.[part.slice(0, -2)]?.items as Schema) : (s.properties?.[part] as Schema)),
      schema,
    );
}

function fields(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) fields(v, out);
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      fields(v, out);
    }
  }
  return out;
}

describe('kube/crds (Pallet-compatible ScheduleTrigger and SchedulePlan CRDs)', () => {
  for (const crd of [SCHEDULE_TRIGGER_CRD, SCHEDULE_PLAN_CRD] as unknown as Crd[]) {
    const plural = crd.spec.names.plural as keyof typeof PALLET;
    const pallet = PALLET[plural];
    describe(crd.metadata.name, () => {
      const version = crd.spec.versions[0]!;
      const schema = version.schema.openAPIV3Schema;
      it("has Pallet's group, version, scope and names", () => {
        assert.equal(crd.metadata.name, `${plural}.planner.ciena.io`);
        assert.deepEqual(
          [crd.spec.group, crd.spec.scope, version.name, version.served, version.storage],
          ['planner.ciena.io', 'Namespaced', 'v1alpha1', true, true],
        );
        assert.deepEqual(crd.spec.names, pallet.names);
      });
      it("has Pallet's required fields and enums", () => {
        for (const [path, required] of Object.entries(pallet.required)) assert.deepEqual(at(schema, path).required, required, path);
        for (const [path, values] of Object.entries(pallet.enums)) assert.deepEqual(at(schema, path).enum, values, path);
      });
      it("has the status subresource and, as Pallet's, a bare status object and no preserve-unknown-fields", () => {
        assert.deepEqual(version.subresources, { status: {} });
        assert.deepEqual(Object.keys(at(schema, 'status')).sort(), ['description', 'type']);
        assert.ok(!fields(crd).includes('x-kubernetes-preserve-unknown-fields'));
      });
    });
  }

  describe('in a cluster', () => {
    let server: TestApiServer;
    let http: KubeHttp;
    beforeEach(async () => {
      server = await startTestApiServer();
      http = new KubeHttp(await contextOn(server));
    });
    afterEach(() => server.close());

    it('installs: create both, then nothing to do', async () => {
      const first = await planCrdInstall(http);
      assert.ok(first.ok);
      assert.deepEqual(
        first.value.map((s) => [s.name, s.action]),
        [
          ['scheduletriggers.planner.ciena.io', 'create'],
          ['scheduleplans.planner.ciena.io', 'create'],
        ],
      );
      assert.ok((await applyCrdInstall(http, first.value)).ok);
      const again = await planCrdInstall(http);
      assert.ok(again.ok);
      assert.deepEqual(
        again.value.map((s) => s.action),
        ['unchanged', 'unchanged'],
      );
    });

    it('updates a CRD that differs (here: without the short name), keeping the resourceVersion read', async () => {
      const { shortNames: _dropped, ...names } = (SCHEDULE_PLAN_CRD as unknown as Crd).spec.names;
      server.create({
        ...(SCHEDULE_PLAN_CRD as unknown as Crd),
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        spec: { ...(SCHEDULE_PLAN_CRD as unknown as Crd).spec, names },
      } as never);
      const steps = await planCrdInstall(http);
      assert.ok(steps.ok);
      assert.deepEqual(
        steps.value.map((s) => s.action),
        ['create', 'update'],
      );
      assert.ok(steps.value[1]?.object.metadata.resourceVersion);
      assert.ok((await applyCrdInstall(http, steps.value)).ok);
      const after = await planCrdInstall(http);
      assert.ok(after.ok && after.value.every((s) => s.action === 'unchanged'));
    });

    it("a SchedulePlan Podplan writes keeps its status through Pallet's CRD: in an annotation", async () => {
      server.create(namespace('batch'));
      const steps = await planCrdInstall(http);
      assert.ok(steps.ok && (await applyCrdInstall(http, steps.value)).ok);
      const written = parse(
        writeSchedulePlan({
          podSet: 'nightly',
          namespace: 'batch',
          planner: 'optimize',
          profile: 'podset-planner-scheduler',
          assignments: [{ pod: 'a', node: 'n1' }],
          unplaced: [{ pod: 'b', message: '0/1 nodes are available: 1 Insufficient cpu.' }],
          createdAt: 0,
          snapshotHash: 'sha256:x',
        }),
      ) as ApiObject & { status: Record<string, unknown> };
      const objects = new PlannerObjects(http);
      const created = await objects.create(planForCluster(written));
      assert.ok(created.ok, JSON.stringify(created));
      const got = await objects.get('SchedulePlan', 'batch', written.metadata.name);
      assert.ok(got.ok);
      assert.deepEqual((got.value as ApiObject & { spec: unknown }).spec, { plan: [{ pod: 'a', node: 'n1' }] });
      const annotations = got.value.metadata.annotations as Record<string, string>;
      assert.deepEqual(JSON.parse(annotations[PLAN_STATUS_ANNOTATION] ?? '{}'), written.status);
    });
  });
});
