// The plan's pods as one table: pod, owner, node and score, searchable and sortable, only the rows in
// view in the DOM (virtual.ts), so 10,000 pods scroll as 40 do.
import type { AssignmentView, PlanRefView, PlanView } from '../../src/protocol/webview';
import { h } from './dom';
import { explainButton, link } from './host';
import type { ViewContext } from './state';
import { virtualRows } from './virtual';

type PodOrder = 'pod' | 'owner' | 'node' | 'score';
const TEMPLATE = 'minmax(160px, 1.2fr) minmax(140px, 1fr) minmax(140px, 1fr) 64px 84px';

function ordered(rows: readonly AssignmentView[], order: PodOrder): AssignmentView[] {
  const text = (a: AssignmentView): string => (order === 'owner' ? a.owner : order === 'node' ? a.node : a.pod);
  const sorted = [...rows];
  if (order === 'score') return sorted.sort((a, b) => (b.score ?? -Infinity) - (a.score ?? -Infinity) || (a.pod < b.pod ? -1 : 1));
  return sorted.sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : a.pod < b.pod ? -1 : a.pod > b.pod ? 1 : 0));
}

export function renderPods(plan: PlanView, inPlan: PlanRefView, ctx: ViewContext): HTMLElement {
  let query = typeof ctx.ui['podQuery'] === 'string' ? ctx.ui['podQuery'] : '';
  let order = (typeof ctx.ui['podOrder'] === 'string' ? ctx.ui['podOrder'] : 'owner') as PodOrder;
  const count = h('span', { class: 'count', role: 'status' });
  const grid = h('div', {
    class: 'matrix pods-table',
    role: 'grid',
    'aria-label': `Pods the plan places, ${plan.assignments.length}`,
    'aria-colcount': '5',
  });
  const head = h('div', { class: 'matrix-row matrix-head', role: 'row', 'aria-rowindex': '1' });
  head.style.gridTemplateColumns = TEMPLATE;
  const headers = new Map<PodOrder, HTMLElement>();
  const column = (key: PodOrder, label: string): HTMLElement => {
    const b = h('button', { type: 'button', class: 'sort', title: `Sort by ${label.toLowerCase()}` }, label);
    b.addEventListener('click', () => {
      order = key;
      ctx.save({ podOrder: order });
      apply();
    });
    const cell = h('div', { role: 'columnheader' }, b);
    headers.set(key, cell);
    return cell;
  };
  head.append(
    column('pod', 'Pod'),
    column('owner', 'Owner'),
    column('node', 'Node'),
    column('score', 'Score'),
    h('div', { role: 'columnheader' }, h('span', { class: 'visually-hidden' }, 'Explain')),
  );
  const rows = virtualRows(26, { class: 'matrix-body' }, 20);
  grid.append(head, rows.element);

  const apply = (): void => {
    const lower = query.trim().toLowerCase();
    const shown = ordered(
      lower
        ? plan.assignments.filter(
            (a) => a.pod.toLowerCase().includes(lower) || a.owner.toLowerCase().includes(lower) || a.node.toLowerCase().includes(lower),
          )
        : plan.assignments,
      order,
    );
    count.textContent = `${shown.length.toLocaleString('en')} of ${plan.assignments.length.toLocaleString('en')} pods`;
    grid.setAttribute('aria-rowcount', String(shown.length + 1));
    for (const [key, cell] of headers) {
      if (key === order) cell.setAttribute('aria-sort', key === 'score' ? 'descending' : 'ascending');
      else cell.removeAttribute('aria-sort');
    }
    rows.update(shown.length, (i) => {
      const a = shown[i] as AssignmentView;
      const row = h(
        'div',
        { class: 'matrix-row', role: 'row', 'aria-rowindex': String(i + 2) },
        h('div', { role: 'gridcell', class: 'name' }, link(a.pod, 'Pod', a.pod, plan.namespace)),
        h('div', { role: 'gridcell', title: a.owner }, a.owner || '(no owner)'),
        h('div', { role: 'gridcell' }, link(a.node, 'Node', a.node)),
        h('div', { role: 'gridcell', class: 'num' }, a.score === undefined ? '' : String(a.score)),
        h('div', { role: 'gridcell' }, explainButton(plan.namespace, a.pod, inPlan)),
      );
      row.style.gridTemplateColumns = TEMPLATE;
      return row;
    });
  };
  const search = h('vscode-textfield', {
    placeholder: 'pod, owner or node',
    'aria-label': 'Filter pods by name, owner or node',
    class: 'search',
  });
  search.value = query;
  search.addEventListener('input', () => {
    query = search.value;
    ctx.save({ podQuery: query });
    apply();
  });
  apply();
  return h('div', { class: 'pods-view' }, h('div', { class: 'toolbar' }, search, count), grid);
}
