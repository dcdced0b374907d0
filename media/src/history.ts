// The plan history (pick two to compare) and the comparison of two stored plans, each move with its reason.
import type { HistoryEntryView, PlanDiffView } from '../../src/protocol/webview';
import { button, h, section, table, type Child } from './dom';
import { formatTime, plural } from './format';
import { header, link, podLink, post } from './host';

export function renderHistory(entries: readonly HistoryEntryView[], next: number | undefined): HTMLElement[] {
  const picked = new Set<number>();
  const compare = button('Compare selected', 'Compare the two selected plans (older → newer)', () => {
    const [a, b] = [...picked].sort((x, y) => x - y);
    if (a !== undefined && b !== undefined) post({ type: 'comparePlans', from: a, to: b });
  });
  compare.disabled = true;
  const rows = entries.map((e) => {
    const box = h('input', { type: 'checkbox', title: `Select #${e.id} to compare`, 'aria-label': `Select plan #${e.id} to compare` });
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
    const evicted = e.evicted ?? 0;
    return [
      box,
      open,
      `${e.namespace}/${e.podSet}`,
      e.trigger ?? '',
      e.planner,
      h('span', { class: `status ${e.status}` }, e.status),
      formatTime(e.createdAt),
      String(e.placed),
      h('span', { class: e.unplaced > 0 ? 'bad' : '' }, String(e.unplaced)),
      h('span', { class: evicted > 0 ? 'bad' : '' }, String(evicted)),
    ];
  });
  const out = [
    header('Plan history', [plural(entries.length, 'plan')], compare),
    entries.length > 0
      ? table(['', 'Plan', 'Pod set', 'Trigger', 'Planner', 'Status', 'Created', 'Placed', 'Not placed', 'Evicted'], rows)
      : h('p', { class: 'empty' }, 'No plans stored yet.'),
  ];
  if (next !== undefined)
    out.push(
      h(
        'div',
        { class: 'actions' },
        button('Older plans', 'Load older plans', () => post({ type: 'moreHistory', before: next })),
      ),
    );
  return out;
}

export function renderDiff(d: PlanDiffView): HTMLElement[] {
  const name = (e: HistoryEntryView) => `#${e.id} (${formatTime(e.createdAt)})`;
  const counts = [
    `${d.unchanged} unchanged`,
    `${d.stillUnplaced} still not placed`,
    ...(d.stillEvicted > 0 ? [`${d.stillEvicted} evicted by both`] : []),
  ];
  const out = [header(`${d.to.namespace}/${d.to.podSet}: ${name(d.from)} → ${name(d.to)}`, counts)];
  const pod = (p: string) => link(p, 'Pod', p, d.to.namespace);
  const node = (n: string) => link(n, 'Node', n);
  const list = (title: string, rows: ReadonlyArray<readonly Child[]>, head: readonly string[]) =>
    rows.length > 0 && out.push(section(`${title} (${rows.length})`, table(head, rows)));
  list(
    'Moved',
    d.moved.map((m) => [pod(m.pod), node(m.from), node(m.to), h('span', { class: 'why' }, m.reason)]),
    ['Pod', 'From', 'To', 'Why'],
  );
  list(
    'Now placed',
    d.becamePlaced.map((m) => [pod(m.pod), node(m.node), m.was]),
    ['Pod', 'Node', 'Was'],
  );
  list(
    'No longer placed',
    d.becameUnplaced.map((m) => [pod(m.pod), m.was, m.message]),
    ['Pod', 'Was on', 'Why'],
  );
  list(
    'Added',
    d.added.map((m) => [pod(m.pod), m.node ?? '', m.message ?? '']),
    ['Pod', 'Node', 'Why not placed'],
  );
  list(
    'Removed',
    d.removed.map((m) => [m.pod, m.node ?? '', m.message ?? '']),
    ['Pod', 'Was on', 'Why not placed'],
  );
  // Running pods a plan that preempts evicts (the profile lets plans preempt), where and for which of the set's pods.
  const evictions = (victims: PlanDiffView['newlyEvicted']) => victims.map((v) => [podLink(v.pod), node(v.node), pod(v.by)]);
  list(`Evicted only by #${d.to.id}`, evictions(d.newlyEvicted), ['Running pod', 'Node', 'Makes room for']);
  list(`Evicted only by #${d.from.id}`, evictions(d.noLongerEvicted), ['Running pod', 'Node', 'Made room for']);
  if (out.length === 1) out.push(h('p', { class: 'empty' }, 'The two plans place every pod the same way and evict the same pods.'));
  return out;
}
