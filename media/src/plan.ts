// The plan view: the node map (every node of the cluster, filtered, sorted and coloured as the user
// asks, with the selected node's detail), the unplaced pods grouped by reason, and the stage funnel
// of the whole pod set.
import type {
  DeviceUseView,
  NodeUseView,
  PlanBoundView,
  PlanRefView,
  PlanView,
  ResourceUseView,
  UnplacedGroupView,
} from '../../src/protocol/webview';
import { button, h, section, type Child } from './dom';
import { tabs } from './elements';
import { formatAmount } from '../../src/protocol/amounts';
import { barShares, formatTime, plural, usageText } from './format';
import { renderFunnel } from './funnel';
import { header, link, podChip, podLink, post } from './host';
import { bandOf, NO_PODS, nodeMap, OTHER_OWNERS, ownerPalette, type Colouring } from './node-map';
import { renderPods } from './pods';
import { parseQuery, sortNodes, usePercent, type NodeOrder } from './query';
import type { ViewContext } from './state';

/** A node's use of one resource as a bar: bound pods, the pods placed before the plan, then planned pods, cut at allocatable. */
export function bar(use: ResourceUseView): HTMLElement {
  const shares = barShares(use);
  const requested = h('span', { class: 'requested' });
  requested.style.width = `${shares.requested}%`;
  const before = h('span', { class: 'before' });
  before.style.width = `${shares.before}%`;
  const planned = h('span', { class: 'planned' });
  planned.style.width = `${shares.planned}%`;
  const text = usageText(use);
  return h(
    'div',
    {
      class: `use${shares.over ? ' over' : ''}`,
      title: `${use.resource}: ${formatAmount(use.requested, use.unit, 'words')} bound, ${use.before !== undefined ? `${formatAmount(use.before, use.unit, 'words')} placed before the plan, ` : ''}${formatAmount(use.planned, use.unit, 'words')} planned, ${formatAmount(use.allocatable, use.unit, 'words')} allocatable`,
    },
    h('span', { class: 'resource' }, use.resource),
    h('span', { class: 'amount' }, text),
    h('span', { class: 'bar', role: 'img', 'aria-label': `${use.resource} ${text}` }, requested, before, planned),
  );
}

/** A node's devices of one DeviceClass as a bar: held by the cluster's claims, then taken by the plan's pods, of all there are. */
function deviceBar(d: DeviceUseView): HTMLElement {
  const el = bar({ resource: d.deviceClass, unit: 'count', allocatable: d.total, requested: d.allocated, planned: d.planned });
  el.classList.add('devices');
  el.title = `${d.deviceClass}: ${plural(d.total, 'device')}, ${d.allocated} allocated, ${d.planned} planned, ${d.total - d.allocated - d.planned} free`;
  return el;
}

/** The plan a pod of this view is explained in: the stored one, else the pod set's preview. */
/** How long the search waits after the last key before it filters (a burst of keys costs one filter). */
const SEARCH_PAUSE_MS = 150;

function planRef(plan: PlanView): PlanRefView {
  return {
    podSet: plan.podSet,
    ...(plan.trigger !== undefined ? { trigger: plan.trigger } : {}),
    ...(plan.historyId !== undefined ? { historyId: plan.historyId } : {}),
  };
}

function describe(n: NodeUseView): string {
  const use = ['cpu', 'memory', 'pods'].map((r) => `${r} ${Math.round(usePercent(n, r))}%`).join(', ');
  return `${n.node}${n.zone !== undefined ? `, zone ${n.zone}` : ''}: ${use}; ${plural(n.pods.length, 'pod')} planned${n.unschedulable ? ', cordoned' : ''}`;
}

