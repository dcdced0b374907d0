// DRA device selectors evaluated as the allocator meets them: each selector compiled once, then
// matched against 4,000 devices (new device objects every run, so no verdict is cached), median of
// 5 runs after a warm-up. A `matches` with a constant pattern (compiled per call by @bufbuild/cel's
// own `matches`, from cel-regex.ts's pattern cache here), and selectors estimated over half the cost
// limit, whose actual cost the runtime cost walk (cel-runtime-cost.ts) counts before each evaluation
// (measured on 40 devices, scaled up). Prints ms per 4,000 devices by CPU time of this process;
// nothing is asserted.
import { cpuUsage } from 'node:process';
import type { Device } from '../src/engine/api/dra';
import { compileSelector } from '../src/engine/plugins/dynamicresources/cel';
import type { Benchmark } from './benchmark';

const DRIVER = 'gpu.example.com';
const DEVICES = 4000;
const RUNS = 5;
const A = `device.attributes["${DRIVER}"]`;

function devices(): Device[] {
  return Array.from({ length: DEVICES }, (_, i) => ({
    name: `gpu-${i}`,
    attributes: { model: { string: `a100-sxm4-${i % 7}-80gb-héllo` }, index: { int: i % 8 } },
    capacity: { memory: { value: '80Gi' } },
  }));
}

const SELECTORS: ReadonlyArray<[name: string, expression: string]> = [
  ['matches, constant pattern', `${A}.model.matches("^a100-sxm4-[0-9]+-80gb")`],
  ['matches, function form', `matches(${A}.model, "^a100-sxm4-[0-9]+-80gb")`],
  // Estimated past half the limit (a 64-character attribute against a 100-character pattern, 4,000
  // times; 8,000 index and contains), so the walk counts them; the devices' 29-character models keep them within it.
  [
    'cost walk: 4,000 × matches',
    `lists.range(4000).all(i, ${A}.model.matches("${'^a100-(sxm4|pcie)-[0-9]+-80gb-h.llo'.padEnd(100, '.')}") || i >= 0)`,
  ],
  ['cost walk: 8,000 × index, contains', `lists.range(8000).all(i, [${A}.model][0].contains("${'x'.repeat(60)}") || ${A}.index >= 0)`],
];

function cpuMs(fn: () => void): number {
  const start = cpuUsage();
  fn();
  const used = cpuUsage(start);
  return (used.user + used.system) / 1000;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function measure(fn: (d: Device) => void, count: number): number {
  const times: number[] = [];
  for (let run = 0; run <= RUNS; run++) {
    const ds = devices().slice(0, count);
    const t = cpuMs(() => ds.forEach(fn));
    if (run > 0) times.push(t);
  }
  return median(times);
}

export const benchmarks: readonly Benchmark[] = [
  {
    name: 'cel-selectors: DRA selectors on 4,000 devices',
    run() {
      for (const [name, expression] of SELECTORS) {
        const compiled = compileSelector(expression);
        if (!compiled.ok) throw new Error(`${expression}: ${compiled.error}`);
        // The walk rows are slow: measured on 40 devices, scaled up.
        const walk = name.startsWith('cost walk');
        const count = walk ? DEVICES / 100 : DEVICES;
        const scale = DEVICES / count;
        const matchMs = measure((d) => compiled.matches(d, DRIVER), count) * scale;
        console.log(`${name}: ${matchMs.toFixed(0)} ms per ${DEVICES} devices (${expression})`);
      }
      return Promise.resolve();
    },
  },
];
