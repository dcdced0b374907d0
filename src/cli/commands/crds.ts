// `podplan crds` prints the ScheduleTrigger and SchedulePlan CRDs (Pallet-compatible, see
// src/kube/crds.ts); `podplan install-crds` shows what installing them in a context would do and
// does it (unless --dry-run): the only commands here that write to a cluster, and only CRDs.
import { stringify } from 'yaml';
import { applyCrdInstall, KubeHttp, PLANNER_CRDS, planCrdInstall } from '../../kube';
import { parseCommand } from '../arguments';
import { EXIT, type Command } from '../io';
import { contextOf, sourceHelp, SOURCE_OPTIONS } from '../source';

const CRDS_HELP = `Usage: podplan crds

Prints the CustomResourceDefinitions of ScheduleTrigger and SchedulePlan (planner.ciena.io/v1alpha1)
as YAML, ready for kubectl apply -f -. They are Pallet's (same group, kinds, short names st/sp,
required fields, status subresource) with one addition: a ScheduleTrigger's optional
spec.dependsOn. A SchedulePlan's status is a bare object as in Pallet's CRD, so Podplan writes its
plan status in the annotation podplan.io/plan-status.

Options:
  -h, --help  this help

Exit codes: 0.
`;

export const crds: Command = {
  name: 'crds',
  summary: 'print the ScheduleTrigger and SchedulePlan CRDs (Pallet-compatible)',
  help: CRDS_HELP,
  async run(args, io) {
    if (!parseCommand('crds', args, {}, 0, io)) return EXIT.badInput;
    io.stdout(PLANNER_CRDS.map((c) => `---\n${stringify(c, { lineWidth: 0 })}`).join(''));
    return EXIT.ok;
  },
};

const INSTALL_HELP = `Usage: podplan install-crds --context NAME [--kubeconfig file] [--dry-run]

Installs the CRDs podplan crds prints in the cluster of a kube context: prints, per CRD, whether it
will be created, updated (it exists and differs) or left unchanged, then does it. With --dry-run
it only prints. An update carries the resourceVersion read, so a CRD changed meanwhile is not
overwritten (run the command again).

Options:
${sourceHelp(22)}
  --dry-run           print what would be done and write nothing
  -h, --help          this help

Exit codes: 0 done (or nothing to do), 2 bad input or the cluster refused.
`;

export const installCrds: Command = {
  name: 'install-crds',
  summary: 'install the ScheduleTrigger and SchedulePlan CRDs in a kube context',
  help: INSTALL_HELP,
  async run(args, io) {
    const parsed = parseCommand('install-crds', args, { ...SOURCE_OPTIONS, 'dry-run': { type: 'boolean' } }, 0, io);
    if (!parsed) return EXIT.badInput;
    const fail = (message: string) => {
      io.stderr(`podplan install-crds: ${message}\n`);
      return EXIT.badInput;
    };
    if (parsed.values.context === undefined && parsed.values.kubeconfig === undefined)
      return fail(`--context NAME is required (or --kubeconfig FILE for its current context)\n\n${INSTALL_HELP}`);
    const context = contextOf(parsed, io);
    if (!context.ok) return fail(context.error);
    const http = new KubeHttp(context.value);
    const steps = await planCrdInstall(http);
    if (!steps.ok) return fail(steps.error);
    const dryRun = parsed.values['dry-run'] === true;
    io.stdout(`${dryRun ? 'Would apply' : 'Applying'} to context ${context.value.context} (${context.value.server}):\n`);
    for (const s of steps.value) io.stdout(`  ${s.action.padEnd(9)} customresourcedefinition/${s.name}\n`);
    if (dryRun) return EXIT.ok;
    const applied = await applyCrdInstall(http, steps.value);
    if (!applied.ok) return fail(applied.error);
    const changed = steps.value.filter((s) => s.action !== 'unchanged').length;
    io.stdout(changed === 0 ? 'Nothing to do.\n' : `Done: ${changed} CRD${changed === 1 ? '' : 's'} written.\n`);
    return EXIT.ok;
  },
};
