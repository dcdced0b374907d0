// A TLS proxy of the test's own in front of the real kube-apiserver, which injects faults: bindings
// answered 409 or 500 without reaching the server, bindings that reach it and land but whose answer
// is replaced by a 500 (the response lost), and watches ended after a while (cleanly or by a reset
// connection), and, while a test says so, Lease writes or bindings held unanswered (as an overloaded
// API server keeps them; one whose client gave up is dropped). It authenticates upstream as the
// admin; it counts the bindings the server accepted.
import { request as httpsRequest, createServer, type Server } from 'node:https';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RealCluster } from './cluster';

export interface ProxyFaults {
  /** Shares of bindings answered 409 / 500 by the proxy alone. */
  readonly conflictShare?: number;
  readonly errorShare?: number;
  /** Share of bindings passed on whose answer is replaced by a 500. */
  readonly lostResponseShare?: number;
  /** Each watch is ended after this long, alternately cleanly and by a reset (never when left out). */
  readonly watchLifetimeMs?: number;
}

/** Requests held unanswered while their switch is on; turning it off passes on those still waiting. */
export interface ProxyHold {
  /** Writes (PUT/POST) of coordination.k8s.io Leases: renewals and acquisitions. */
  leaseWrites: boolean;
  /** POSTs of pods/{name}/binding. */
  bindings: boolean;
}

export interface FaultProxy {
  readonly kubeconfig: string;
  /** Bindings the API server accepted (201), by namespace/name. */
  readonly accepted: Map<string, number>;
  readonly counts: { conflicts: number; errors: number; lost: number; watchesEnded: number; watchesReset: number };
  /** Requests held now, and ever. */
  readonly held: { leaseWrites: number; bindings: number; everLeaseWrites: number; everBindings: number };
  /** Holds (true) or passes on (false) what `hold` names. */
  hold(what: keyof ProxyHold, on: boolean): void;
  close(): Promise<void>;
}

/** A seeded generator (mulberry32), so a run's faults repeat. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function startFaultProxy(
  cluster: RealCluster,
  faults: ProxyFaults,
  seed = 7,
  hold: ProxyHold = { leaseWrites: false, bindings: false },
): Promise<FaultProxy> {
  const random = seeded(seed);
  const conflictShare = faults.conflictShare ?? 0;
  const errorShare = faults.errorShare ?? 0;
  const lostResponseShare = faults.lostResponseShare ?? 0;
  const switches: ProxyHold = { ...hold };
  const held = { leaseWrites: 0, bindings: 0, everLeaseWrites: 0, everBindings: 0 };
  const waiting: Record<keyof ProxyHold, Array<() => void>> = { leaseWrites: [], bindings: [] };
  const leaseWrite = /^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/[^/]+\/leases(\/[^/]+)?$/;
  const upstream = new URL(cluster.server);
  const file = (name: string) => readFileSync(join(cluster.dir, name), 'utf8');
  const auth = { ca: cluster.caCert, cert: file('admin.crt'), key: file('admin.key') };
  const accepted = new Map<string, number>();
  const counts = { conflicts: 0, errors: 0, lost: 0, watchesEnded: 0, watchesReset: 0 };
  let watches = 0;
  const status = (res: ServerResponse, code: number, reason: string, message: string) => {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }));
  };
  const binding = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/binding$/;

  const server: Server = createServer(
    { cert: file('apiserver.crt'), key: file('apiserver.key') },
    (req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? '/', cluster.server);
      const bound = req.method === 'POST' ? binding.exec(url.pathname) : null;
      const key = bound ? `${bound[1]}/${bound[2]}` : undefined;
      let loseAnswer = false;
      if (key) {
        const r = random();
        if (r < conflictShare) {
          counts.conflicts++;
          req.resume();
          return status(
            res,
            409,
            'Conflict',
            `Operation cannot be fulfilled on pods/binding "${bound![2]}": the object has been modified; please apply your changes to the latest version and try again`,
          );
        }
        if (r < conflictShare + errorShare) {
          counts.errors++;
          req.resume();
          return status(res, 500, 'InternalError', 'Internal error occurred: injected by the test proxy');
        }
        loseAnswer = r < conflictShare + errorShare + lostResponseShare;
      }
      const holding: keyof ProxyHold | undefined = key
        ? 'bindings'
        : (req.method === 'PUT' || req.method === 'POST') && leaseWrite.test(url.pathname)
          ? 'leaseWrites'
          : undefined;
      if (holding && switches[holding]) {
        held[holding]++;
        held[holding === 'bindings' ? 'everBindings' : 'everLeaseWrites']++;
        let gone = false;
        res.on('close', () => {
          if (gone) return;
          gone = true;
          held[holding]--;
        });
        waiting[holding].push(() => {
          if (gone) return; // the client gave up on it: dropped, as a request that never reached the server
          gone = true;
          held[holding]--;
          pass(url, req, res, key, loseAnswer);
        });
        return;
      }
      pass(url, req, res, key, loseAnswer);
    },
  );

  const pass = (url: URL, req: IncomingMessage, res: ServerResponse, key: string | undefined, loseAnswer: boolean) => {
    const watching = url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1';
    const headers = { ...req.headers, host: upstream.host };
    delete headers['authorization'];
    const forward = httpsRequest(
      { hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers, ...auth },
      (answer) => {
        if (key && answer.statusCode === 201) accepted.set(key, (accepted.get(key) ?? 0) + 1);
        if (loseAnswer) {
          counts.lost++;
          answer.resume();
          return status(res, 500, 'InternalError', 'Internal error occurred: answer lost by the test proxy');
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        if (watching && faults.watchLifetimeMs !== undefined) {
          const reset = watches++ % 2 === 1;
          const timer = setTimeout(() => {
            if (reset) {
              counts.watchesReset++;
              res.socket?.destroy();
            } else {
              counts.watchesEnded++;
              res.end();
            }
            forward.destroy();
          }, faults.watchLifetimeMs);
          res.on('close', () => clearTimeout(timer));
        }
      },
    );
    forward.on('error', () => {
      if (!res.headersSent) status(res, 502, 'BadGateway', 'the test proxy could not reach the API server');
      else res.destroy();
    });
    req.pipe(forward);
  };
  // As the API server: idle keep-alive connections stay open (Node's 5 s default races the client's reuse).
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const kubeconfig = join(cluster.dir, 'kubeconfig-proxy');
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  writeFileSync(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters:
- name: proxy
  cluster: {server: https://127.0.0.1:${port}, certificate-authority-data: ${b64(cluster.caCert)}}
users:
- name: admin
  user: {client-certificate-data: ${b64(auth.cert)}, client-key-data: ${b64(auth.key)}}
contexts:
- name: proxy
  context: {cluster: proxy, user: admin}
current-context: proxy
`,
  );
  return {
    kubeconfig,
    accepted,
    counts,
    held,
    hold(what, on) {
      switches[what] = on;
      if (on) return;
      for (const release of waiting[what].splice(0)) release();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
