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

/** The quiet time: a short description that fits the tree, and the whole story for the tooltip. */
function quietTimeText(s: PodSetSummary): { short: string; long: string } | undefined {
  if (s.quietTime === undefined) return undefined;
  if (s.state !== 'Planning')
    return {
      short: `${s.quietTime} (not counting)`,
      long: `Quiet time ${s.quietTime}: not counting, the trigger is ${s.state ?? 'not Planning'}.`,
    };
  if (s.quietTimeLeftMs === undefined)
    return {
      short: `${s.quietTime} after the last pod`,
      long: `Quiet time ${s.quietTime} after the last pod of the set arrives; no pod in the workspace has an arrival time (creationTimestamp).`,
    };
  if (s.quietTimeLeftMs === 0)
    return { short: `${s.quietTime}: over`, long: `Quiet time ${s.quietTime}: over; the trigger is due to turn to Schedule.` };
  const left = shortDuration(s.quietTimeLeftMs);
  return { short: `${left} left of ${s.quietTime}`, long: `Quiet time ${s.quietTime}: ${left} left before the trigger turns to Schedule.` };
}

/** What the set's pods wait for: placing, or (scheduled) binding to the planned nodes. */
function podsText(s: PodSetSummary): string {
  const planned = s.planned ?? 0;
  if (planned > 0 && s.pending === 0) return `${planned} planned`;
  return planned > 0 ? `${planned} planned, ${s.pending} to place` : `${s.pending} to place`;
}

/** Pod sets with their trigger: state, pods, quiet time left, dependencies. Descriptions stay short; tooltips say the rest. */
export function podSetNodes(summary: WorkspaceSummary, reveal: string): ViewNode[] {
  return summary.podSets.map((s) => {
    const key = `${s.namespace}/${s.name}`;
    const quiet = quietTimeText(s);
    const stateText = s.invalidState !== undefined ? `${s.invalidState} (invalid)` : (s.state ?? '—');
    const stateTip =
      s.invalidState !== undefined
        ? `spec.state "${s.invalidState}" is not a state (Planning or Schedule); it is read as ${s.state ?? 'Planning'}. The quick fix on it (Ctrl+.) corrects it.`
        : `ScheduleTrigger ${s.trigger ?? ''}: ${s.state ?? ''}`;
    const children: ViewNode[] = [
      {
        key: `${key}#state`,
        label: 'State',
        description: s.trigger ? stateText : 'no ScheduleTrigger',
        tooltip: s.trigger ? stateTip : `No ScheduleTrigger selects pod set ${key}.`,
        icon: s.invalidState !== undefined ? 'error' : s.state === 'Schedule' ? 'pass' : 'watch',
      },
      {
        key: `${key}#pods`,
        label: 'Pods',
        description: `${s.pods}: ${podsText(s)}`,
        tooltip: `${plural(s.pods, 'pod')} in the set; ${s.planned ? `${s.planned} placed by the SchedulePlan, waiting to be bound; ` : ''}${s.pending} not placed yet.`,
        icon: 'symbol-array',
      },
      ...(quiet !== undefined
        ? [{ key: `${key}#quiet`, label: 'Quiet time', description: quiet.short, tooltip: quiet.long, icon: 'clock' }]
        : []),
      ...(s.dependsOn ?? []).map((d): ViewNode => {
        const waiting = s.waitingOn?.find((w) => w.startsWith(d));
        const name = d.replace(/^ScheduleTrigger /, '');
        return {
          key: `${key}#dep:${d}`,
          label: 'Depends on',
          description: `${name}: ${waiting ? 'waiting' : 'complete'}`,
          tooltip: waiting ?? `${d}: complete`,
          icon: waiting ? 'circle-large-outline' : 'pass-filled',
        };
      }),
      ...(s.plan
        ? [
            {
              key: `${key}#plan`,
              label: 'SchedulePlan',
              description: s.plan,
              tooltip: `SchedulePlan ${s.namespace}/${s.plan}`,
              icon: 'file',
            },
          ]
        : []),
    ];
    const waiting = (s.waitingOn ?? []).length > 0;
    return {
      key,
      label: s.name,
      description: `${s.trigger ? stateText : 'no trigger'} · ${podsText(s)}`,
      tooltip: [
        `Pod set ${key} (namespace ${s.namespace})`,
        s.trigger ? stateTip : 'No ScheduleTrigger',
        `${plural(s.pods, 'pod')}: ${podsText(s)}`,
        ...(s.waitingOn ?? []).map((w) => `Waits on ${w}`),
      ].join('\n'),
      icon: s.invalidState !== undefined ? 'error' : waiting ? 'debug-pause' : s.state === 'Schedule' ? 'rocket' : 'layers',
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
      const counts = `${e.placed} placed${e.unplaced ? `, ${e.unplaced} not placed` : ''}${e.evicted ? `, ${e.evicted} evicted` : ''}`;
      const made = new Date(e.createdAt).toISOString().replace('T', ' ').slice(0, 19);
      return {
        key: `plan:${e.id}`,
        label: `#${e.id} ${e.status}`,
        description: `${counts} · ${made}`,
        // The side bar cuts the description (the time first): the tooltip says all of it.
        tooltip: `Plan #${e.id} of ${key} (${e.status}), made ${made} UTC by ${e.planner}, profile ${e.profile}${e.trigger ? `, trigger ${e.trigger}` : ''}: ${counts}`,
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
        tooltip: Object.entries(n.labels)
          .map(([k, v]) => `${k}=${v}`)
          .join('\n'),
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
        children: pods.map((p) => ({
          key: `pod:${p.namespace}/${p.name}`,
          label: p.name,
          description: `${p.namespace}${p.podSet ? ` · ${p.podSet}` : ''}`,
          icon: 'symbol-method',
        })),
      })),
    },
  ];
}

/** A tree node passed to a command by a context menu or inline action. */
export function isViewNode(value: unknown): value is ViewNode {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ViewNode).key === 'string' &&
    typeof (value as ViewNode).label === 'string'
  );
}
