// The REST front of the test API server: authentication, routing of /api and /apis paths to the
// registry, request bodies by content type, watch streams, and the fault injection of faults.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { parse as parseYaml } from 'yaml';
import { errorMessage } from '../../../src/engine/api/errors';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, versionInfo } from './discovery';
import type { Counters, FaultState } from './faults';
import { apiVersionOf, type KubeObject, type ResourceType } from './resources';
import type { BindingRequest, FieldValidation, PatchType, Registry, WriteOptions } from './registry';
import { selectorMatcher } from './selectors';
import { errors, qualified, StatusError, success, type KubeStatus } from './status';
import type { Entry, WatchEventType } from './store';
import { table, wantsTable } from './table';
import { jsonPatch, mergePatch } from './patch';
import { OPENAPI_V2_PROTOBUF, openApiV2, openApiV2Protobuf, openApiV3Index, openApiV3GroupVersion } from './openapi';
import { decodeProtobuf } from './protobuf';

export interface HttpOptions {
  readonly tokens: ReadonlySet<string>;
  readonly gitVersion: string;
  readonly bookmarkIntervalMs: number;
  address(): string;
}

interface Route {
  readonly type: ResourceType;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly subresource: string | undefined;
  readonly watchPath: boolean;
}

/** A live watch stream, so the server can send bookmarks now and close them all. */
export interface WatchStream {
  /** a BOOKMARK at the current resourceVersion, if the watch allowed them */
  bookmark(): void;
  close(): void;
}

const PATCH_TYPES: Readonly<Record<string, PatchType>> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

export class ApiHttp {
  readonly streams = new Set<WatchStream>();

  constructor(
    private readonly registry: Registry,
    private readonly faults: FaultState,
    private readonly counters: Counters,
    private readonly options: HttpOptions,
  ) {}

  /** requests received and not answered yet (watches count until they end) */
  inFlight = 0;

  handle(req: IncomingMessage, res: ServerResponse): void {
    this.inFlight++;
    res.on('close', () => this.inFlight--);
    const latency = this.faults.faults.latencyMs;
    const go = (): void => {
      this.serve(req, res).catch((err: unknown) => this.fail(res, err));
    };
    if (latency > 0) void this.delay(res, latency).then((answered) => answered && go());
    else go();
  }

