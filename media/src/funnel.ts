// The stage funnel: one bar per step of the cycle (Sort, PreFilter, each filter plugin, Score,
// Reserve…), as wide as what reached the step, with what it kept and what it rejected. Each step is
// a button: choosing it lists the reasons it rejected candidates for, with the nodes (and, for a pod
// set, the pods it stopped). Every number comes from the server's FunnelView.
import type { FunnelStepView, FunnelView, PlanRefView } from '../../src/protocol/webview';
import { h } from './dom';
import { link, podChip } from './host';
import { virtualRows } from './virtual';

export function stepName(step: FunnelStepView): string {
  if (step.picks) return 'Select host';
  return step.plugin !== undefined ? `${step.stage} · ${step.plugin}` : step.stage;
}

/** A list of names: inline when short, virtualized when long. */
function names(items: readonly string[], label: string, item: (name: string) => HTMLElement): HTMLElement {
  if (items.length <= 60) return h('ul', { class: 'chips', 'aria-label': label }, ...items.map((n) => h('li', {}, item(n))));
  const list = virtualRows(22, { role: 'list', 'aria-label': label, class: 'name-list' }, 10);
  list.update(items.length, (i) => h('div', { role: 'listitem', class: 'name-row' }, item(items[i] ?? '')));
  return list.element;
}

function stepDetail(funnel: FunnelView, step: FunnelStepView, namespace: string, inPlan: PlanRefView | undefined): HTMLElement {
  const dropped = step.entered - step.left;
  const out = h(
    'div',
    { class: 'step-detail', 'aria-live': 'polite' },
    h('h3', {}, stepName(step)),
    step.picks
      ? h(
          'p',
          { class: 'facts' },
          `${step.entered.toLocaleString('en')} ${funnel.unit} reached it, ${step.left.toLocaleString('en')} chosen (the best score)`,
          dropped > 0 ? `, ${dropped.toLocaleString('en')} scored lower: ranked, not rejected` : '',
        )
      : h(
          'p',
          { class: 'facts' },
          `${step.entered.toLocaleString('en')} ${funnel.unit} reached it, ${step.left.toLocaleString('en')} left it`,
          dropped > 0 ? `, ${dropped.toLocaleString('en')} dropped` : '',
          step.skipped > 0 ? ` (${step.skipped.toLocaleString('en')} never evaluated: sampling stopped early)` : '',
        ),
  );
  if (step.stage === 'Score') out.append(h('p', { class: 'empty' }, 'Score ranks every node that passed the filters; it rejects none.'));
  else if (step.rejected.length === 0 && !step.podsStopped?.length)
    out.append(h('p', { class: 'empty' }, step.picks ? 'Nothing reached it.' : 'This step rejected nothing.'));
  for (const r of step.rejected) {
    out.append(
      h(
        'div',
        { class: 'rejection' },
        h('p', { class: 'reason' }, h('span', { class: 'n' }, `${r.count.toLocaleString('en')} ×`), ` ${r.reason}`),
        r.nodes.length > 0 && names(r.nodes, `Nodes rejected for ${r.reason}`, (n) => link(n, 'Node', n)),
      ),
    );
  }
  const stopped = step.podsStopped ?? [];
  if (stopped.length > 0) {
    out.append(
      h('h4', {}, `Pods stopped here (${stopped.length})`),
      names(stopped, 'Pods stopped at this step', (p) => podChip(namespace, p, inPlan)),
    );
  }
  return out;
}

/** The funnel of `funnel`, step `selected` open; `onSelect` hears which step the user opens; pods are explained in `inPlan`. */
export function renderFunnel(
  funnel: FunnelView,
  namespace: string,
  selected: number | undefined,
  onSelect: (index: number) => void,
  inPlan?: PlanRefView,
): HTMLElement {
  const total = Math.max(1, funnel.steps[0]?.entered ?? 1);
  const detail = h('div', { class: 'funnel-detail' });
  const buttons: HTMLButtonElement[] = [];
  const open = (i: number): void => {
    const step = funnel.steps[i];
    if (!step) return;
    buttons.forEach((b, j) => b.setAttribute('aria-pressed', String(i === j)));
    detail.replaceChildren(stepDetail(funnel, step, namespace, inPlan));
    onSelect(i);
  };
  const rows = funnel.steps.map((step, i) => {
    const kept = h('span', { class: 'kept' });
    kept.style.width = `${(step.left / total) * 100}%`;
    const dropped = h('span', { class: step.picks ? 'ranked' : 'dropped' });
    dropped.style.width = `${((step.entered - step.left - step.skipped) / total) * 100}%`;
    const skipped = h('span', { class: 'skipped' });
    skipped.style.width = `${(step.skipped / total) * 100}%`;
    const words = `${stepName(step)}: ${step.entered.toLocaleString('en')} in, ${step.left.toLocaleString('en')} ${step.picks ? 'chosen' : 'left'}`;
    const b = h(
      'button',
      { type: 'button', class: 'step', 'aria-pressed': 'false', title: `${words}. Show what it rejected.` },
      h('span', { class: 'step-name' }, stepName(step)),
      h('span', { class: 'step-bar', 'aria-hidden': 'true' }, kept, dropped, skipped),
      h('span', { class: 'step-count' }, `${step.entered.toLocaleString('en')} → ${step.left.toLocaleString('en')}`),
    );
    b.setAttribute('aria-label', words);
    b.addEventListener('click', () => open(i));
    buttons.push(b);
    return h('li', {}, b);
  });
  const legend = h(
    'p',
    { class: 'legend' },
    h('span', { class: 'swatch kept' }),
    ' kept ',
    h('span', { class: 'swatch dropped' }),
    ' rejected ',
    h('span', { class: 'swatch ranked' }),
    ' scored lower (not chosen) ',
    h('span', { class: 'swatch skipped' }),
    ' not evaluated',
  );
  const view = h(
    'div',
    { class: 'funnel' },
    h(
      'p',
      { class: 'facts' },
      funnel.unit === 'nodes'
        ? `Nodes left after each step of the cycle for ${funnel.subject}.`
        : `Pod × node pairs left after each step, summed over the cycles of ${funnel.pods.toLocaleString('en')} pods of ${funnel.subject}.`,
    ),
    legend,
    h('ol', { class: 'steps', 'aria-label': 'Steps of the scheduling cycle' }, ...rows),
    detail,
  );
  if (funnel.steps.length === 0) view.append(h('p', { class: 'empty' }, 'No cycle ran.'));
  if (selected !== undefined && funnel.steps[selected]) open(selected);
  return view;
}
