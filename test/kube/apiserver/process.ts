// The test API server in a child process (child.ts), for benchmarks: the scheduler under test then
// owns its process's CPU and memory, as beside a real kube-apiserver. Objects are seeded and
// counters read over the IPC channel (structured clone); clients talk to it over loopback HTTPS.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Faults } from './faults';
import type { KubeconfigOptions, KubeObject, TestApiServerOptions } from './index';

export type ChildRequest = { readonly id: number } & (
  | { readonly op: 'create'; readonly objects: KubeObject[] }
  | { readonly op: 'kubeconfig'; readonly options?: KubeconfigOptions }
  | { readonly op: 'faults'; readonly faults: Partial<Faults> }
  | { readonly op: 'stats' }
  | { readonly op: 'close' }
);

export type ChildAnswer = { readonly id: number } & (
  { readonly ok: true; readonly value?: unknown } | { readonly ok: false; readonly error: string }
);

export interface ServerStats {
  /** `namespace/name` → successful bindings of that pod. */
  readonly bindings: Readonly<Record<string, number>>;
  /** `verb resource` → requests. */
  readonly requests: Readonly<Record<string, number>>;
  readonly peakRssBytes: number;
  /** CPU time the server process has used so far (user and system), in microseconds. */
  readonly cpuMicros: number;
}

/** Objects sent in one IPC message at most (a message is cloned whole, at once, on both sides). */
const CREATE_BATCH = 2_000;

export class TestApiServerProcess {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    child.on('message', (answer: ChildAnswer) => {
      const waiter = this.waiting.get(answer.id);
      if (!waiter) return;
      this.waiting.delete(answer.id);
      if (answer.ok) waiter.resolve(answer.value);
      else waiter.reject(new Error(`test API server: ${answer.error}`));
    });
    child.once('exit', (code) => {
      for (const waiter of this.waiting.values()) waiter.reject(new Error(`the test API server exited (${code})`));
      this.waiting.clear();
    });
  }

  static async start(options: TestApiServerOptions = {}): Promise<TestApiServerProcess> {
    const entry = fileURLToPath(new URL('./child.ts', import.meta.url));
    const child = fork(entry, [JSON.stringify(options)], {
      execArgv: ['--import', 'tsx'],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      child.once('message', (first: ChildAnswer) => (first.ok ? resolve(String(first.value)) : reject(new Error(first.error))));
      child.once('exit', (code) => reject(new Error(`the test API server exited before it listened (${code})`)));
    });
    return new TestApiServerProcess(child, url);
  }

  /** Creates the objects in order (each names its apiVersion and kind), as TestApiServer.create. */
  async create(...objects: KubeObject[]): Promise<void> {
    for (let i = 0; i < objects.length; i += CREATE_BATCH) await this.ask({ op: 'create', objects: objects.slice(i, i + CREATE_BATCH) });
  }

  async writeKubeconfig(options?: KubeconfigOptions): Promise<string> {
    return String(await this.ask({ op: 'kubeconfig', ...(options ? { options } : {}) }));
  }

  async setFaults(faults: Partial<Faults>): Promise<void> {
    await this.ask({ op: 'faults', faults });
  }

  async stats(): Promise<ServerStats> {
    return (await this.ask({ op: 'stats' })) as ServerStats;
  }

  /** Closes the server and waits for the process to exit. */
  async close(): Promise<void> {
    if (this.child.exitCode === null && this.child.connected) await this.ask({ op: 'close' });
    await this.exited;
  }

  private ask(request: DistributiveOmit<ChildRequest, 'id'>): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.send({ ...request, id } as ChildRequest);
    });
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
