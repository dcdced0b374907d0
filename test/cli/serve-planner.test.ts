import assert from 'node:assert/strict';
import { connectPlanner } from '../../src/rpc';
import { cli, servePlanner } from './run-cli';

const NODES = ['n1', 'n2', 'n3']
  .map(
    (name) => `---
apiVersion: v1
kind: Node
metadata: { name: ${name}, labels: { kubernetes.io/hostname: ${name} } }
status: { allocatable: { cpu: "4", memory: 8Gi, pods: "110" } }
`,
  )
  .join('');

const member = (name: string, cpu: string) => `---
apiVersion: v1
kind: Pod
metadata: { name: ${name}, namespace: shop, labels: { planner.ciena.io/pod-set: cart } }
spec:
  schedulerName: podset-planner-scheduler
  containers:
    - name: main
      resources: { requests: { cpu: "${cpu}" } }
`;

const FILES = { 'c.yaml': NODES + member('cart-0', '2') + member('cart-1', '2') + member('cart-2', '4') };

const serve = (files: Record<string, string>, args: string[] = []) => servePlanner(['c.yaml', ...args], files);

describe('cli serve-planner', () => {
  it('answers BuildSchedulePlan over gRPC with the optimize planner, and stops on a signal', async () => {
    const server = serve(FILES);
    const connected = connectPlanner(await server.address, { deadlineMs: 10_000 });
    assert.ok(connected.ok);
    const client = connected.value;
    try {
      const answer = await client.buildSchedulePlan({ namespace: 'shop', podSet: 'cart', scheduledPod: '', eligibleNodes: [] });
      assert.ok(answer.ok);
      assert.deepEqual(Object.keys(answer.value).sort(), ['cart-0', 'cart-1', 'cart-2']);
      assert.equal(new Set(Object.values(answer.value)).size, 2, 'packed on two nodes');

      const kept = await client.buildSchedulePlan({ namespace: 'shop', podSet: 'cart', scheduledPod: 'cart-2', eligibleNodes: ['n3'] });
      assert.equal(kept.ok && kept.value['cart-2'], 'n3', 'the pod being scheduled stays on its eligible nodes');

      assert.deepEqual(await client.buildSchedulePlan({ namespace: 'shop', podSet: 'basket', scheduledPod: '', eligibleNodes: [] }), {
        ok: false,
        error: { code: 'NOT_FOUND', message: 'pod set shop/basket has no pods' },
      });
      assert.deepEqual(await client.buildSchedulePlan({ namespace: 'shop', podSet: 'cart', scheduledPod: 'cart-9', eligibleNodes: [] }), {
        ok: false,
        error: { code: 'INVALID_ARGUMENT', message: 'pod cart-9 is not in pod set shop/cart' },
      });
    } finally {
      client.close();
      server.stop('SIGTERM');
    }
    const { code, stdout, stderr } = await server.run;
    assert.equal(code, 0);
    assert.match(stdout, /^serving the planner API on 127\.0\.0\.1:\d+ \(pod sets: shop\/cart\)$/m);
    // One log line per request, then the stop.
    assert.equal(
      stderr,
      [
        '2026-01-01T00:00:00.000Z BuildSchedulePlan shop/cart: 3 pods placed',
        '2026-01-01T00:00:00.000Z BuildSchedulePlan shop/cart for pod cart-2: 3 pods placed',
        '2026-01-01T00:00:00.000Z BuildSchedulePlan shop/basket: not-found: pod set shop/basket has no pods',
        '2026-01-01T00:00:00.000Z BuildSchedulePlan shop/cart for pod cart-9: invalid-argument: pod cart-9 is not in pod set shop/cart',
        'podplan serve-planner: stopped (SIGTERM)',
        '',
      ].join('\n'),
    );
  });

  it('a port already in use is an error (exit 2)', async () => {
    const first = serve(FILES);
    const taken = (await first.address).split(':')[1] as string;
    const { code, stderr } = await cli(['serve-planner', 'c.yaml', '--port', taken], FILES);
    first.stop('SIGINT');
    await first.run;
    assert.equal(code, 2);
    assert.equal(
      stderr,
      `podplan serve-planner: cannot serve the planner API on 127.0.0.1:${taken}: the port is already in use (another planner server?); choose another port\n`,
    );
  });

  describe('bad input: exit 2 before serving', () => {
    const table: Array<[what: string, files: Record<string, string>, args: string[], expected: RegExp]> = [
      ['a bad port', FILES, ['c.yaml', '--port', '99999'], /--port must be a port number \(0-65535\), not "99999"/],
      ['broken YAML', { 'c.yaml': 'kind: [' }, ['c.yaml'], /^c\.yaml:\d+:\d+: error yaml-syntax/m],
      ['no paths', {}, [], /no paths given/],
    ];
    for (const [what, files, args, expected] of table) {
      it(what, async () => {
        const { code, stderr } = await cli(['serve-planner', ...args], files);
        assert.equal(code, 2, stderr);
        assert.match(stderr, expected);
      });
    }
  });
});
