// The live Binder's policy, answer by answer: what the API server says to pods/{name}/binding and
// what the scheduler is told. Retries wait on the injected clock.
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/engine/api/clock';
import { Code } from '../../src/engine/framework/status';
import { bindEach, KubeBinder, type BindingAnswer } from '../../src/kube/binder';
import { makePod } from '../builders';

const created: BindingAnswer = { kind: 'created' };
const status = (code: number, message: string): BindingAnswer => ({ kind: 'status', code, message });

/**
 * kube-apiserver v1.37.2's answer to binding a pod that is already assigned (assignPod in
 * pkg/registry/core/pod/storage: errors.NewConflict(pods/binding, name, …)), as test/real/binder.test.ts
 * reads it from the real server: the node is only in the text, which the binder does not read.
 */
const alreadyAssigned = (node: string): BindingAnswer => ({
  kind: 'status',
  code: 409,
  reason: 'Conflict',
  details: { name: 'web', kind: 'pods/binding' },
  message: `Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "${node}"`,
});
/** A failed precondition (the uid or resourceVersion the binding named): NewConflict on pods. */
const modified: BindingAnswer = {
  kind: 'status',
  code: 409,
  reason: 'Conflict',
  details: { name: 'web', kind: 'pods' },
  message:
    'Operation cannot be fulfilled on pods "web": the object has been modified; please apply your changes to the latest version and try again',
};

/** A binder whose posts answer `answers` in turn; it records each post's node, and the pod reads bound to `boundNode`. */
function binder(answers: BindingAnswer[], attempts = 3, boundNode = '') {
  const clock = new ManualClock(0);
  const posts: string[] = [];
  const reads: string[] = [];
  const b = new KubeBinder({
    clock,
    attempts,
    initialBackoffMs: 100,
    post: async (_pod, node) => {
      posts.push(node);
      return answers.shift() ?? created;
    },
    readBoundNode: async ({ name }) => {
      reads.push(name);
      return boundNode;
    },
  });
  /** Runs the binding to its end, advancing the clock through its back-offs. */
  const bind = async (pod = makePod('web').obj, node = 'n1') => {
    const pending = b.bind(pod, node);
    let settled = false;
    void pending.then(() => (settled = true));
    for (let i = 0; i < 20 && !settled; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      clock.advance(1000);
    }
    return pending;
  };
  return { binder: b, posts, reads, bind };
}