function nodeDetail(n: NodeUseView, namespace: string, inPlan: PlanRefView): HTMLElement {
  const labels = Object.entries(n.labels);
  return h(
    'div',
    { class: 'node-detail', 'aria-live': 'polite' },
    h('h3', {}, link(n.node, 'Node', n.node), n.unschedulable === true && h('span', { class: 'badge' }, 'cordoned')),
    h(
      'p',
      { class: 'facts' },
      n.zone !== undefined ? `zone ${n.zone} · ` : '',
      `${plural(n.bound, 'pod')} bound · ${n.before ? `${plural(n.before.length, 'pod')} placed before the plan · ` : ''}${plural(n.pods.length, 'pod')} planned`,
    ),
    ...n.resources.map(bar),
    (n.devices ?? []).length > 0 && h('h4', {}, 'Devices (DRA)'),
    ...(n.devices ?? []).map(deviceBar),
    n.before !== undefined && h('h4', {}, 'Placed before the plan (other sets’ plans)'),
    n.before !== undefined && h('ul', { class: 'pods before-pods' }, ...n.before.map((p) => h('li', {}, h('code', {}, p)))),
    n.owners.length > 0 && h('h4', {}, 'Planned pods by owner'),
    ...n.owners.map((o) =>
      h(
        'div',
        { class: 'owner' },
        h('p', { class: 'owner-name' }, o.owner || '(no owner)', h('span', { class: 'count' }, ` ${o.pods.length}`)),
        h('ul', { class: 'pods' }, ...o.pods.map((p) => h('li', {}, podChip(namespace, p, inPlan)))),
      ),
    ),
    labels.length > 0 &&
      h(
        'details',
        {},
        h('summary', {}, plural(labels.length, 'label')),
        h('ul', { class: 'labels' }, ...labels.map(([k, v]) => h('li', {}, h('code', {}, `${k}=${v}`)))),
      ),
  );
}

function legend(colouring: Colouring, palette: ReturnType<typeof ownerPalette>): HTMLElement {
  const swatch = (variable: string): HTMLElement => {
    const el = h('span', { class: 'swatch' });
    el.style.background = `var(${variable})`;
    return el;
  };
  if (colouring === 'owner') {
    return h(
      'p',
      { class: 'legend' },
      'Tile: owner with the most planned pods on the node. ',
      ...palette.top.flatMap(([o, c, colour]) => [swatch(colour), ` ${o || '(no owner)'} (${c.toLocaleString('en')}) `]),
      swatch(OTHER_OWNERS),
      ' other owners ',
      swatch(NO_PODS),
      ' none planned; search owner:name to find one.',
    );
  }
  return h(
    'p',
    { class: 'legend' },
    `Tile: ${colouring} used (bound, placed before and planned) of allocatable. `,
    swatch(bandOf(10)),
    ' under 50% ',
    swatch(bandOf(60)),
    ' 50–75% ',
    swatch(bandOf(80)),
    ' 75–90% ',
    swatch(bandOf(95)),
    ' 90% or more ',
    swatch(NO_PODS),
    ' nothing running or planned; struck through: over 100% or cordoned; dot: the plan puts pods there.',
  );
}

/** Labels that name a node pool on the common clouds and tools, the first one a node carries. */
const POOL_LABELS = [
  'karpenter.sh/nodepool',
  'cloud.google.com/gke-nodepool',
  'eks.amazonaws.com/nodegroup',
  'kubernetes.azure.com/agentpool',
  'agentpool',
  'node-pool',
  'nodepool',
  'pool',
];
const ZONE_LABEL = 'topology.kubernetes.io/zone';

/** What the map can be grouped by: none, zone, pool (when a pool label is there), any other label with a few values. */
function groupings(nodes: readonly NodeUseView[]): Array<readonly [value: string, text: string]> {
  const values = new Map<string, Set<string>>();
  for (const n of nodes) for (const [k, v] of Object.entries(n.labels)) (values.get(k) ?? values.set(k, new Set()).get(k))?.add(v);
  const out: Array<readonly [string, string]> = [['none', 'no grouping']];
  if (nodes.some((n) => n.zone !== undefined)) out.push(['zone', 'by zone']);
  if (POOL_LABELS.some((k) => values.has(k))) out.push(['pool', 'by node pool']);
  const others = [...values]
    .filter(([k, v]) => k !== ZONE_LABEL && !POOL_LABELS.includes(k) && k !== 'kubernetes.io/hostname' && v.size >= 2 && v.size <= 100)
    .map(([k]) => k)
    .sort();
  for (const k of others) out.push([`label:${k}`, `by label ${k}`]);
  return out;
}

/** The group a node falls in, by the grouping's key. */
function groupOf(n: NodeUseView, grouping: string): string {
  if (grouping === 'zone') return n.zone ?? '(no zone)';
  if (grouping === 'pool') {
    const key = POOL_LABELS.find((k) => n.labels[k] !== undefined);
    return key ? (n.labels[key] ?? '') : '(no pool label)';
  }
  if (grouping.startsWith('label:')) return n.labels[grouping.slice('label:'.length)] ?? '(not labelled)';
  return '';
}

