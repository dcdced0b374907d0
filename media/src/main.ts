// The plan preview webview: renders the view model the extension sends and posts back what the
// user asks for. It computes nothing the engine owns (DESIGN.md, Process view); media/src/format.ts
// only prints numbers.
import type {
  HistoryEntryView,
  HostToWebview,
  NodeUseView,
  ObjectKindView,
  PlanDiffView,
  PlanView,
  PodExplanationView,
  ResourceUseView,
  UnplacedView,
  WebviewToHost,
} from '../../src/protocol/webview';
import { button, h, section, table, type Child } from './dom';
import { barShares, formatAmount, formatTime, plural, usageText } from './format';

interface VsCodeApi {
  postMessage(message: WebviewToHost): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const post = (message: WebviewToHost) => vscode.postMessage(message);

function link(label: string, kind: ObjectKindView, name: string, namespace?: string): HTMLAnchorElement {
  const a = h('a', { href: '#', class: 'ref', title: `Open ${kind} ${namespace ? `${namespace}/` : ''}${name} in the editor` }, label);
  a.addEventListener('click', (e) => {
    e.preventDefault();
    post({ type: 'reveal', kind, name, ...(kind === 'Node' ? {} : namespace !== undefined ? { namespace } : {}) });
  });
  return a;
}

const explain = (namespace: string, pod: string) => button('Explain', `Why ${pod} goes where it goes`, () => post({ type: 'explainPod', namespace, pod }), 'action small');

function header(title: string, facts: readonly Child[], ...actions: HTMLElement[]): HTMLElement {
  return h('header', {}, h('h1', {}, title), h('p', { class: 'facts' }, ...facts.flatMap((f, i) => (i === 0 ? [f] : [' · ', f]))), h('div', { class: 'actions' }, ...actions));
}

function bar(use: ResourceUseView): HTMLElement {
  const shares = barShares(use);
  const requested = h('span', { class: 'requested' });
  requested.style.width = `${shares.requested}%`;
  const planned = h('span', { class: 'planned' });
  planned.style.width = `${shares.planned}%`;
  const text = usageText(use);
  return h(
    'div',
    { class: `use${shares.over ? ' over' : ''}`, title: `${use.resource}: ${formatAmount(use.unit, use.requested)} bound, ${formatAmount(use.unit, use.planned)} planned, ${formatAmount(use.unit, use.allocatable)} allocatable` },
    h('span', { class: 'resource' }, use.resource),
    h('span', { class: 'amount' }, text),
    h('span', { class: 'bar', role: 'img', 'aria-label': `${use.resource} ${text}` }, requested, planned),
  );
}

function nodeCard(node: NodeUseView, namespace: string): HTMLElement {
  const pods = h('ul', { class: 'pods' }, ...node.pods.map((p) => h('li', {}, link(p, 'Pod', p, namespace))));
  return h('div', { class: 'node' }, h('h3', {}, link(node.node, 'Node', node.node), h('span', { class: 'count' }, ` ${plural(node.pods.length, 'pod')} planned`)), ...node.resources.map(bar), pods);
}

function unplacedCard(u: UnplacedView, namespace: string): HTMLElement {
  const where = [u.stage, u.plugin].filter((x): x is string => Boolean(x)).join(' · ');
  return h(
    'div',
    { class: 'unplaced' },
    h('h3', {}, link(u.pod, 'Pod', u.pod, namespace), where && h('span', { class: 'badge', title: 'The stage and plugin that stopped the pod' }, where), explain(namespace, u.pod)),
    h('p', { class: 'reason' }, u.reason),
    h('p', { class: 'message' }, u.message),
    u.reasons.length > 0 && h('ul', { class: 'reasons' }, ...u.reasons.map((r) => h('li', {}, h('span', { class: 'n' }, `${r.nodes} ×`), ` ${r.reason}`))),
  );
}

function renderPlan(plan: PlanView): HTMLElement[] {
  const facts: Child[] = [
    `namespace ${plan.namespace}`,
    plan.trigger !== undefined && `trigger ${plan.trigger}`,
    `planner ${plan.planner}`,
    `profile ${plan.profile}`,
    formatTime(plan.createdAt),
    plan.historyId !== undefined && `history #${plan.historyId}`,
  ].filter((f) => f !== false);
  const actions = [button('Re-run preview', 'Plan the pod set again on the current workspace', () => post({ type: 'refresh' }))];
  const trigger = plan.trigger;
  if (trigger !== undefined) actions.push(button('Schedule now', `Set ${trigger} to Schedule and write its plan`, () => post({ type: 'scheduleNow', namespace: plan.namespace, trigger })));
  const summary = h('p', { class: 'summary' }, h('strong', {}, plural(plan.assignments.length, 'pod')), ' placed, ', h('strong', { class: plan.unplaced.length > 0 ? 'bad' : '' }, `${plan.unplaced.length}`), ' not placed');
  const out = [header(`Plan for ${plan.podSet}`, facts, ...actions), summary];
  if (plan.unplaced.length > 0) out.push(section('Not placed', ...plan.unplaced.map((u) => unplacedCard(u, plan.namespace))));
  if (plan.nodes.length > 0) out.push(section('Nodes', h('p', { class: 'legend' }, h('span', { class: 'swatch requested' }), ' bound pods ', h('span', { class: 'swatch planned' }), ' planned pods ', h('span', { class: 'swatch over' }), ' planned beyond allocatable'), h('div', { class: 'nodes' }, ...plan.nodes.map((n) => nodeCard(n, plan.namespace)))));
  if (plan.assignments.length > 0) {
    const rows = plan.assignments.map((a) => [link(a.pod, 'Pod', a.pod, plan.namespace), link(a.node, 'Node', a.node), a.score === undefined ? '' : String(a.score), explain(plan.namespace, a.pod)]);
    out.push(section('Assignments', table(['Pod', 'Node', 'Score', ''], rows)));
  }
  return out;
}

function renderExplanation(x: PodExplanationView): HTMLElement[] {
  const node = (name: string | undefined) => (name === undefined ? '—' : link(name, 'Node', name));
  const facts: Child[] = [`namespace ${x.namespace}`, x.podSet !== undefined && `pod set ${x.podSet}`, `scheduler ${x.schedulerName}`, `profile ${x.profile}`].filter((f) => f !== false);
  const out = [header(`Why ${x.pod}`, facts, button('Open pod', 'Open the pod in the editor', () => post({ type: 'reveal', kind: 'Pod', namespace: x.namespace, name: x.pod })), button('Re-run', 'Explain again on the current workspace', () => post({ type: 'refresh' })))];
  out.push(
    h(
      'dl',
      { class: 'verdict' },
      h('dt', {}, 'Requests'),
      h('dd', {}, x.requests.map((r) => `${r.resource} ${formatAmount(r.unit, r.amount)}`).join(', ') || 'none'),
      h('dt', {}, 'Chosen now'),
      h('dd', {}, node(x.chosenNode)),
      h('dt', {}, 'In the plan'),
      h('dd', {}, node(x.plannedNode)),
      h('dt', {}, 'Bound to'),
      h('dd', {}, node(x.boundNode)),
      h('dt', {}, 'Nodes'),
      h('dd', {}, `${x.nodes.feasible} feasible of ${x.nodes.evaluated} evaluated (${x.nodes.total} in the cluster)`),
    ),
  );
  if (x.message !== undefined) out.push(h('p', { class: 'message' }, x.message));
  if (x.filters.length > 0) out.push(section('Filters', table(['Plugin', 'Evaluated', 'Passed'], x.filters.map((f) => [f.plugin, String(f.evaluated), String(f.passed)]))));
  if (x.rejections.length > 0) out.push(section('Rejections', table(['Stage', 'Plugin', 'Reason', 'Nodes'], x.rejections.map((r) => [r.stage, r.plugin, r.reason, h('span', { class: 'nodelist' }, ...r.nodes.flatMap((n, i) => (i === 0 ? [link(n, 'Node', n)] : [', ', link(n, 'Node', n)])))]))));
  if (x.scores.length > 0) {
    const plugins = (s: PodExplanationView['scores'][number]) => s.plugins.map((p) => `${p.plugin} ${p.normalized}×${p.weight}`).join(', ');
    out.push(section('Scores', table(['Node', 'Total', 'Plugins (normalized × weight)'], x.scores.map((s) => [link(s.node, 'Node', s.node), String(s.total), plugins(s)]))));
  }
  return out;
}

function renderHistory(entries: readonly HistoryEntryView[], next: number | undefined): HTMLElement[] {
  const picked = new Set<number>();
  const compare = button('Compare selected', 'Compare the two selected plans (older → newer)', () => {
    const [a, b] = [...picked].sort((x, y) => x - y);
    if (a !== undefined && b !== undefined) post({ type: 'comparePlans', from: a, to: b });
  });
  compare.disabled = true;
  const rows = entries.map((e) => {
    const box = h('input', { type: 'checkbox', title: `Select #${e.id} to compare` });
    box.addEventListener('change', () => {
      if (box.checked) picked.add(e.id);
      else picked.delete(e.id);
      compare.disabled = picked.size !== 2;
    });
    const open = h('a', { href: '#', class: 'ref', title: `Open plan #${e.id}` }, `#${e.id}`);
    open.addEventListener('click', (ev) => {
      ev.preventDefault();
      post({ type: 'openPlan', id: e.id });
    });
    return [box, open, `${e.namespace}/${e.podSet}`, e.trigger ?? '', e.planner, h('span', { class: `status ${e.status}` }, e.status), formatTime(e.createdAt), String(e.placed), h('span', { class: e.unplaced > 0 ? 'bad' : '' }, String(e.unplaced))];
  });
  const more = next;
  const out = [header('Plan history', [plural(entries.length, 'plan')], compare), entries.length > 0 ? table(['', 'Plan', 'Pod set', 'Trigger', 'Planner', 'Status', 'Created', 'Placed', 'Not placed'], rows) : h('p', { class: 'empty' }, 'No plans stored yet.')];
  if (more !== undefined) out.push(h('div', { class: 'actions' }, button('Older plans', 'Load older plans', () => post({ type: 'moreHistory', before: more }))));
  return out;
}

function renderDiff(d: PlanDiffView): HTMLElement[] {
  const name = (e: HistoryEntryView) => `#${e.id} (${formatTime(e.createdAt)})`;
  const out = [header(`${d.to.namespace}/${d.to.podSet}: ${name(d.from)} → ${name(d.to)}`, [`${d.unchanged} unchanged`, `${d.stillUnplaced} still not placed`])];
  const pod = (p: string) => link(p, 'Pod', p, d.to.namespace);
  const list = (title: string, rows: ReadonlyArray<readonly Child[]>, head: readonly string[]) => rows.length > 0 && out.push(section(title, table(head, rows)));
  list('Moved', d.moved.map((m) => [pod(m.pod), m.from, m.to]), ['Pod', 'From', 'To']);
  list('Now placed', d.becamePlaced.map((m) => [pod(m.pod), m.node, m.was]), ['Pod', 'Node', 'Was']);
  list('No longer placed', d.becameUnplaced.map((m) => [pod(m.pod), m.was, m.message]), ['Pod', 'Was on', 'Why']);
  list('Added', d.added.map((m) => [pod(m.pod), m.node ?? '', m.message ?? '']), ['Pod', 'Node', 'Why not placed']);
  list('Removed', d.removed.map((m) => [m.pod, m.node ?? '', m.message ?? '']), ['Pod', 'Was on', 'Why not placed']);
  if (out.length === 1) out.push(h('p', { class: 'empty' }, 'The two plans place every pod the same way.'));
  return out;
}

function view(message: HostToWebview): HTMLElement[] {
  switch (message.type) {
    case 'loading':
      return [h('p', { class: 'loading', role: 'status' }, message.what)];
    case 'error':
      return [h('p', { class: 'error', role: 'alert' }, message.message), h('div', { class: 'actions' }, button('Try again', 'Ask the server again', () => post({ type: 'refresh' })))];
    case 'plan':
      return renderPlan(message.plan);
    case 'explanation':
      return renderExplanation(message.explanation);
    case 'history':
      return renderHistory(message.entries, message.next);
    case 'diff':
      return renderDiff(message.diff);
  }
}

const root = document.getElementById('root') ?? document.body;

function show(message: HostToWebview): void {
  root.replaceChildren(...view(message));
  root.setAttribute('data-view', message.type);
  // Kept so that a panel VS Code reloads (hidden and shown again) shows the same view at once.
  if (message.type !== 'loading') vscode.setState(message);
}

const KNOWN = new Set<string>(['loading', 'error', 'plan', 'explanation', 'history', 'diff']);
window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const data = event.data as { type?: unknown } | null;
  if (data && typeof data.type === 'string' && KNOWN.has(data.type)) show(data as HostToWebview);
});

const saved = vscode.getState() as HostToWebview | undefined;
if (saved && KNOWN.has(saved.type)) show(saved);
post({ type: 'ready' });
