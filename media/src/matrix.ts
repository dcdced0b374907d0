// The node × plugin matrix of one pod's cycle: a row per node of the cluster, a column per filter
// plugin (passed, rejected here, or not run because an earlier one rejected the node) and per score
// plugin (raw, normalized or weighted, as the user picks), sortable by any column. Only the rows in
// view are in the DOM (virtual.ts); the grid keeps focus and points at its active row
// (aria-activedescendant), so arrow keys move through 5,000 rows without losing it.
import type { MatrixRowView, MatrixView } from '../../src/protocol/webview';
import { button, h } from './dom';
import { post } from './host';
import { virtualRows } from './virtual';

export type ScoreKind = 'raw' | 'normalized' | 'weighted';
export interface MatrixSort {
  /** node, verdict, total, f<i> (filter plugin i) or s<i> (score plugin i); default keeps the server's order. */
  readonly column: string;
  readonly descending: boolean;
}

export interface MatrixState {
  readonly sort: MatrixSort;
  readonly scoreKind: ScoreKind;
  readonly active?: string;
}

const ROW_HEIGHT = 24;
const KIND_INDEX: Record<ScoreKind, number> = { raw: 0, normalized: 1, weighted: 2 };
const VERDICT_ORDER: Record<MatrixRowView['verdict'], number> = { chosen: 0, feasible: 1, rejected: 2, unevaluated: 3 };
const VERDICT_TEXT: Record<MatrixRowView['verdict'], string> = {
  chosen: 'chosen',
  feasible: 'feasible',
  rejected: 'rejected',
  unevaluated: 'not evaluated',
};

type FilterCell = 'pass' | 'fail' | 'not run' | '';

/** What filter plugin `i` said of a row: the plugins before the rejecting one passed, the ones after did not run. */
export function filterCell(row: MatrixRowView, i: number): FilterCell {
  if (row.verdict === 'unevaluated') return '';
  if (row.rejectedAt === undefined) return 'pass';
  if (row.rejectedAt < 0) return 'not run';
  return i < row.rejectedAt ? 'pass' : i === row.rejectedAt ? 'fail' : 'not run';
}
const FILTER_SYMBOL: Record<FilterCell, string> = { pass: '✓', fail: '✗', 'not run': '·', '': '' };
const FILTER_RANK: Record<FilterCell, number> = { fail: 3, 'not run': 2, pass: 1, '': 0 };

function sortRows(rows: readonly MatrixRowView[], sort: MatrixSort, kind: ScoreKind): readonly MatrixRowView[] {
  if (sort.column === 'default') return rows;
  const k = KIND_INDEX[kind];
  const key = (r: MatrixRowView): number | string => {
    if (sort.column === 'node') return r.node;
    if (sort.column === 'verdict') return VERDICT_ORDER[r.verdict];
    if (sort.column === 'total') return r.total ?? -Infinity;
    const i = Number(sort.column.slice(1));
    if (sort.column.startsWith('f')) return FILTER_RANK[filterCell(r, i)];
    return r.scores?.[i]?.[k] ?? -Infinity;
  };
  const keyed = rows.map((r) => ({ r, k: key(r) }));
  const dir = sort.descending ? -1 : 1;
  keyed.sort((a, b) => (a.k < b.k ? -dir : a.k > b.k ? dir : a.r.node < b.r.node ? -1 : a.r.node > b.r.node ? 1 : 0));
  return keyed.map((x) => x.r);
}