/** A group's summary: its nodes, the pods the plan puts there, and its cpu and memory in use (bound + placed before + planned) of allocatable. */
function groupSummary(name: string, nodes: readonly NodeUseView[]): string {
  const sum = (resource: string, field: 'allocatable' | 'requested' | 'before' | 'planned') =>
    nodes.reduce((t, n) => t + (n.resources.find((r) => r.resource === resource)?.[field] ?? 0), 0);
  const percent = (resource: string) => {
    const allocatable = sum(resource, 'allocatable');
    return allocatable > 0
      ? `${Math.round(((sum(resource, 'requested') + sum(resource, 'before') + sum(resource, 'planned')) / allocatable) * 100)}%`
      : '—';
  };
  const planned = nodes.reduce((t, n) => t + n.pods.length, 0);
  return `${name}: ${nodes.length.toLocaleString('en')} node${nodes.length === 1 ? '' : 's'}, ${planned.toLocaleString('en')} pod${planned === 1 ? '' : 's'} planned, cpu ${percent('cpu')} and memory ${percent('memory')} in use`;
}

function mapTab(plan: PlanView, ctx: ViewContext): HTMLElement {
  const ui = ctx.ui;
  let query = typeof ui['query'] === 'string' ? ui['query'] : '';
  let order = (typeof ui['order'] === 'string' ? ui['order'] : 'name') as NodeOrder;
  let colouring = (typeof ui['colouring'] === 'string' ? ui['colouring'] : 'cpu') as Colouring;
  let selected = typeof ui['node'] === 'string' ? ui['node'] : undefined;
  const groupChoices = groupings(plan.nodes);
  let grouping = typeof ui['group'] === 'string' && groupChoices.some(([v]) => v === ui['group']) ? ui['group'] : 'none';
  const byName = new Map(plan.nodes.map((n) => [n.node, n]));
  const detail = h('aside', { class: 'detail', 'aria-label': 'Selected node' });
  const count = h('span', { class: 'count', role: 'status' });
  const legendSlot = h('div', {});
  const mapsSlot = h('div', { class: 'maps' });
  const palette = ownerPalette(plan.nodes);
  const makeMap = (label: string) => nodeMap(label, { describe, ownerColour: palette.colourOf, onSelect: (n) => select(n.node) });
  const whole = makeMap(`Node map of ${plan.nodes.length} nodes; arrow keys move, Enter shows a node`);
  let maps = [whole];
  const select = (node: string | undefined): void => {
    selected = node;
    ctx.save({ node });
    for (const m of maps) m.select(node);
    const n = node !== undefined ? byName.get(node) : undefined;
    detail.replaceChildren(
      n
        ? nodeDetail(n, plan.namespace, planRef(plan))
        : h('p', { class: 'empty' }, 'Choose a node on the map to see its resources and planned pods.'),
    );
  };
  const apply = (): void => {
    const predicate = parseQuery(query);
    const shown = sortNodes(predicate ? plan.nodes.filter(predicate) : plan.nodes, order);
    count.textContent = `${shown.length.toLocaleString('en')} of ${plan.nodes.length.toLocaleString('en')} nodes`;
    legendSlot.replaceChildren(legend(colouring, palette));
    if (grouping === 'none') {
      maps = [whole];
      mapsSlot.replaceChildren(whole.element);
      whole.show(shown, colouring);
    } else {
      // One map per group, named and summed up; groups by name, nodes in the chosen order within each.
      const groups = new Map<string, NodeUseView[]>();
      for (const n of shown) {
        const g = groupOf(n, grouping);
        (groups.get(g) ?? groups.set(g, []).get(g))?.push(n);
      }
      const sections = [...groups].sort(([a], [b]) => a.localeCompare(b));
      maps = sections.map(([name, nodes]) => makeMap(`Node map of ${name}: ${nodes.length} nodes; arrow keys move, Enter shows a node`));
      mapsSlot.replaceChildren(
        ...sections.map(([name, nodes], i) =>
          h(
            'section',
            { class: 'map-group' },
            h('h3', { class: 'group-summary' }, groupSummary(name, nodes)),
            (maps[i] as (typeof maps)[number]).element,
          ),
        ),
      );
      sections.forEach(([, nodes], i) => maps[i]?.show(nodes, colouring));
    }
    for (const m of maps) m.select(selected);
  };

  const search = h('vscode-textfield', {
    placeholder: 'name, pod, zone:z1, owner:web, key=value, cpu>80',
    'aria-label': 'Filter nodes by name, pod, zone, owner, label or resource use',
    class: 'search',
  });
  search.value = query;
  // Typing only records the query: the filter, sort and redraw run once the keys pause (off the
  // keystroke path), so a key is never waiting behind 5,000 tiles, and a burst of keys costs one run.
  let pending: ReturnType<typeof setTimeout> | undefined;
  search.addEventListener('input', () => {
    query = search.value;
    if (pending !== undefined) clearTimeout(pending);
    pending = setTimeout(() => {
      pending = undefined;
      ctx.save({ query });
      apply();
    }, SEARCH_PAUSE_MS);
  });
  const choose = (
    label: string,
    options: ReadonlyArray<readonly [string, string]>,
    value: string,
    onChange: (v: string) => void,
  ): HTMLElement => {
    const el = h('vscode-single-select', { 'aria-label': label, title: label });
    for (const [v, text] of options) el.append(h('vscode-option', { value: v }, text));
    el.value = value;
    el.addEventListener('change', () => onChange(el.value));
    return h('label', { class: 'field' }, h('span', {}, label), el);
  };
  const sortSelect = choose(
    'Sort',
    [
      ['name', 'by name'],
      ['zone', 'by zone'],
      ['cpu', 'by cpu use'],
      ['memory', 'by memory use'],
      ['pods', 'by pod count'],
      ['planned', 'by planned pods'],
    ],
    order,
    (v) => {
      order = v as NodeOrder;
      ctx.save({ order });
      apply();
    },
  );
  const colourSelect = choose(
    'Colour',
    [
      ['cpu', 'cpu use'],
      ['memory', 'memory use'],
      ['pods', 'pod count'],
      ['owner', 'owner of planned pods'],
    ],
    colouring,
    (v) => {
      colouring = v as Colouring;
      ctx.save({ colouring });
      apply();
    },
  );
  const groupSelect = choose('Group', groupChoices, grouping, (v) => {
    grouping = v;
    ctx.save({ group: v });
    apply();
  });
  // The maps take the panel's whole width; the selected node's detail sits above them.
  const view = h(
    'div',
    { class: 'map-view' },
    h('div', { class: 'toolbar' }, search, sortSelect, groupSelect, colourSelect, count),
    legendSlot,
    detail,
    mapsSlot,
  );
  apply();
  select(selected);
  return view;
}

