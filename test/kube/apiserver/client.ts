// What the test API server's own tests share: real @kubernetes/client-node clients from a generated
// kubeconfig, small object builders, and the check that a call failed with a given Status.
import assert from 'node:assert/strict';
import { request } from 'node:https';
import * as k8s from '@kubernetes/client-node';
import type { KubeObject, KubeStatus, TestApiServer, UserKind } from './index';

export interface Clients {
  readonly kc: k8s.KubeConfig;
  readonly core: k8s.CoreV1Api;
  readonly apps: k8s.AppsV1Api;
  readonly coordination: k8s.CoordinationV1Api;
  readonly scheduling: k8s.SchedulingV1Api;
  readonly crds: k8s.ApiextensionsV1Api;
  readonly custom: k8s.CustomObjectsApi;
  readonly objects: k8s.KubernetesObjectApi;
}

export function clients(server: TestApiServer, user: UserKind = 'token'): Clients {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(server.kubeconfig({ user }));
  return {
    kc,
    core: kc.makeApiClient(k8s.CoreV1Api),
    apps: kc.makeApiClient(k8s.AppsV1Api),
    coordination: kc.makeApiClient(k8s.CoordinationV1Api),
    scheduling: kc.makeApiClient(k8s.SchedulingV1Api),
    crds: kc.makeApiClient(k8s.ApiextensionsV1Api),
    custom: kc.makeApiClient(k8s.CustomObjectsApi),
    objects: k8s.KubernetesObjectApi.makeApiClient(kc),
  };
}

/** Request options that send a patch with the given content type. */
export function patchAs(strategy: k8s.PatchStrategy): k8s.ConfigurationOptions {
  return k8s.setHeaderOptions('Content-Type', strategy);
}

/** Asserts `call` fails with an API error whose body is a Status with these fields. */
export async function rejectsWith(call: Promise<unknown>, expected: Partial<KubeStatus>): Promise<KubeStatus> {
  try {
    await call;
  } catch (err) {
    assert.ok(err instanceof k8s.ApiException, `expected an ApiException, got ${String(err)}`);
    const status = (typeof err.body === 'string' ? JSON.parse(err.body) : err.body) as KubeStatus;
    assert.equal(err.code, status.code);
    assert.equal(status.kind, 'Status');
    assert.equal(status.status, 'Failure');
    for (const [key, value] of Object.entries(expected)) assert.deepEqual(status[key as keyof KubeStatus], value, `Status.${key}`);
    return status;
  }
  assert.fail('expected the call to fail');
}

export function node(name: string, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels }, status: { allocatable: { cpu: '4', memory: '16Gi', pods: '110' } } };
}

export interface PodOptions {
  namespace?: string;
  labels?: Record<string, string>;
  nodeName?: string;
  schedulerName?: string;
  phase?: string;
  priorityClassName?: string;
}

export function pod(name: string, o: PodOptions = {}): KubeObject {
  const spec: Record<string, unknown> = { containers: [{ name: 'main', image: 'nginx' }] };
  if (o.nodeName) spec.nodeName = o.nodeName;
  if (o.schedulerName) spec.schedulerName = o.schedulerName;
  if (o.priorityClassName) spec.priorityClassName = o.priorityClassName;
  const obj: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: o.namespace ?? 'default', labels: o.labels ?? {} },
    spec,
  };
  if (o.phase) obj.status = { phase: o.phase };
  return obj;
}

export function namespace(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
}

/** Names of a list's items, in order. */
export function names(list: { items: { metadata?: { name?: string } }[] }): string[] {
  return list.items.map((i) => i.metadata?.name ?? '');
}

/** Resolves when `predicate` holds, checking after each event loop turn (mocha's timeout bounds it). */
export async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((r) => setTimeout(r, 5));
}

export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: unknown;
}

/** One https request outside any client library (the server's CA trusted), for what clients hide. */
export function raw(
  server: TestApiServer,
  method: string,
  path: string,
  options: { token?: string | null; body?: string; contentType?: string; accept?: string } = {},
): Promise<RawAnswer> {
  const headers: Record<string, string> = {};
  const token = options.token === undefined ? server.token : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (options.contentType) headers['content-type'] = options.contentType;
  if (options.accept) headers.accept = options.accept;
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { method, headers, ca: server.tls.caCert }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
