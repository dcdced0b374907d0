// The CLI at scale, as a user runs it (bin/podplan.js, the built bundle, as a child process on a
// YAML file; built first when src/ is newer): wall time and peak RSS of
// `schedule`, `schedule --json`, `explain` and `plan --planner optimize` at 2,000 nodes / 5,000 pods
// and 5,000 nodes / 10,000 pods. Peak RSS is the child's, from /usr/bin/time. Prints figures only.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BIN, ensureBuilt } from '../test/cli/bundle';
import { clusterYaml, type ClusterShape } from '../test/cli/cluster-yaml';
import type { Benchmark } from './benchmark';

const SHAPES: readonly ClusterShape[] = [
  { nodes: 2000, pods: 5000, podSet: 500 },
  { nodes: 5000, pods: 10000, podSet: 500 },
];

const ROOT = path.join(import.meta.dirname, '..');

function runCli(args: readonly string[], db: string): { wallSeconds: number; peakMiB: number; code: number | null; stdoutBytes: number; lastError: string } {
  ensureBuilt();
  const started = performance.now();
  const child = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, PODPLAN_DB: db },
    maxBuffer: 2 ** 31 - 1,
    encoding: 'utf8',
  });
  const wallSeconds = (performance.now() - started) / 1000;
  const errLines = child.stderr.trimEnd().split('\n');
  const peakKiB = Number(errLines.at(-1));
  const lastError = errLines.filter((l) => /error/i.test(l)).slice(-1)[0] ?? '';
  return { wallSeconds, peakMiB: peakKiB / 1024, code: child.status, stdoutBytes: child.stdout.length, lastError };
}

export const benchmarks: Benchmark[] = [
  {
    name: 'cli: schedule, schedule --json, explain, plan --planner optimize at scale',
    async run() {
      for (const shape of SHAPES) {
        const dir = mkdtempSync(path.join(tmpdir(), 'podplan-bench-cli-'));
        try {
          const file = path.join(dir, 'cluster.yaml');
          writeFileSync(file, clusterYaml(shape));
          const db = path.join(dir, 'history.db');
          console.log(`workload: ${shape.nodes} nodes, ${shape.pods} pods (${shape.podSet} in pod set batch), ${(statSync(file).size / 2 ** 20).toFixed(1)} MB of YAML`);
          const runs: Array<[string, string[]]> = [
            ['schedule', ['schedule', file, '--no-history']],
            ['schedule --json', ['schedule', file, '--json', '--no-history']],
            ['explain (unplaceable pod)', ['explain', file, 'ns-4/pod-999']],
            ['plan --planner optimize', ['plan', file, '--pod-set', 'batch', '--namespace', 'ns-0', '--planner', 'optimize', '--no-history']],
          ];
          for (const [label, args] of runs) {
            const r = runCli(args, db);
            console.log(`  ${label.padEnd(28)} ${r.wallSeconds.toFixed(1).padStart(6)} s  peak RSS ${r.peakMiB.toFixed(0).padStart(5)} MiB  exit ${r.code}  stdout ${(r.stdoutBytes / 2 ** 20).toFixed(1)} MB${r.lastError ? `  (${r.lastError})` : ''}`);
          }
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    },
  },
];