function groupCard(g: UnplacedGroupView, namespace: string, inPlan: PlanRefView): HTMLElement {
  const where = [g.stage, g.plugin].filter((x): x is string => Boolean(x)).join(' · ');
  const shown = g.pods.slice(0, 40);
  const list = h(
    'ul',
    { class: 'chips', 'aria-label': `Pods not placed: ${g.reason}` },
    ...shown.map((p) => h('li', {}, podChip(namespace, p, inPlan))),
  );
  const card = h(
    'div',
    { class: 'unplaced', role: 'group', 'aria-label': `${plural(g.pods.length, 'pod')}: ${g.reason}` },
    h(
      'h3',
      {},
      h('span', { class: 'reason' }, g.reason),
      where && h('span', { class: 'badge', title: 'The stage and plugin that stopped the pods' }, where),
      h('span', { class: 'count' }, plural(g.pods.length, 'pod')),
    ),
    h('p', { class: 'message' }, g.message),
    list,
  );
  if (g.pods.length > shown.length) {
    const more = button(
      `Show all ${g.pods.length}`,
      'List every pod of this group',
      () => {
        list.replaceChildren(...g.pods.map((p) => h('li', {}, podChip(namespace, p, inPlan))));
        more.remove();
      },
      'action small',
    );
    card.append(more);
  }
  return card;
}

/** A plan's bound among its facts, as podplan plan prints it. */
export function boundText(bound: PlanBoundView): string {
  return `bound (${bound.solver}): ${bound.text}`;
}

/** Where the bound goes while the server proves it (the plan is shown without waiting for the solver). */
const BOUND_COMING = 'bound: the solver is proving it…';

