import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DeviceFailure } from '../../src/engine/api/device-failures';
import { deviceFailureText } from '../../src/engine/explain/devices';
import { noHistory } from '../../src/server/history';
import { explainInPlan } from '../../src/server/service/planning';
import type { StoredPlan } from '../../src/store/types';
import { workspaceOf } from '../server/service/fixtures';
import { useTempDir } from '../store/helpers';
import { cli } from './run-cli';
import { runPodplan } from './run-cli-process';

/** examples/dra as the in-memory file table the CLI harness reads. */
function draFiles(): Record<string, string> {
  const dir = 'examples/dra';
  return Object.fromEntries(
    readdirSync(dir)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => [path.join(dir, f), readFileSync(path.join(dir, f), 'utf8')]),
  );
}

/**
 * examples/dra without its pods, and a pod set `default/gang` of `workers` one-GPU pods of
 * `deviceClass` (a Job from a ResourceClaimTemplate), the trigger's labels extended by `labels`.
 */
function gangFiles(workers: number, deviceClass: string, labels = ''): Record<string, string> {
  return {
    ...Object.fromEntries(Object.entries(draFiles()).filter(([name]) => !name.endsWith('pods.yaml'))),
    'examples/dra/gang.yaml': `apiVersion: planner.ciena.io/v1alpha1
kind: ScheduleTrigger
metadata: {name: gang, namespace: default, labels: {planner.ciena.io/pod-set: gang${labels}}}
spec: {state: Schedule}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu}
spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: ${deviceClass}}}]}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: train}
spec:
  parallelism: ${workers}
  completions: ${workers}
  template:
    metadata: {labels: {planner.ciena.io/pod-set: gang}}
    spec:
      schedulerName: podset-planner-scheduler
      restartPolicy: Never
      resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]
      containers: [{name: t, image: t, resources: {requests: {cpu: "1"}}}]
`,
  };
}

