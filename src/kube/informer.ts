// Informers: list, then watch from the list's resourceVersion, through client-node's ListWatch
// (it re-lists by itself on 410 Gone and when the server closes a watch cleanly). What it does not
// do is done here: it asks for bookmarks, it stops for good on an error (a reset connection, a
// failed list), so it is restarted after a back-off (1 s doubling to 30 s, reset once a list
// succeeds or events arrive); and it reports "synced" after its first list. Objects are cleaned (objects.ts) before
// anyone sees them, and events are a typed stream.
import { ListWatch, Watch, type KubernetesListObject, type KubernetesObject } from '@kubernetes/client-node';
import type { Clock, Timer } from '../engine/api/clock';
import type { KubeHttp } from './http';
import { cleanObject, type ApiObject } from './objects';
import { listAll } from './read';
import { collectionPath, type ResourceType } from './resources';

export type InformerEventType = 'add' | 'update' | 'delete';

export interface InformerEvent {
  readonly type: InformerEventType;
  readonly resource: ResourceType;
  readonly object: ApiObject;
}

export interface InformerOptions {
  readonly resource: ResourceType;
  /** Only this namespace (namespaced kinds); all when left out. */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly clock: Clock;
  readonly onEvent: (event: InformerEvent) => void;
  /** A redacted line each time the informer fails and is restarted (or a kind is forbidden). */
  readonly onError?: (message: string) => void;
  /** Back-off bounds, in ms (default 1,000 → 30,000). */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
}

/**
 * The transport under client-node's ListWatch: watches through KubeHttp (its keep-alive agent,
 * each event parsed once from the stream) instead of client-node's Watch (a new connection per
 * watch, node-fetch, a readline pipe). It remembers its open watches, so stopping aborts a watch
 * still being opened too, and a connection that broke is destroyed, never left open.
 */
class KubeWatch extends Watch {
  private readonly open = new Set<AbortController>();
  closed = false;

  constructor(private readonly http: KubeHttp) {
    super(http.context.config);
  }

  override watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    const query = Object.fromEntries(Object.entries(queryParams).map(([k, v]) => [k, v === undefined ? undefined : String(v)]));
    const [collection = path, inPath = ''] = path.split('?');
    for (const [k, v] of new URLSearchParams(inPath)) query[k] = v;
    const controller = this.http.watch(collection, query, {
      onEvent: (event) => callback(event.type, event.object, event),
      onDone: (error) => {
        this.open.delete(controller);
        done(error ?? null);
      },
    });
    if (this.closed) controller.abort();
    else this.open.add(controller);
    return Promise.resolve(controller);
  }

  close(): void {
    this.closed = true;
    for (const c of this.open) c.abort();
    this.open.clear();
  }
}

class ListError extends Error {
  constructor(
    message: string,
    readonly statusCode: number,
  ) {
    super(message);
  }
}

export class Informer {
  private readonly listWatch: ListWatch<KubernetesObject>;
  private readonly watch: KubeWatch;
  private delay: number;
  private timer: Timer | undefined;
  private stopped = false;
  private resolveSynced!: () => void;
  private hasSynced = false;
  /** Resolves after the first complete list (and the events it produced). */
  readonly synced: Promise<void>;
  /** How many times the informer was restarted after an error. */
  restarts = 0;
  /**
   * Why the kind cannot be watched at all: its API group is not served ('not-served': none of them,
   * as when the planner CRDs are not installed) or listing it is forbidden. The informer then stops
   * and counts as synced with nothing.
   */
  unavailable: 'not-served' | 'forbidden' | undefined;
  /** How many full lists it made (the first one, and each re-list after 410 Gone or a restart). */
  lists = 0;

  constructor(
    private readonly http: KubeHttp,
    private readonly options: InformerOptions,
  ) {
    this.delay = options.backoff?.initialMs ?? 1_000;
    this.synced = new Promise((resolve) => (this.resolveSynced = resolve));
    const { resource, namespace } = options;
    // ListWatch builds the watch URL from this path and keeps its query, so bookmarks are asked for here.
    const path = `${collectionPath(resource, namespace)}?allowWatchBookmarks=true`;
    const list = async (): Promise<KubernetesListObject<KubernetesObject>> => {
      const selectors = {
        ...(options.labelSelector !== undefined ? { labelSelector: options.labelSelector } : {}),
        ...(options.fieldSelector !== undefined ? { fieldSelector: options.fieldSelector } : {}),
      };
      const listed = await listAll(http, resource, namespace, selectors);
      if (!listed.ok) throw new ListError(listed.error.message, listed.error.status);
      if (!listed.value) throw new ListError(`the API server does not serve ${resource.apiVersion}`, 404);
      this.lists++;
      this.delay = options.backoff?.initialMs ?? 1_000;
      const items = (listed.value?.items ?? []).map((i) => i.object as KubernetesObject);
      return {
        apiVersion: resource.apiVersion,
        kind: `${resource.kind}List`,
        metadata: { resourceVersion: listed.value?.resourceVersion ?? '' },
        items,
      };
    };
    this.watch = new KubeWatch(http);
    this.listWatch = new ListWatch(path, this.watch, list, false, options.labelSelector, options.fieldSelector);
    const emit = (type: InformerEventType) => (raw: KubernetesObject) => {
      // Events flow again: the next failure starts the back-off from the beginning.
      this.delay = options.backoff?.initialMs ?? 1_000;
      const object = cleanObject(resource, raw);
      if (object) options.onEvent({ type, resource, object });
    };
    this.listWatch.on('add', emit('add'));
    this.listWatch.on('update', emit('update'));
    this.listWatch.on('delete', emit('delete'));
    this.listWatch.on('error', (error: unknown) => this.failed(error));
    // 'connect' comes before each list or watch; after the first list the informer is synced.
    this.listWatch.on('connect', () => {
      if (!this.hasSynced && this.lists > 0) this.markSynced();
    });
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.watch.closed = false;
    await this.listWatch.start();
    if (this.lists > 0) this.markSynced();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    await this.listWatch.stop();
    this.watch.close();
  }

  /** The objects it holds now. */
  list(): ApiObject[] {
    return this.listWatch.list() as unknown as ApiObject[];
  }

  /** The resourceVersion it will watch from ('' before the first list or after 410 Gone). */
  get resourceVersion(): string {
    return this.listWatch.latestResourceVersion();
  }

  private markSynced(): void {
    this.hasSynced = true;
    this.resolveSynced();
  }

  private failed(error: unknown): void {
    if (this.stopped) return;
    const { resource } = this.options;
    if (error instanceof ListError && (error.statusCode === 404 || error.statusCode === 403)) {
      this.unavailable = error.statusCode === 404 ? 'not-served' : 'forbidden';
      if (this.unavailable === 'forbidden')
        this.options.onError?.(`cannot list ${resource.plural}: ${error.message}; going on without them`);
      this.markSynced();
      void this.stop();
      return;
    }
    this.options.onError?.(
      `${resource.plural}: ${this.http.context.redactor.describe(error)}; retrying in ${Math.round(this.delay / 100) / 10} s`,
    );
    this.timer?.cancel();
    this.timer = this.options.clock.setTimer(this.delay, () => {
      this.timer = undefined;
      if (this.stopped) return;
      this.restarts++;
      void this.start();
    });
    this.delay = Math.min(this.delay * 2, this.options.backoff?.maxMs ?? 30_000);
  }
}
