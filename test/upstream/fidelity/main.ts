// npm run fidelity -- [--seed S] [--cases N] [--family F] [--no-shrink] [--show K]
// Generates N cases per family from seed S, runs each through Podplan and upstream's framework (the
// oracle), and compares them. A diverging case is shrunk and written under test/upstream/regressions
// with the oracle's answer. Last line: "N agreed, M diverged"; exit 0 only when none diverged.
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { FAMILIES, generateCase, type Family, type FidelityCase } from './generate';
import { oraclePath } from './oracle';
import { divergenceKind, runBatch, shrink, writeRegression, type CaseVerdict } from './suite';

const BATCH = 200;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string', default: '1' },
      cases: { type: 'string', default: '100' },
      family: { type: 'string', multiple: true },
      'no-shrink': { type: 'boolean', default: false },
      'max-shrink': { type: 'string', default: '5' },
      show: { type: 'string', default: '3' },
    },
  });
  const seed = Number(values.seed);
  const count = Number(values.cases);
  const families = (values.family?.length ? values.family : FAMILIES) as Family[];
  for (const f of families) {
    if (!FAMILIES.includes(f)) {
      process.stderr.write(`fidelity: no family ${f} (families: ${FAMILIES.join(', ')})\n`);
      return 2;
    }
  }
  if (!Number.isInteger(seed) || !Number.isInteger(count) || count < 1) {
    process.stderr.write('fidelity: --seed and --cases take integers (--cases at least 1)\n');
    return 2;
  }
  const oracle = oraclePath();
  let agreed = 0;
  let diverged = 0;
  const failing: CaseVerdict[] = [];
  for (const family of families) {
    let familyAgreed = 0;
    const familyDiverged: CaseVerdict[] = [];
    for (let from = 0; from < count; from += BATCH) {
      const cases: FidelityCase[] = [];
      for (let i = from; i < Math.min(count, from + BATCH); i++) cases.push(generateCase(family, seed + i));
      for (const verdict of await runBatch(oracle, cases)) {
        if (verdict.divergences.length === 0) familyAgreed++;
        else familyDiverged.push(verdict);
      }
    }
    agreed += familyAgreed;
    diverged += familyDiverged.length;
    failing.push(...familyDiverged);
    process.stdout.write(`${family}: ${familyAgreed} agreed, ${familyDiverged.length} diverged (seeds ${seed}..${seed + count - 1})\n`);
    for (const v of familyDiverged.slice(0, Number(values.show))) {
      process.stdout.write(
        `  ${v.case.id}:\n${v.divergences
          .slice(0, 6)
          .map((d) => `    ${d}`)
          .join('\n')}\n`,
      );
    }
  }
  if (!values['no-shrink']) {
    const dir = join(import.meta.dirname, '..', 'regressions');
    // One case per kind of divergence first, so the regression cases cover every kind found.
    const byKind = new Map<string, CaseVerdict>();
    for (const v of failing) {
      for (const line of v.divergences) {
        const kind = divergenceKind(line);
        if (!byKind.has(kind)) byKind.set(kind, v);
      }
    }
    const written = new Set<string>();
    for (const [kind, v] of [...byKind].slice(0, Number(values['max-shrink']))) {
      const seedOf = v.case.id.slice(v.case.family.length + 1);
      const shrunk = await shrink(oracle, v, kind);
      let name = `${v.case.id}-${kind
        .replace(/[^A-Za-z0-9]+/g, '-')
        .replace(/^-|-$/g, '')
        .toLowerCase()}`.slice(0, 90);
      while (written.has(name)) name += '-';
      written.add(name);
      const file = writeRegression(dir, name, v, shrunk, kind, `npm run fidelity -- --family ${v.case.family} --seed ${seedOf} --cases 1`);
      process.stdout.write(`shrunk ${v.case.id} (${kind}) to ${shrunk.case.objects.length} objects: ${file}\n`);
    }
  }
  process.stdout.write(`${agreed} agreed, ${diverged} diverged\n`);
  return diverged === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`fidelity: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(2);
  },
);
