// Plain JSON requests to the API server, authenticated by client-node (`applyToHTTPSOptions`:
// CA, client certificate, bearer token, exec plugins). Lists go through here rather than through
// client-node's typed APIs because those turn objects into models (timestamps become Dates, fields
// the model does not know are dropped); the manifests decoder reads API objects as the server
// sends them, exactly like YAML files. Failures are values with a kind, and their text is redacted.
import http from 'node:http';
import https from 'node:https';
import { err, ok, type Result } from '../engine/api/result';
import type { KubeContext } from './kubeconfig';

export type ApiErrorKind =
  | 'forbidden'
  | 'unauthorized'
  | 'not-found'
  | 'conflict'
  | 'gone'
  | 'invalid'
  | 'unsupported-media-type'
  | 'server'
  | 'network'
  | 'aborted';

export interface ApiError {
  readonly kind: ApiErrorKind;
  /** The HTTP status (0 when no answer came). */
  readonly status: number;
  /** The API server's Status message (or the network error), redacted. */
  readonly message: string;
  /** The Status reason (Conflict, NotFound, …) when the server gave one. */
  readonly reason?: string;
  /** The Status details (the object the error is about, as `kind` `pods/binding` and its `name`) when the server gave them. */
  readonly details?: StatusDetails;
}

/** metav1.StatusDetails: which object a failure is about. */
export interface StatusDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
}

/** The details of a Status object, the fields that are strings. */
function statusDetails(value: unknown): StatusDetails | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const out: Record<string, string> = {};
  for (const key of ['name', 'group', 'kind'] as const) {
    const field = (value as Record<string, unknown>)[key];
    if (typeof field === 'string') out[key] = field;
  }
  return out;
}

const KIND_OF_STATUS: Readonly<Record<number, ApiErrorKind>> = {
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not-found',
  409: 'conflict',
  410: 'gone',
  415: 'unsupported-media-type',
  422: 'invalid',
};

export function apiErrorKind(status: number): ApiErrorKind {
  return KIND_OF_STATUS[status] ?? (status === 0 ? 'network' : status >= 500 ? 'server' : 'invalid');
}

export interface RequestOptions {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly body?: unknown;
  /** Content type of the body (default application/json; merge patches: application/merge-patch+json). */
  readonly contentType?: string;
  readonly query?: Readonly<Record<string, string | undefined>>;
  /** Aborting it ends the request at once: the answer is an ApiError of kind 'aborted'. */
  readonly signal?: AbortSignal;
}

/** One event of a watch stream, as the API server wrote it. */
export interface WatchEvent {
  readonly type: string;
  readonly object: unknown;
}

export interface WatchHandlers {
  readonly onEvent: (event: WatchEvent) => void;
  /**
   * Called once when the watch is over: `undefined` when the server ended it cleanly or it was
   * aborted; otherwise the error (an answer other than 200 carries its `statusCode`, a connection
   * that broke in the middle of the stream a plain Error).
   */
  readonly onDone: (error: (Error & { statusCode?: number }) | undefined) => void;
}

/** Connections to the API server at once; more requests wait for one (a TLS handshake costs more than the wait). */
const MAX_SOCKETS = 32;

/** Bounded so a stalled server cannot hang a command. */
const REQUEST_TIMEOUT_MS = 60_000;

/**
 * How long what client-node put on a request (auth headers, TLS material) is reused: resolving it
 * costs more than a binding request itself, and an exec plugin's token is cached by client-node
 * anyway. A 401 drops it at once.
 */
const AUTH_REUSE_MS = 1_000;

/** TCP keep-alive probes on watch connections, so a peer that vanished ends the watch (as client-node does). */
const WATCH_KEEPALIVE_MS = 30_000;

/** What client-node resolved for requests of this context: headers and the agent built from its TLS material. */
interface Prepared {
  readonly headers: Readonly<Record<string, string>>;
  readonly agent: https.Agent | undefined;
  readonly at: number;
}

