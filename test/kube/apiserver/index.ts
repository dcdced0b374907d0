// The test Kubernetes API server: real REST over https on 127.0.0.1, for @kubernetes/client-node
// and kubectl. See README.md for what it speaks and what it does not.
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Counters, FaultState, type Faults } from './faults';
import { ApiHttp } from './http';
import { kubeconfigYaml, writeKubeconfigFile, type KubeconfigOptions } from './kubeconfig';
import { Registry } from './registry';
import type { KubeObject, ResourceType } from './resources';
import { tlsMaterial, type TlsMaterial } from './tls';

export type { Faults } from './faults';
export type { KubeconfigOptions, ContextSpec, UserKind } from './kubeconfig';
export type { KubeObject } from './resources';
export type { KubeStatus } from './status';

export interface TestApiServerOptions {
  /** bearer token accepted (default: a random one, see `token`) */
  readonly token?: string;
  /** watch events kept for watches from an older resourceVersion (default 100,000) */
  readonly historyLimit?: number;
  /** interval of BOOKMARK events on watches that allow them (default 1000 ms; 0: only `sendBookmarks()`) */
  readonly bookmarkIntervalMs?: number;
  /** the version /version reports (default v1.35.0) */
  readonly gitVersion?: string;
  /** faults set from the start */
  readonly faults?: Partial<Faults>;
}

/** A resource named by apiVersion and kind, e.g. `{ apiVersion: 'v1', kind: 'Pod' }`. */
export interface KindRef {
  readonly apiVersion: string;
  readonly kind: string;
}

export class TestApiServer {
  readonly counters = new Counters();
  private readonly faultState: FaultState;
  private readonly http: ApiHttp;
  private readonly registry: Registry;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly server: Server,
    readonly tls: TlsMaterial,
    readonly token: string,
    options: TestApiServerOptions,
  ) {
    this.faultState = new FaultState();
    if (options.faults) this.faultState.set(options.faults);
    this.registry = new Registry(options.historyLimit ?? 100_000);
    this.registry.onWrite = (verb, resource, obj) =>
      this.counters.writes.push({
        verb,
        resource,
        namespace: obj.metadata?.namespace,
        name: obj.metadata?.name ?? '',
        resourceVersion: obj.metadata?.resourceVersion ?? '',
      });
    this.registry.onBound = (namespace, pod) => {
      const key = `${namespace}/${pod}`;
      this.counters.bindings.set(key, (this.counters.bindings.get(key) ?? 0) + 1);
    };
    this.http = new ApiHttp(this.registry, this.faultState, this.counters, {
      tokens: new Set([token]),
      gitVersion: options.gitVersion ?? 'v1.35.0',
      bookmarkIntervalMs: options.bookmarkIntervalMs ?? 1000,
      address: () => this.address,
    });
    server.on('request', (req, res) => this.http.handle(req, res));
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  /** `127.0.0.1:port` */
  get address(): string {
    const a = this.server.address() as AddressInfo;
    return `${a.address}:${a.port}`;
  }

  get url(): string {
    return `https://${this.address}`;
  }

  /** The current (global) resourceVersion. */
  get resourceVersion(): number {
    return this.registry.store.currentRV;
  }

  // ---- kubeconfig ---------------------------------------------------------------------------

  kubeconfig(options: KubeconfigOptions = {}): string {
    return kubeconfigYaml({ url: this.url, token: this.token, tls: this.tls }, options);
  }

  /** Writes `kubeconfig(options)` to a new temporary file; returns its path. */
  writeKubeconfig(options: KubeconfigOptions = {}, fileName?: string): Promise<string> {
    return writeKubeconfigFile(this.kubeconfig(options), fileName);
  }

  // ---- faults -------------------------------------------------------------------------------

  get faults(): Readonly<Faults> {
    return this.faultState.faults;
  }

  setFaults(changes: Partial<Faults>): void {
    this.faultState.set(changes);
  }

  clearFaults(): void {
    this.faultState.reset();
  }

  /** Forgets the watch history: watches (and continue tokens) from older resourceVersions get 410. */
  compact(): void {
    this.registry.store.compact();
  }

  setHistoryLimit(events: number): void {
    this.registry.store.setHistoryLimit(events);
  }

  /** Sends a BOOKMARK now on every open watch that allowed them. */
  sendBookmarks(): void {
    for (const s of this.http.streams) s.bookmark();
  }

  /** Ends every open watch cleanly (clients re-watch). */
  closeWatches(): void {
    for (const s of [...this.http.streams]) s.close();
  }

  /** Requests received and not answered yet (open watches included). */
  get requestsInFlight(): number {
    return this.http.inFlight;
  }

  get openWatches(): number {
    return this.http.streams.size;
  }

  /** Client connections open now (idle keep-alive ones included). */
  get openConnections(): number {
    return this.sockets.size;
  }

  // ---- direct object access (no HTTP, same semantics and watch events) --------------------------

  private type(ref: KindRef): ResourceType {
    return this.registry.typeOf(ref.apiVersion, ref.kind);
  }

  /** Creates objects (each names its apiVersion and kind); returns them as stored. */
  create(...objects: KubeObject[]): KubeObject[] {
    return objects.map((o) => this.registry.create(this.type(o as KindRef), o.metadata?.namespace, o).obj);
  }

  /**
   * Replaces an object as a test's own write: status included, no update validation (so a test can
   * play kubelet or another scheduler); a resourceVersion in the object is still a precondition.
   */
  update(obj: KubeObject): KubeObject {
    const meta = obj.metadata ?? {};
    return this.registry.update(this.type(obj as KindRef), meta.namespace, meta.name ?? '', obj, { direct: true }).obj;
  }

  /** Merge-patches an object as a test's own write (status included, as `update`). */
  patch(ref: KindRef, namespace: string | undefined, name: string, patch: Record<string, unknown>): KubeObject {
    return this.registry.patch(this.type(ref), namespace, name, 'merge', patch, { direct: true }).obj;
  }

  /** Binds a pod as pods/{name}/binding does (counted in `counters.bindings`). */
  bind(namespace: string, pod: string, node: string): void {
    this.registry.bind(namespace, pod, { metadata: { name: pod }, target: { kind: 'Node', name: node } });
  }

  delete(ref: KindRef, namespace: string | undefined, name: string): void {
    this.registry.delete(this.type(ref), namespace, name);
  }

  /** The stored object, or undefined. */
  get(ref: KindRef, namespace: string | undefined, name: string): KubeObject | undefined {
    try {
      return structuredClone(this.registry.get(this.type(ref), namespace, name));
    } catch {
      return undefined;
    }
  }

  list(ref: KindRef, namespace?: string): KubeObject[] {
    return this.registry.objects(this.type(ref), namespace).map((o) => structuredClone(o));
  }

  close(): Promise<void> {
    this.closeWatches();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    return closed;
  }
}

export async function startTestApiServer(options: TestApiServerOptions = {}): Promise<TestApiServer> {
  const tls = await tlsMaterial();
  const server = createServer({
    key: tls.serverKey,
    cert: tls.serverCert,
    ca: tls.caCert,
    requestCert: true,
    rejectUnauthorized: false,
  });
  server.keepAliveTimeout = 60_000;
  const token = options.token ?? `podplan-test-${randomBytes(16).toString('hex')}`;
  const api = new TestApiServer(server, tls, token, options);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return api;
}
