// Plain JSON requests to the API server, authenticated by client-node (`applyToHTTPSOptions`:
// CA, client certificate, bearer token, exec plugins). Lists go through here rather than through
// client-node's typed APIs because those turn objects into models (timestamps become Dates, fields
// the model does not know are dropped); the manifests decoder reads API objects as the server
// sends them, exactly like YAML files. Failures are values with a kind, and their text is redacted.
import http from 'node:http';
import https from 'node:https';
import { err, ok, type Result } from '../engine/api/result';
import type { KubeContext } from './kubeconfig';

export type ApiErrorKind = 'forbidden' | 'unauthorized' | 'not-found' | 'conflict' | 'gone' | 'invalid' | 'unsupported-media-type' | 'server' | 'network';

export interface ApiError {
  readonly kind: ApiErrorKind;
  /** The HTTP status (0 when no answer came). */
  readonly status: number;
  /** The API server's Status message (or the network error), redacted. */
  readonly message: string;
  /** The Status reason (Conflict, NotFound, …) when the server gave one. */
  readonly reason?: string;
}

const KIND_OF_STATUS: Readonly<Record<number, ApiErrorKind>> = { 401: 'unauthorized', 403: 'forbidden', 404: 'not-found', 409: 'conflict', 410: 'gone', 415: 'unsupported-media-type', 422: 'invalid' };

export function apiErrorKind(status: number): ApiErrorKind {
  return KIND_OF_STATUS[status] ?? (status === 0 ? 'network' : status >= 500 ? 'server' : 'invalid');
}

export interface RequestOptions {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly body?: unknown;
  /** Content type of the body (default application/json; merge patches: application/merge-patch+json). */
  readonly contentType?: string;
  readonly query?: Readonly<Record<string, string | undefined>>;
}

/** Connections to the API server at once; more requests wait for one (a TLS handshake costs more than the wait). */
const MAX_SOCKETS = 32;

/** Bounded so a stalled server cannot hang a command. */
const REQUEST_TIMEOUT_MS = 60_000;

export class KubeHttp {
  /** client-node makes a new agent per request (a TLS handshake each time): one keep-alive agent per TLS identity reuses connections. */
  private agent: { readonly key: string; readonly agent: https.Agent } | undefined;

  constructor(readonly context: KubeContext) {}

  private agentFor(opts: https.RequestOptions): https.Agent {
    const tls = { ca: opts.ca, cert: opts.cert, key: opts.key, pfx: opts.pfx, passphrase: opts.passphrase, servername: opts.servername, ...(opts.rejectUnauthorized !== undefined ? { rejectUnauthorized: opts.rejectUnauthorized } : {}) };
    const key = JSON.stringify([tls.ca, tls.cert, tls.key, tls.pfx, tls.passphrase, tls.servername, tls.rejectUnauthorized].map((v) => (v === undefined ? null : String(v))));
    if (this.agent?.key !== key) {
      this.agent?.agent.destroy();
      this.agent = { key, agent: new https.Agent({ ...tls, keepAlive: true, maxSockets: MAX_SOCKETS }) };
    }
    return this.agent.agent;
  }

  /** The parsed JSON answer of a request to `path` (e.g. `/api/v1/pods`), or an ApiError. */
  async request<T = unknown>(path: string, options: RequestOptions = {}): Promise<Result<T, ApiError>> {
    const { config, redactor } = this.context;
    const url = new URL(this.context.config.getCurrentCluster()!.server.replace(/\/$/, '') + path);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const opts: https.RequestOptions = { method: options.method ?? 'GET', headers: { Accept: 'application/json' } };
    try {
      await config.applyToHTTPSOptions(opts);
    } catch (error) {
      return err({ kind: 'unauthorized', status: 0, message: `cannot authenticate: ${redactor.describe(error)}` });
    }
    // What client-node put on the request (an exec plugin's token, a key read from a file) is secret too.
    const headers = (opts.headers ?? {}) as Record<string, string>;
    const authorization = headers.Authorization ?? headers.authorization;
    if (authorization) {
      redactor.add(authorization);
      redactor.add(authorization.replace(/^\S+\s+/, ''));
    }
    if (opts.key) redactor.add(opts.key.toString());
    if (url.protocol === 'https:') opts.agent = this.agentFor(opts);
    if (payload !== undefined) {
      headers['Content-Type'] = options.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(payload));
    }
    opts.headers = headers;
    opts.timeout = REQUEST_TIMEOUT_MS;
    const transport = url.protocol === 'http:' ? http : https;
    return new Promise((resolve) => {
      const req = transport.request(url, opts, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (e) => resolve(err({ kind: 'network', status: 0, message: redactor.describe(e) })));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          let body: unknown;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            body = undefined;
          }
          if (status >= 200 && status < 300) {
            if (body === undefined && text) resolve(err({ kind: 'server', status, message: `the API server's answer to ${path} is not JSON` }));
            else resolve(ok(body as T));
            return;
          }
          const statusObject = body as { message?: unknown; reason?: unknown } | undefined;
          const message = typeof statusObject?.message === 'string' ? statusObject.message : `${status} ${res.statusMessage ?? ''}`.trim();
          const reason = typeof statusObject?.reason === 'string' ? statusObject.reason : undefined;
          resolve(err({ kind: apiErrorKind(status), status, message: redactor.redact(message), ...(reason ? { reason } : {}) }));
        });
      });
      req.on('timeout', () => req.destroy(new Error(`no answer from the API server within ${REQUEST_TIMEOUT_MS / 1000} s`)));
      req.on('error', (e) => resolve(err({ kind: 'network', status: 0, message: `${this.context.server}: ${redactor.describe(e)}` })));
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }
}
