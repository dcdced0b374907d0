import assert from 'node:assert/strict';
import { err, ok } from '../../src/engine/api/result';
import { startPlannerServer, type PlanFunction, type RpcCode } from '../../src/rpc';
import { gate, loopbacks, onePodPerNode, planRequest } from './harness';

describe('rpc/server', () => {
  const serve = loopbacks();

  it('answers BuildSchedulePlan with the planner’s assignments, the request arriving whole', async () => {
    const loopback = await serve(onePodPerNode);
    const request = planRequest({ namespace: 'shop', podSet: 'cart', scheduledPod: 'cart-1', eligibleNodes: ['n1', 'n2', 'n3'] });
    const answer = await loopback.client.buildSchedulePlan(request);
    assert.deepEqual(answer, ok({ 'cart-0': 'n1', 'cart-1': 'n2', 'cart-2': 'n3' }));
    assert.deepEqual(loopback.seen, [request]);
  });

  it('answers an empty plan as no assignments', async () => {
    const loopback = await serve(async () => ok({}));
    assert.deepEqual(await loopback.client.buildSchedulePlan(planRequest()), ok({}));
  });

  describe('turns every failure into a gRPC status with a clear message', () => {
    const table: Array<{
      name: string;
      fields?: Parameters<typeof planRequest>[0];
      planner?: PlanFunction;
      code: RpcCode;
      message: string;
    }> = [
      {
        name: 'an empty podSet',
        fields: { podSet: '' },
        code: 'INVALID_ARGUMENT',
        message: 'invalid SchedulePlanRequest: podSet is required',
      },
      {
        name: 'an empty namespace',
        fields: { namespace: '' },
        code: 'INVALID_ARGUMENT',
        message: 'invalid SchedulePlanRequest: namespace is required',
      },
      {
        name: 'an empty eligible node name',
        fields: { eligibleNodes: ['node-a', ''] },
        code: 'INVALID_ARGUMENT',
        message: 'invalid SchedulePlanRequest: eligibleNodes[1] is an empty node name',
      },
      {
        name: 'the planner finds no pods in the set',
        planner: async () => err({ kind: 'not-found', message: 'pod set default/web has no pods' }),
        code: 'NOT_FOUND',
        message: 'pod set default/web has no pods',
      },
      {
        name: 'the planner rejects the request',
        planner: async () => err({ kind: 'invalid-argument', message: 'pod web-9 is not in pod set default/web' }),
        code: 'INVALID_ARGUMENT',
        message: 'pod web-9 is not in pod set default/web',
      },
      {
        name: 'the planner fails',
        planner: async () => err({ kind: 'internal', message: 'snapshot unavailable' }),
        code: 'INTERNAL',
        message: 'snapshot unavailable',
      },
      {
        name: 'the planner throws',
        planner: async () => {
          throw new Error('index out of range');
        },
        code: 'INTERNAL',
        message: 'planner failed on pod set default/web: index out of range',
      },
      {
        name: 'the planner throws before returning a promise',
        planner: () => {
          throw new TypeError('not a function');
        },
        code: 'INTERNAL',
        message: 'planner failed on pod set default/web: not a function',
      },
    ];
    for (const { name, fields, planner, code, message } of table) {
      it(`${name}: ${code}`, async () => {
        const loopback = await serve(planner ?? onePodPerNode);
        const answer = await loopback.client.buildSchedulePlan(planRequest(fields));
        assert.deepEqual(answer, err({ code, message }));
        // A malformed request never reaches the planner.
        assert.equal(loopback.seen.length, planner ? 1 : 0);
      });
    }
  });

  it('keeps serving after a planner threw', async () => {
    let calls = 0;
    const loopback = await serve(async (request) => {
      if (++calls === 1) throw new Error('first call fails');
      return onePodPerNode(request);
    });
    assert.equal((await loopback.client.buildSchedulePlan(planRequest())).ok, false);
    assert.deepEqual(await loopback.client.buildSchedulePlan(planRequest()), ok({ 'web-0': 'node-a', 'web-1': 'node-b' }));
  });

  it('runs concurrent calls at once, each getting its own answer', async () => {
    const count = 20;
    const allArrived = gate();
    let arrived = 0;
    const { client } = await serve(async (request) => {
      // Every call waits here until all have arrived: served one at a time they would never finish.
      if (++arrived === count) allArrived.open();
      await allArrived.opened;
      return onePodPerNode(request);
    });
    const answers = await Promise.all(
      Array.from({ length: count }, (_, i) => client.buildSchedulePlan(planRequest({ podSet: `set-${i}`, eligibleNodes: [`node-${i}`] }))),
    );
    assert.deepEqual(
      answers,
      Array.from({ length: count }, (_, i) => ok({ [`set-${i}-0`]: `node-${i}` })),
    );
  });

  it('carries a large request: 1000 eligible nodes in, 1000 assignments out', async () => {
    const loopback = await serve(onePodPerNode);
    const eligibleNodes = Array.from({ length: 1000 }, (_, i) => `worker-${String(i).padStart(4, '0')}.zone-${i % 3}.example.internal`);
    const answer = await loopback.client.buildSchedulePlan(planRequest({ eligibleNodes }));
    assert.ok(answer.ok);
    assert.equal(Object.keys(answer.value).length, 1000);
    assert.equal(answer.value['web-999'], eligibleNodes[999]);
    assert.deepEqual(loopback.seen[0]?.eligibleNodes, eligibleNodes);
  });

  describe('lifecycle', () => {
    it('binds 127.0.0.1 by default and reports the port it chose for port 0', async () => {
      const loopback = await serve(onePodPerNode);
      const { server } = loopback;
      assert.equal(server.host, '127.0.0.1');
      assert.ok(server.port > 0);
      assert.equal(server.address, `127.0.0.1:${server.port}`);
    });

    it('reports a port already in use as an error value', async () => {
      const loopback = await serve(onePodPerNode);
      const second = await startPlannerServer({ port: loopback.server.port, planner: onePodPerNode });
      assert.equal(second.ok, false);
      assert.match(second.ok ? '' : second.error, new RegExp(`^cannot serve the planner API on 127\\.0\\.0\\.1:${loopback.server.port}: `));
    });

    it('close() lets a call in flight finish', async () => {
      const release = gate();
      const arrived = gate();
      const loopback = await serve(async (request) => {
        arrived.open();
        await release.opened;
        return onePodPerNode(request);
      });
      const answer = loopback.client.buildSchedulePlan(planRequest());
      await arrived.opened;
      const closed = loopback.server.close();
      release.open();
      assert.deepEqual(await answer, ok({ 'web-0': 'node-a', 'web-1': 'node-b' }));
      await closed;
    });

    it('close() cancels a call still running after the grace period, and can be called again', async () => {
      const arrived = gate();
      const loopback = await serve(
        async () => {
          arrived.open();
          return new Promise(() => undefined);
        },
        { shutdownGraceMs: 0 },
      );
      const answer = loopback.client.buildSchedulePlan(planRequest());
      await arrived.opened;
      await loopback.server.close();
      await loopback.server.close();
      const failed = await answer;
      assert.equal(failed.ok, false);
    });
  });
});
