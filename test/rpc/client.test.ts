import assert from 'node:assert/strict';
import { ok } from '../../src/engine/api/result';
import { connectPlanner, startPlannerServer } from '../../src/rpc';
import { gate, loopbacks, onePodPerNode, planRequest } from './harness';

describe('rpc/client', () => {
  const serve = loopbacks();

  it('a planner slower than the deadline is DEADLINE_EXCEEDED; the server goes on serving', async () => {
    const release = gate();
    const loopback = await serve(async (request) => {
      if (request.podSet === 'slow') await release.opened;
      return onePodPerNode(request);
    });
    const impatient = connectPlanner(loopback.server.address, { deadlineMs: 50 });
    assert.ok(impatient.ok);
    const late = await impatient.value.buildSchedulePlan(planRequest({ podSet: 'slow' }));
    impatient.value.close();
    assert.equal(late.ok ? undefined : late.error.code, 'DEADLINE_EXCEEDED');
    // The slow planner finishing for a caller that left is harmless.
    release.open();
    assert.deepEqual(await loopback.client.buildSchedulePlan(planRequest({ eligibleNodes: ['n1'] })), ok({ 'web-0': 'n1' }));
  });

  it('a server that is not there is UNAVAILABLE', async () => {
    // A port that was just free: bound by a server that is then closed.
    const gone = await startPlannerServer({ port: 0, planner: onePodPerNode });
    assert.ok(gone.ok);
    await gone.value.close();
    const connected = connectPlanner(gone.value.address, { deadlineMs: 5000 });
    assert.ok(connected.ok);
    const answer = await connected.value.buildSchedulePlan(planRequest());
    connected.value.close();
    assert.equal(answer.ok ? undefined : answer.error.code, 'UNAVAILABLE');
    assert.ok(!answer.ok && answer.error.message.length > 0);
  });

  it('an address gRPC cannot parse is an error value', () => {
    assert.deepEqual(connectPlanner('', { deadlineMs: 1000 }), {
      ok: false,
      error: 'cannot use planner address "": Could not parse target name ""',
    });
  });
});
