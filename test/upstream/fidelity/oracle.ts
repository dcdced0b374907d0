// The oracle's side: upstream's scheduler framework (test/upstream/oracle, built by
// scripts/upstream.sh), fed a batch of cases as JSON lines in one process.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { K8sObject } from './generate';
import type { TraceStep } from './podplan';

export interface OracleVerdict {
  readonly code: string;
  readonly plugin?: string;
  readonly reasons?: readonly string[];
}

export interface OracleCycle {
  readonly pod: string;
  readonly preFilter?: OracleVerdict;
  readonly filter?: Readonly<Record<string, OracleVerdict>>;
  readonly feasible: readonly string[];
  readonly scores?: Readonly<Record<string, Readonly<Record<string, { readonly raw: number; readonly normalized: number }>>>>;
  readonly totals?: Readonly<Record<string, number>>;
  readonly top?: readonly string[];
  readonly nominatedFit?: boolean;
  readonly message?: string;
  readonly nominated?: string;
  readonly victims?: readonly string[];
  readonly applied?: string;
  readonly error?: string;
}

export interface OracleResult {
  readonly id: string;
  readonly cycles: readonly OracleCycle[];
  readonly invalid?: readonly string[];
  readonly error?: string;
}

export interface OracleInput {
  readonly id: string;
  readonly objects: readonly K8sObject[];
  readonly trace: readonly TraceStep[];
}

const ROOT = join(import.meta.dirname, '..', '..', '..');

/** The oracle binary: $PODPLAN_ORACLE, else the one scripts/upstream.sh built (building it if needed). */
export function oraclePath(build = true): string {
  if (process.env.PODPLAN_ORACLE) return process.env.PODPLAN_ORACLE;
  const script = join(ROOT, 'scripts', 'upstream.sh');
  const args = build ? [] : ['--print'];
  const out = execFileSync('bash', [script, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const bin = out.trim().split('\n').pop() ?? '';
  const path = join(bin, 'oracle');
  if (!existsSync(path)) throw new Error(`no oracle at ${path}`);
  return path;
}

/** Runs the cases through one oracle process; results by case id. */
export function runOracle(oracle: string, cases: readonly OracleInput[]): Promise<Map<string, OracleResult>> {
  return new Promise((resolve, reject) => {
    const child = spawn(oracle, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    const results = new Map<string, OracleResult>();
    let buffered = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      let at: number;
      while ((at = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, at);
        buffered = buffered.slice(at + 1);
        if (!line.trim()) continue;
        const result = JSON.parse(line) as OracleResult;
        results.set(result.id, result);
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`oracle exited with ${code}: ${stderr.slice(-2000)}`));
      else resolve(results);
    });
    child.stdin.on('error', reject);
    for (const c of cases) child.stdin.write(JSON.stringify(c) + '\n');
    child.stdin.end();
  });
}
