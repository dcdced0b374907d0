// Kubeconfig loading as kubectl does it: `--kubeconfig FILE`, else every file of `KUBECONFIG`
// merged (the first file to name a cluster, user or context wins, and the first current-context
// set wins; files that do not exist are skipped), else `~/.kube/config`. client-node parses each
// file and does the authentication (token, client certificate, exec plugins, auth providers); its
// own KUBECONFIG merge differs from kubectl's (the last current-context wins, a name defined twice
// throws), so the files are merged here. Nothing here writes a kubeconfig.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { KubeConfig, type Cluster, type Context, type User } from '@kubernetes/client-node';
import { err, ok, type Result } from '../engine/api/result';
import { Redactor } from './redact';

export interface KubeconfigOptions {
  /** `--kubeconfig FILE`: this file only. */
  readonly kubeconfig?: string;
  /** `--context NAME`; the kubeconfig's current context when left out. */
  readonly context?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly homedir: string;
  /** Relative paths (of --kubeconfig and KUBECONFIG) are taken from here. */
  readonly cwd: string;
  readonly platform?: NodeJS.Platform;
}

/** The kubeconfig files to read, in precedence order, and whether they must exist. */
export function kubeconfigFiles(options: KubeconfigOptions): { files: string[]; explicit: boolean } {
  if (options.kubeconfig !== undefined) return { files: [path.resolve(options.cwd, options.kubeconfig)], explicit: true };
  const delimiter = (options.platform ?? process.platform) === 'win32' ? ';' : ':';
  const fromEnv = (options.env.KUBECONFIG ?? '').split(delimiter).filter((f) => f !== '');
  if (fromEnv.length > 0) return { files: [...new Set(fromEnv.map((f) => path.resolve(options.cwd, f)))], explicit: false };
  return { files: [path.join(options.homedir, '.kube', 'config')], explicit: false };
}

/** A merged kubeconfig before a context is chosen, and the redactor that knows its secrets. */
export interface Kubeconfig {
  readonly config: KubeConfig;
  readonly files: readonly string[];
  readonly redactor: Redactor;
}

export interface ContextInfo {
  readonly name: string;
  readonly cluster: string;
  readonly user: string;
  readonly namespace?: string;
  /** The cluster's server URL, when the cluster is defined. */
  readonly server?: string;
  readonly current: boolean;
}

/** Reads and merges the kubeconfig files; an error is one redacted line naming the file. */
export function loadKubeconfig(options: KubeconfigOptions): Result<Kubeconfig, string> {
  const { files, explicit } = kubeconfigFiles(options);
  const clusters = new Map<string, Cluster>();
  const users = new Map<string, User>();
  const contexts = new Map<string, Context>();
  let current = '';
  const read: string[] = [];
  const redactor = new Redactor();
  for (const file of files) {
    if (!existsSync(file)) {
      if (explicit) return err(`kubeconfig ${file}: no such file`);
      continue;
    }
    const one = new KubeConfig();
    try {
      one.loadFromFile(file);
    } catch (error) {
      // A YAML error quotes the file's text on the lines after the first: keep the first, redacted.
      return err(`kubeconfig ${file}: ${new Redactor().describe(error).split('\n')[0] ?? ''}`);
    }
    read.push(file);
    for (const u of one.getUsers()) rememberSecrets(u, redactor);
    for (const c of one.getClusters()) if (!clusters.has(c.name)) clusters.set(c.name, c);
    for (const u of one.getUsers()) if (!users.has(u.name)) users.set(u.name, u);
    for (const c of one.getContexts()) if (!contexts.has(c.name)) contexts.set(c.name, c);
    if (!current && one.getCurrentContext()) current = one.getCurrentContext();
  }
  if (read.length === 0) return err(`no kubeconfig found (looked at ${files.join(', ')}); pass --kubeconfig FILE or set KUBECONFIG`);
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [...clusters.values()],
    users: [...users.values()],
    contexts: [...contexts.values()],
    currentContext: current,
  });
  return ok({ config, files: read, redactor });
}

function rememberSecrets(user: User, redactor: Redactor): void {
  redactor.add(user.token);
  redactor.add(user.password);
  redactor.add(user.keyData);
  const exec = user.exec as { env?: Array<{ value?: string }> | null } | undefined;
  for (const e of exec?.env ?? []) redactor.add(e.value);
  const provider = user.authProvider as { config?: Record<string, unknown> } | undefined;
  for (const [key, value] of Object.entries(provider?.config ?? {})) {
    if (typeof value === 'string' && /token|secret|password|key/i.test(key)) redactor.add(value);
  }
}