// The built CLI (dist/cli.cjs) on the GPU example: the training gang gets two large GPUs on one
// NUMA node each, the inference pod falls back to a small GPU, the pod asking for eight GPUs on
// one node is placed nowhere, with upstream's words.
describe('cli: Dynamic Resource Allocation (examples/dra)', () => {
  const dir = useTempDir();
  it('schedule places the GPU pods where the devices are and explains the one that fits nowhere', async () => {
    const { code, stdout } = await cli(['schedule', 'examples/dra', '--no-history'], draFiles());
    assert.equal(code, 1, stdout);
    const placed = Object.fromEntries([...stdout.matchAll(/^default\/(\S+)\s+(\S+)/gm)].map((m) => [m[1], m[2]]));
    // Four trainers with two 80Gi GPUs each: the two A100 nodes hold two trainers each.
    assert.deepEqual(['trainer-0', 'trainer-1', 'trainer-2', 'trainer-3'].map((p) => placed[p]).sort(), [
      'gpu-a1',
      'gpu-a1',
      'gpu-b1',
      'gpu-b1',
    ]);
    // The large GPUs are taken: inference takes its second choice, an L4 node.
    assert.match(placed['inference'] ?? '', /^gpu-[ab]2$/);
    assert.equal(placed['too-big'], '<none>');
    assert.match(stdout, /default\/too-big: 0\/5 nodes are available: 5 cannot allocate all claims\./);
  });

  it('schedule refuses a claim whose selector is over the CEL cost limit, at its expression, in kube-apiserver words', async () => {
    const files = draFiles();
    files['examples/dra/too-complex.yaml'] = `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: { name: too-complex, namespace: default }
spec:
  devices:
    requests:
      - name: gpu
        exactly:
          deviceClassName: gpu
          selectors:
            - cel:
                expression: 'ip("fe80::" + string(device.attributes["gpu.example.com"].index + 1)).isLinkLocalUnicast()'
`;
    const { stdout, stderr } = await cli(['schedule', 'examples/dra', '--no-history'], files);
    assert.match(
      stdout + stderr,
      /^examples\/dra\/too-complex\.yaml:12:29: error bad-value: spec\.devices\.requests\[0\]\.exactly\.selectors\[0\]\.cel\.expression: Forbidden: too complex, exceeds cost limit$/m,
    );
  });

  it('explain says per node why the claim cannot be allocated', async () => {
    const { stdout } = await cli(['explain', 'examples/dra', 'default/too-big'], draFiles());
    assert.match(stdout, /5 × cannot allocate all claims \[DynamicResources, Filter\]/);
    // Podplan's addition beside upstream's message: per node, the request and why.
    assert.match(
      stdout,
      /Device requests not met \(DynamicResources; per node, what stood in the way\):\n {2}gpu-a1:\n {4}- claim default\/eight-gpus, request gpus \(8 × gpu\.example\.com\): only 4 matching devices on the node\n/,
    );
    assert.match(stdout, / {2}cpu-1:\n {4}- claim default\/eight-gpus, request gpus \(8 × gpu\.example\.com\): the node has no devices\n/);
  });

  it('explain --output json carries the device failures as data', async () => {
    const { stdout } = await cli(['explain', 'examples/dra', 'default/too-big', '-o', 'json'], draFiles());
    const report = JSON.parse(stdout) as { devices: Array<{ node: string; devices: Array<Record<string, unknown>> }> };
    const cpu = report.devices.find((d) => d.node === 'cpu-1');
    assert.deepEqual(cpu?.devices, [
      { claim: 'default/eight-gpus', request: 'gpus', deviceClass: 'gpu.example.com', wanted: 8, code: 'noDevices' },
    ]);
    assert.equal(report.devices.length, 5);
  });

  it('plan: the example’s fine-tune pod set (one large GPU per worker) goes to the two large-GPU nodes, proven optimal', async () => {
    const { code, stdout } = await cli(['plan', 'examples/dra', '--pod-set', 'default/fine-tune', '--no-history'], draFiles());
    assert.equal(code, 0, stdout);
    const nodes = [...stdout.matchAll(/^default\/fine-tune-\d\*\s+(\S+)$/gm)].map((m) => m[1]);
    assert.equal(nodes.length, 6, stdout);
    assert.deepEqual([...new Set(nodes)].sort(), ['gpu-a1', 'gpu-b1']);
    assert.ok(
      ['gpu-a1', 'gpu-b1'].every((n) => nodes.filter((x) => x === n).length <= 4),
      'four large GPUs per node',
    );
    assert.match(stdout, /6 of 6 pods placed on 2 nodes \(planner greedy, objective pack, profile podset-planner-scheduler/);
    assert.match(stdout, /Bound \(HiGHS [\d.]+\): proven optimal\./);
  });

  it('plan: a gang of ten one-GPU pods gets the eight large GPUs there are, not more', async () => {
    const files = gangFiles(10, 'large-gpu.example.com');
    const { stdout } = await cli(['plan', 'examples/dra', '--pod-set', 'default/gang', '--no-history'], files);
    assert.match(stdout, /8 of 10 pods placed on 2 nodes/);
    assert.equal([...stdout.matchAll(/^default\/train-\d+\*\s+gpu-[ab]1$/gm)].length, 8, stdout);
  });

  it("plan under a quota of six large GPUs: the ResourceClaim controller's claims for the last four pods of a ten-pod Job are refused, so those pods wait for claims never created", async () => {
    const files = {
      ...gangFiles(10, 'large-gpu.example.com'),
      'examples/dra/quota.yaml':
        'apiVersion: v1\nkind: ResourceQuota\nmetadata: {name: large-gpus}\nspec:\n  hard: {large-gpu.example.com.deviceclass.resource.k8s.io/devices: "6"}\n',
    };
    const { stdout, stderr } = await cli(['plan', 'examples/dra', '--pod-set', 'default/gang', '--no-history'], files);
    assert.match(stdout, /6 of 10 pods placed on 2 nodes/);
    const waiting = [
      ...stdout.matchAll(/^ {2}default\/(train-\d+): 0\/5 nodes are available: pod "default\/\1": ResourceClaim not created yet\.$/gm),
    ];
    assert.deepEqual(
      waiting.map((m) => m[1]),
      ['train-6', 'train-7', 'train-8', 'train-9'],
    );
    const refused = stderr.split('\n').filter((l) => l.startsWith('examples/dra/gang.yaml:22:63: warning refused: '));
    assert.equal(refused.length, 4, stderr);
    assert.match(
      refused[0] ?? '',
      /spec\.template\.spec\.resourceClaims\[0\]\.resourceClaimTemplateName: PodResourceClaim gpu: create ResourceClaim : resourceclaims\.resource\.k8s\.io "train-6-gpu-\w{5}" is forbidden: exceeded quota: large-gpus, requested: large-gpu\.example\.com\.deviceclass\.resource\.k8s\.io\/devices=1, used: large-gpu\.example\.com\.deviceclass\.resource\.k8s\.io\/devices=6, limited: large-gpu\.example\.com\.deviceclass\.resource\.k8s\.io\/devices=6: pod default\/train-6 waits for it$/,
    );
  });

  it('explain of a pod of a set the plan leaves out says per node which device request could not be met, on the cluster as the plan leaves it', async () => {
    const files = gangFiles(10, 'large-gpu.example.com');
    const { code, stdout } = await cli(['explain', 'examples/dra', 'default/train-8'], files);
    assert.equal(code, 1, stdout);
    assert.match(stdout, /^default\/train-8 is in pod set gang: planned with its set by the greedy planner/);
    // The large GPUs are the other eight pods' in the plan; the small ones are not of the class; cpu-1 has none.
    const claim = String.raw`claim default/train-8-gpu-\w{5}, request gpu \(1 × large-gpu\.example\.com\)`;
    for (const node of ['gpu-a1', 'gpu-b1'])
      assert.match(
        stdout,
        new RegExp(
          `\n {2}${node}:\n {4}- ${claim}: 0 of the node's 4 matching devices free, 4 taken by 4 devices for pods placed earlier in this plan\n`,
        ),
      );
    assert.match(stdout, new RegExp(`\n {2}gpu-a2:\n {4}- ${claim}: none of the node's 4 devices is of class large-gpu\\.example\\.com`));
    assert.match(stdout, new RegExp(`\n {2}cpu-1:\n {4}- ${claim}: the node has no devices\n`));
    // -o json carries them as data, as for a pod alone.
    const json = await cli(['explain', 'examples/dra', 'default/train-8', '-o', 'json'], files);
    const report = JSON.parse(json.stdout) as { podSet: string; devices: Array<{ node: string; devices: Array<{ code: string }> }> };
    assert.equal(report.podSet, 'gang');
    assert.deepEqual(
      report.devices.map((d) => `${d.node} ${d.devices.map((x) => x.code).join(' ')}`),
      ['gpu-a1 notEnough', 'gpu-a2 noClassMatch', 'gpu-b1 notEnough', 'gpu-b2 noClassMatch', 'cpu-1 noDevices'],
    );
  });

  it('plan: the exact planner counts devices, so an 8-pod one-GPU gang on 4-GPU nodes is proven optimal on 2 nodes', async () => {
    const files = gangFiles(8, 'gpu.example.com', ', planner.ciena.io/planner: exact');
    const { stdout } = await cli(['plan', 'examples/dra', '--pod-set', 'default/gang', '--no-history'], files);
    assert.match(stdout, /8 of 8 pods placed on 2 nodes \(planner exact/);
    assert.match(stdout, /Bound \(HiGHS [\d.]+\): proven optimal\./);
  });

  it('the history keeps each placed pod’s devices: plan --db records them, show prints them, -o json carries them', async () => {
    const history = path.join(dir.path, 'dra.db');
    const files = {
      ...Object.fromEntries(Object.entries(draFiles()).filter(([name]) => !name.endsWith('pods.yaml'))),
      'examples/dra/gang.yaml': readFileSync('test/fixtures/dra/gang.yaml', 'utf8'),
    };
    const planned = await cli(['plan', 'examples/dra', '--pod-set', 'default/gang', '--db', history], files);
    assert.equal(planned.code, 0, planned.stderr);
    const id = /Recorded as plan (\d+)/.exec(planned.stderr)?.[1];
    assert.ok(id, planned.stderr);
    const placed = new Map([...planned.stdout.matchAll(/^default\/(train-\d)\*\s+(\S+)$/gm)].map((m) => [m[1], m[2]]));
    assert.equal(placed.size, 6);
    const shown = await cli(['show', id, '--db', history]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^Devices \(DRA: claim, request: driver\/pool\/device\):$/m);
    const devices = [
      ...shown.stdout.matchAll(/^ {2}(train-\d)\* on (\S+):\n {4}default\/\1-gpu-\w{5}, gpu: gpu\.example\.com\/(\S+)\/(gpu-\d)$/gm),
    ];
    assert.equal(devices.length, 6, shown.stdout);
    for (const [, pod, node, pool] of devices) assert.deepEqual([node, pool], [placed.get(pod!), placed.get(pod!)]);
    assert.equal(new Set(devices.map((m) => `${m[3]}/${m[4]}`)).size, 6, 'no device twice');
    const json = JSON.parse((await cli(['show', id, '-o', 'json', '--db', history])).stdout) as StoredPlan;
    assert.deepEqual(Object.keys(json.assignments[0]?.devices?.[0] ?? {}), ['claim', 'request', 'driver', 'pool', 'device']);
  });

  // The editor's explain of a pod in a preview (explainInPlan) and podplan explain of it judge on
  // the one cluster the plan leaves (engine/planner/plan-cluster.ts): the same device requests not
  // met per node, the same closest node, the same message.
  describe('explain of a pod of a set: bin/podplan.js and the editor’s explain-in-plan say the same per node (test/fixtures/dra/plan)', () => {
    const dir = 'test/fixtures/dra/plan';
    const analysis = () =>
      workspaceOf(Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(path.join(dir, f), 'utf8')]))).analysis();
    const taken = "0 of the node's 2 matching devices free, 2 taken by 2 devices for pods placed earlier in this plan";
    const table: Array<[name: string, pod: string, code: number, devices: Array<[string, string[]]>]> = [
      [
        'a pod the plan leaves out: each GPU node’s two GPUs are the plan’s other pods’, the node without devices has none',
        'train-4',
        1,
        [
          ['g1', [taken]],
          ['g2', [taken]],
          ['c1', ['the node has no devices']],
        ],
      ],
      [
        'a pod the plan places last: the node the pods before took is rejected for its devices, beside the one without',
        'train-3',
        0,
        [
          ['g2', ["0 of the node's 2 matching devices free, 2 taken by 2 devices for pods placed earlier in this plan"]],
          ['c1', ['the node has no devices']],
        ],
      ],
    ];
    for (const [name, podName, code, devices] of table) {
      it(name, async () => {
        const run = await runPodplan(['explain', dir, `default/${podName}`, '-o', 'json']);
        assert.equal(run.code, code, run.stderr);
        const report = JSON.parse(run.stdout) as {
          message?: string;
          node?: string;
          closest: Array<{ node: string }>;
          devices: Array<{ node: string; devices: DeviceFailure[] }>;
        };
        const a = analysis();
        const pod = a.pod('default', podName);
        assert.ok(pod);
        const editor = await explainInPlan(pod, a, { podSet: 'train' }, noHistory('not kept'));
        assert.ok(editor);
        const cliDevices = report.devices.map((n) => ({ node: n.node, lines: n.devices.map(deviceFailureText) }));
        assert.deepEqual(editor.devices, cliDevices);
        const prefix = `claim default/${podName}-gpu-`;
        assert.deepEqual(
          cliDevices.map((n) => [n.node, n.lines.map((l) => (l.startsWith(prefix) ? l.slice(l.indexOf('): ') + 3) : l))]),
          devices,
        );
        assert.equal(editor.matrix.closest?.node, report.closest[0]?.node);
        // Left out: upstream's message; placed: the node.
        if (code === 1) assert.equal(editor.message, report.message);
        else assert.equal(editor.plannedNode, report.node);
      });
    }
  });
});

