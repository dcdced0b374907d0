// What the Podplan view container's trees show, as plain nodes: labels, descriptions, icons and
// the arguments their commands take. Free of `vscode` so that a test can read the words; tree.ts
// turns the nodes into tree items. Everything shown comes from the server's answers.
import type { ClusterSummary, PodSetSummary, WorkspaceSummary } from '../../protocol/requests';
import type { HistoryEntryView } from '../../protocol/webview';

export interface ViewNode {
  /** Stable across refreshes (keeps expansion and selection). */
  readonly key: string;
  readonly label: string;
  readonly description?: string;
  readonly tooltip?: string;
  /** A codicon name. */
  readonly icon?: string;
  /** Drives package.json's menus (`viewItem == …`). */
  readonly contextValue?: string;
  readonly children?: readonly ViewNode[];
  /** Expanded at first sight. */
  readonly expanded?: boolean;
  /** Run on click: a command id and its arguments. */
  readonly open?: { readonly command: string; readonly args: readonly unknown[] };
  /** What context-menu and inline commands receive besides the node (a trigger, a plan id, …). */
  readonly args?: Readonly<Record<string, unknown>>;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** `1h 2m 3s` style, whole seconds, for quiet time left. */
export function shortDuration(ms: number): string {
  let seconds = Math.ceil(ms / 1000);
  const h = Math.floor(seconds / 3600);
  seconds -= h * 3600;
  const m = Math.floor(seconds / 60);
  seconds -= m * 60;
  const parts = [h ? `${h}h` : '', m ? `${m}m` : '', seconds || (!h && !m) ? `${seconds}s` : ''];
  return parts.filter(Boolean).join(' ');
}

function quietTimeText(s: PodSetSummary): string | undefined {
  if (s.quietTime === undefined) return undefined;
  if (s.state !== 'Planning') return `${s.quietTime} (the trigger is ${s.state ?? 'not Planning'})`;
  if (s.quietTimeLeftMs === undefined) return `${s.quietTime} after the last pod arrives (no arrival time in the workspace)`;
  return s.quietTimeLeftMs === 0 ? `${s.quietTime}: over, due to turn to Schedule` : `${shortDuration(s.quietTimeLeftMs)} left of ${s.quietTime}`;
}

/** Pod sets with their trigger: state, pods, quiet time left, dependencies. */
export function podSetNodes(summary: WorkspaceSummary, reveal: string): ViewNode[] {
  return summary.podSets.map((s) => {
    const key = `${s.namespace}/${s.name}`;
    const quiet = quietTimeText(s);
    const children: ViewNode[] = [
      { key: `${key}#state`, label: 'State', description: s.trigger ? (s.state ?? '—') : 'no ScheduleTrigger', icon: s.state === 'Schedule' ? 'pass' : 'watch' },
      { key: `${key}#pods`, label: 'Pods', description: `${s.pods}, ${s.pending} to place`, icon: 'symbol-array' },
      ...(quiet !== undefined ? [{ key: `${key}#quiet`, label: 'Quiet time', description: quiet, icon: 'clock' }] : []),
      ...(s.dependsOn ?? []).map((d): ViewNode => {
        const waiting = s.waitingOn?.find((w) => w.startsWith(d));
        return { key: `${key}#dep:${d}`, label: 'Depends on', description: `${d}${waiting ? ' — not complete' : ' — complete'}`, icon: waiting ? 'circle-large-outline' : 'pass-filled', ...(waiting ? { tooltip: waiting } : {}) };
      }),
      ...(s.plan ? [{ key: `${key}#plan`, label: 'SchedulePlan', description: s.plan, icon: 'file' }] : []),
    ];
    const waiting = (s.waitingOn ?? []).length > 0;
    return {
      key,
      label: s.name,
      description: `${s.namespace} · ${s.trigger ? (s.state ?? '') : 'no trigger'} · ${plural(s.pending, 'pod')} to place`,
      tooltip: [`Pod set ${key}`, s.trigger ? `ScheduleTrigger ${s.trigger}: ${s.state ?? ''}` : 'No ScheduleTrigger', ...(s.waitingOn ?? []).map((w) => `Waits on ${w}`)].join('\n'),
      icon: waiting ? 'debug-pause' : s.state === 'Schedule' ? 'rocket' : 'layers',
      contextValue: s.trigger ? (waiting ? 'podSet.trigger.waiting' : 'podSet.trigger') : 'podSet',
      children,
      expanded: true,
      ...(s.trigger ? { open: { command: reveal, args: ['ScheduleTrigger', s.trigger, s.namespace] } } : {}),
      args: { podSet: s.name, namespace: s.namespace, ...(s.trigger ? { trigger: { namespace: s.namespace, name: s.trigger } } : {}) },
    };
  });
}

/** The history grouped by pod set, newest first, each plan with its status. */
export function planNodes(entries: readonly HistoryEntryView[], openPlan: string): ViewNode[] {
  const bySet = new Map<string, HistoryEntryView[]>();
  for (const e of entries) {
    const key = `${e.namespace}/${e.podSet}`;
    const list = bySet.get(key);
    if (list) list.push(e);
    else bySet.set(key, [e]);
  }
  return [...bySet].map(([key, list]) => ({
    key: `set:${key}`,
    label: key,
    description: plural(list.length, 'plan'),
    icon: 'layers',
    expanded: true,
    children: list.map((e, i): ViewNode => {
      const previous = list[i + 1];
      return {
        key: `plan:${e.id}`,
        label: `#${e.id} ${e.status}`,
        description: `${e.placed} placed${e.unplaced ? `, ${e.unplaced} not placed` : ''}${e.evicted ? `, ${e.evicted} evicted` : ''} · ${new Date(e.createdAt).toISOString().replace('T', ' ').slice(0, 19)}`,
        tooltip: `Plan #${e.id} of ${key} (${e.status}) by ${e.planner}, profile ${e.profile}${e.trigger ? `, trigger ${e.trigger}` : ''}`,
        icon: e.status === 'applied' ? 'pass-filled' : e.status === 'superseded' ? 'history' : 'edit',
        contextValue: `plan.${e.status}${previous ? '.comparable' : ''}`,
        open: { command: openPlan, args: [{ id: e.id }] },
        args: { id: e.id, ...(previous ? { from: previous.id, to: e.id } : {}) },
      };
    }),
  }));
}

function percent(part: number, whole: number): string {
  return whole > 0 ? `${Math.round((100 * part) / whole)}%` : '—';
}

/** The source, its nodes (with use) and the pods still to place. */
export function clusterNodes(cluster: ClusterSummary, reveal: string, selectSource?: string): ViewNode[] {
  const byScheduler = new Map<string, ClusterSummary['pending'][number][]>();
  for (const p of cluster.pending) {
    const list = byScheduler.get(p.schedulerName);
    if (list) list.push(p);
    else byScheduler.set(p.schedulerName, [p]);
  }
  return [
    {
      key: 'source',
      label: 'Source',
      description: `${cluster.source.kind === 'workspace' ? 'workspace files' : 'cluster'}: ${cluster.source.name}`,
      icon: cluster.source.kind === 'workspace' ? 'folder' : 'cloud',
      ...(selectSource ? { open: { command: selectSource, args: [] } } : {}),
    },
    ...(cluster.contexts && cluster.contexts.length > 0
      ? [
          {
            key: 'contexts',
            label: 'Contexts',
            description: String(cluster.contexts.length),
            icon: 'list-tree',
            children: cluster.contexts.map((name) => ({
              key: `context:${name}`,
              label: name,
              ...(cluster.source.kind === 'cluster' && cluster.source.name === name ? { description: 'in use' } : {}),
              icon: 'cloud',
              ...(selectSource ? { open: { command: selectSource, args: [{ context: name }] } } : {}),
            })),
          },
        ]
      : []),
    ...(cluster.scheduler
      ? [
          {
            key: 'scheduler',
            label: 'Scheduler',
            description: `${cluster.scheduler.running ? 'running' : 'stopped'} · ${plural(cluster.scheduler.bound, 'pod')} bound · ${cluster.scheduler.pending} pending${cluster.scheduler.errors.length ? ` · ${plural(cluster.scheduler.errors.length, 'error')}` : ''}`,
            tooltip: cluster.scheduler.errors.join('\n'),
            icon: cluster.scheduler.running ? 'sync' : 'debug-stop',
          },
        ]
      : []),
    {
      key: 'nodes',
      label: 'Nodes',
      description: String(cluster.nodes.length),
      icon: 'server',
      children: cluster.nodes.map((n) => ({
        key: `node:${n.name}`,
        label: n.name,
        description: `${plural(n.pods, 'pod')} · cpu ${percent(n.cpu.requested, n.cpu.allocatable)} · memory ${percent(n.memory.requested, n.memory.allocatable)}${n.unschedulable ? ' · cordoned' : ''}`,
        tooltip: Object.entries(n.labels).map(([k, v]) => `${k}=${v}`).join('\n'),
        icon: n.unschedulable ? 'debug-stackframe-dot' : 'vm',
        open: { command: reveal, args: ['Node', n.name] },
      })),
    },
    {
      key: 'pending',
      label: 'Pending pods',
      description: String(cluster.pending.length),
      icon: 'watch',
      expanded: cluster.pending.length <= 50,
      children: [...byScheduler].map(([scheduler, pods]) => ({
        key: `scheduler:${scheduler}`,
        label: scheduler,
        description: plural(pods.length, 'pod'),
        icon: 'symbol-event',
        children: pods.map((p) => ({ key: `pod:${p.namespace}/${p.name}`, label: p.name, description: `${p.namespace}${p.podSet ? ` · ${p.podSet}` : ''}`, icon: 'symbol-method' })),
      })),
    },
  ];
}

/** A tree node passed to a command by a context menu or inline action. */
export function isViewNode(value: unknown): value is ViewNode {
  return typeof value === 'object' && value !== null && typeof (value as ViewNode).key === 'string' && typeof (value as ViewNode).label === 'string';
}
