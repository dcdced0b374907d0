// Small fake plugins and a one-line framework for the framework tests: each fake says in its name
// what it does, so a test table reads as the pipeline it runs.
import { seededRandom } from '../../../src/engine/api/random';
import { ok } from '../../../src/engine/api/result';
import { CycleState } from '../../../src/engine/framework/cycle-state';
import type { FilterPlugin, Plugin, PreFilterPlugin, QueueSortPlugin, ScorePlugin } from '../../../src/engine/framework/interfaces';
import { Code, SUCCESS, type Status } from '../../../src/engine/framework/status';
import type { Profile } from '../../../src/engine/framework/profile';
import { Registry } from '../../../src/engine/framework/registry';
import { Framework } from '../../../src/engine/framework/runtime';
import { makeNode, makePod, snapshotOf } from '../../builders';

/** Higher priority first, as upstream's PrioritySort. */
export const prioritySort: QueueSortPlugin = {
  name: 'PrioritySort',
  less: (a, b) => (a.info.pod.spec.priority ?? 0) > (b.info.pod.spec.priority ?? 0),
};

/** A registry whose factories hand out these instances. */
export function registryOf(...plugins: Plugin[]): Registry {
  const registry = new Registry();
  for (const plugin of plugins) {
    const added = registry.register(plugin.name, () => ok(plugin));
    if (!added.ok) throw new Error(added.error);
  }
  return registry;
}

/**
 * A framework running these plugins at every stage they implement (multiPoint), after PrioritySort;
 * `weights` gives score weights; `profile` the other settings.
 */
export function frameworkOf(
  plugins: Plugin[],
  profile: Omit<Partial<Profile>, 'plugins'> = {},
  weights: Record<string, number> = {},
  seed = 1,
): Framework {
  const enabled = [prioritySort, ...plugins].map(({ name }) => (weights[name] ? { name, weight: weights[name] } : { name }));
  const built = Framework.build(
    registryOf(prioritySort, ...plugins),
    { schedulerName: 'test', ...profile, plugins: { multiPoint: { enabled } } },
    { random: seededRandom(seed) },
  );
  if (!built.ok) throw new Error(built.error.map((e) => e.message).join('\n'));
  return built.value;
}

/** Nodes n0 … n(count-1) in a snapshot. */
export function clusterOf(count: number) {
  return snapshotOf(Array.from({ length: count }, (_, i) => makeNode(`n${i}`)));
}

export const pod = () => makePod('web').info;

/** One cycle of a fresh state. */
export function scheduleOn(framework: Framework, count: number) {
  return framework.scheduleOne(new CycleState(), pod(), clusterOf(count));
}

/** A Filter that rejects the listed nodes with this reason, and remembers every node it saw. */
export function rejects(name: string, nodes: string[], reason: string, code = Code.Unschedulable): FilterPlugin & { seen: string[] } {
  const seen: string[] = [];
  return {
    name,
    seen,
    filter: (_s, _p, node) => (seen.push(node.name), nodes.includes(node.name) ? { code, reasons: [reason] } : SUCCESS),
  };
}

/** A Score plugin with fixed raw scores per node; with `normalize`, rescaled so the best gets 100. */
export function scores(name: string, raw: Record<string, number>, normalize = false): ScorePlugin {
  return {
    name,
    score: (_s, _p, node) => raw[node.name] ?? 0,
    ...(normalize
      ? {
          normalizeScore: (_s, _p, list) => {
            const max = Math.max(...list.map((s) => s.score));
            for (const s of list) s.score = max === 0 ? 0 : (s.score * 100) / max;
            return SUCCESS;
          },
        }
      : {}),
  };
}

/** A PreFilter that says `status`, optionally restricting the nodes; counts its calls. */
export function preFilter(name: string, status: Status, nodes?: string[]): PreFilterPlugin & { calls: number } {
  const plugin = {
    name,
    calls: 0,
    preFilter: () => {
      plugin.calls++;
      return { status, ...(nodes ? { result: { nodeNames: new Set(nodes) } } : {}) };
    },
  };
  return plugin;
}

export const throws = (): never => {
  throw new Error('boom');
};
