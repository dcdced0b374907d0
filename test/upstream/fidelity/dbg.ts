import { generateCase, type Family } from '/work/main/test/upstream/fidelity/generate';
import { runBatch } from '/work/main/test/upstream/fidelity/suite';
const [family, seed] = process.argv.slice(2);
const c = generateCase(family as Family, Number(seed));
const [v] = await runBatch('/tmp/oracle', [c]);
if (process.env.OBJ) for (const o of c.objects) if (o.kind==='Pod'||o.kind==='Node') console.log(JSON.stringify(o));
for (const [i, cy] of v!.podplan.cycles.entries()) console.log('P', i, JSON.stringify(cy.step), cy.diagnosis.message ?? '');
for (const [i, cy] of v!.oracle!.cycles.entries()) console.log('O', i, cy.pod, cy.applied, cy.message ?? '', JSON.stringify(cy.top));
console.log(v!.divergences.join('\n'));
