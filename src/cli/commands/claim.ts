// `podplan claim`: claims idle pods of a warm pool in a cluster through engine/claims with the kube
// pool target (src/kube/pool.ts), and prints which pods it got.
import { randomUUID } from 'node:crypto';
import { parseGoDuration } from '../../engine/planner/podset/duration';
import { claimRequest, ClaimScheduler } from '../../engine/claims/scheduler';
import { CLAIMED_BY_ANNOTATION, KubePoolTarget, PHASE_ANNOTATION, POOL_LABEL } from '../../kube/pool';
import { KubeHttp } from '../../kube/http';
import { openContext } from '../../kube/kubeconfig';
import { poolClient } from '../../kube/live/cluster';
import { parseCommand } from '../arguments';
import { databasePath, dbHelp, DB_OPTION, openHistory } from '../plan-store';
import { EXIT, type Command } from '../io';

const HELP = `Usage: podplan claim --context <name> --pool <name> [--count n] [--timeout d] [-n namespace] [--kubeconfig file] [--db file]

Claims idle pods of a warm pool: the pods of the namespace labelled ${POOL_LABEL}=<pool> whose
annotation ${PHASE_ANNOTATION} is Idle. Each claim moves one pod to Starting with an update guarded by
the pod's resourceVersion, so two claimers never get the same pod: a conflict is retried with
another pod, any other error fails that claim. The claim also writes ${CLAIMED_BY_ANNOTATION} and
planner.ciena.io/target-phase (Running).

Options:
  --context <name>     the kube context (required)
  --pool <name>        the pool (required)
  --count <n>          how many pods to claim (default 1)
  --timeout <d>        how long to wait for idle pods, a Go duration (default 30s)
  -n, --namespace <ns> the pool's namespace (default: the context's, else default)
  --kubeconfig <file>  the kubeconfig (default: $KUBECONFIG, else ~/.kube/config)
${dbHelp(23)}
  --no-history         do not record the claims in the plan history
  -h, --help           this help

Prints one line per pod claimed (namespace/name) and one per claim that failed, with why.
Exit codes: 0 every claim got a pod, 1 some did not, 2 bad input.
`;

/** How long after an idle notification the pool is listed again. */
const CLAIM_POLL_MS = 1_000;

export const claim: Command = {
  name: 'claim',
  summary: 'claim idle pods of a warm pool in a cluster (kube context)',
  help: HELP,
  async run(args, io) {
    const parsed = parseCommand(
      'claim',
      args,
      {
        ...DB_OPTION,
        context: { type: 'string' },
        kubeconfig: { type: 'string' },
        pool: { type: 'string' },
        count: { type: 'string' },
        timeout: { type: 'string' },
        namespace: { type: 'string', short: 'n' },
        'no-history': { type: 'boolean' },
      },
      0,
      io,
    );
    if (!parsed) return EXIT.badInput;
    const { values } = parsed;
    const problems: string[] = [];
    if (!values.context) problems.push('--context is required');
    if (!values.pool) problems.push('--pool is required');
    const count = values.count === undefined ? 1 : Number(values.count);
    if (!Number.isInteger(count) || count < 1) problems.push(`--count must be a whole number of at least 1, not "${values.count}"`);
    const timeout = parseGoDuration(values.timeout ?? '30s');
    if (!timeout.ok) problems.push(`--timeout: ${timeout.error}`);
    else if (timeout.value <= 0) problems.push(`--timeout must be positive, not "${values.timeout}"`);
    if (problems.length > 0 || !timeout.ok) {
      for (const p of problems) io.stderr(`podplan claim: ${p}\n`);
      return EXIT.badInput;
    }
    const pool = values.pool as string;
    const context = openContext({
      context: values.context as string,
      ...(values.kubeconfig !== undefined ? { kubeconfig: values.kubeconfig } : {}),
      env: io.env,
      homedir: io.homedir,
      cwd: io.cwd,
      platform: io.platform,
    });
    if (!context.ok) {
      io.stderr(`podplan claim: ${context.error}\n`);
      return EXIT.badInput;
    }
    const namespace = values.namespace ?? context.value.namespace;
    const client = poolClient(new KubeHttp(context.value), namespace, `${POOL_LABEL}=${pool}`);
    const target = new KubePoolTarget({ pool, list: () => client.list(), update: (pod) => client.update(pod) });
    const claims = new ClaimScheduler({
      pool,
      target,
      clock: io.clock,
      capacity: Math.max(count, 1),
      pollMinMs: CLAIM_POLL_MS,
      pollMaxMs: CLAIM_POLL_MS * 5,
    });
    const deadline = io.clock.now() + timeout.value;
    const batch = randomUUID().slice(0, 8);
    const pending = Array.from({ length: count }, (_, i) => claimRequest({ id: `podplan-claim-${batch}-${i + 1}`, deadline }));
    for (const p of pending) claims.enqueue(p.request);
    const answers = await Promise.all(pending.map((p) => p.answer));
    await claims.shutdown();

    const opened = values['no-history'] ? undefined : await openHistory(databasePath(values.db, io), io);
    if (opened && !opened.ok) io.stderr(`podplan claim: plan history is off: ${opened.error.message}\n`);
    const store = opened?.ok ? opened.value : undefined;
    let got = 0;
    answers.forEach((answer, i) => {
      const request = pending[i]!.request.id;
      if (answer.ok) {
        got++;
        io.stdout(`claimed ${namespace}/${answer.value.name}\n`);
      } else {
        io.stdout(`not claimed (${request}): ${answer.error.message}\n`);
      }
      store?.recordClaim({
        namespace,
        pool,
        request,
        ...(answer.ok ? { pod: answer.value.name } : {}),
        outcome: answer.ok ? 'claimed' : 'failed',
        ...(answer.ok ? {} : { message: answer.error.message }),
        at: io.clock.now(),
      });
    });
    store?.close();
    io.stderr(`${got} of ${count} claimed from pool ${namespace}/${pool}.\n`);
    return got === count ? EXIT.ok : EXIT.unplaced;
  },
};