// bin/podplan.js (the shipped bundle, with re2js inside) on claims whose selectors use the
// Kubernetes regex library's find/findAll: the example's GPUs are a100s (gpu-a1, gpu-b1) and l4s
// (gpu-a2, gpu-b2); a pattern nothing matches places the pod nowhere; a constant pattern that does
// not compile is refused at its place in the file, with upstream's words. And the runtime cost
// limit: a selector kube-apiserver accepts (estimated 999984) that passes the limit when evaluated.
describe('cli: DRA selectors with find and findAll, and the runtime cost limit (bin/podplan.js)', () => {
  const dir = useTempDir();
  const claimAndPod = (name: string, expression: string): string => `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: ${name}}
spec:
  devices:
    requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
          selectors:
            - cel: {expression: "${expression}"}
---
apiVersion: v1
kind: Pod
metadata: {name: ${name}}
spec:
  resourceClaims: [{name: gpu, resourceClaimName: ${name}}]
  containers: [{name: c, image: c, resources: {requests: {cpu: "1"}, claims: [{name: gpu}]}}]
`;
  const cluster = (name: string, pods: string): string => {
    const at = path.join(dir.path, name);
    mkdirSync(at);
    for (const f of ['classes.yaml', 'nodes.yaml', 'slices.yaml', 'profile.yaml'])
      writeFileSync(path.join(at, f), readFileSync(path.join('examples/dra', f), 'utf8'));
    writeFileSync(path.join(at, 'pods.yaml'), pods);
    return at;
  };
  const model = "device.attributes['gpu.example.com'].model";

  it('schedule places each pod on a node whose GPU model the pattern finds, and the one no GPU matches nowhere', async () => {
    const at = cluster(
      'placed',
      [
        claimAndPod('a-series', `${model}.find('[0-9]+') == '100'`),
        claimAndPod('l-series', `${model}.findAll('[a-z]') == ['l'] && ${model}.findAll('[0-9]', 5) == ['4']`),
        claimAndPod('h-series', `${model}.find('^h[0-9]+') != ''`),
      ].join('---\n'),
    );
    const run = await runPodplan(['schedule', at, '--no-history']);
    assert.equal(run.code, 1, run.stderr);
    const placed = Object.fromEntries([...run.stdout.matchAll(/^default\/(\S+)\s+(\S+)/gm)].map((m) => [m[1], m[2]]));
    assert.match(placed['a-series'] ?? '', /^gpu-[ab]1$/, run.stdout);
    assert.match(placed['l-series'] ?? '', /^gpu-[ab]2$/, run.stdout);
    assert.equal(placed['h-series'], '<none>', run.stdout);
    assert.match(run.stdout, /default\/h-series: 0\/5 nodes are available: 5 cannot allocate all claims\./);
  });

  it("a selector whose evaluation passes the runtime cost limit fails the cycle with cel-go's error, as upstream's allocator reports it", async () => {
    const at = cluster('costly', claimAndPod('costly', 'lists.range(55554).all(i, [i][0] == i)'));
    const run = await runPodplan(['schedule', at, '--no-history']);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /^default\/costly\s+<none>$/m);
    assert.match(
      run.stdout,
      /^ {2}default\/costly: claim default\/costly: selector #0 on device gpu\.example\.com\/gpu-a1\/gpu-0: CEL runtime error: operation cancelled: actual cost limit exceeded$/m,
    );
  });

  it('a claim the cluster stored (it has a uid) is evaluated whatever its estimate, and fails past the runtime limit', async () => {
    const stored = claimAndPod('stored', 'lists.range(166665).all(i, i >= 0)').replace(
      'metadata: {name: stored}',
      'metadata: {name: stored, uid: 7d1c}',
    );
    const run = await runPodplan(['schedule', cluster('stored', stored), '--no-history']);
    assert.equal(run.code, 1, run.stderr);
    assert.match(
      run.stdout,
      /^ {2}default\/stored: claim default\/stored: selector #0 on device gpu\.example\.com\/gpu-a1\/gpu-0: CEL runtime error: operation cancelled: actual cost limit exceeded$/m,
    );
  });

  it('a constant pattern that does not compile is an error at the selector, as kube-apiserver refuses it', async () => {
    const at = cluster('refused', claimAndPod('bad', `${model}.find(')') == ''`));
    const run = await runPodplan(['schedule', at, '--no-history']);
    assert.equal(run.code, 2, run.stdout);
    assert.equal(
      run.stderr.trim(),
      `${path.join(at, 'pods.yaml')}:11:33: error bad-value: spec.devices.requests[0].exactly.selectors[0].cel.expression: ` +
        'the CEL expression does not compile: program instantiation failed: error parsing regexp: unexpected ): `)`',
    );
  });

  it("a selector that does not parse is an error at the selector with cel-go's syntax errors, all of them, as kube-apiserver refuses it", async () => {
    const at = cluster('malformed', claimAndPod('malformed', `(${model} == 'a100' # 1`));
    const run = await runPodplan(['schedule', at, '--no-history']);
    assert.equal(run.code, 2, run.stdout);
    // kube-apiserver 1.37.2's words (the oracle): `compilation failed: ERROR: <input>:1:55: Syntax error: …`.
    assert.equal(
      run.stderr.trim(),
      `${path.join(at, 'pods.yaml')}:11:33: error bad-value: spec.devices.requests[0].exactly.selectors[0].cel.expression: ` +
        "the CEL expression does not compile: <input>:1:55: Syntax error: token recognition error at: '#'\n" +
        "<input>:1:57: Syntax error: mismatched input '1' expecting ')'",
    );
  });
});
