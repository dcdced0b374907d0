// Preemption in an explanation: which victims make room on which node, every other candidate node
// with the first of upstream's criteria it lost on (pickOneNodeForPreemption: fewest PDB violations,
// lowest highest-victim priority, smallest priority sum, fewest victims, latest start), and the
// nodes where evicting would not help, by reason.
import type { PreemptionView, VictimView } from '../../src/protocol/webview';
import { h, section, table } from './dom';
import { link, podLink } from './host';

const CRITERIA =
  'Candidates are compared as kube-scheduler does: fewest PodDisruptionBudget violations, then the lowest highest-victim priority, the smallest sum of priorities, the fewest victims, the latest start.';

function victim(v: VictimView): HTMLElement {
  return h(
    'span',
    { class: `victim${v.violatesPdb ? ' bad' : ''}`, title: v.violatesPdb ? 'evicting it breaks a PodDisruptionBudget' : '' },
    podLink(v.pod),
    ` (${v.priority}${v.violatesPdb ? ', breaks a PDB' : ''})`,
  );
}

function joined(parts: readonly HTMLElement[]): HTMLElement {
  return h('span', {}, ...parts.flatMap((p, i) => (i === 0 ? [p] : [', ', p])));
}

export function renderPreemption(p: PreemptionView): HTMLElement {
  const node = p.node;
  const lead =
    node === undefined
      ? h('p', { class: 'callout bad' }, 'No eviction of lower-priority pods makes room on any node.')
      : h(
          'p',
          { class: 'callout' },
          p.reportOnly
            ? 'Not done (plans do not preempt unless the profile allows it: PodSetPlanner args allowPreemption): evicting '
            : 'Evicting ',
          joined(p.victims.map(podLink)),
          ' from ',
          link(node, 'Node', node),
          p.reportOnly ? ' would make room.' : ' makes room.',
        );
  const candidates =
    p.candidates.length > 0 &&
    section(
      `Candidate nodes (${p.candidates.length})`,
      h('p', { class: 'legend' }, CRITERIA),
      table(
        ['Node', 'Victims (priority)', 'PDB violations', 'Verdict'],
        p.candidates.map((c) => [
          link(c.node, 'Node', c.node),
          joined(c.victims.map(victim)),
          String(c.pdbViolations),
          c.lostOn === undefined ? h('span', { class: 'chosen' }, 'chosen') : `lost: ${node ?? 'the chosen node'} has ${c.lostOn}`,
        ]),
      ),
    );
  const failures =
    p.failures.length > 0 &&
    section(
      'Nodes where evicting would not help',
      table(
        ['Reason', 'Nodes'],
        p.failures.map((f) => [
          f.reason,
          h(
            'span',
            { class: 'nodelist', title: f.nodes.join(', ') },
            `${f.nodes.length} `,
            f.nodes.length <= 5 ? `(${f.nodes.join(', ')})` : `(${f.nodes.slice(0, 5).join(', ')}, …)`,
          ),
        ]),
      ),
    );
  return h('div', { class: 'preemption' }, lead, candidates, failures);
}
