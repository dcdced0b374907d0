// ScheduleTriggers that wait for each other. A trigger's `spec.dependsOn: [{name, namespace?,
// kind?}]` names what must be done before its pod set is planned: a dependency's plan complete
// (every pod placed) or, with `requireReady`, its pods Ready. This adapter turns the triggers and
// two callbacks the planner implements into a Dispatcher for the Reconciler. Node ids are
// `kind/namespace/name`; kind defaults to ScheduleTrigger and namespace to the dependent's own.
//
// What the planner does around it: seed the driver with every trigger id (and register anything
// else a trigger may depend on as a node, or as data with onArrival(id, false), or the drain will
// call it "not found"); call onStatusWake(id, true, false) when a set's pods become Ready, so
// `requireReady` dependents look again.
import { err, ok, type Result } from '../api/result';
import type { Pod } from '../api/types';
import { blocked, failed, type Dispatcher, type Terminal } from './reconciler';

export const TRIGGER_KIND = 'ScheduleTrigger';

export interface DependencyRef {
  readonly name: string;
  readonly namespace?: string;
  readonly kind?: string;
}

export interface TriggerDescriptor {
  /** `ScheduleTrigger/namespace/name` (see `nodeId`). */
  readonly id: string;
  readonly dependsOn?: readonly DependencyRef[];
  /** Wait for the dependencies' pods to be Ready, not only for their plans to be complete. */
  readonly requireReady?: boolean;
}

export interface DependencyProgress {
  /** Its plan exists and placed every pod. */
  readonly complete: boolean;
  /** Its pods are Ready. */
  readonly ready: boolean;
}

/** A pod bound and Ready (its Ready condition True): what `requireReady` waits for. */
export const isReady = (pod: Pod): boolean =>
  Boolean(pod.spec.nodeName) && (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** What a caller knows of the pod set a dependency stands for (a trigger's set, a PodSet, a SchedulePlan's set). */
export interface PodSetFacts {
  /** The set's pods as the caller sees them. */
  readonly pods: readonly Pod[];
  /** The set's trigger(s) have made their plan (the CLI planned it, the coordinator holds it, the workspace trigger is set to Schedule). */
  readonly planned: boolean;
  /** Whether a pod that is not bound is placed by the set's plan. */
  readonly placed: (pod: Pod) => boolean;
}

export interface PodSetProgress extends DependencyProgress {
  readonly planned: boolean;
  readonly total: number;
  /** Pods neither bound nor placed by a plan. */
  readonly unplaced: number;
  /** Pods not bound and Ready. */
  readonly notReady: number;
}

/**
 * The one rule for how far a dependency has got, which the CLI (plan-all), the live scheduler and
 * the editor (Schedule Now, Apply Plan) all apply: complete when its set has pods and every one is
 * bound, or its plan is made and places every pod not bound; ready when its set has pods and every
 * one is bound and Ready.
 */
export function podSetProgress(facts: PodSetFacts): PodSetProgress {
  const total = facts.pods.length;
  const unplaced = facts.pods.filter((p) => !p.spec.nodeName && !facts.placed(p)).length;
  const notReady = facts.pods.filter((p) => !isReady(p)).length;
  const allBound = facts.pods.every((p) => p.spec.nodeName);
  return {
    planned: facts.planned,
    total,
    unplaced,
    notReady,
    complete: total > 0 && unplaced === 0 && (facts.planned || allBound),
    ready: total > 0 && notReady === 0,
  };
}

/** Whether a dependency lets its dependent go ahead: Ready pods with `requireReady`, else a complete plan. */
export const dependencyMet = (progress: DependencyProgress, requireReady: boolean | undefined): boolean =>
  requireReady ? progress.ready : progress.complete;

/** The ids of the trigger's dependencies that do not let it go ahead yet (`progress` of each, by id). */
export function unmetDependencies(
  trigger: { readonly namespace: string; readonly dependsOn?: readonly DependencyRef[]; readonly requireReady?: boolean },
  progress: (id: string) => DependencyProgress,
): string[] {
  return (trigger.dependsOn ?? [])
    .map((ref) => dependencyId(ref, trigger.namespace))
    .filter((id) => !dependencyMet(progress(id), trigger.requireReady));
}

/** What the planner implements. */
export interface TriggerCallbacks {
  /** Plans the trigger's pod set; the result is the trigger's status (ready when every pod is placed). */
  plan(trigger: TriggerDescriptor): Promise<Terminal>;
  /** How far the object `id` (`kind/namespace/name`) has got; anything unknown is neither complete nor ready. */
  progress(id: string): DependencyProgress;
}

export interface NodeName {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

export const nodeId = ({ kind, namespace, name }: NodeName): string => `${kind}/${namespace}/${name}`;

/** Kubernetes names never hold a "/", so an id splits back into exactly three parts. */
export function parseNodeId(id: string): Result<NodeName> {
  const [kind, namespace, name, ...rest] = id.split('/');
  if (!kind || !namespace || !name || rest.length > 0) return err(`"${id}" is not a node id (kind/namespace/name)`);
  return ok({ kind, namespace, name });
}

/** The node id a dependency reference names, for a dependent in `namespace`. */
export const dependencyId = (ref: DependencyRef, namespace: string): string =>
  nodeId({ kind: ref.kind ?? TRIGGER_KIND, namespace: ref.namespace ?? namespace, name: ref.name });

/**
 * A Dispatcher over the triggers in `triggers` (looked up at each run, so the planner may update
 * the map): a trigger whose dependencies are not yet complete (or Ready) is Blocked on them;
 * otherwise it is planned.
 */
export function triggerDispatcher(triggers: ReadonlyMap<string, TriggerDescriptor>, callbacks: TriggerCallbacks): Dispatcher {
  return {
    async dispatch(id) {
      const trigger = triggers.get(id);
      if (!trigger) return failed(`unknown trigger: ${id}`);
      const self = parseNodeId(id);
      if (!self.ok) return failed(self.error);
      const waitingOn = unmetDependencies({ ...trigger, namespace: self.value.namespace }, (dependency) => callbacks.progress(dependency));
      return waitingOn.length > 0 ? blocked(waitingOn) : callbacks.plan(trigger);
    },
  };
}
