// Document symbols: each object of a file by kind and name; a plan's entries and a configuration's
// profiles beneath them.
import { SymbolKind, type DocumentSymbol } from 'vscode-languageserver';
import { concatPath, type Located } from '../../manifests';
import type { Analysis, ObjectAt } from './analysis';
import { lspRange, rangeIn } from './locate';

const KINDS: Readonly<Record<ObjectAt['bucket'], SymbolKind>> = {
  triggers: SymbolKind.Event,
  plans: SymbolKind.Struct,
  profiles: SymbolKind.Namespace,
  nodes: SymbolKind.Object,
  pods: SymbolKind.Object,
  workloads: SymbolKind.Class,
  others: SymbolKind.Object,
};

function symbol(
  located: Located<unknown>,
  name: string,
  detail: string,
  kind: SymbolKind,
  children: DocumentSymbol[] = [],
): DocumentSymbol {
  const range = lspRange(located.source.locate(located.base));
  const selection = located.source.has(concatPath(located.base, 'metadata.name')) ? rangeIn(located, 'metadata.name') : range;
  return { name, detail, kind, range, selectionRange: selection, ...(children.length ? { children } : {}) };
}

export function symbols(uri: string, analysis: Analysis): DocumentSymbol[] {
  const file = analysis.file(uri);
  if (!file) return [];
  const m = file.model;
  const out: Array<{ at: number; symbol: DocumentSymbol }> = [];
  const add = (located: Located<unknown>, s: DocumentSymbol) =>
    out.push({ at: located.source.locate(located.base).start.offset, symbol: s });
  for (const t of m.triggers)
    add(t, symbol(t, `${t.value.namespace}/${t.value.name}`, `ScheduleTrigger · ${t.value.podSet} · ${t.value.state}`, KINDS.triggers));
  for (const p of m.plans) {
    const entries = p.value.plan.map((e, i): DocumentSymbol => {
      const range = rangeIn(p, `spec.plan[${i}]`);
      return { name: `${e.pod} → ${e.node}`, kind: SymbolKind.Field, range, selectionRange: range };
    });
    add(
      p,
      symbol(
        p,
        `${p.value.namespace}/${p.value.name}`,
        `SchedulePlan · ${p.value.podSet} · ${p.value.plan.length} entries`,
        KINDS.plans,
        entries,
      ),
    );
  }
  for (const c of m.profiles) {
    const profiles = c.value.profiles.map((p, i): DocumentSymbol => {
      const range = rangeIn(c, `profiles[${i}]`);
      return { name: p.schedulerName, detail: 'profile', kind: SymbolKind.Module, range, selectionRange: range };
    });
    add(c, symbol(c, 'KubeSchedulerConfiguration', `${c.value.profiles.length} profiles`, KINDS.profiles, profiles));
  }
  for (const n of m.nodes) add(n, symbol(n, n.value.metadata.name, 'Node', KINDS.nodes));
  for (const w of m.workloads)
    add(
      w,
      symbol(
        w,
        `${w.value.metadata.namespace ?? 'default'}/${w.value.metadata.name}`,
        `${w.value.kind} · ${w.value.replicas} replicas`,
        KINDS.workloads,
      ),
    );
  // Pods made from a workload's template are the workload's symbol.
  for (const p of m.pods)
    if (!p.base.endsWith('spec.template'))
      add(p, symbol(p, `${p.value.metadata.namespace ?? 'default'}/${p.value.metadata.name}`, 'Pod', KINDS.pods));
  for (const o of m.others) add(o, symbol(o, o.value.name ?? o.value.kind, o.value.kind, KINDS.others));
  return out.sort((a, b) => a.at - b.at).map((x) => x.symbol);
}
