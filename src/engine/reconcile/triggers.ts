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
      const waitingOn = (trigger.dependsOn ?? [])
        .map((ref) => dependencyId(ref, self.value.namespace))
        .filter((dependency) => {
          const progress = callbacks.progress(dependency);
          return !(trigger.requireReady ? progress.ready : progress.complete);
        });
      return waitingOn.length > 0 ? blocked(waitingOn) : callbacks.plan(trigger);
    },
  };
}