/** Every context of the kubeconfig, for a picker; credentials are not part of it. */
export function listContexts(kubeconfig: Kubeconfig): ContextInfo[] {
  const { config } = kubeconfig;
  const currentName = config.getCurrentContext();
  return config.getContexts().map((c) => {
    const cluster = config.getCluster(c.cluster);
    const server = cluster ? kubeconfig.redactor.redact(withoutUserInfo(cluster.server)) : undefined;
    return {
      name: c.name,
      cluster: c.cluster,
      user: c.user,
      ...(c.namespace ? { namespace: c.namespace } : {}),
      ...(server ? { server } : {}),
      current: c.name === currentName,
    };
  });
}

/** A kubeconfig with its context chosen: what every client in src/kube is made from. */
export interface KubeContext {
  readonly config: KubeConfig;
  readonly context: string;
  /** The context's default namespace ("default" when it names none). */
  readonly namespace: string;
  readonly server: string;
  readonly redactor: Redactor;
}

/** The folder the service account's token, CA and namespace are mounted in, inside a pod. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * In-cluster credentials as client-node's loadFromCluster reads them: the API server from
 * KUBERNETES_SERVICE_HOST/PORT, the service account's token (read again as it is rotated), CA and
 * namespace from SERVICE_ACCOUNT_DIR under `root` (default "/": PODPLAN_IN_CLUSTER_ROOT moves it, for tests).
 */
export function openInClusterContext(env: Readonly<Record<string, string | undefined>>): Result<KubeContext, string> {
  const host = env['KUBERNETES_SERVICE_HOST'];
  const port = env['KUBERNETES_SERVICE_PORT'];
  if (!host || !port) return err('not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set');
  const root = (env['PODPLAN_IN_CLUSTER_ROOT'] ?? '').replace(/\/$/, '');
  const dir = `${root}${SERVICE_ACCOUNT_DIR}`;
  for (const file of ['token', 'ca.crt'])
    if (!existsSync(path.join(dir, file)))
      return err(`in-cluster credentials: ${path.join(dir, file)} does not exist (is a service account token mounted?)`);
  const config = new KubeConfig();
  const saved = { host: process.env['KUBERNETES_SERVICE_HOST'], port: process.env['KUBERNETES_SERVICE_PORT'] };
  // client-node reads these from process.env.
  process.env['KUBERNETES_SERVICE_HOST'] = host;
  process.env['KUBERNETES_SERVICE_PORT'] = port;
  try {
    config.loadFromCluster(root);
  } finally {
    if (saved.host === undefined) delete process.env['KUBERNETES_SERVICE_HOST'];
    else process.env['KUBERNETES_SERVICE_HOST'] = saved.host;
    if (saved.port === undefined) delete process.env['KUBERNETES_SERVICE_PORT'];
    else process.env['KUBERNETES_SERVICE_PORT'] = saved.port;
  }
  const redactor = new Redactor();
  try {
    redactor.add(readFileSync(path.join(dir, 'token'), 'utf8').trim());
  } catch {
    // unreadable: client-node reports it on the first request
  }
  return selectContext({ config, files: [path.join(dir, 'token')], redactor }, config.getCurrentContext());
}

/** Loads the kubeconfig and picks `options.context` (else its current context). */
export function openContext(options: KubeconfigOptions): Result<KubeContext, string> {
  const loaded = loadKubeconfig(options);
  if (!loaded.ok) return loaded;
  return selectContext(loaded.value, options.context);
}

export function selectContext(kubeconfig: Kubeconfig, name: string | undefined): Result<KubeContext, string> {
  const { redactor } = kubeconfig;
  // A copy: choosing a context never changes the loaded (or the user's) kubeconfig.
  const config = new KubeConfig();
  const source = kubeconfig.config;
  const chosen = name ?? source.getCurrentContext();
  const names = source.getContexts().map((c) => c.name);
  if (!chosen)
    return err(
      `the kubeconfig (${kubeconfig.files.join(', ')}) has no current context; pick one with --context (contexts: ${names.join(', ') || 'none'})`,
    );
  const context = source.getContextObject(chosen);
  if (!context)
    return err(`no context "${chosen}" in the kubeconfig (${kubeconfig.files.join(', ')}); contexts: ${names.join(', ') || 'none'}`);
  const cluster = source.getCluster(context.cluster);
  if (!cluster) return err(`context "${chosen}" names cluster "${context.cluster}", which the kubeconfig does not define`);
  const user = source.getUser(context.user);
  if (!user) return err(`context "${chosen}" names user "${context.user}", which the kubeconfig does not define`);
  config.loadFromOptions({ clusters: [cluster], users: [user], contexts: [context], currentContext: chosen });
  return ok({
    config,
    context: chosen,
    namespace: context.namespace ?? 'default',
    server: redactor.redact(withoutUserInfo(cluster.server)),
    redactor,
  });
}

/** A server URL without `user:password@` (kubeconfigs rarely have it, but it must never be shown). */
function withoutUserInfo(server: string): string {
  return server.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1');
}
