import assert from 'node:assert/strict';
import { KubeHttp, type KubeContext } from '../../src/kube';
import { startTestApiServer, type TestApiServer } from './apiserver';
import { contextOn } from './support';

describe('kube/http (requests to the API server)', () => {
  let server: TestApiServer;
  let context: KubeContext;

  beforeEach(async () => {
    // Every answer waits, so requests are still in flight when they are aborted.
    server = await startTestApiServer({ faults: { latencyMs: 500 } });
    context = await contextOn(server, { contexts: [{ name: 'lab' }] });
  });

  afterEach(() => server.close());

  it('answers parsed JSON, and an error as a value with its kind and status', async () => {
    const http = new KubeHttp(context);
    server.setFaults({ latencyMs: 0 });
    const listed = await http.request<{ kind: string }>('/api/v1/namespaces');
    assert.ok(listed.ok);
    assert.equal(listed.value.kind, 'NamespaceList');
    const missing = await http.request('/api/v1/namespaces/nowhere');
    assert.ok(!missing.ok);
    assert.deepEqual([missing.error.kind, missing.error.status], ['not-found', 404]);
    http.close();
  });

  it("a signal's abort ends every request it was given, at once, as 'aborted'; the others go on", async () => {
    const http = new KubeHttp(context);
    const stop = new AbortController();
    const aborted = [http.request('/api/v1/namespaces', { signal: stop.signal }), http.request('/api/v1/nodes', { signal: stop.signal })];
    const other = http.request('/api/v1/namespaces');
    setTimeout(() => stop.abort(), 50);
    for (const answer of await Promise.all(aborted)) assert.deepEqual(answer.ok ? 'answered' : answer.error.kind, 'aborted');
    const later = await http.request('/api/v1/namespaces', { signal: stop.signal });
    assert.equal(later.ok ? 'answered' : later.error.kind, 'aborted');
    assert.ok((await other).ok, 'a request without that signal is answered');
    http.close();
  });

  it("abort() ends every request in flight and answers later ones at once, as 'aborted'", async () => {
    const http = new KubeHttp(context);
    const inFlight = [http.request('/api/v1/namespaces'), http.request('/api/v1/nodes', { method: 'POST', body: {} })];
    setTimeout(() => http.abort(), 50);
    for (const answer of await Promise.all(inFlight)) assert.equal(answer.ok ? 'answered' : answer.error.kind, 'aborted');
    const later = await http.request('/api/v1/namespaces');
    assert.equal(later.ok ? 'answered' : later.error.kind, 'aborted');
    http.close();
  });
});