/** The bound the facts said was coming: its text there, or the placeholder gone when the solver proved none. */
export function showBound(root: ParentNode, token: string, bound: PlanBoundView | undefined): void {
  for (const pending of root.querySelectorAll(`.bound-pending[data-bound="${CSS.escape(token)}"]`)) {
    if (bound) {
      pending.textContent = boundText(bound);
      pending.classList.remove('bound-pending');
      pending.removeAttribute('data-bound');
    } else {
      // The separator before it goes with it.
      if (pending.previousSibling?.textContent === ' · ') pending.previousSibling.remove();
      pending.remove();
    }
  }
}

export function renderPlan(plan: PlanView, ctx: ViewContext): HTMLElement[] {
  const facts: Child[] = [
    `namespace ${plan.namespace}`,
    plan.trigger !== undefined && `trigger ${plan.trigger}`,
    `planner ${plan.planner}`,
    `profile ${plan.profile}`,
    formatTime(plan.createdAt),
    plan.historyId !== undefined && `history #${plan.historyId}`,
    plan.historyError !== undefined && h('span', { class: 'bad', role: 'alert' }, plan.historyError),
    plan.bound !== undefined
      ? boundText(plan.bound)
      : plan.boundPending !== undefined &&
        h('span', { class: 'bound-pending', role: 'status', 'data-bound': plan.boundPending }, BOUND_COMING),
  ];
  const actions = [button('Re-run preview', 'Plan the pod set again on the current workspace', () => post({ type: 'refresh' }))];
  const trigger = plan.trigger;
  if (trigger !== undefined)
    actions.push(
      button('Schedule now', `Set ${trigger} to Schedule and write its plan`, () =>
        post({ type: 'scheduleNow', namespace: plan.namespace, trigger }),
      ),
    );
  const used = plan.nodes.filter((n) => n.pods.length > 0).length;
  const summary = h(
    'p',
    { class: 'summary' },
    h('strong', {}, plural(plan.assignments.length, 'pod')),
    ' placed on ',
    h('strong', {}, plural(used, 'node')),
    ` of ${plan.nodes.length.toLocaleString('en')}, `,
    h('strong', { class: plan.unplaced.length > 0 ? 'bad' : '' }, `${plan.unplaced.length}`),
    ' not placed',
  );
  const selectedTab =
    typeof ctx.ui['tab'] === 'string' ? ctx.ui['tab'] : plan.unplaced.length > 0 && plan.nodes.length === 0 ? 'unplaced' : 'map';
  const pages = [
    { id: 'map', title: `Node map (${plan.nodes.length.toLocaleString('en')})`, body: () => mapTab(plan, ctx) },
    { id: 'pods', title: `Pods (${plan.assignments.length.toLocaleString('en')})`, body: () => renderPods(plan, planRef(plan), ctx) },
    {
      id: 'unplaced',
      title: `Not placed (${plan.unplaced.length.toLocaleString('en')})`,
      body: () =>
        plan.unplacedGroups.length > 0
          ? section(
              `${plural(plan.unplacedGroups.length, 'reason')} for ${plural(plan.unplaced.length, 'pod')}`,
              ...plan.unplacedGroups.map((g) => groupCard(g, plan.namespace, planRef(plan))),
            )
          : h('p', { class: 'empty' }, 'Every pod of the set is placed.'),
    },
    {
      id: 'funnel',
      title: 'Funnel',
      body: () =>
        renderFunnel(
          plan.funnel,
          plan.namespace,
          typeof ctx.ui['step'] === 'number' ? ctx.ui['step'] : undefined,
          (step) => ctx.save({ step }),
          planRef(plan),
        ),
    },
  ];
  // A plan that evicts says so before anything else (the profile lets plans preempt).
  const victims = plan.victims ?? [];
  const evicts =
    victims.length > 0 &&
    h(
      'p',
      { class: 'callout bad', role: 'note' },
      `This plan evicts ${plural(victims.length, 'running pod')}: `,
      ...victims.flatMap((v, i) => [i > 0 ? ', ' : '', podLink(v.pod), ` from ${v.node} for ${v.by}`]),
      '.',
    );
  return [
    header(`Plan for ${plan.podSet}`, facts, ...actions),
    summary,
    evicts || undefined,
    tabs('Plan views', pages, selectedTab, (tab) => ctx.save({ tab })),
  ].filter((e): e is HTMLElement => e !== undefined);
}
