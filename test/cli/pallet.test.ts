// Podplan's SchedulePlans against Pallet's published CRD (test/fixtures/pallet), checked as an API
// server reads a structural schema: a field the schema does not declare is pruned, so here it is an
// error (every object closed, except metadata, which the API server validates itself).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { parse, parseAllDocuments } from 'yaml';
import { useTempDir } from '../store/helpers';
import { runPodplan } from './run-cli-process';

type JsonSchema = {
  type?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  additionalProperties?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  [key: string]: unknown;
};

/** The CRD's openAPIV3Schema with every object closed, as pruning makes it. */
function structural(schema: JsonSchema, path: string[] = []): JsonSchema {
  const out: JsonSchema = { ...schema };
  if (schema.properties)
    out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, structural(v, [...path, k])]));
  if (schema.items) out.items = structural(schema.items, [...path, '[]']);
  const isMetadata = path.length === 1 && path[0] === 'metadata';
  if (schema.type === 'object' && !schema['x-kubernetes-preserve-unknown-fields'] && !isMetadata) out.additionalProperties = false;
  return out;
}

function palletSchemaValidator() {
  const crd = parseAllDocuments(readFileSync('test/fixtures/pallet/planner.ciena.io_scheduleplans.yaml', 'utf8'))
    .map((d) => d.toJS() as { kind?: string; spec?: { versions: Array<{ name: string; schema: { openAPIV3Schema: JsonSchema } }> } })
    .find((d) => d.kind === 'CustomResourceDefinition');
  const schema = crd?.spec?.versions.find((v) => v.name === 'v1alpha1')?.schema.openAPIV3Schema;
  assert.ok(schema, 'the fixture holds the v1alpha1 schema');
  return new Ajv({ allErrors: true, strict: false }).compile(structural(schema));
}

describe("SchedulePlans against Pallet's CRD (child process)", () => {
  const validate = palletSchemaValidator();

  it('plan --yaml writes a SchedulePlan that validates against the CRD', async () => {
    const { code, stdout, stderr } = await runPodplan([
      'plan',
      'examples/cluster',
      '--pod-set',
      'nightly-batch',
      '--yaml',
      '--made-up-names',
      '--no-history',
    ]);
    assert.equal(code, 0, stderr);
    const plan = parse(stdout) as { spec: { plan: unknown[] }; status?: unknown };
    assert.ok(validate(plan), JSON.stringify(validate.errors));
    assert.equal(plan.status, undefined);
    assert.equal(plan.spec.plan.length, 6);
  });

  it("--status adds Podplan's status, which the CRD does not declare", async () => {
    const { stdout } = await runPodplan([
      'plan',
      'examples/cluster',
      '--pod-set',
      'nightly-batch',
      '--yaml',
      '--status',
      '--made-up-names',
      '--no-history',
    ]);
    assert.equal(validate(parse(stdout)), false);
    assert.deepEqual(validate.errors?.map((e) => [e.instancePath, e.keyword]).slice(0, 1), [['/status', 'additionalProperties']]);
  });
});

const node = (name: string) => `apiVersion: v1
kind: Node
metadata: { name: ${name}, labels: { kubernetes.io/hostname: ${name} } }
status: { allocatable: { cpu: "8", memory: 16Gi, pods: "110" } }
`;

/** A pod of set "spread" that prefers not to share a node with the set's other pods. */
const spreadPod = (name: string) => `apiVersion: v1
kind: Pod
metadata: { name: ${name}, labels: { app: spread, planner.ciena.io/pod-set: spread } }
spec:
  schedulerName: podset-planner-scheduler
  affinity:
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 1
          podAffinityTerm: { topologyKey: kubernetes.io/hostname, labelSelector: { matchLabels: { app: spread } } }
  containers:
    - name: main
      image: busybox
      resources: { requests: { cpu: "1" } }
`;

describe("Pallet's scheduler configuration (child process)", () => {
  it('reads, with what means nothing to Podplan reported as ignored, not as errors', async () => {
    const { code, stderr } = await runPodplan([
      'plan',
      'examples/cluster',
      '--pod-set',
      'nightly-batch',
      '--profile',
      'test/fixtures/pallet/scheduler-config.yaml',
      '--no-history',
    ]);
    assert.equal(code, 0, stderr);
    assert.deepEqual(
      stderr
        .trimEnd()
        .split('\n')
        .map((l) => l.replace(/^test\/fixtures\/pallet\/scheduler-config\.yaml:\d+:\d+: /, '')),
      [
        'warning bad-api-version: apiVersion: KubeSchedulerConfiguration is kubescheduler.config.k8s.io/v1, got "kubescheduler.config.k8s.io/v1beta2"; read as kubescheduler.config.k8s.io/v1',
        "warning: PodSetPlanner at preScore is Pallet's own (its score for the planned node); Podplan's keeps the pod to its planned node at PreFilter: ignored",
        "warning: PodSetPlanner at score is Pallet's own (its score for the planned node); Podplan's keeps the pod to its planned node at PreFilter: ignored",
        "warning: PodSetPlanner arg debug is Pallet's own setting and means nothing to Podplan; ignored",
      ],
    );
  });
});

describe("--planner pallet: Pallet's default planner (child process)", () => {
  const dir = useTempDir();

  it('treats preferred pod anti-affinity as required: one pod per node, the rest left out with the predicate that refused them', async () => {
    const file = path.join(dir.path, 'spread.yaml');
    writeFileSync(file, [node('n1'), node('n2'), spreadPod('a'), spreadPod('b'), spreadPod('c')].join('---\n'));
    const { code, stdout } = await runPodplan(['plan', file, '--pod-set', 'spread', '--planner', 'pallet', '--json', '--no-history']);
    assert.equal(code, 1);
    const plan = JSON.parse(stdout) as {
      assignments: Array<{ pod: string; node: string }>;
      unplaced: Array<{ pod: string; message: string; diagnosis: { rejections: Array<{ plugin: string }> } }>;
      status: { planner: string };
    };
    assert.equal(plan.status.planner, 'pallet');
    assert.deepEqual(
      plan.assignments.map((a) => a.pod),
      ['a', 'b'],
      'in the order the API lists them',
    );
    assert.notEqual(plan.assignments[0]?.node, plan.assignments[1]?.node);
    assert.deepEqual(
      plan.unplaced.map((u) => [u.pod, u.message]),
      [['c', "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules."]],
    );
    assert.deepEqual(
      plan.unplaced[0]?.diagnosis.rejections.map((r) => r.plugin),
      ['PodAntiAffinity', 'PodAntiAffinity'],
    );
  });

  it('the greedy planner, reading the same preference as kube-scheduler does, places all three', async () => {
    const file = path.join(dir.path, 'spread.yaml');
    writeFileSync(file, [node('n1'), node('n2'), spreadPod('a'), spreadPod('b'), spreadPod('c')].join('---\n'));
    const { code, stdout } = await runPodplan(['plan', file, '--pod-set', 'spread', '--planner', 'greedy', '--json', '--no-history']);
    assert.equal(code, 0, stdout);
    assert.equal((JSON.parse(stdout) as { assignments: unknown[] }).assignments.length, 3);
  });
});
