// Where a command's cluster comes from: YAML paths, or a kube context (`--context NAME`,
// `--kubeconfig FILE`) read once, read only. Either way the command gets the same workspace model
// (the cluster's objects go through the manifests decoder, as files do), so adding the cluster as
// a source to a command is passing its parsed arguments to `readSource` instead of its paths.
import path from 'node:path';
import { clusterModel, KubeHttp, openContext, openInClusterContext, readCluster, type ClusterRead, type KubeContext } from '../kube';
import { err, ok, type Result } from '../engine/api/result';
import type { WorkspaceModel } from '../manifests';
import type { SourceRef } from '../store/types';
import { modelProblems, readWorkspace, STDIN, STDIN_NAME, type Input, type ReadOptions } from './input';
import type { CliIO } from './io';

/** The options every command reading a cluster takes (spread into its parseArgs options). */
export const SOURCE_OPTIONS = { context: { type: 'string' }, kubeconfig: { type: 'string' }, 'in-cluster': { type: 'boolean' } } as const;

const SOURCE_OPTION_HELP: ReadonlyArray<[option: string, lines: readonly string[]]> = [
  ['--context <name>', ['read the cluster of this kube context instead of files (read only:', 'nothing is written to the cluster)']],
  [
    '--kubeconfig <file>',
    [
      'the kubeconfig (default: $KUBECONFIG, all its files merged as kubectl',
      'does, else ~/.kube/config); alone, its current context is used',
    ],
  ],
  [
    '--in-cluster',
    ["inside a pod: the cluster of the pod's service account (its mounted", 'token, CA and namespace; KUBERNETES_SERVICE_HOST/PORT)'],
  ],
];

/** The help lines of SOURCE_OPTIONS, their text starting at `column` like the command's other options. */
export function sourceHelp(column: number): string {
  const pad = ' '.repeat(column);
  return SOURCE_OPTION_HELP.flatMap(([option, lines]) => {
    const head = `  ${option}`;
    const text = lines.map((l, i) => (i === 0 && head.length < column - 1 ? '' : pad) + l);
    if (head.length < column - 1) text[0] = head.padEnd(column) + text[0];
    else text.unshift(head);
    return text;
  }).join('\n');
}

export interface SourceArgs {
  readonly positionals: readonly string[];
  readonly values: {
    readonly context?: string | undefined;
    readonly kubeconfig?: string | undefined;
    readonly 'in-cluster'?: boolean | undefined;
  };
}

/** Whether the arguments name a kube context (rather than paths). */
export function isClusterSource(args: SourceArgs): boolean {
  return args.values.context !== undefined || args.values.kubeconfig !== undefined || args.values['in-cluster'] === true;
}

/** Why the arguments name no source, or both kinds; undefined when they name exactly one. */
export function sourceProblem(args: SourceArgs): string | undefined {
  if (isClusterSource(args) && args.positionals.length > 0)
    return `give paths or --context/--kubeconfig, not both (paths: ${args.positionals.join(' ')})`;
  if (!isClusterSource(args) && args.positionals.length === 0) return 'no paths given (YAML files or directories), and no --context';
  return undefined;
}

/** The kube context the arguments name, its kubeconfig loaded; an error is one redacted line. */
export function contextOf(args: SourceArgs, io: CliIO): Result<KubeContext, string> {
  const { context, kubeconfig } = args.values;
  if (args.values['in-cluster'] === true)
    return context !== undefined || kubeconfig !== undefined
      ? err('--in-cluster excludes --context and --kubeconfig')
      : openInClusterContext(io.env);
  return openContext({
    ...(context !== undefined ? { context } : {}),
    ...(kubeconfig !== undefined ? { kubeconfig } : {}),
    env: io.env,
    homedir: io.homedir,
    cwd: io.cwd,
    platform: io.platform,
  });
}

/** Reads the cluster of the context the arguments name (all namespaces, or `namespace`). */
export async function readContext(
  args: SourceArgs,
  io: CliIO,
  namespace?: string,
): Promise<Result<{ context: KubeContext; read: ClusterRead }, string>> {
  const context = contextOf(args, io);
  if (!context.ok) return context;
  const read = await readCluster(new KubeHttp(context.value), namespace !== undefined ? { namespace } : {});
  return read.ok ? ok({ context: context.value, read: read.value }) : err(read.error);
}

export interface SourceInput extends Input<WorkspaceModel> {
  /** What the model was read from, for the plan history. */
  readonly source: SourceRef;
}

/** The workspace model of the paths or the kube context the arguments name, every problem as a line. */
export async function readSource(args: SourceArgs, io: CliIO, options: ReadOptions = {}): Promise<SourceInput> {
  const files: SourceRef = {
    kind: 'workspace',
    name: args.positionals.map((p) => (p === STDIN ? STDIN_NAME : path.resolve(io.cwd, p))).join(' '),
  };
  const problem = sourceProblem(args);
  if (problem) return { errors: [problem], warnings: [], source: files };
  if (!isClusterSource(args)) return { ...(await readWorkspace(args.positionals, io, options)), source: files };
  const source: SourceRef = { kind: 'kube-context', name: args.values.context ?? 'current context' };
  const read = await readContext(args, io);
  if (!read.ok) return { errors: [read.error], warnings: [], source };
  const model = clusterModel(read.value.read);
  return {
    value: model,
    ...modelProblems(model, {}, [], [...read.value.read.warnings]),
    source: { kind: 'kube-context', name: read.value.context.context, server: read.value.context.server },
  };
}