  /** Resolves true after `ms`, or false as soon as the client goes away (a request it gave up on is never carried out). */
  private delay(res: ServerResponse, ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const gone = (): void => {
        clearTimeout(timer);
        resolve(false);
      };
      const timer = setTimeout(() => {
        res.off('close', gone);
        resolve(true);
      }, ms);
      res.once('close', gone);
    });
  }

  private authenticated(req: IncomingMessage): boolean {
    const auth = req.headers.authorization;
    if (auth?.startsWith('Bearer ') && this.options.tokens.has(auth.slice(7).trim())) return true;
    return (req.socket as TLSSocket).authorized === true;
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.authenticated(req)) throw errors.unauthorized();
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const types = this.registry.allTypes();
    if (path === '/openapi/v2' && req.headers.accept?.includes(OPENAPI_V2_PROTOBUF)) {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      res.end(openApiV2Protobuf());
      return;
    }
    const fixed = this.fixedDocument(path, types);
    if (fixed !== undefined) {
      if (req.method !== 'GET') throw errors.methodNotAllowed();
      this.send(res, 200, JSON.stringify(fixed));
      return;
    }
    const route = this.route(path);
    if (!route) throw errors.pathNotFound();
    await this.resource(req, res, route, url.searchParams);
  }

  private fixedDocument(path: string, types: readonly ResourceType[]): unknown | undefined {
    switch (path) {
      case '/api':
        return apiVersions(this.options.address());
      case '/apis':
        return apiGroupList(types);
      case '/version':
        return versionInfo(this.options.gitVersion);
      case '/healthz':
      case '/livez':
      case '/readyz':
        return 'ok';
      case '/openapi/v2':
        return openApiV2(types);
      case '/openapi/v3':
        return openApiV3Index(types);
    }
    const parts = path.split('/').slice(1);
    if (parts[0] === 'api' && parts.length === 2) return apiResourceList(types, '', parts[1] as string);
    if (parts[0] === 'apis' && parts.length === 2) return apiGroup(types, parts[1] as string);
    if (parts[0] === 'apis' && parts.length === 3) return apiResourceList(types, parts[1] as string, parts[2] as string);
    if (parts[0] === 'openapi' && parts[1] === 'v3') {
      const gv = parts.slice(2);
      if (gv[0] === 'api' && gv.length === 2) return openApiV3GroupVersion(types, '', gv[1] as string);
      if (gv[0] === 'apis' && gv.length === 3) return openApiV3GroupVersion(types, gv[1] as string, gv[2] as string);
    }
    return undefined;
  }

  private route(path: string): Route | undefined {
    const parts = path.split('/').slice(1).map(decodeURIComponent);
    let rest: string[];
    let group: string;
    let version: string;
    if (parts[0] === 'api' && parts.length >= 3) {
      group = '';
      version = parts[1] as string;
      rest = parts.slice(2);
    } else if (parts[0] === 'apis' && parts.length >= 4) {
      group = parts[1] as string;
      version = parts[2] as string;
      rest = parts.slice(3);
    } else return undefined;
    const watchPath = rest[0] === 'watch';
    if (watchPath) rest = rest.slice(1);
    let namespace: string | undefined;
    if (rest[0] === 'namespaces' && rest.length >= 3 && rest[2] !== 'status' && rest[2] !== 'finalize') {
      namespace = rest[1];
      rest = rest.slice(2);
    }
    const [plural = '', name, subresource, ...extra] = rest;
    if (extra.length > 0) return undefined;
    if (!group && plural === 'bindings' && namespace !== undefined && name === undefined) {
      // namespaces/{ns}/bindings: the older form of pods/{name}/binding, the pod named in the body
      const pods = this.registry.lookup('', version, 'pods');
      return pods && { type: pods, namespace, name: undefined, subresource: 'bindings', watchPath };
    }
    const type = this.registry.lookup(group, version, plural);
    if (!type) return undefined;
    if (namespace !== undefined && !type.namespaced) return undefined;
    return { type, namespace, name, subresource, watchPath };
  }

  private async resource(req: IncomingMessage, res: ServerResponse, route: Route, query: URLSearchParams): Promise<void> {
    const { type, namespace, name, subresource } = route;
    const method = req.method ?? 'GET';
    const resource = qualified(type) + (subresource ? `/${subresource}` : '');
    const opts: WriteOptions = {
      dryRun: query.get('dryRun') === 'All',
      fieldManager: query.get('fieldManager') ?? undefined,
      fieldValidation: (query.get('fieldValidation') as FieldValidation | null) ?? 'Warn',
    };
    const rbacName = type.group ? `${type.plural}.${type.group}` : type.plural;
    if (this.faults.faults.forbiddenResources.includes(rbacName)) {
      const scope = namespace === undefined ? 'at the cluster scope' : `in the namespace "${namespace}"`;
      const verb =
        method === 'GET'
          ? name === undefined
            ? query.get('watch') === 'true' || route.watchPath
              ? 'watch'
              : 'list'
            : 'get'
          : method.toLowerCase();
      const message = `${rbacName} is forbidden: User "test" cannot ${verb} resource "${type.plural}" in API group "${type.group}" ${scope}`;
      throw new StatusError({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message,
        reason: 'Forbidden',
        details: { kind: type.plural, ...(type.group ? { group: type.group } : {}) },
        code: 403,
      });
    }
    const isPods = !type.group && type.plural === 'pods';
    const served =
      subresource === undefined ||
      (subresource === 'status' && type.statusSubresource) ||
      (subresource === 'scale' && type.scaleSubresource) ||
      (isPods && (subresource === 'binding' || subresource === 'bindings'));
    if (!served) throw errors.pathNotFound();
    if (subresource === 'bindings' && req.method !== 'POST') throw errors.methodNotAllowed();
    const watching = route.watchPath || query.get('watch') === 'true' || query.get('watch') === '1';
    if (method === 'GET' && (watching || name === undefined)) {
      const verb = watching ? 'watch' : 'list';
      this.counters.countRequest(verb, resource);
      const asTable = wantsTable(req.headers.accept);
      if (watching) this.watch(res, route, query, asTable);
      else {
        const list = this.registry.list(type, namespace, query);
        const { resourceVersion, ...rest } = list.metadata;
        const json = asTable
          ? JSON.stringify(
              table(
                type,
                list.entries.map((e) => e.obj),
                String(resourceVersion),
                rest,
              ),
            )
          : this.registry.listJson(type, list);
        this.send(res, 200, json);
      }
      return;
    }
    const verb = { GET: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: name === undefined ? 'deletecollection' : 'delete' }[
      method
    ];
    if (!verb) throw errors.methodNotAllowed();
    this.counters.countRequest(verb, resource);
    if (subresource === 'scale') {
      await this.scale(req, res, type, namespace, name as string, opts);
      return;
    }
    if (method === 'GET') {
      const entry = this.registry.entry(type, namespace, name as string);
      this.send(res, 200, wantsTable(req.headers.accept) ? JSON.stringify(table(type, [entry.obj], String(entry.rv))) : entry.json);
      return;
    }
    const body = await readBody(req);
    const binding = method === 'POST' && (subresource === 'binding' || subresource === 'bindings');
    if (binding && this.faults.faults.bindingLatencyMs > 0 && !(await this.delay(res, this.faults.faults.bindingLatencyMs))) return;
    if (method === 'POST' && subresource === 'binding') {
      this.bind(res, namespace ?? 'default', name as string, parseBody(req, body) as BindingRequest, opts);
      return;
    }
    if (method === 'POST' && subresource === 'bindings') {
      const binding = parseBody(req, body) as BindingRequest;
      this.bind(res, namespace ?? 'default', binding.metadata?.name ?? '', binding, opts);
      return;
    }
    if (method === 'POST') {
      if (name !== undefined) throw errors.methodNotAllowed();
      const result = this.registry.create(type, namespace, parseBody(req, body) as KubeObject, opts);
      this.send(res, 201, result.json, result.warnings);
      return;
    }
    if (method === 'DELETE' && name === undefined) {
      this.send(res, 200, this.registry.deleteCollection(type, namespace, query, opts));
      return;
    }
    if (name === undefined) throw errors.methodNotAllowed();
    const sub = subresource === 'status' ? 'status' : undefined;
    if (method === 'PUT') {
      const result = this.registry.update(type, namespace, name, parseBody(req, body) as KubeObject, opts, sub);
      this.send(res, 200, result.json, result.warnings);
      return;
    }
    if (method === 'PATCH') {
      const contentType = mediaType(req);
      const patchType = PATCH_TYPES[contentType];
      if (!patchType) {
        throw errors.unsupportedMediaType([
          'application/json-patch+json',
          'application/merge-patch+json',
          'application/apply-patch+yaml',
          'application/strategic-merge-patch+json',
        ]);
      }
      const patch = patchType === 'apply' ? parseYamlBody(body) : parseJson(body);
      const existed = patchType === 'apply' && this.exists(type, namespace, name);
      const result = this.registry.patch(type, namespace, name, patchType, patch, opts, sub);
      this.send(res, patchType === 'apply' && !existed ? 201 : 200, result.json, result.warnings);
      return;
    }
    const options = body.length > 0 ? (parseJson(body) as Record<string, unknown>) : {};
    this.send(res, 200, this.registry.delete(type, namespace, name, options, opts).json);
  }

  private async scale(
    req: IncomingMessage,
    res: ServerResponse,
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    opts: WriteOptions,
  ): Promise<void> {
    const method = req.method ?? 'GET';
    const current = this.registry.scale(type, namespace, name);
    if (method === 'GET') {
      this.send(res, 200, JSON.stringify(current));
      return;
    }
    const body = await readBody(req);
    let wanted: unknown;
    if (method === 'PUT') wanted = parseBody(req, body);
    else if (method === 'PATCH') {
      const patchType = PATCH_TYPES[mediaType(req)];
      const patch = parseJson(body);
      wanted =
        patchType === 'json'
          ? jsonPatch(current, patch)
          : patchType === 'merge' || patchType === 'strategic'
            ? mergePatch(current, patch)
            : undefined;
      if (wanted === undefined)
        throw errors.unsupportedMediaType([
          'application/json-patch+json',
          'application/merge-patch+json',
          'application/strategic-merge-patch+json',
        ]);
    } else throw errors.methodNotAllowed();
    this.send(res, 200, JSON.stringify(this.registry.updateScale(type, namespace, name, wanted as KubeObject, opts)));
  }

  private exists(type: ResourceType, namespace: string | undefined, name: string): boolean {
    try {
      this.registry.entry(type, namespace, name);
      return true;
    } catch {
      return false;
    }
  }

  private bind(res: ServerResponse, namespace: string, pod: string, binding: BindingRequest, opts: WriteOptions): void {
    const fault = this.faults.bindingFault();
    if (fault === 'conflict')
      throw errors.conflict(
        { group: '', plural: 'pods/binding' },
        pod,
        'the object has been modified; please apply your changes to the latest version and try again',
      );
    if (fault === 'error') throw errors.internal('injected binding failure');
    this.registry.bind(namespace, pod, binding, opts);
    if (fault === 'lost-response') throw errors.internal('injected failure after the binding was stored');
    this.send(res, 201, JSON.stringify(success(201)));
  }

  private watch(res: ServerResponse, route: Route, query: URLSearchParams, asTable: boolean): void {
    const { type, namespace, name } = route;
    const selector = selectorMatcher(query, type);
    const match = name === undefined ? selector : (o: KubeObject) => o.metadata?.name === name && selector(o);
    const rvText = query.get('resourceVersion') ?? '';
    const fromRV = rvText === '' || rvText === '0' ? undefined : Number(rvText);
    if (fromRV !== undefined && !Number.isInteger(fromRV)) throw errors.badRequest(`invalid resource version: ${rvText}`);
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    res.flushHeaders();
    const faults = this.faults;
    const counters = this.counters;
    let sent = 0;
    let stop: () => void = () => undefined;
    let closed = false;
    const timers: NodeJS.Timeout[] = [];
    const streams = this.streams;
    const allowBookmarks = query.get('allowWatchBookmarks') === 'true';
    // Events are written together once per turn of the event loop (a burst of writes is one TLS
    // record and one system call, as the real server's buffered encoder sends them).
    let unsent: string[] = [];
    const flush = (): void => {
      const text = unsent.join('');
      unsent = [];
      if (text && !res.destroyed && !res.writableEnded) res.write(text);
    };
    const finish = (how: 'end' | 'reset'): void => {
      if (closed) return;
      flush();
      closed = true;
      stop();
      for (const t of timers) clearTimeout(t);
      streams.delete(stream);
      // A TLS socket cannot send a TCP RST from node; closing the connection in the middle of the
      // chunked response (after the events written so far) is what clients see of a reset: an error,
      // not a clean end of the response.
      if (how === 'reset') res.socket?.end();
      else res.end();
    };
    const write = (type: WatchEventType | 'BOOKMARK' | 'ERROR', json: string): void => {
      if (closed) return;
      if (unsent.length === 0) setImmediate(() => closed || flush());
      unsent.push(`{"type":"${type}","object":${json}}\n`);
    };
    const stream: WatchStream = {
      bookmark: () => {
        if (!allowBookmarks) return;
        const rv = String(this.registry.store.currentRV);
        write('BOOKMARK', JSON.stringify({ kind: type.kind, apiVersion: apiVersionOf(type), metadata: { resourceVersion: rv } }));
      },
      close: () => finish('end'),
    };
    res.on('close', () => finish('end'));
    if (faults.takeGone() || (fromRV !== undefined && this.tooOld(fromRV))) {
      const status: KubeStatus = tooOldStatus(fromRV ?? 0, this.registry);
      write('ERROR', JSON.stringify(status));
      finish('end');
      return;
    }
    streams.add(stream);
    const watcher = {
      namespace: type.namespaced ? namespace : undefined,
      match,
      send: (t: WatchEventType, entry: Entry): void => {
        write(t, asTable ? JSON.stringify(table(type, [entry.obj], String(entry.rv))) : entry.json);
        sent++;
        const every = faults.faults.dropWatchEvery;
        if (every > 0 && sent % every === 0) {
          counters.droppedWatches++;
          finish(faults.faults.dropWatchMode === 'reset' ? 'reset' : 'end');
        }
      },
    };
    stop = this.registry.store.watch(this.registry.store.collection(`${type.group}/${type.plural}`), watcher, fromRV);
    // Dropped while replaying its history: no bookmark or timeout timer may outlive it.
    if (closed) {
      stop();
      return;
    }
    if (allowBookmarks && this.options.bookmarkIntervalMs > 0) {
      const tick = (): void => {
        stream.bookmark();
        timers[0] = setTimeout(tick, this.options.bookmarkIntervalMs);
      };
      timers[0] = setTimeout(tick, this.options.bookmarkIntervalMs);
    }
    const timeout = Number(query.get('timeoutSeconds') ?? 0);
    if (timeout > 0) timers.push(setTimeout(() => finish('end'), timeout * 1000));
  }

  private tooOld(rv: number): boolean {
    try {
      this.registry.store.checkNotCompacted(rv);
      return false;
    } catch {
      return true;
    }
  }

  private send(res: ServerResponse, code: number, json: string, warnings: readonly string[] = []): void {
    const headers: Record<string, string | string[]> = { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' };
    if (warnings.length > 0) headers.Warning = warnings.map((w) => `299 - ${JSON.stringify(w)}`);
    res.writeHead(code, headers);
    res.end(json);
  }

  private fail(res: ServerResponse, err: unknown): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const status = err instanceof StatusError ? err.status : errors.internal(errorMessage(err)).status;
    this.send(res, status.code, JSON.stringify(status));
  }
}

function tooOldStatus(rv: number, registry: Registry): KubeStatus {
  try {
    registry.store.checkNotCompacted(rv);
  } catch (err) {
    if (err instanceof StatusError) return err.status;
  }
  return errors.gone(`too old resource version: ${rv} (${registry.store.currentRV})`).status;
}

function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? 'application/json').split(';')[0]?.trim().toLowerCase() ?? '';
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw errors.badRequest(`the request body is not valid JSON: ${(err as Error).message}`);
  }
}

function parseYamlBody(body: Buffer): unknown {
  try {
    return parseYaml(body.toString('utf8'));
  } catch (err) {
    throw errors.badRequest(`error decoding YAML: ${(err as Error).message}`);
  }
}

function parseBody(req: IncomingMessage, body: Buffer): unknown {
  const type = mediaType(req);
  if (type === 'application/json' || type === '') return parseJson(body);
  if (type === 'application/yaml') return parseYamlBody(body);
  if (type === 'application/vnd.kubernetes.protobuf') return decodeProtobuf(body);
  throw errors.unsupportedMediaType(['application/json', 'application/yaml']);
}
