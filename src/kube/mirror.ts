// A live copy of what readCluster reads once: one informer per kind of resources.ts, each object
// kept decoded (the manifests decoder runs once per object version, not once per question), and
// the workspace model of the moment on demand. What `serve-planner --context` answers from and
// what an editor's cluster source can hold.
import type { Clock } from '../engine/api/clock';
import { combine, type FileModel, type WorkspaceModel } from '../manifests';
import type { KubeHttp } from './http';
import { Informer, type InformerEvent } from './informer';
import { decodeObject, sortForSnapshot, type TypedObject } from './objects';
import { CLUSTER_RESOURCES, type ResourceType } from './resources';

export interface MirrorOptions {
  readonly namespace?: string;
  readonly resources?: readonly ResourceType[];
  readonly clock: Clock;
  /** Redacted lines: a kind that cannot be listed, an informer restarted after an error. */
  readonly onWarning?: (message: string) => void;
  /** Every change, after the mirror took it in. */
  readonly onEvent?: (event: InformerEvent) => void;
}

const entryKey = ({ resource, object }: InformerEvent): string =>
  `${resource.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`;

interface Entry {
  readonly typed: TypedObject;
  readonly file: FileModel;
}

export class ClusterMirror {
  private readonly informers: Informer[];
  private readonly entries = new Map<string, Entry>();
  private cached: WorkspaceModel | undefined;
  /** Resolves once every kind was listed (or found unavailable). */
  readonly synced: Promise<void>;

  constructor(
    private readonly http: KubeHttp,
    options: MirrorOptions,
  ) {
    this.informers = (options.resources ?? CLUSTER_RESOURCES).map(
      (resource) =>
        new Informer(http, {
          resource,
          ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
          clock: options.clock,
          onEvent: (event) => {
            this.apply(event);
            options.onEvent?.(event);
          },
          ...(options.onWarning ? { onError: options.onWarning } : {}),
        }),
    );
    this.synced = Promise.all(this.informers.map((i) => i.synced)).then(() => undefined);
  }

  async start(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.start()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.stop()));
  }

  /** The model of the objects held now (recomputed only after a change). */
  model(): WorkspaceModel {
    if (!this.cached) {
      const byTyped = new Map<TypedObject, FileModel>([...this.entries.values()].map((e) => [e.typed, e.file]));
      this.cached = combine(sortForSnapshot([...byTyped.keys()]).map((t) => byTyped.get(t) as FileModel));
    }
    return this.cached;
  }

  /** The decoded file of the object an event was about (undefined once deleted). */
  fileOf(event: InformerEvent): FileModel | undefined {
    return this.entries.get(entryKey(event))?.file;
  }

  private apply(event: InformerEvent): void {
    const { object } = event;
    const key = entryKey(event);
    if (event.type === 'delete') this.entries.delete(key);
    else this.entries.set(key, { typed: { resource: event.resource, object }, file: decodeObject(this.http.context.context, object) });
    this.cached = undefined;
  }
}