export class KubeHttp {
  /** client-node makes a new agent per request (a TLS handshake each time): one keep-alive agent per TLS identity reuses connections. */
  private agent: { readonly key: string; readonly agent: https.Agent } | undefined;
  private prepared: Prepared | undefined;
  /** The server URL, parsed once: requests are built from its parts, not from a URL each. */
  private readonly server: { readonly secure: boolean; readonly hostname: string; readonly port: string; readonly pathPrefix: string };
  /** Set by abort(): later requests are answered at once. */
  private aborting = false;
  /** Requests waiting for their answer, each with what ends it as aborted: abort() ends them all. */
  private readonly inFlight = new Set<() => void>();
  /** The same, by the caller's signal that aborts them: one listener per signal, not one per request. */
  private readonly bySignal = new WeakMap<AbortSignal, Set<() => void>>();

  constructor(readonly context: KubeContext) {
    const url = new URL(context.config.getCurrentCluster()!.server);
    this.server = {
      secure: url.protocol === 'https:',
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port,
      pathPrefix: url.pathname.replace(/\/$/, ''),
    };
  }

  /**
   * Aborts every request in flight and answers later ones at once, all with an ApiError of kind
   * 'aborted': for a process that must exit now, whatever the API server does.
   */
  abort(): void {
    this.aborting = true;
    for (const end of [...this.inFlight]) end();
    this.inFlight.clear();
  }

  private agentFor(opts: https.RequestOptions): https.Agent {
    const tls = {
      ca: opts.ca,
      cert: opts.cert,
      key: opts.key,
      pfx: opts.pfx,
      passphrase: opts.passphrase,
      servername: opts.servername,
      ...(opts.rejectUnauthorized !== undefined ? { rejectUnauthorized: opts.rejectUnauthorized } : {}),
    };
    const key = JSON.stringify(
      [tls.ca, tls.cert, tls.key, tls.pfx, tls.passphrase, tls.servername, tls.rejectUnauthorized].map((v) =>
        v === undefined ? null : String(v),
      ),
    );
    if (this.agent?.key !== key) {
      this.agent?.agent.destroy();
      this.agent = { key, agent: new https.Agent({ ...tls, keepAlive: true, maxSockets: MAX_SOCKETS }) };
    }
    return this.agent.agent;
  }

  /** What was prepared, while it may still be reused. */
  private fresh(now: number): Prepared | undefined {
    return this.prepared && now - this.prepared.at < AUTH_REUSE_MS ? this.prepared : undefined;
  }

  /** Headers and agent for the next request: client-node's answer, reused for AUTH_REUSE_MS. */
  private async prepare(): Promise<Result<Prepared, ApiError>> {
    const now = Date.now();
    const fresh = this.fresh(now);
    if (fresh) return ok(fresh);
    const { config, redactor } = this.context;
    const opts: https.RequestOptions = { headers: {} };
    try {
      await config.applyToHTTPSOptions(opts);
    } catch (error) {
      return err({ kind: 'unauthorized', status: 0, message: `cannot authenticate: ${redactor.describe(error)}` });
    }
    // What client-node put on the request (an exec plugin's token, a key read from a file) is secret too.
    const headers = { ...((opts.headers ?? {}) as Record<string, string>) };
    if (opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
    const authorization = headers.Authorization ?? headers.authorization;
    if (authorization) {
      redactor.add(authorization);
      redactor.add(authorization.replace(/^\S+\s+/, ''));
    }
    if (opts.key) redactor.add(opts.key.toString());
    this.prepared = { headers, agent: this.server.secure ? this.agentFor(opts) : undefined, at: now };
    return ok(this.prepared);
  }

  /** The request path of `path` under the server's own path, with the query. */
  private requestPath(path: string, query: Readonly<Record<string, string | undefined>> | undefined): string {
    if (!query) return this.server.pathPrefix + path;
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) search.set(k, v);
    const text = search.toString();
    return this.server.pathPrefix + path + (text ? `?${text}` : '');
  }

