// Why a pod goes where it goes: the server's verdict on the node the explanation is about (the
// planned node for a pod a SchedulePlan places), then the stage funnel of its cycle, the node ×
// plugin matrix, the rejection reasons with their nodes, and, when the cycle tried it, preemption.
import type { PodExplanationView } from '../../src/protocol/webview';
import { button, h, section, table } from './dom';
import { tabs } from './elements';
import { formatAmount } from '../../src/protocol/amounts';
import { renderFunnel } from './funnel';
import { header, link, post } from './host';
import { renderMatrix, type MatrixState } from './matrix';
import { renderPreemption } from './preemption';
import type { ViewContext } from './state';

export function renderExplanation(x: PodExplanationView, ctx: ViewContext): HTMLElement[] {
  const node = (name: string | undefined) => (name === undefined ? '—' : link(name, 'Node', name));
  const facts = [
    `namespace ${x.namespace}`,
    x.podSet !== undefined && `pod set ${x.podSet}`,
    `scheduler ${x.schedulerName}`,
    `profile ${x.profile}`,
  ];
  const out: HTMLElement[] = [
    header(
      `Why ${x.pod}`,
      facts,
      button('Open pod', 'Open the pod in the editor', () => post({ type: 'reveal', kind: 'Pod', namespace: x.namespace, name: x.pod })),
      button('Re-run', 'Explain again on the current workspace', () => post({ type: 'refresh' })),
    ),
    h('p', { class: `verdict-text${x.chosenNode === undefined && x.plannedNode === undefined ? ' bad' : ''}`, role: 'status' }, x.verdict),
  ];
  const terms: Array<[string, HTMLElement | string]> = [
    ['Requests', x.requests.map((r) => `${r.resource} ${formatAmount(r.amount, r.unit, 'words')}`).join(', ') || 'none'],
  ];
  if (x.plannedNode !== undefined)
    terms.push(['Planned on', h('span', {}, node(x.plannedNode), x.plan !== undefined ? ` by ${x.plan}` : '')]);
  const chooser =
    x.cycle === 'planner'
      ? 'The planner’s cycle chose'
      : x.plannedNode !== undefined
        ? 'A cycle now, with the rest of the plan in place, chooses'
        : 'A cycle now chooses';
  terms.push([chooser, node(x.chosenNode)]);
  if (x.boundNode !== undefined) terms.push(['Bound to', node(x.boundNode)]);
  terms.push(['Nodes', `${x.nodes.feasible} feasible of ${x.nodes.evaluated} evaluated (${x.nodes.total} in the cluster)`]);
  out.push(h('dl', { class: 'verdict' }, ...terms.flatMap(([t, d]) => [h('dt', {}, t), h('dd', {}, d)])));
  if (x.message !== undefined) out.push(h('p', { class: 'message' }, x.message));
  if (x.judgedOn !== undefined) out.push(h('p', { class: 'judged-on' }, x.judgedOn));

  const focus = x.plannedNode ?? x.chosenNode;
  const matrixState: MatrixState = {
    sort: (ctx.ui['sort'] as MatrixState['sort'] | undefined) ?? { column: 'default', descending: false },
    scoreKind: (ctx.ui['scoreKind'] as MatrixState['scoreKind'] | undefined) ?? 'weighted',
    ...(typeof ctx.ui['active'] === 'string' ? { active: ctx.ui['active'] } : {}),
  };
  const reasons = () =>
    x.rejections.length > 0
      ? section(
          'Rejections',
          table(
            ['Stage', 'Plugin', 'Reason', 'Nodes'],
            x.rejections.map((r) => [
              r.stage,
              r.plugin,
              r.reason,
              h(
                'span',
                { class: 'nodelist', title: r.nodes.join(', ') },
                `${r.nodes.length} `,
                r.nodes.length <= 5 ? `(${r.nodes.join(', ')})` : `(${r.nodes.slice(0, 5).join(', ')}, …)`,
              ),
            ]),
          ),
        )
      : h('p', { class: 'empty' }, 'No node rejected the pod.');
  const preemption = x.preemption;
  const devices = x.devices;
  const pages = [
    {
      id: 'funnel',
      title: 'Funnel',
      body: () =>
        renderFunnel(x.funnel, x.namespace, typeof ctx.ui['step'] === 'number' ? ctx.ui['step'] : undefined, (step) => ctx.save({ step })),
    },
    {
      id: 'matrix',
      title: `Nodes × plugins (${x.matrix.rows.length.toLocaleString('en')})`,
      body: () => renderMatrix(x.matrix, focus, matrixState, (s) => ctx.save({ sort: s.sort, scoreKind: s.scoreKind, active: s.active })),
    },
    { id: 'reasons', title: `Reasons (${x.rejections.length})`, body: reasons },
    ...(devices
      ? [
          {
            id: 'devices',
            title: `Devices (${devices.length})`,
            body: () =>
              section(
                'Device requests not met (DynamicResources)',
                table(
                  ['Node', 'Request and why'],
                  devices.map((n) => [n.node, h('ul', { class: 'device-failures' }, ...n.lines.map((l) => h('li', {}, l)))]),
                ),
              ),
          },
        ]
      : []),
    ...(preemption
      ? [
          {
            id: 'preemption',
            title: preemption.node === undefined ? 'Preemption' : `Preemption (${preemption.candidates.length})`,
            body: () => renderPreemption(preemption),
          },
        ]
      : []),
  ];
  out.push(tabs('Explanation views', pages, typeof ctx.ui['tab'] === 'string' ? ctx.ui['tab'] : 'funnel', (tab) => ctx.save({ tab })));
  return out;
}
