// `podplan export <plan-id>`: a plan from the history as the SchedulePlan manifest Pallet reads.
import { DB_HELP, runPlanCommand } from '../plan-store';
import type { Command } from '../io';

const HELP = `Usage: podplan export <plan-id> [--diagnoses] [--made-up-names] [--db file]

Prints a plan of the plan history as a SchedulePlan (planner.ciena.io/v1alpha1) on stdout, named as
Pallet names it, so that kubectl apply -f replaces the plan Pallet's controllers look up. spec.plan
holds the placements; status (which Pallet ignores) says how the plan was made, why each
unplaced pod was left out, and which running pods the plan evicts (status.victims: pod, node, by).

Options:
  --diagnoses       also write every pod's full diagnosis into the status (long), so that reading
                    the file back gives the whole plan
  --made-up-names   write the plan even when it places pods whose names were made up for workload
                    replicas (podplan show marks them *), which match no real pod; refused without
${DB_HELP}
  -h, --help        this help

Exit codes: 0 written, 2 no such plan (or a podplan schedule run, which has no pod set), bad
options or a history that cannot be opened.

Example:
  podplan export 12 > web-plan.yaml
`;

export const exportPlan: Command = {
  name: 'export',
  summary: 'print a plan from the history as a SchedulePlan manifest',
  help: HELP,
  run: (args, io) =>
    runPlanCommand('export', args, io, {
      ids: 1,
      options: { diagnoses: { type: 'boolean' }, 'made-up-names': { type: 'boolean' } },
      query: (store, [id], values) =>
        store.exportPlan(id!, { diagnoses: values['diagnoses'] === true, madeUpNames: values['made-up-names'] === true }),
      print: (yaml) => yaml,
    }),
};
