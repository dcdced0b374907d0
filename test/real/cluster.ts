// The real-API-server tier: etcd and kube-apiserver v1.37.2 (built from the module proxy by
// scripts/upstream.sh) started on loopback ports for a test file, with RBAC on, service-account
// tokens signed by a key made here, the default admission plugins and certificates made here with
// openssl. Nodes get no taint from TaintNodesByCondition (no node lifecycle controller runs to lift
// the not-ready taint it adds), and each namespace a test makes gets its `default` ServiceAccount
// (no controller manager runs to make it; the ServiceAccount admission plugin needs it). A test may
// ask for some of kube-controller-manager's controllers (`controllers`), run as the admin.
//
//   const cluster = await startRealCluster();
//   await cluster.apply(node('n1'), pod('p1'));
//   await cluster.podplan(['run', '--once', ...cluster.admin]);
//   await cluster.kubectl(['describe', 'pod', 'p1']);
//   await cluster.stop();
//
// PODPLAN_UPSTREAM_BIN names a folder with the binaries (development); otherwise scripts/upstream.sh
// is run (it prints the folder; seconds when its cache is warm).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync, readFileSync, openSync, closeSync } from 'node:fs';
import { createServer, request as httpsRequest } from 'node:https';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { writeCertificates } from '../kube/apiserver/tls';

const exec = promisify(execFile);
export const ROOT = join(import.meta.dirname, '../..');

let binFolder: Promise<string> | undefined;

/** The folder of the upstream binaries: $PODPLAN_UPSTREAM_BIN, else what scripts/upstream.sh builds. */
export function upstreamBin(): Promise<string> {
  binFolder ??= (async () => {
    const env = process.env['PODPLAN_UPSTREAM_BIN'];
    if (env) return env;
    const { stdout } = await exec('bash', [join(ROOT, 'scripts/upstream.sh')], { cwd: ROOT, maxBuffer: 1 << 24 });
    const lines = stdout.trim().split('\n');
    const last = lines[lines.length - 1];
    if (!last) throw new Error('scripts/upstream.sh printed no folder');
    return last;
  })();
  return binFolder;
}

export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly [k: string]: unknown };
  readonly [k: string]: unknown;
}

export interface Answer<T = unknown> {
  readonly status: number;
  readonly body: T;
  readonly text: string;
}