  private send(
    path: string,
    prepared: Prepared,
    options: { readonly method: string; readonly accept: string; readonly signal?: AbortSignal; readonly timeout?: number },
    payload?: { readonly text: string; readonly contentType: string },
  ): http.ClientRequest {
    const headers: Record<string, string> = { ...prepared.headers, Accept: options.accept };
    if (payload) {
      headers['Content-Type'] = payload.contentType;
      headers['Content-Length'] = String(Buffer.byteLength(payload.text));
    }
    const { hostname, port, secure } = this.server;
    const opts: https.RequestOptions = {
      hostname,
      ...(port ? { port } : {}),
      path,
      method: options.method,
      headers,
      ...(prepared.agent ? { agent: prepared.agent } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.timeout ? { timeout: options.timeout } : {}),
    };
    const req = (secure ? https : http).request(opts);
    // Headers and body in one write: one TLS record, one system call.
    req.end(payload?.text);
    return req;
  }

  /** The parsed JSON answer of a request to `path` (e.g. `/api/v1/pods`), or an ApiError. */
  async request<T = unknown>(path: string, options: RequestOptions = {}): Promise<Result<T, ApiError>> {
    const { redactor } = this.context;
    const { signal } = options;
    if (this.aborting || signal?.aborted) return err(aborted(path));
    // Reused at once when fresh (no turn through a promise): most requests of a live loop are.
    const cached = this.fresh(Date.now());
    const prepared = cached ? ok(cached) : await this.prepare();
    if (!prepared.ok) return prepared;
    if (this.aborting || signal?.aborted) return err(aborted(path));
    const payload =
      options.body === undefined
        ? undefined
        : { text: JSON.stringify(options.body), contentType: options.contentType ?? 'application/json' };
    return new Promise((resolve) => {
      // Aborting ends the request at once. Not through the request's own `signal` option: that costs
      // an AbortSignal.any and listeners per request, and bindings are hundreds in flight.
      let abortedNow = false;
      const req = this.send(
        this.requestPath(path, options.query),
        prepared.value,
        { method: options.method ?? 'GET', accept: 'application/json', timeout: REQUEST_TIMEOUT_MS },
        payload,
      );
      const end = () => {
        abortedNow = true;
        req.destroy();
      };
      this.inFlight.add(end);
      const ended = signal ? this.endsOn(signal) : undefined;
      ended?.add(end);
      let settled = false;
      const settle = (answer: Result<T, ApiError>) => {
        if (settled) return;
        settled = true;
        this.inFlight.delete(end);
        ended?.delete(end);
        resolve(answer);
      };
      const failed = (e: Error, prefix: string) =>
        settle(err(abortedNow ? aborted(path) : { kind: 'network', status: 0, message: `${prefix}${redactor.describe(e)}` }));
      let responded = false;
      req.on('response', (res) => {
        responded = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (e) => failed(e, ''));
        res.on('close', () => {
          if (!res.complete) failed(new Error(`the answer to ${path} was cut off`), '');
        });
        res.on('end', () => {
          const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          let body: unknown;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            body = undefined;
          }
          if (status >= 200 && status < 300) {
            if (body === undefined && text)
              settle(err({ kind: 'server', status, message: `the API server's answer to ${path} is not JSON` }));
            else settle(ok(body as T));
            return;
          }
          if (status === 401) this.prepared = undefined;
          const statusObject = body as { message?: unknown; reason?: unknown; details?: unknown } | undefined;
          const message = typeof statusObject?.message === 'string' ? statusObject.message : `${status} ${res.statusMessage ?? ''}`.trim();
          const reason = typeof statusObject?.reason === 'string' ? statusObject.reason : undefined;
          const details = statusDetails(statusObject?.details);
          settle(
            err({
              kind: apiErrorKind(status),
              status,
              message: redactor.redact(message),
              ...(reason ? { reason } : {}),
              ...(details ? { details } : {}),
            }),
          );
        });
      });
      req.on('timeout', () => req.destroy(new Error(`no answer from the API server within ${REQUEST_TIMEOUT_MS / 1000} s`)));
      req.on('error', (e) => failed(e, `${this.context.server}: `));
      // A request destroyed before its socket came may end with no error at all.
      req.on('close', () => responded || failed(new Error(`the request to ${path} was closed before its answer`), ''));
    });
  }

  /** What ends the requests `signal` aborts: listened to once, for as long as the signal lives. */
  private endsOn(signal: AbortSignal): Set<() => void> {
    let ends = this.bySignal.get(signal);
    if (!ends) {
      const set = new Set<() => void>();
      const endAll = () => {
        for (const end of [...set]) end();
        set.clear();
      };
      signal.addEventListener('abort', endAll, { once: true });
      this.bySignal.set(signal, set);
      ends = set;
    }
    return ends;
  }

  /** Closes the idle keep-alive connections (requests in flight finish first); a later request opens new ones. */
  close(): void {
    this.agent?.agent.destroy();
    this.agent = undefined;
    this.prepared = undefined;
  }

  /**
   * Watches `path` (a collection, with `watch=true` added): each line of the stream is one event.
   * The connection is the keep-alive agent's: a watch the server ends cleanly gives it back, one
   * that broke or was aborted destroys it. Returns the controller that aborts it.
   */
  watch(path: string, query: Readonly<Record<string, string | undefined>>, handlers: WatchHandlers): AbortController {
    const controller = new AbortController();
    let over = false;
    const done = (error: (Error & { statusCode?: number }) | undefined) => {
      if (over) return;
      over = true;
      handlers.onDone(controller.signal.aborted ? undefined : error);
    };
    void this.prepare().then((prepared) => {
      if (!prepared.ok) return done(Object.assign(new Error(prepared.error.message), { statusCode: prepared.error.status }));
      if (controller.signal.aborted) return done(undefined);
      const req = this.send(this.requestPath(path, { ...query, watch: 'true' }), prepared.value, {
        method: 'GET',
        accept: 'application/json',
        signal: controller.signal,
      });
      req.on('socket', (socket) => socket.setKeepAlive(true, WATCH_KEEPALIVE_MS));
      req.on('error', (e) => done(Object.assign(new Error(this.context.redactor.describe(e)), { statusCode: 0 })));
      req.on('response', (res) => {
        if (res.statusCode !== 200) {
          if (res.statusCode === 401) this.prepared = undefined;
          res.resume();
          done(Object.assign(new Error(`${res.statusCode ?? 0} ${res.statusMessage ?? ''}`.trim()), { statusCode: res.statusCode ?? 0 }));
          return;
        }
        res.setEncoding('utf8');
        let partial = '';
        res.on('data', (chunk: string) => {
          const lines = (partial + chunk).split('\n');
          partial = lines.pop() ?? '';
          for (const line of lines) {
            if (over || !line.trim()) continue;
            let event: WatchEvent;
            try {
              event = JSON.parse(line) as WatchEvent;
            } catch {
              continue;
            }
            handlers.onEvent(event);
          }
        });
        res.on('end', () => done(undefined));
        // A stream that stops before its end (a reset, a server that went away) is an error, not an end.
        res.on('close', () => done(res.complete ? undefined : new Error(`the watch of ${path} was cut off`)));
        res.on('error', (e) => done(Object.assign(new Error(this.context.redactor.describe(e)), { statusCode: 0 })));
      });
    });
    return controller;
  }
}

function aborted(path: string): ApiError {
  return { kind: 'aborted', status: 0, message: `the request to ${path} was aborted` };
}
