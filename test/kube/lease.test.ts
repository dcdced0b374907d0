// Leader election on a real Lease of the test API server, stepped round by round on a manual clock:
// one leader at a time, a takeover only after the lease duration without renewal, a leader that
// cannot renew stops at its renew deadline (even while a renewal hangs), before anyone may take
// over, and takes the Lease back when it can; stopping releases the Lease.
import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import { ManualClock } from '../../src/engine/api/clock';
import { KubeHttp } from '../../src/kube/http';
import { openContext } from '../../src/kube/kubeconfig';
import { LeaderElector, type LeaseClient } from '../../src/kube/lease';
import { leaseClient } from '../../src/kube/live/cluster';
import { startTestApiServer, type TestApiServer } from './apiserver';

describe('kube/lease', function () {
  this.timeout(30_000);
  let server: TestApiServer;
  let http: KubeHttp;
  before(async () => {
    server = await startTestApiServer();
    const context = openContext({
      context: 'test',
      kubeconfig: await server.writeKubeconfig(),
      env: {},
      homedir: homedir(),
      cwd: process.cwd(),
    });
    assert.ok(context.ok);
    http = new KubeHttp(context.value);
  });
  after(() => server.close());

  const lease = (name: string) =>
    server.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' }, 'kube-system', name) as {
      spec: { holderIdentity: string; leaseTransitions: number };
    };

  function candidates(leaseName: string, wrap: (client: LeaseClient) => LeaseClient = (c) => c) {
    const clock = new ManualClock(1_000_000);
    const events: string[] = [];
    const make = (identity: string) =>
      new LeaderElector({
        client: wrap(leaseClient(http, 'kube-system', leaseName)),
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
    assert.deepEqual(events, ['a leads', 'a stops'], 'a stopped at its renew deadline, 10 s after its last renewal');
    clock.advance(2_000);
    assert.equal(await b.tryAcquireOrRenew(), true, 'b takes over after 15 s without a renewal');
    assert.deepEqual(lease('takeover').spec.holderIdentity, 'b');
    assert.equal(lease('takeover').spec.leaseTransitions, 1);
    assert.equal(await a.tryAcquireOrRenew(), false, 'a finds b holding it');
    assert.deepEqual(events, ['a leads', 'a stops', 'b leads']);
    assert.equal(a.isLeader, false);
  });

  it('a leader whose renewal hangs stops leading at its renew deadline, then takes the Lease back once the API server answers', async () => {
    // Renewals (PUTs) held until their round aborts them, as an overloaded API server would keep them.
    const held = { on: false, waiting: 0, aborted: 0 };
    const holding = (client: LeaseClient): LeaseClient => ({
      get: (signal) => client.get(signal),
      create: (record, signal) => client.create(record, signal),
      update: (record, version, signal) =>
        held.on
          ? new Promise((resolve) => {
              held.waiting++;
              signal?.addEventListener('abort', () => {
                held.aborted++;
                resolve({ kind: 'error', message: 'aborted' });
              });
            })
          : client.update(record, version, signal),
    });
    const { clock, events, a } = candidates('hang', holding);
    assert.equal(await a.tryAcquireOrRenew(), true);
    held.on = true;
    clock.advance(2_000);
    const renewal = a.tryAcquireOrRenew();
    while (held.waiting === 0) await new Promise((r) => setImmediate(r));
    clock.advance(7_999);
    assert.deepEqual(events, ['a leads'], 'still within the renew deadline');
    clock.advance(1);
    assert.deepEqual(
      events,
      ['a leads', 'a stops'],
      'stopped at the deadline (10 s after its last renewal) while the renewal was still waiting',
    );
    clock.advance(2_000);
    assert.equal(await renewal, false);
    assert.equal(held.aborted, 1, "the hung renewal was aborted at its round's deadline");
    held.on = false;
    clock.advance(1_000);
    assert.equal(await a.tryAcquireOrRenew(), true, 'the Lease is still its own: taken back');
    assert.deepEqual(events, ['a leads', 'a stops', 'a leads']);
    assert.equal(lease('hang').spec.holderIdentity, 'a');
    assert.equal(lease('hang').spec.leaseTransitions, 0, 'the same holder: no transition');
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
    assert.throws(
      () =>
        new LeaderElector({
          client: leaseClient(http, 'kube-system', 'x'),
          identity: 'a',
          clock: new ManualClock(0),
          leaseDurationMs: 10_000,
          renewDeadlineMs: 10_000,
        }),
      /retry period < renew deadline < lease duration/,
    );
  });
});
