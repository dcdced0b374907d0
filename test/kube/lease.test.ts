// Leader election on a real Lease of the test API server, stepped round by round on a manual clock:
// one leader at a time, a takeover only after the lease duration without renewal, a leader that
// cannot renew stops before anyone may take over, and stopping releases the Lease.
import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import { ManualClock } from '../../src/engine/api/clock';
import { KubeHttp } from '../../src/kube/http';
import { openContext } from '../../src/kube/kubeconfig';
import { LeaderElector } from '../../src/kube/lease';
import { leaseClient } from '../../src/kube/live/cluster';
import { startTestApiServer, type TestApiServer } from './apiserver';

describe('kube/lease', function () {
  this.timeout(30_000);
  let server: TestApiServer;
  let http: KubeHttp;
  before(async () => {
    server = await startTestApiServer();
    const context = openContext({ context: 'test', kubeconfig: await server.writeKubeconfig(), env: {}, homedir: homedir(), cwd: process.cwd() });
    assert.ok(context.ok);
    http = new KubeHttp(context.value);
  });
  after(() => server.close());

  const lease = (name: string) => server.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' }, 'kube-system', name) as { spec: { holderIdentity: string; leaseTransitions: number } };

  function candidates(leaseName: string) {
    const clock = new ManualClock(1_000_000);
    const events: string[] = [];
    const make = (identity: string) =>
      new LeaderElector({
        client: leaseClient(http, 'kube-system', leaseName),
        identity,
        clock,
        leaseDurationMs: 15_000,
        renewDeadlineMs: 10_000,
        retryPeriodMs: 2_000,
        onStartedLeading: () => events.push(`${identity} leads`),
        onStoppedLeading: () => events.push(`${identity} stops`),
      });
    return { clock, events, a: make('a'), b: make('b') };
  }

  it('one leader; the other takes over only once the lease has gone unrenewed for its duration', async () => {
    const { clock, events, a, b } = candidates('takeover');
    assert.equal(await a.tryAcquireOrRenew(), true, 'a creates the Lease');
    assert.equal(await b.tryAcquireOrRenew(), false, 'b sees it held');
    clock.advance(5_000);
    assert.equal(await a.tryAcquireOrRenew(), true, 'a renews');
    clock.advance(1_000);
    assert.equal(await b.tryAcquireOrRenew(), false, 'b sees the renewal (on its own clock)');
    clock.advance(14_000);
    assert.equal(await b.tryAcquireOrRenew(), false, 'b saw the renewal 14 s ago: not expired yet');
    clock.advance(2_000);
    assert.equal(await b.tryAcquireOrRenew(), true, 'b takes over after 15 s without a renewal');
    assert.deepEqual(lease('takeover').spec.holderIdentity, 'b');
    assert.equal(lease('takeover').spec.leaseTransitions, 1);
    assert.equal(await a.tryAcquireOrRenew(), false, 'a finds b holding it');
    assert.deepEqual(events, ['a leads', 'b leads', 'a stops'], 'a, past its renew deadline, stops leading');
    assert.equal(a.isLeader, false);
  });

  it('stopping releases the Lease, so the next candidate leads at once', async () => {
    const { events, a, b } = candidates('release');
    assert.equal(await a.tryAcquireOrRenew(), true);
    await a.stop();
    assert.equal(lease('release').spec.holderIdentity, '');
    assert.equal(await b.tryAcquireOrRenew(), true);
    assert.deepEqual(events, ['a leads', 'a stops', 'b leads']);
  });

  it('refuses timings where a leader could still lead after a successor took over', () => {
    assert.throws(() => new LeaderElector({ client: leaseClient(http, 'kube-system', 'x'), identity: 'a', clock: new ManualClock(0), leaseDurationMs: 10_000, renewDeadlineMs: 10_000 }), /retry period < renew deadline < lease duration/);
  });
});
