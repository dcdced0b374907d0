// A batch of differential cases: Podplan runs each in process, the oracle all of them in one
// process; then each case is compared. Also the shrinker that cuts a diverging case down to the
// objects the divergence needs, and the regression file it is written to.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { compareCase } from './compare';
import type { FidelityCase, K8sObject } from './generate';
import { runOracle, type OracleResult } from './oracle';
import { runPodplan, type PodplanRun } from './podplan';

export interface CaseVerdict {
  readonly case: FidelityCase;
  readonly divergences: readonly string[];
  readonly oracle?: OracleResult;
  readonly podplan: PodplanRun;
}

export async function runBatch(oracle: string, cases: readonly FidelityCase[]): Promise<CaseVerdict[]> {
  const runs: PodplanRun[] = [];
  for (const c of cases) runs.push(await runPodplan(c.id, c.objects));
  const answers = await runOracle(
    oracle,
    cases.map((c, i) => ({ id: c.id, objects: c.objects, trace: (runs[i] as PodplanRun).cycles.map((cycle) => cycle.step) })),
  );
  return cases.map((c, i) => {
    const podplan = runs[i] as PodplanRun;
    const answer = answers.get(c.id);
    return { case: c, podplan, divergences: compareCase(podplan, answer), ...(answer ? { oracle: answer } : {}) };
  });
}

const isNode = (o: K8sObject) => o.kind === 'Node';
const isPending = (o: K8sObject) => o.kind === 'Pod' && !(o.spec as { nodeName?: string } | undefined)?.nodeName;

/**
 * What kind of divergence a line reports, without the cycle, pod, node names and figures: the
 * shrinker keeps a case only while it shows the same kind, and a run shrinks one case per kind.
 */
export function divergenceKind(line: string): string {
  const what = line.replace(/^cycle \d+ \([^)]*\): /, '');
  const head = what
    .split(/:|,/)[0]!
    .replace(/node-\d+/g, 'N')
    .replace(/\d+/g, '#')
    .trim();
  // A Filter verdict's kind names the plugins involved.
  const plugins = [...new Set([...what.matchAll(/"plugin":"([^"]+)"/g)].map((m) => m[1]))].sort();
  return plugins.length > 0 ? `${head} [${plugins.join(' ')}]` : head;
}

/**
 * Removes objects one at a time while the case still diverges the same way (its first divergence's
 * kind; at least one node and one pending pod stay), each round trying every single removal in one
 * oracle batch. Returns the smallest case.
 */
export async function shrink(
  oracle: string,
  verdict: CaseVerdict,
  kind = divergenceKind(verdict.divergences[0] ?? ''),
  maxRounds = 60,
): Promise<CaseVerdict> {
  let best = verdict;
  for (let round = 0; round < maxRounds; round++) {
    const objects = best.case.objects;
    const candidates: FidelityCase[] = [];
    objects.forEach((_, i) => {
      const rest = objects.filter((_, j) => j !== i);
      if (!rest.some(isNode) || !rest.some(isPending)) return;
      candidates.push({ ...best.case, id: `${best.case.id}~${round}.${i}`, objects: rest });
    });
    if (candidates.length === 0) break;
    const results = await runBatch(oracle, candidates);
    const smaller = results.find(
      (r) => r.divergences.some((d) => divergenceKind(d) === kind) && !r.divergences.some((d) => d.startsWith('upstream refuses')),
    );
    if (!smaller) break;
    best = smaller;
  }
  return best;
}

/** Writes the shrunk case and the oracle's answer as a regression case (test/upstream/regressions). */
export function writeRegression(
  dir: string,
  name: string,
  original: CaseVerdict,
  shrunk: CaseVerdict,
  kind: string,
  command: string,
): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.yaml`);
  const header = [
    `# Found by: ${command}`,
    `# Kind of divergence: ${kind}`,
    `# Shrunk from ${original.case.objects.length} objects to ${shrunk.case.objects.length}.`,
    '# What diverged:',
    ...shrunk.divergences.flatMap((d) => d.split('\n').map((line) => `#   ${line}`)),
  ].join('\n');
  const body = stringify(
    { id: original.case.id, family: original.case.family, objects: shrunk.case.objects, oracle: shrunk.oracle?.cycles ?? [] },
    { lineWidth: 0, aliasDuplicateObjects: false },
  );
  writeFileSync(file, `${header}\n${body}`);
  return file;
}
