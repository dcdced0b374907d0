// In-process workspaces for the service tests: files by name, read as the server reads them.
import { Workspace } from '../../../src/server/workspace';

export const uriOf = (name: string): string => `file:///w/${name}`;

export function workspaceOf(files: Readonly<Record<string, string>>): Workspace {
  const ws = new Workspace({ clock: { now: () => 0, setTimer: () => ({ cancel: () => undefined }) } });
  for (const [name, text] of Object.entries(files)) ws.setDisk(uriOf(name), text);
  return ws;
}

export const node = (name: string, cpu = '4', extra = '') =>
  `apiVersion: v1\nkind: Node\nmetadata: { name: ${name}, labels: { kubernetes.io/hostname: ${name} } }\n${extra}status: { allocatable: { cpu: "${cpu}", memory: 16Gi, pods: "110" } }\n`;

export const pod = (name: string, set: string, cpu = '1', extra = '') =>
  `apiVersion: v1\nkind: Pod\nmetadata: { name: ${name}, labels: { app: ${set}, planner.ciena.io/pod-set: ${set} } }\nspec:\n  schedulerName: podset-planner-scheduler\n${extra}  containers: [{ name: main, resources: { requests: { cpu: "${cpu}" } } }]\n`;

export const trigger = (name: string, state = 'Planning') =>
  `apiVersion: planner.ciena.io/v1alpha1\nkind: ScheduleTrigger\nmetadata:\n  name: ${name}\n  labels:\n    planner.ciena.io/pod-set: ${name}\nspec:\n  state: ${state}\n`;

export const plan = (set: string, entries: ReadonlyArray<[string, string]>) =>
  `apiVersion: planner.ciena.io/v1alpha1\nkind: SchedulePlan\nmetadata:\n  name: ${set}-plan\n  labels:\n    planner.ciena.io/pod-set: ${set}\nspec:\n  plan:\n${entries.map(([p, n]) => `    - pod: ${p}\n      node: ${n}`).join('\n')}\n`;

export const docs = (...texts: string[]): string => texts.join('---\n');