export interface RealCluster {
  readonly server: string;
  readonly dir: string;
  readonly bin: string;
  /** A kubeconfig with the context `admin` (client certificate, system:masters). */
  readonly kubeconfig: string;
  readonly caCert: string;
  /** `--context admin --kubeconfig <file>` for podplan and kubectl. */
  readonly admin: readonly string[];
  /** A raw request as the admin (JSON in and out). */
  request<T = unknown>(method: string, path: string, body?: unknown, contentType?: string, token?: string): Promise<Answer<T>>;
  /** Creates the objects in order (namespaces and their default ServiceAccount first); throws on any failure. */
  apply(...objects: KubeObject[]): Promise<void>;
  /** A namespace and its `default` ServiceAccount. */
  namespace(name: string): Promise<void>;
  /** Lists pods of a namespace (all when undefined). */
  pods(namespace?: string): Promise<PodObject[]>;
  /** Events (events.k8s.io/v1) of a namespace. */
  events(namespace: string): Promise<EventObject[]>;
  /** Runs the built kubectl with the admin kubeconfig. */
  kubectl(args: readonly string[], env?: Record<string, string>): Promise<Run>;
  /** Runs the built CLI (bin/podplan.js). */
  podplan(args: readonly string[], options?: { env?: Record<string, string>; input?: string }): Promise<Run>;
  /** Starts the built CLI and returns the child (stdout/stderr collected in `output`). */
  spawnPodplan(args: readonly string[], env?: Record<string, string>): Spawned;
  /** Writes a kubeconfig for a bearer token (context `token`); returns its path. */
  tokenKubeconfig(token: string, name: string): string;
  stop(): Promise<void>;
}

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Spawned {
  readonly child: ChildProcess;
  readonly output: { stdout: string; stderr: string };
  /** Resolves once `predicate` holds for the output so far. */
  waitFor(predicate: (o: { stdout: string; stderr: string }) => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** SIGTERM and wait for exit. */
  stop(): Promise<Run>;
}

export interface PodObject extends KubeObject {
  readonly metadata: KubeObject['metadata'] & { readonly uid: string; readonly generation?: number; readonly deletionTimestamp?: string };
  readonly spec: { readonly nodeName?: string; readonly schedulerName?: string; readonly priority?: number };
  readonly status?: {
    readonly phase?: string;
    readonly nominatedNodeName?: string;
    readonly conditions?: ReadonlyArray<{ type: string; status: string; reason?: string; message?: string; observedGeneration?: number }>;
  };
}

export interface EventObject {
  readonly metadata: { readonly name: string; readonly namespace: string };
  readonly reason: string;
  readonly action: string;
  readonly note?: string;
  readonly type: string;
  readonly reportingController: string;
  readonly reportingInstance: string;
  readonly regarding: { readonly kind: string; readonly name: string; readonly namespace: string; readonly uid?: string };
  readonly related?: { readonly kind: string; readonly name: string; readonly uid?: string };
  readonly series?: { readonly count: number; readonly lastObservedTime: string };
  readonly eventTime: string;
}

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** The first port of the kernel's ephemeral range (outgoing connections take their local ports from it). */
function ephemeralStart(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

function listensOn(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createNetServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A free loopback port below the ephemeral range: a port there cannot be taken, between this check
 * and the server binding it, by one of the many outgoing connections the cluster's processes open
 * (kube-apiserver's to etcd took one in a CI run: "bind: address already in use").
 */
export async function freePort(): Promise<number> {
  const high = ephemeralStart();
  const low = Math.min(10_000, high - 1_000);
  for (let tries = 0; tries < 200; tries++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await listensOn(port)) return port;
  }
  throw new Error(`no free loopback port in ${low}-${high - 1} after 200 tries`);
}

/** CA, serving and admin client certificates (EC P-256) and the service-account signing key. */
async function makeCertificates(dir: string): Promise<void> {
  const file = (name: string) => join(dir, name);
  await writeCertificates(dir, 'podplan-real-ca', [
    {
      name: 'apiserver',
      subject: '/CN=kube-apiserver',
      ext: 'subjectAltName=IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\n',
    },
    {
      name: 'admin',
      subject: '/O=system:masters/CN=podplan-admin',
      ext: 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n',
    },
  ]);
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  writeFileSync(file('sa.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(file('sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
}

function startProcess(command: string, args: readonly string[], logFile: string): ChildProcess {
  const log = openSync(logFile, 'a');
  const child = spawn(command, args, { stdio: ['ignore', log, log] });
  closeSync(log);
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

export interface RealClusterOptions {
  /** Extra kube-apiserver flags. */
  readonly apiserverArgs?: readonly string[];
  /** Controllers of kube-controller-manager to run (its --controllers), as the admin; none when absent. */
  readonly controllers?: readonly string[];
}

export async function startRealCluster(options: RealClusterOptions = {}): Promise<RealCluster> {
  const bin = await upstreamBin();
  const dir = mkdtempSync(join(tmpdir(), 'podplan-real-'));
  await makeCertificates(dir);
  const [etcdPort, peerPort, apiPort] = [await freePort(), await freePort(), await freePort()];
  const etcdUrl = `http://127.0.0.1:${etcdPort}`;
  const etcd = startProcess(
    join(bin, 'etcd'),
    [
      '--name',
      'podplan',
      '--data-dir',
      join(dir, 'etcd'),
      '--listen-client-urls',
      etcdUrl,
      '--advertise-client-urls',
      etcdUrl,
      '--listen-peer-urls',
      `http://127.0.0.1:${peerPort}`,
      '--initial-advertise-peer-urls',
      `http://127.0.0.1:${peerPort}`,
      '--initial-cluster',
      `podplan=http://127.0.0.1:${peerPort}`,
      '--unsafe-no-fsync',
      '--log-level',
      'warn',
    ],
    join(dir, 'etcd.log'),
  );
  const file = (name: string) => join(dir, name);
  const apiserver = startProcess(
    join(bin, 'kube-apiserver'),
    [
      `--etcd-servers=${etcdUrl}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      `--tls-cert-file=${file('apiserver.crt')}`,
      `--tls-private-key-file=${file('apiserver.key')}`,
      `--client-ca-file=${file('ca.crt')}`,
      '--authorization-mode=Node,RBAC',
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${file('sa.pub')}`,
      `--service-account-signing-key-file=${file('sa.key')}`,
      '--service-cluster-ip-range=10.0.0.0/24',
      // The kubernetes Service's endpoints would name the advertise address, which may not be loopback.
      '--endpoint-reconciler-type=none',
      '--enable-admission-plugins=NodeRestriction',
      '--disable-admission-plugins=TaintNodesByCondition',
      `--cert-dir=${file('certs')}`,
      '--profiling=false',
      '--v=1',
      ...(options.apiserverArgs ?? []),
    ],
    file('kube-apiserver.log'),
  );
  const server = `https://127.0.0.1:${apiPort}`;
  const caCert = readFileSync(file('ca.crt'), 'utf8');
  const cert = readFileSync(file('admin.crt'), 'utf8');
  const key = readFileSync(file('admin.key'), 'utf8');
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const kubeconfig = file('kubeconfig');
  writeFileSync(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters:
- name: real
  cluster: {server: ${server}, certificate-authority-data: ${b64(caCert)}}
users:
- name: admin
  user: {client-certificate-data: ${b64(cert)}, client-key-data: ${b64(key)}}
contexts:
- name: admin
  context: {cluster: real, user: admin, namespace: default}
current-context: admin
`,
  );

  const request = <T>(method: string, path: string, body?: unknown, contentType = 'application/json', token?: string): Promise<Answer<T>> =>
    new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const req = httpsRequest(
        `${server}${path}`,
        {
          method,
          ca: caCert,
          ...(token ? {} : { cert, key }),
          headers: {
            accept: 'application/json',
            ...(data !== undefined ? { 'content-type': contentType } : {}),
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (c: string) => (text += c));
          res.on('end', () => {
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {
              // not JSON (healthz answers "ok")
            }
            resolve({ status: res.statusCode ?? 0, body: parsed as T, text });
          });
        },
      );
      req.on('error', reject);
      req.end(data);
    });

  let controllerManager: ChildProcess | undefined;
  const stopAll = async () => {
    if (controllerManager) await stopProcess(controllerManager);
    await stopProcess(apiserver);
    await stopProcess(etcd);
  };
  // Ready once /readyz says so (the bootstrap RBAC roles and priority classes are then in place).
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (apiserver.exitCode !== null || etcd.exitCode !== null) {
      await stopAll();
      throw new Error(
        `kube-apiserver or etcd exited at start; see ${dir}/*.log:\n${readFileSync(file('kube-apiserver.log'), 'utf8').slice(-3000)}`,
      );
    }
    const ready = await request('GET', '/readyz').catch(() => undefined);
    if (ready?.status === 200) break;
    if (Date.now() > deadline) {
      await stopAll();
      throw new Error(`kube-apiserver not ready after 90 s (${ready?.status} ${ready?.text.slice(0, 500)}); see ${dir}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }

  const namespaces = new Set<string>(['kube-system']);
  const namespace = async (name: string) => {
    if (namespaces.has(name)) return;
    const ns = await request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    if (ns.status !== 201 && ns.status !== 409) throw new Error(`creating namespace ${name}: ${ns.status} ${ns.text}`);
    const sa = await request('POST', `/api/v1/namespaces/${name}/serviceaccounts`, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'default' },
    });
    if (sa.status !== 201 && sa.status !== 409) throw new Error(`creating ServiceAccount ${name}/default: ${sa.status} ${sa.text}`);
    namespaces.add(name);
  };
  await namespace('default');
  if (options.controllers?.length) {
    // The controllers asked for, as the admin (no service-account credentials: no token controller runs).
    controllerManager = startProcess(
      join(bin, 'kube-controller-manager'),
      [
        `--kubeconfig=${kubeconfig}`,
        `--controllers=${options.controllers.join(',')}`,
        '--leader-elect=false',
        `--secure-port=${await freePort()}`,
        `--cert-dir=${file('controller-manager')}`,
      ],
      file('kube-controller-manager.log'),
    );
  }

  const run = (command: string, args: readonly string[], env: Record<string, string> = {}, input?: string): Promise<Run> =>
    new Promise((resolve, reject) => {
      const child = spawn(command, args, {
        cwd: ROOT,
        env: { ...process.env, ...env },
        stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      });
      children.add(child);
      let stdout = '';
      let stderr = '';
      child.stdout!.setEncoding('utf8').on('data', (t: string) => (stdout += t));
      child.stderr!.setEncoding('utf8').on('data', (t: string) => (stderr += t));
      if (input !== undefined) child.stdin?.end(input);
      child.on('error', reject);
      child.on('close', (code) => {
        children.delete(child);
        resolve({ code, stdout, stderr });
      });
    });

  const home = join(dir, 'home');
  const cliEnv = { HOME: home, XDG_DATA_HOME: join(home, 'data'), PODPLAN_DB: join(home, 'history.db'), KUBECONFIG: kubeconfig };

  return {
    server,
    dir,
    bin,
    kubeconfig,
    caCert,
    admin: ['--context', 'admin', '--kubeconfig', kubeconfig],
    request,
    namespace,
    async apply(...objects) {
      for (const o of objects) if (o.metadata.namespace) await namespace(o.metadata.namespace);
      for (const o of objects) {
        const path = collection(o);
        const answer = await request('POST', path, o);
        if (answer.status !== 201)
          throw new Error(`creating ${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}: ${answer.status} ${answer.text}`);
      }
    },
    async pods(ns) {
      const answer = await request<{ items: PodObject[] }>('GET', ns ? `/api/v1/namespaces/${ns}/pods` : '/api/v1/pods');
      return answer.body.items;
    },
    async events(ns) {
      const answer = await request<{ items: EventObject[] }>('GET', `/apis/events.k8s.io/v1/namespaces/${ns}/events`);
      return answer.body.items;
    },
    kubectl: (args, env = {}) => run(join(bin, 'kubectl'), ['--kubeconfig', kubeconfig, '--context', 'admin', ...args], env),
    podplan: (args, opts = {}) => run(process.execPath, [join(ROOT, 'bin/podplan.js'), ...args], { ...cliEnv, ...opts.env }, opts.input),
    spawnPodplan(args, env = {}) {
      const child = spawn(process.execPath, [join(ROOT, 'bin/podplan.js'), ...args], {
        cwd: ROOT,
        env: { ...process.env, ...cliEnv, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.add(child);
      const output = { stdout: '', stderr: '' };
      child.stdout.setEncoding('utf8').on('data', (t: string) => (output.stdout += t));
      child.stderr.setEncoding('utf8').on('data', (t: string) => (output.stderr += t));
      const closed = new Promise<number | null>((resolve) =>
        child.on('close', (code) => {
          children.delete(child);
          resolve(code);
        }),
      );
      return {
        child,
        output,
        async waitFor(predicate, what, timeoutMs = 30_000) {
          const until = Date.now() + timeoutMs;
          while (!predicate(output)) {
            if (child.exitCode !== null) throw new Error(`podplan exited (${child.exitCode}) before ${what}:\n${output.stderr}`);
            if (Date.now() > until)
              throw new Error(
                `timed out waiting for ${what}; stderr:\n${output.stderr.slice(-2000)}\nstdout:\n${output.stdout.slice(-2000)}`,
              );
            await new Promise((r) => setTimeout(r, 100));
          }
        },
        async stop() {
          if (child.exitCode === null) child.kill('SIGTERM');
          const code = await closed;
          return { code, stdout: output.stdout, stderr: output.stderr };
        },
      };
    },
    tokenKubeconfig(token, name) {
      const path = join(dir, `kubeconfig-${name}`);
      writeFileSync(
        path,
        `apiVersion: v1
kind: Config
clusters:
- name: real
  cluster: {server: ${server}, certificate-authority-data: ${b64(caCert)}}
users:
- name: ${name}
  user: {token: ${token}}
contexts:
- name: token
  context: {cluster: real, user: ${name}, namespace: default}
current-context: token
`,
      );
      return path;
    },
    async stop() {
      await stopAll();
      if (!process.env['PODPLAN_KEEP_REAL']) rmSync(dir, { recursive: true, force: true });
    },
  };
}

const GROUPS: Record<string, string> = { v1: '/api/v1' };
const PLURALS: Record<string, string> = {
  PriorityClass: 'priorityclasses',
  PodDisruptionBudget: 'poddisruptionbudgets',
  CustomResourceDefinition: 'customresourcedefinitions',
  ScheduleTrigger: 'scheduletriggers',
  SchedulePlan: 'scheduleplans',
  DeviceClass: 'deviceclasses',
};
const CLUSTER_SCOPED = new Set([
  'Node',
  'Namespace',
  'PriorityClass',
  'CustomResourceDefinition',
  'ClusterRole',
  'ClusterRoleBinding',
  'PersistentVolume',
  'StorageClass',
  'DeviceClass',
  'ResourceSlice',
]);

function collection(o: KubeObject): string {
  const base = GROUPS[o.apiVersion] ?? `/apis/${o.apiVersion}`;
  const plural = PLURALS[o.kind] ?? `${o.kind.toLowerCase()}s`;
  return CLUSTER_SCOPED.has(o.kind) ? `${base}/${plural}` : `${base}/namespaces/${o.metadata.namespace ?? 'default'}/${plural}`;
}

// ---- builders

export const PODPLAN = 'podplan';

export const node = (
  name: string,
  allocatable: Record<string, string> = { cpu: '4', memory: '16Gi', pods: '110' },
  labels: Record<string, string> = {},
): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
  status: { allocatable, capacity: allocatable, conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ready' }] },
});

export interface PodInit {
  readonly namespace?: string;
  readonly schedulerName?: string;
  readonly cpu?: string;
  readonly memory?: string;
  readonly labels?: Record<string, string>;
  readonly nodeName?: string;
  readonly priorityClassName?: string;
  readonly nodeSelector?: Record<string, string>;
  /** Extended resources requested (and limited) by the container. */
  readonly extended?: Record<string, string>;
}

export const pod = (name: string, init: PodInit = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: init.namespace ?? 'default', labels: init.labels ?? {} },
  spec: {
    schedulerName: init.schedulerName ?? PODPLAN,
    terminationGracePeriodSeconds: 0,
    ...(init.nodeName ? { nodeName: init.nodeName } : {}),
    ...(init.priorityClassName ? { priorityClassName: init.priorityClassName } : {}),
    ...(init.nodeSelector ? { nodeSelector: init.nodeSelector } : {}),
    containers: [
      {
        name: 'main',
        image: 'registry.example/app:1',
        resources: {
          requests: { cpu: init.cpu ?? '100m', memory: init.memory ?? '128Mi', ...init.extended },
          ...(init.extended ? { limits: init.extended } : {}),
        },
      },
    ],
  },
});

export const priorityClass = (name: string, value: number): KubeObject => ({
  apiVersion: 'scheduling.k8s.io/v1',
  kind: 'PriorityClass',
  metadata: { name },
  value,
});

export interface KubeSchedulerRun {
  /** The last 20 kB of its stderr. */
  log(): string;
  stop(): void;
}

/**
 * The built kube-scheduler on the cluster (its default profile, no leader election, no serving port
 * unless `metricsPort`); `extraConfig`: more KubeSchedulerConfiguration lines (podInitialBackoffSeconds: 8, ...).
 */
export function startKubeScheduler(
  cluster: RealCluster,
  name = 'kube-scheduler',
  extraConfig = '',
  metricsPort?: number,
): KubeSchedulerRun {
  const config = join(cluster.dir, `${name}.yaml`);
  writeFileSync(
    config,
    `apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nclientConnection: {kubeconfig: ${cluster.kubeconfig}}\nleaderElection: {leaderElect: false}\n${extraConfig}`,
  );
  // With `metricsPort`, it serves /metrics there (HTTPS, its self-signed certificate) to anyone.
  const serving =
    metricsPort === undefined
      ? ['--secure-port=0']
      : [`--secure-port=${metricsPort}`, '--bind-address=127.0.0.1', '--authorization-always-allow-paths=/metrics'];
  const scheduler = spawn(join(cluster.bin, 'kube-scheduler'), [`--config=${config}`, ...serving, '--v=1'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(scheduler);
  scheduler.on('exit', () => children.delete(scheduler));
  let log = '';
  scheduler.stderr!.setEncoding('utf8').on('data', (t: string) => (log = (log + t).slice(-20_000)));
  return { log: () => log, stop: () => void scheduler.kill('SIGTERM') };
}

/** An HTTPS server for tests that needs the cluster's CA (faults proxy): re-exported for convenience. */
export { createServer as createHttpsServer };

/** Polls `check` until it returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (e) {
      last = e;
    }
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
