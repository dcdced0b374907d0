// Podplan against the oracle, cycle by cycle: the PreFilter verdict, every evaluated node's Filter
// verdict (plugin, code, reasons), the feasible set, every plugin's raw and normalized score per
// node, the chosen node as a member of the top set, the FitError message, preemption's node and
// victims. Each difference is one line saying where and what.
import type { Diagnosis } from '../../../src/engine/framework/diagnosis';
import type { OracleCycle, OracleResult } from './oracle';
import type { PodplanRun } from './podplan';

const show = (v: unknown) => JSON.stringify(v);

function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  return show(a ?? []) === show(b ?? []);
}

/** The nodes Podplan found feasible in the cycle: its scored nodes, or the one node taken unscored. */
function podplanFeasible(d: Diagnosis): string[] {
  if (d.scores.length > 0) return d.scores.map((s) => s.node).sort();
  return d.chosenNode ? [d.chosenNode] : [];
}

/** How upstream's framework words a plugin's Error status when it ends the cycle (RunPreFilterPlugins, RunFilterPlugins). */
function upstreamError(d: Diagnosis): string | undefined {
  const s = d.status;
  if (s.code !== 'Error') return undefined;
  if (s.stage === 'Filter') return `running ${show(s.plugin)} filter plugin: ${s.reasons.join(', ')}`;
  if (s.stage === 'PreFilter') return `running PreFilter plugin ${show(s.plugin)}: ${s.reasons.join(', ')}`;
  return undefined;
}

function compareCycle(index: number, d: Diagnosis, o: OracleCycle, out: string[]): void {
  const at = `cycle ${index} (${o.pod})`;
  if (o.error) {
    // A plugin's Error ends the cycle upstream as in Podplan: the same error is agreement.
    const ours = upstreamError(d);
    if (ours !== o.error) out.push(`${at}: the oracle failed: ${o.error}${ours ? ` (Podplan: ${ours})` : ''}`);
    return;
  }
  const placed = d.chosenNode;
  // PreFilter.
  const podplanPreFilter = d.status.stage === 'PreFilter' && d.status.code !== 'Success' ? d.status : undefined;
  if (o.preFilter || podplanPreFilter) {
    const ours = podplanPreFilter
      ? { code: podplanPreFilter.code, plugin: podplanPreFilter.plugin, reasons: podplanPreFilter.reasons }
      : undefined;
    if (
      !o.preFilter ||
      !ours ||
      ours.code !== o.preFilter.code ||
      ours.plugin !== o.preFilter.plugin ||
      !sameList(ours.reasons, o.preFilter.reasons)
    ) {
      out.push(`${at}: PreFilter: Podplan ${show(ours ?? 'passed')}, upstream ${show(o.preFilter ?? 'passed')}`);
    }
  }
  if (!o.preFilter && o.filter) {
    // Filter verdicts of the nodes Podplan evaluated.
    for (const r of d.rejections) {
      if (r.stage !== 'Filter') continue;
      const v = o.filter[r.node];
      if (!v || v.code !== r.code || v.plugin !== r.plugin || !sameList(r.reasons, v.reasons)) {
        out.push(
          `${at}: Filter on ${r.node}: Podplan ${show({ code: r.code, plugin: r.plugin, reasons: r.reasons })}, upstream ${show(v)}`,
        );
      }
    }
    const feasible = podplanFeasible(d);
    for (const node of feasible) {
      const v = o.filter[node];
      if (v?.code !== 'Success') out.push(`${at}: Filter on ${node}: Podplan passed it, upstream ${show(v)}`);
    }
    if (!o.nominatedFit && !sameList(feasible, [...o.feasible].sort())) {
      out.push(`${at}: feasible nodes: Podplan ${show(feasible)}, upstream ${show([...o.feasible].sort())}`);
    }
  }
  if (o.nominatedFit && placed !== o.feasible[0])
    out.push(`${at}: upstream takes the nominated node ${o.feasible[0]}, Podplan ${show(placed ?? 'placed nothing')}`);
  // Scores.
  if (o.scores) {
    for (const [node, plugins] of Object.entries(o.scores)) {
      const ours = d.scores.find((s) => s.node === node);
      if (!ours) {
        out.push(`${at}: scores on ${node}: Podplan has none`);
        continue;
      }
      for (const [plugin, score] of Object.entries(plugins)) {
        const p = ours.plugins.find((x) => x.plugin === plugin);
        if (!p) out.push(`${at}: ${plugin} on ${node}: Podplan did not score (upstream raw ${score.raw}, normalized ${score.normalized})`);
        else if (p.raw !== score.raw || p.normalized !== score.normalized) {
          out.push(
            `${at}: ${plugin} on ${node}: Podplan raw ${p.raw} normalized ${p.normalized}, upstream raw ${score.raw} normalized ${score.normalized}`,
          );
        }
      }
      for (const p of ours.plugins) {
        if (!(p.plugin in plugins) && p.weighted !== 0)
          out.push(`${at}: ${p.plugin} on ${node}: Podplan scored ${p.normalized}, upstream did not score`);
      }
    }
  }
  // The decision.
  const top = o.top ?? [];
  if (top.length > 0 && !placed)
    out.push(`${at}: upstream places the pod (top ${show(top)}), Podplan does not: ${d.message ?? d.status.reasons.join('; ')}`);
  if (placed && top.length > 0 && !top.includes(placed)) out.push(`${at}: Podplan chose ${placed}, not among upstream's top ${show(top)}`);
  if (placed && top.length === 0) out.push(`${at}: Podplan placed it on ${placed}, upstream finds no node: ${o.message}`);
  if (!placed && top.length === 0) {
    if ((d.message ?? '') !== (o.message ?? '')) out.push(`${at}: message:\n    Podplan:  ${d.message}\n    upstream: ${o.message}`);
  }
  // Preemption.
  const nominated = d.preemption?.node;
  if (!placed && (o.nominated ?? '') !== (nominated ?? ''))
    out.push(`${at}: preemption nominates: Podplan ${show(nominated ?? 'none')}, upstream ${show(o.nominated ?? 'none')}`);
  if (!placed && o.nominated && nominated === o.nominated) {
    const ours = (d.preemption?.candidates.find((c) => c.node === nominated)?.victims ?? []).map((v) => v.pod).sort();
    if (!sameList(ours, o.victims)) out.push(`${at}: victims on ${nominated}: Podplan ${show(ours)}, upstream ${show(o.victims ?? [])}`);
  }
}

/** Every difference between Podplan's run and the oracle's answer for one case. */
export function compareCase(run: PodplanRun, oracle: OracleResult | undefined): string[] {
  const out: string[] = [];
  if (!oracle) return ['the oracle gave no answer'];
  if (oracle.error) out.push(`the oracle failed: ${oracle.error}`);
  for (const problem of oracle.invalid ?? []) out.push(`upstream refuses an object: ${problem}`);
  for (const problem of run.problems) out.push(`Podplan refuses an object: ${problem}`);
  const n = Math.max(run.cycles.length, oracle.cycles.length);
  for (let i = 0; i < n; i++) {
    const ours = run.cycles[i];
    const theirs = oracle.cycles[i];
    if (!ours || !theirs) {
      out.push(`cycle ${i}: only ${ours ? 'Podplan' : 'the oracle'} ran it`);
      break;
    }
    compareCycle(i, ours.diagnosis, theirs, out);
  }
  return out;
}
