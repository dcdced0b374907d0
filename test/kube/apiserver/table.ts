// `Accept: application/json;as=Table;g=meta.k8s.io;v=v1` answers (what `kubectl get` prints): the
// columns of upstream's printers for pods, nodes and namespaces, Name and Age for everything else.
import type { KubeObject, ResourceType } from './resources';

interface Column {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'date';
  readonly format?: string;
  readonly priority: number;
  readonly description: string;
  readonly cell: (obj: KubeObject, now: number) => unknown;
}

type Json = Record<string, unknown>;

function get(obj: unknown, ...keys: string[]): unknown {
  let v = obj;
  for (const k of keys) v = v && typeof v === 'object' ? (v as Json)[k] : undefined;
  return v;
}

/** apimachinery's duration.HumanDuration. */
export function humanDuration(seconds: number): string {
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.floor(hours / 24);
    return days % 365 === 0 ? `${Math.floor(days / 365)}y` : `${Math.floor(days / 365)}y${days % 365}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

function age(obj: KubeObject, now: number): string {
  const created = obj.metadata?.creationTimestamp;
  if (!created) return '<unknown>';
  return humanDuration(Math.floor((now - Date.parse(created)) / 1000));
}

const NAME: Column = {
  name: 'Name',
  type: 'string',
  format: 'name',
  priority: 0,
  description: 'Name must be unique within a namespace.',
  cell: (o) => o.metadata?.name ?? '',
};
const AGE: Column = {
  name: 'Age',
  type: 'string',
  priority: 0,
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  cell: age,
};

const POD_COLUMNS: readonly Column[] = [
  NAME,
  {
    name: 'Ready',
    type: 'string',
    priority: 0,
    description: 'The aggregate readiness state of this pod for accepting traffic.',
    cell: (o) => {
      const statuses = (get(o, 'status', 'containerStatuses') ?? []) as { ready?: boolean }[];
      const total = ((get(o, 'spec', 'containers') ?? []) as unknown[]).length;
      return `${statuses.filter((s) => s.ready).length}/${total}`;
    },
  },
  {
    name: 'Status',
    type: 'string',
    priority: 0,
    description: 'The aggregate status of the containers in this pod.',
    cell: (o) =>
      o.metadata?.deletionTimestamp ? 'Terminating' : ((get(o, 'status', 'reason') ?? get(o, 'status', 'phase') ?? '') as string),
  },
  {
    name: 'Restarts',
    type: 'string',
    priority: 0,
    description: 'The number of times the containers in this pod have been restarted.',
    cell: (o) =>
      String(((get(o, 'status', 'containerStatuses') ?? []) as { restartCount?: number }[]).reduce((n, s) => n + (s.restartCount ?? 0), 0)),
  },
  AGE,
  {
    name: 'IP',
    type: 'string',
    priority: 1,
    description: 'IP address allocated to the pod.',
    cell: (o) => (get(o, 'status', 'podIP') ?? '<none>') as string,
  },
  {
    name: 'Node',
    type: 'string',
    priority: 1,
    description: 'Name of the Node this pod is assigned to.',
    cell: (o) => (get(o, 'spec', 'nodeName') || '<none>') as string,
  },
  {
    name: 'Nominated Node',
    type: 'string',
    priority: 1,
    description: 'Name of the node nominated for preemption.',
    cell: (o) => (get(o, 'status', 'nominatedNodeName') || '<none>') as string,
  },
  {
    name: 'Readiness Gates',
    type: 'string',
    priority: 1,
    description: 'The readiness gates of the pod.',
    cell: (o) => ((get(o, 'spec', 'readinessGates') as unknown[] | undefined)?.length ? '' : '<none>'),
  },
];

const NODE_COLUMNS: readonly Column[] = [
  NAME,
  {
    name: 'Status',
    type: 'string',
    priority: 0,
    description: 'The status of the node',
    cell: (o) => {
      const ready = ((get(o, 'status', 'conditions') ?? []) as { type?: string; status?: string }[]).find((c) => c.type === 'Ready');
      const status = ready?.status === 'True' ? 'Ready' : ready?.status === 'False' ? 'NotReady' : 'Unknown';
      return get(o, 'spec', 'unschedulable') === true ? `${status},SchedulingDisabled` : status;
    },
  },
  {
    name: 'Roles',
    type: 'string',
    priority: 0,
    description: 'The roles of the node',
    cell: (o) => {
      const roles = Object.keys(o.metadata?.labels ?? {})
        .filter((k) => k.startsWith('node-role.kubernetes.io/'))
        .map((k) => k.slice('node-role.kubernetes.io/'.length))
        .sort();
      return roles.length > 0 ? roles.join(',') : '<none>';
    },
  },
  AGE,
  {
    name: 'Version',
    type: 'string',
    priority: 0,
    description: 'Kubelet Version reported by the node.',
    cell: (o) => (get(o, 'status', 'nodeInfo', 'kubeletVersion') ?? '') as string,
  },
];

const NAMESPACE_COLUMNS: readonly Column[] = [
  NAME,
  {
    name: 'Status',
    type: 'string',
    priority: 0,
    description: 'The status of the namespace',
    cell: (o) => (get(o, 'status', 'phase') ?? '') as string,
  },
  AGE,
];

function columnsFor(t: ResourceType): readonly Column[] {
  if (t.group === '' && t.kind === 'Pod') return POD_COLUMNS;
  if (t.group === '' && t.kind === 'Node') return NODE_COLUMNS;
  if (t.group === '' && t.kind === 'Namespace') return NAMESPACE_COLUMNS;
  return [NAME, AGE];
}

/** True when the request asks for a Table (kubectl's human-readable `get`). */
export function wantsTable(accept: string | undefined): boolean {
  return accept !== undefined && /as=Table/.test(accept.split(',')[0] ?? '');
}

function row(obj: KubeObject, columns: readonly Column[], now: number): Json {
  const meta = { ...obj.metadata };
  delete meta.managedFields;
  return {
    cells: columns.map((c) => c.cell(obj, now)),
    object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: meta },
  };
}

/** A Table of `objects`; watches send one per event, with one row. */
export function table(t: ResourceType, objects: readonly KubeObject[], resourceVersion: string, extra: Json = {}): Json {
  const columns = columnsFor(t);
  const now = Date.now();
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion, ...extra },
    columnDefinitions: columns.map((c) => ({
      name: c.name,
      type: c.type,
      format: c.format ?? '',
      description: c.description,
      priority: c.priority,
    })),
    rows: objects.map((o) => row(o, columns, now)),
  };
}