describe('kube/binder', () => {
  const cases: Array<{
    name: string;
    answers: BindingAnswer[];
    code: Code;
    posts: number;
    reads?: number;
    message?: RegExp;
    boundNode?: string;
  }> = [
    { name: 'created: bound', answers: [created], code: Code.Success, posts: 1 },
    { name: '500 then created: retried', answers: [status(500, 'etcd timeout'), created], code: Code.Success, posts: 2 },
    {
      name: 'unreachable then created: retried',
      answers: [{ kind: 'unreachable', message: 'ECONNRESET' }, created],
      code: Code.Success,
      posts: 2,
    },
    {
      name: '500 every time: fails after its attempts',
      answers: [status(500, 'a'), status(500, 'b'), status(503, 'c')],
      code: Code.Error,
      posts: 3,
      message: /failed: 503 c/,
    },
    {
      name: '409 Conflict on pods/binding, the pod reads bound to this node: our earlier attempt landed',
      answers: [alreadyAssigned('n1')],
      boundNode: 'n1',
      code: Code.Success,
      posts: 1,
      reads: 1,
    },
    {
      name: '409 Conflict on pods/binding, the pod reads bound elsewhere: bound by someone else, not retried',
      answers: [alreadyAssigned('n9')],
      boundNode: 'n9',
      code: Code.Error,
      posts: 1,
      reads: 1,
      message: /already bound to node n9 by someone else/,
    },
    {
      name: 'the node is read, not the text: a message naming n1 while the pod reads bound to n9 is someone else’s binding',
      answers: [alreadyAssigned('n1')],
      boundNode: 'n9',
      code: Code.Error,
      posts: 1,
      reads: 1,
      message: /already bound to node n9 by someone else/,
    },
    {
      name: '409 Conflict on pods/binding, the pod reads unbound (being deleted, gated): a conflict',
      answers: [alreadyAssigned('n1')],
      code: Code.Error,
      posts: 1,
      reads: 1,
      message: /conflicted/,
    },
    {
      name: '409 precondition conflict on pods: not retried, the pod not read, the scheduler requeues',
      answers: [modified],
      boundNode: 'n1',
      code: Code.Error,
      posts: 1,
      reads: 0,
      message: /conflicted: Operation cannot be fulfilled on pods "web"/,
    },
    {
      name: '409 without a Status (a proxy): a conflict, the pod not read',
      answers: [status(409, 'pod web is already assigned to node "n1"')],
      boundNode: 'n1',
      code: Code.Error,
      posts: 1,
      reads: 0,
      message: /conflicted/,
    },
    {
      name: '500 then 409 conflict, the pod reads bound to our node: the lost attempt landed',
      answers: [status(500, 'lost'), modified],
      code: Code.Success,
      posts: 2,
      reads: 1,
      boundNode: 'n1',
    },
    {
      name: '500 then 409 conflict, the pod reads unbound: a conflict',
      answers: [status(500, 'lost'), modified],
      code: Code.Error,
      posts: 2,
      reads: 1,
      message: /conflicted/,
    },
    {
      name: '404: the pod is gone, not retried',
      answers: [status(404, 'pods "web" not found')],
      code: Code.Error,
      posts: 1,
      message: /404/,
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const b = binder([...c.answers], 3, c.boundNode);
      const result = await b.bind();
      assert.equal(result.code, c.code, result.reasons.join(', '));
      assert.equal(b.posts.length, c.posts);
      assert.equal(b.reads.length, c.reads ?? 0);
      if (c.message) assert.match(result.reasons.join(', '), c.message);
    });
  }

  it('bindEach (Apply Plan): each pod through one binder, in order; what is not bound, with why', async () => {
    const posts: string[] = [];
    const failed = await bindEach(
      {
        clock: new ManualClock(0),
        post: async (pod, node) => {
          posts.push(`${pod.name}→${node}`);
          return pod.name === 'taken' ? alreadyAssigned('n9') : created;
        },
        readBoundNode: async ({ name }) => (name === 'taken' ? 'n9' : ''),
      },
      [
        { pod: makePod('web').obj, node: 'n1' },
        { pod: makePod('taken').obj, node: 'n2' },
      ],
    );
    assert.deepEqual(posts, ['web→n1', 'taken→n2']);
    assert.deepEqual(
      failed.map((f) => [f.pod.metadata.name, f.reasons]),
      [['taken', ['pod default/taken is already bound to node n9 by someone else']]],
    );
  });

  it('never posts a pod it bound again, and refuses a second binding in flight', async () => {
    const b = binder([]);
    const pod = makePod('web').obj;
    const first = b.binder.bind(pod, 'n1');
    const second = await b.binder.bind(pod, 'n1');
    assert.equal(second.code, Code.Error);
    assert.match(second.reasons[0] ?? '', /already has a binding in flight/);
    assert.equal((await first).code, Code.Success);
    assert.equal((await b.binder.bind(pod, 'n1')).code, Code.Success, 'the same node again is what is already true');
    assert.match((await b.binder.bind(pod, 'n2')).reasons[0] ?? '', /already bound to node n1 by this scheduler/);
    assert.deepEqual(b.posts, ['n1']);
    assert.equal(b.binder.boundTo(pod.metadata.uid!), 'n1');
  });

  it('abort(): a binding waiting for its answer and one backing off both end at once, not bound; later ones are refused', async () => {
    const clock = new ManualClock(0);
    const signals: AbortSignal[] = [];
    const b = new KubeBinder({
      clock,
      initialBackoffMs: 60_000,
      readBoundNode: async () => '',
      // "slow" never answers until aborted; "flaky" answers 500 (and backs off for a minute).
      post: (pod, _node, signal) => {
        if (signal) signals.push(signal);
        if (pod.name === 'flaky') return Promise.resolve(status(500, 'etcd timeout'));
        return new Promise<BindingAnswer>((resolve) =>
          signal?.addEventListener('abort', () => resolve({ kind: 'aborted', message: 'aborted' })),
        );
      },
    });
    const slow = b.bind(makePod('slow').obj, 'n1');
    const flaky = b.bind(makePod('flaky').obj, 'n1');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(b.counters().inFlight, 2);
    assert.equal(b.counters().retried, 1, 'flaky is backing off');

    assert.equal(b.abort(), 2, 'two bindings were in flight');
    assert.ok(
      signals.every((s) => s.aborted),
      'the request in flight was aborted',
    );
    for (const result of await Promise.all([slow, flaky])) {
      assert.equal(result.code, Code.Error);
      assert.match(result.reasons.join(', '), /was aborted \(the scheduler is stopping\): not bound/);
    }
    assert.equal(clock.pendingTimers, 0, 'the back-off timer was cancelled, not waited out');
    assert.deepEqual(
      { aborted: b.counters().aborted, bound: b.counters().bound, inFlight: b.counters().inFlight },
      { aborted: 2, bound: 0, inFlight: 0 },
    );
    assert.equal(b.boundTo(makePod('slow').obj.metadata.uid ?? ''), undefined);

    const later = await b.bind(makePod('late').obj, 'n1');
    assert.match(later.reasons.join(', '), /not bound/);
    assert.equal(signals.length, 2, 'nothing is posted after abort()');
  });
});