export function renderMatrix(
  matrix: MatrixView,
  focus: string | undefined,
  initial: MatrixState,
  onChange: (state: MatrixState) => void,
): HTMLElement {
  let state = initial;
  const filters = matrix.filterPlugins;
  const scores = matrix.scorePlugins;
  const template = `minmax(140px, 200px) 84px ${filters.length > 0 ? `repeat(${filters.length}, 28px) ` : ''}${scores.length > 0 ? `repeat(${scores.length}, 52px) ` : ''}64px 52px`;
  const columns = 2 + filters.length + scores.length + 2;
  let ordered = sortRows(matrix.rows, state.sort, state.scoreKind);

  const grid = h('div', {
    class: 'matrix',
    role: 'grid',
    tabindex: '0',
    'aria-label': `Node × plugin matrix, ${matrix.rows.length} nodes`,
    'aria-rowcount': String(matrix.rows.length + 1),
    'aria-colcount': String(columns),
  });
  const head = h('div', { class: 'matrix-row matrix-head', role: 'row', 'aria-rowindex': '1' });
  head.style.gridTemplateColumns = template;
  const headers: Array<{ key: string; cell: HTMLElement }> = [];
  const header = (key: string, label: string, title: string, cls = ''): HTMLElement => {
    const b = h('button', { type: 'button', class: 'sort', title: `${title}. Sort by it.` }, h('span', {}, label));
    b.addEventListener('click', () => {
      const descending = state.sort.column === key ? !state.sort.descending : key !== 'node';
      setState({ ...state, sort: { column: key, descending } });
    });
    const cell = h('div', { role: 'columnheader', class: cls }, b);
    headers.push({ key, cell });
    return cell;
  };
  head.append(
    header('node', 'Node', 'Node name'),
    header('verdict', 'Verdict', 'What the cycle made of the node'),
    ...filters.map((p, i) =>
      header(`f${i}`, p, `Filter plugin ${p}: ✓ passed, ✗ rejected, · not run (an earlier plugin rejected the node)`, 'vertical'),
    ),
    ...scores.map((s, i) =>
      header(
        `s${i}`,
        `${s.plugin} ×${s.weight}`,
        `Score plugin ${s.plugin}, weight ${s.weight}`,
        `vertical score${i === 0 ? ' first' : ''}`,
      ),
    ),
    header('total', 'Total', 'Total score: the weighted scores added up', 'first'),
    h('div', { role: 'columnheader' }, 'Rank'),
  );

  const rows = virtualRows(ROW_HEIGHT, { class: 'matrix-body' }, 18);
  const kindSelect = h('vscode-single-select', { 'aria-label': 'Score shown' });
  for (const kind of ['weighted', 'normalized', 'raw'] as const) kindSelect.append(h('vscode-option', { value: kind }, `${kind} score`));
  kindSelect.value = state.scoreKind;
  kindSelect.addEventListener('change', () => setState({ ...state, scoreKind: kindSelect.value as ScoreKind }));

  const drawRow = (i: number): HTMLElement => {
    const r = ordered[i] as MatrixRowView;
    const k = KIND_INDEX[state.scoreKind];
    const cls = `matrix-row ${r.verdict}${r.node === state.active ? ' active' : ''}${r.node === focus ? ' focus' : ''}`;
    const row = h('div', {
      class: cls,
      role: 'row',
      id: `matrix-row-${i}`,
      'aria-rowindex': String(i + 2),
      'aria-selected': String(r.node === state.active),
    });
    row.style.gridTemplateColumns = template;
    const why = r.reasons ? `${r.plugin ?? ''}: ${r.reasons.join(', ')}${(r.devices ?? []).map((d) => `\n• ${d}`).join('')}` : '';
    const nodeLink = h('a', { href: '#', class: 'ref', tabindex: '-1', title: `Open node ${r.node}` }, r.node);
    nodeLink.addEventListener('click', (ev) => {
      ev.preventDefault();
      post({ type: 'reveal', kind: 'Node', name: r.node });
    });
    row.append(
      h('div', { role: 'gridcell', class: 'name' }, nodeLink),
      h(
        'div',
        { role: 'gridcell', class: 'verdict', title: why || VERDICT_TEXT[r.verdict] },
        r.verdict === 'rejected' && r.rejectedAt === -1 ? `rejected (${r.stage ?? ''})` : VERDICT_TEXT[r.verdict],
      ),
      ...filters.map((p, j) => {
        const c = filterCell(r, j);
        return h(
          'div',
          {
            role: 'gridcell',
            class: `filter ${c.replace(' ', '-')}`,
            'aria-label': `${p}: ${c || 'not evaluated'}`,
            title: c === 'fail' ? why : `${p}: ${c || 'not evaluated'}`,
          },
          FILTER_SYMBOL[c],
        );
      }),
      ...scores.map((s, j) => {
        const v = r.scores?.[j];
        return h(
          'div',
          {
            role: 'gridcell',
            class: `num${j === 0 ? ' first' : ''}`,
            title: v ? `${s.plugin}: raw ${v[0]}, normalized ${v[1]}, weighted ${v[2]} (×${s.weight})` : '',
          },
          v ? String(v[k]) : '',
        );
      }),
      h('div', { role: 'gridcell', class: 'num total first' }, r.total === undefined ? '' : String(r.total)),
      h('div', { role: 'gridcell', class: 'num' }, r.rank === undefined ? '' : String(r.rank)),
    );
    row.addEventListener('click', () => activate(i));
    return row;
  };

  const activate = (i: number): void => {
    const r = ordered[i];
    if (!r) return;
    state = { ...state, active: r.node };
    onChange(state);
    rows.reveal(i);
    rows.redraw();
    grid.setAttribute('aria-activedescendant', `matrix-row-${i}`);
  };

  const refreshHeaders = (): void => {
    for (const { key, cell } of headers) {
      if (state.sort.column === key) cell.setAttribute('aria-sort', state.sort.descending ? 'descending' : 'ascending');
      else cell.removeAttribute('aria-sort');
    }
  };
  const setState = (next: MatrixState): void => {
    const resort = next.sort !== state.sort || next.scoreKind !== state.scoreKind;
    state = next;
    if (resort) ordered = sortRows(matrix.rows, state.sort, state.scoreKind);
    refreshHeaders();
    rows.update(ordered.length, drawRow);
    onChange(state);
  };

  grid.addEventListener('keydown', (ev) => {
    const at = ordered.findIndex((r) => r.node === state.active);
    const moves: Record<string, number> = { ArrowUp: -1, ArrowDown: 1, PageUp: -15, PageDown: 15 };
    const step = moves[ev.key];
    if (step !== undefined) activate(Math.max(0, Math.min(ordered.length - 1, (at < 0 ? -1 : at) + step)));
    else if (ev.key === 'Home') activate(0);
    else if (ev.key === 'End') activate(ordered.length - 1);
    else if (ev.key === 'Enter' && state.active !== undefined) post({ type: 'reveal', kind: 'Node', name: state.active });
    else return;
    ev.preventDefault();
  });

  grid.append(head, rows.element);
  refreshHeaders();
  rows.update(ordered.length, drawRow);
  const jump = (node: string) => () => {
    const i = ordered.findIndex((r) => r.node === node);
    if (i >= 0) {
      activate(i);
      grid.focus();
    }
  };
  const tools = h(
    'div',
    { class: 'toolbar' },
    kindSelect,
    focus !== undefined && button(`Go to ${focus}`, `Show the row of ${focus}`, jump(focus), 'action small'),
  );
  const closest = matrix.closest;
  const callout =
    closest &&
    h(
      'div',
      { class: 'callout', role: 'note' },
      h('strong', {}, 'Closest node: '),
      closest.node,
      ` — it ${closest.why}. `,
      button('Show its row', `Show the row of ${closest.node}`, jump(closest.node), 'action small'),
    );
  const wrap = h('div', { class: 'matrix-view' }, callout || '', tools, h('div', { class: 'matrix-scroll' }, grid));
  if (state.active !== undefined) {
    const i = ordered.findIndex((r) => r.node === state.active);
    if (i >= 0) requestAnimationFrame(() => rows.reveal(i));
  }
  return wrap;
}
