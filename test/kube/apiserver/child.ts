// The test API server as its own process (`node --import tsx child.ts`, started by process.ts), so
// a benchmark measures the scheduler's CPU and memory apart from the server's, as against a real
// kube-apiserver. Driven over the IPC channel: each request is answered once, with its id.
import { startTestApiServer, type TestApiServerOptions } from './index';
import type { ChildAnswer, ChildRequest } from './process';

const send = (answer: ChildAnswer): void => void process.send?.(answer);
const cpuMicros = (): number => {
  const used = process.cpuUsage();
  return used.user + used.system;
};

const options = JSON.parse(process.argv[2] ?? '{}') as TestApiServerOptions;
const server = await startTestApiServer(options);
let closing: Promise<void> | undefined;
const closeOnce = (): Promise<void> => (closing ??= server.close());

process.on('message', (message: ChildRequest) => {
  const { id } = message;
  try {
    switch (message.op) {
      case 'create':
        server.create(...message.objects);
        send({ id, ok: true });
        return;
      case 'kubeconfig':
        server.writeKubeconfig(message.options).then(
          (path) => send({ id, ok: true, value: path }),
          (error: unknown) => send({ id, ok: false, error: String(error) }),
        );
        return;
      case 'faults':
        server.setFaults(message.faults);
        send({ id, ok: true });
        return;
      case 'stats':
        send({
          id,
          ok: true,
          value: {
            bindings: Object.fromEntries(server.counters.bindings),
            requests: Object.fromEntries(server.counters.requests),
            peakRssBytes: process.resourceUsage().maxRSS * 1024,
            cpuMicros: cpuMicros(),
          },
        });
        return;
      case 'close':
        void closeOnce().then(() => {
          send({ id, ok: true });
          process.disconnect();
        });
        return;
    }
  } catch (error) {
    send({ id, ok: false, error: error instanceof Error ? error.message : String(error) });
  }
});
// The parent learns the server is up from this first message.
send({ id: 0, ok: true, value: server.url });
// Gone with its parent: nothing outlives the run that started it.
process.on('disconnect', () => void closeOnce().then(() => process.exit(0)));
