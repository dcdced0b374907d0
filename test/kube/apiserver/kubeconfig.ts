// Kubeconfig files for the test API server: several contexts, users with a bearer token, a client
// certificate or both, the server's CA in `certificate-authority-data`.
import { rmSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { TlsMaterial } from './tls';

/** `exec`: an exec credential plugin (node printing an ExecCredential with the token) */
export type UserKind = 'token' | 'cert' | 'both' | 'exec';

export interface ContextSpec {
  readonly name: string;
  readonly namespace?: string;
  /** credentials of this context's user (default: the kubeconfig's `user`) */
  readonly user?: UserKind;
}

export interface KubeconfigOptions {
  /** contexts to write (default: one context named `test`) */
  readonly contexts?: readonly ContextSpec[];
  /** credentials of the users (default `token`) */
  readonly user?: UserKind;
  /** namespace of the default context */
  readonly namespace?: string;
  /** current-context (default: the first context) */
  readonly currentContext?: string;
  /** prefix of the cluster and user names, so several files can be merged through KUBECONFIG */
  readonly prefix?: string;
}

export interface KubeconfigTarget {
  readonly url: string;
  readonly token: string;
  readonly tls: TlsMaterial;
}

const b64 = (text: string): string => Buffer.from(text).toString('base64');

export function kubeconfigYaml(target: KubeconfigTarget, options: KubeconfigOptions = {}): string {
  const prefix = options.prefix ?? '';
  const cluster = `${prefix}test-apiserver`;
  const defaultUser = options.user ?? 'token';
  const contexts = options.contexts ?? [{ name: `${prefix}test`, namespace: options.namespace }];
  const kinds = [...new Set(contexts.map((c) => c.user ?? defaultUser))];
  const userName = (kind: UserKind): string => `${prefix}test-${kind}-user`;
  const users = kinds.map((kind) => {
    const user: Record<string, unknown> = {};
    if (kind === 'token' || kind === 'both') user.token = target.token;
    if (kind === 'exec') user.exec = execPlugin(target.token);
    if (kind === 'cert' || kind === 'both') {
      user['client-certificate-data'] = b64(target.tls.clientCert);
      user['client-key-data'] = b64(target.tls.clientKey);
    }
    return { name: userName(kind), user };
  });
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: [{ name: cluster, cluster: { server: target.url, 'certificate-authority-data': b64(target.tls.caCert) } }],
    users,
    contexts: contexts.map((c) => {
      const context: Record<string, string> = { cluster, user: userName(c.user ?? defaultUser) };
      const namespace = c.namespace ?? options.namespace;
      if (namespace) context.namespace = namespace;
      return { name: c.name, context };
    }),
    'current-context': options.currentContext ?? contexts[0]?.name ?? '',
  };
  return stringify(doc);
}

// v1beta1: the exec credential version every kubectl since 1.11 and client-node understand
const EXEC_API_VERSION = 'client.authentication.k8s.io/v1beta1';

function execPlugin(token: string): Record<string, unknown> {
  const credential = { apiVersion: EXEC_API_VERSION, kind: 'ExecCredential', status: { token } };
  return {
    apiVersion: EXEC_API_VERSION,
    command: process.execPath,
    args: ['-e', `process.stdout.write(${JSON.stringify(JSON.stringify(credential))})`],
  };
}

const written = new Set<string>();

// Kept for the whole process, not the server's life: a test may read a kubeconfig again after its server closed.
function removeAtExit(dir: string): void {
  if (written.size === 0) process.once('exit', () => written.forEach((d) => rmSync(d, { recursive: true, force: true })));
  written.add(dir);
}

/** Writes the kubeconfig into a fresh temporary folder (removed when the process exits) and returns the file's path. */
export async function writeKubeconfigFile(yaml: string, fileName = 'kubeconfig'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'podplan-kubeconfig-'));
  removeAtExit(dir);
  const file = join(dir, fileName);
  await writeFile(file, yaml, { mode: 0o600 });
  return file;
}
