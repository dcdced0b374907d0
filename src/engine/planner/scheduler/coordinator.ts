// The pod sets of a running scheduler: their triggers, their members as they arrive and are bound,
// and their plans. The PodSetPlanner plugin asks it where each pod of a set may go (it is the
// plugin's gate); triggers turning to Schedule, pods arriving late and planned nodes that no longer
// hold make it build the set's plan again, on the cluster as it is then.
import type { Clock } from '../../api/clock';
import { err, ok, type Result } from '../../api/result';
import { podKey, type Pod } from '../../api/types';
import type { NodeInfoLister, PodInfo } from '../../framework/node-info';
import { fitErrorReasons } from '../../framework/fit-error';
import { isRejection, isSuccess } from '../../framework/status';
import { buildPlan, planSettings, type PlanSettings } from '../build';
import type { PlacedPod, Plan, PlanAssignment, UnplacedPod } from '../plan';
import { WhatIf } from '../search/what-if';
import { assumePlacements, writtenPlansBefore } from '../placed-before';
import { planningState } from '../planner';
import type { Admission, PodSetFramework, PodSetGate } from './plugin';
import { podSetKey, podSetOf, type PodSet, type PodSetRef } from '../podset/podset';
import { readTrigger, Trigger, type ScheduleCause, type TriggerSpec, type TriggerState } from '../podset/trigger';

/** Why a plan was made or changed. */
export type PlanCause =
  /** The trigger turned to Schedule: by hand, or after the quiet time. */
  | ScheduleCause
  /** A pod joined the set while it was Schedule. */
  | 'late-pod'
  /** A pod's planned node no longer holds it. */
  | 'node-infeasible'
  /** A pod the plan left out came back to the scheduler. */
  | 'left-out-pod'
  /** A pod was reserved on another node than planned: the plan follows it. */
  | 'reserved-elsewhere'
  /** A reservation was undone: the plan is as before it. */
  | 'unreserved'
  /**
   * A SchedulePlan written in the cluster by another hand (the editor's Apply, an earlier leader) for
   * a set that is Schedule: its pods are bound where it says, as Pallet's scheduler follows the plan.
   */
  | 'written';

export interface CoordinatorOptions {
  readonly clock: Clock;
  /** A framework built without a gate (podSetFramework): plans are made with it. */
  readonly planning: PodSetFramework;
  /** The cluster as the scheduler sees it now (a cache snapshot): plans made on a timer use it. */
  readonly cluster: () => NodeInfoLister;
  /** Told of every plan made or changed. */
  readonly onPlan?: (plan: Plan, cause: PlanCause) => void;
  /** Told when a trigger turned to Schedule by itself (quiet time), so its object can say so. */
  readonly onScheduled?: (trigger: TriggerSpec) => void;
}

export interface TriggerView {
  readonly namespace: string;
  readonly name: string;
  readonly podSet: string;
  readonly state: TriggerState;
  /** When the quiet timer fires (injected clock, ms), while it runs. */
  readonly quietUntil?: number;
}

/** A pod's entry in a plan: where it goes, or why it is left out. */
type PlanEntry = { readonly assignment: PlanAssignment } | { readonly unplaced: UnplacedPod };

interface SetRecord {
  readonly ref: PodSetRef;
  trigger?: Trigger;
  /** Why the set's trigger cannot be used (a bad spec), while it cannot. */
  invalid?: string;
  /** Members by key; `node` once bound or reserved. */
  readonly members: Map<string, { pod: Pod; node?: string }>;
  plan?: Plan;
  /** Per pod name: its entry in the plan before a reservation elsewhere replaced it. */
  readonly replaced: Map<string, PlanEntry>;
  /** The identities (planIdentity) of the last plans made here, to tell them from another's when the watch brings them back. */
  readonly made: Set<string>;
  /** The identity of the written plan last taken as the set's plan, so one seen again is not taken twice. */
  taken?: string;
}

/**
 * Plans made here that are remembered per set. Only a settled plan is written (planWriteDelayMs), so
 * the watch brings a write back long before this many more are made.
 */
const MADE_REMEMBERED = 64;

/**
 * What tells plans apart once written and read back: the clock's time, the cluster's hash, the
 * planner and the entries (a SchedulePlan written without Podplan's status has none of the first three).
 */
const planIdentity = (plan: Plan): string =>
  [plan.createdAt, plan.snapshotHash, plan.planner, ...plan.assignments.map((a) => `${a.pod}=${a.node}`).sort()].join('|');

export class PodSetCoordinator implements PodSetGate {
  private readonly sets = new Map<string, SetRecord>();
  private readonly schedulerName: string;
  /** SchedulePlans written in the cluster: those of sets no trigger here plans stand (placed-before.ts). */
  private written: readonly Plan[] = [];
  /** The first of `written` per set (podSetKey). */
  private writtenBySet = new Map<string, Plan>();

  constructor(private readonly options: CoordinatorOptions) {
    this.schedulerName = options.planning.args.schedulerName;
  }

  /** Adds or updates a trigger; a bad spec is an error, and holds the set's pods until a good one comes. */
  applyTrigger(spec: TriggerSpec): Result<void> {
    const set = this.set({ namespace: spec.namespace, name: spec.podSet });
    const config = readTrigger(spec);
    if (!config.ok) {
      set.invalid = config.error.message;
      return err(config.error.message);
    }
    delete set.invalid;
    if (set.trigger) set.trigger.update(config.value);
    else {
      set.trigger = new Trigger(config.value, this.options.clock, (trigger, cause) => {
        if (cause === 'quiet-time') this.options.onScheduled?.(trigger.spec);
        this.rebuild(set, cause, this.options.cluster());
      });
      // A trigger written as Schedule plans its set at once; one in Planning waits for its pods.
      if (config.value.state === 'Schedule') this.rebuild(set, 'by-hand', this.options.cluster());
      else if (set.members.size > 0) set.trigger.podArrived();
    }
    return ok(undefined);
  }

  deleteTrigger(namespace: string, podSet: string): void {
    const set = this.sets.get(podSetKey({ namespace, name: podSet }));
    set?.trigger?.stop();
    if (set) delete set.trigger;
  }

  /** A pod was created; pods of a set join it (a late one, to a set already Schedule, is planned at once). */
  podAdded(pod: Pod): void {
    const ref = podSetOf(pod, this.schedulerName);
    if (ref) this.join(this.set(ref), pod, this.options.cluster());
  }

  podDeleted(pod: Pod): void {
    const ref = podSetOf(pod, this.schedulerName);
    if (ref) this.sets.get(podSetKey(ref))?.members.delete(podKey(pod));
  }

  /**
   * The SchedulePlans written in the cluster, as they are now. One of a set no trigger here plans,
   * which a set's trigger depends on, stands: that set is planned beside its pods, as plan-all plans
   * a set beside a written plan it depends on and does not plan again. One written by another hand
   * for a set that is Schedule is that set's plan from now on (cause 'written').
   */
  writtenPlans(plans: readonly Plan[]): void {
    this.written = plans;
    this.writtenBySet = new Map();
    for (const plan of plans) {
      const key = podSetKey({ namespace: plan.namespace, name: plan.podSet });
      if (!this.writtenBySet.has(key)) this.writtenBySet.set(key, plan);
    }
    for (const set of this.sets.values()) {
      if (set.trigger?.state !== 'Schedule' || set.invalid !== undefined) continue;
      const another = this.writtenByAnother(set, { again: false });
      if (another) this.take(set, another);
    }
  }

  /** The pod set's plan, once made. */
  plan(namespace: string, podSet: string): Plan | undefined {
    return this.sets.get(podSetKey({ namespace, name: podSet }))?.plan;
  }

  triggers(): TriggerView[] {
    return [...this.sets.values()].flatMap(({ trigger }) =>
      trigger
        ? [
            {
              namespace: trigger.spec.namespace,
              name: trigger.spec.name,
              podSet: trigger.spec.podSet,
              state: trigger.state,
              ...(trigger.quietUntil !== undefined ? { quietUntil: trigger.quietUntil } : {}),
            },
          ]
        : [],
    );
  }

  admit(pod: PodInfo, cluster: NodeInfoLister): Admission {
    const ref = podSetOf(pod.pod, this.schedulerName);
    if (!ref) return { kind: 'not-in-a-set' };
    const set = this.set(ref);
    const known = set.members.has(pod.key);
    if (!known) this.join(set, pod.pod, cluster);
    const name = podSetKey(ref);
    if (set.invalid !== undefined) return { kind: 'held', reason: `pod set ${name} is held: ${set.invalid}` };
    if (!set.trigger) return { kind: 'held', reason: `pod set ${name} has no ScheduleTrigger` };
    if (set.trigger.state === 'Planning') return { kind: 'held', reason: `pod set ${name} is held while its ScheduleTrigger is Planning` };
    const podName = pod.pod.metadata.name;
    let node = set.plan?.assignments.find((a) => a.pod === podName)?.node;
    if (node === undefined || !this.fits(pod, node, cluster)) {
      // Joining just now already planned the pod on this cluster.
      if (known || set.plan === undefined) this.rebuild(set, node === undefined ? 'left-out-pod' : 'node-infeasible', cluster);
      node = set.plan?.assignments.find((a) => a.pod === podName)?.node;
    }
    if (node !== undefined) return { kind: 'planned', node };
    // The cycle's reasons without the "0/N nodes are available" the scheduler's own message says already.
    const left = set.plan?.unplaced.find((u) => u.pod === podName);
    const reasons = left ? (isRejection(left.diagnosis.status) && fitErrorReasons(left.diagnosis)) || left.message : 'not in the plan';
    const message = reasons.endsWith('.') ? reasons.slice(0, -1) : reasons;
    return { kind: 'left-out', reason: `the plan of pod set ${name} leaves the pod out (${message})` };
  }

  reserved(pod: PodInfo, node: string): void {
    const set = this.memberSet(pod);
    const member = set?.members.get(pod.key);
    if (!set?.plan || !member) return;
    member.node = node;
    const name = pod.pod.metadata.name;
    const entry = this.entryOf(set.plan, name);
    if (entry && 'assignment' in entry && entry.assignment.node === node) return;
    if (entry) set.replaced.set(name, entry);
    this.replace(set, name, { assignment: { pod: name, node } }, 'reserved-elsewhere');
  }

  unreserved(pod: PodInfo): void {
    const set = this.memberSet(pod);
    const member = set?.members.get(pod.key);
    if (!set || !member) return;
    delete member.node;
    const name = pod.pod.metadata.name;
    const previous = set.replaced.get(name);
    if (!previous) return;
    set.replaced.delete(name);
    this.replace(set, name, previous, 'unreserved');
  }

  private set(ref: PodSetRef): SetRecord {
    const key = podSetKey(ref);
    let set = this.sets.get(key);
    if (!set) this.sets.set(key, (set = { ref, members: new Map(), replaced: new Map(), made: new Set() }));
    return set;
  }

  private memberSet(pod: PodInfo): SetRecord | undefined {
    const ref = podSetOf(pod.pod, this.schedulerName);
    return ref && this.sets.get(podSetKey(ref));
  }

  private join(set: SetRecord, pod: Pod, cluster: NodeInfoLister): void {
    const key = podKey(pod);
    if (set.members.has(key)) return;
    set.members.set(key, pod.spec.nodeName ? { pod, node: pod.spec.nodeName } : { pod });
    if (set.trigger?.state === 'Planning') set.trigger.podArrived();
    // A pod the plan has an entry for already (a written plan taken before its pods came) needs no new plan.
    else if (set.trigger?.state === 'Schedule' && set.invalid === undefined && !(set.plan && this.entryOf(set.plan, pod.metadata.name)))
      this.rebuild(set, 'late-pod', cluster);
  }

  /** Whether the planned node still takes the pod, by the planning framework's filters. */
  private fits(pod: PodInfo, node: string, cluster: NodeInfoLister): boolean {
    return isSuccess(this.options.planning.framework.checkNode(planningState(pod, undefined), pod, cluster, node));
  }

  /**
   * The SchedulePlan written in the cluster for the set that this coordinator did not make, if any;
   * unless `again`, only one not taken before (the watch hands every written plan over on each change).
   */
  private writtenByAnother(set: SetRecord, { again }: { readonly again: boolean }): Plan | undefined {
    const written = this.writtenFor(set);
    if (!written) return undefined;
    const identity = planIdentity(written);
    return set.made.has(identity) || (!again && set.taken === identity) ? undefined : written;
  }

  private writtenFor(set: SetRecord): Plan | undefined {
    return this.writtenBySet.get(podSetKey(set.ref));
  }

  /** A written plan as the set's plan: its pods are admitted to its nodes while they still fit (admit). */
  private take(set: SetRecord, written: Plan): void {
    set.taken = planIdentity(written);
    set.plan = written;
    set.replaced.clear();
    this.options.onPlan?.(written, 'written');
  }

  /**
   * A new plan for the set's members not on a node yet, the bound ones staying where they are. Set to
   * Schedule by hand, a set with a plan written by another hand (the editor's Apply writes the plan,
   * then the trigger) takes that plan instead.
   */
  private rebuild(set: SetRecord, cause: PlanCause, cluster: NodeInfoLister): void {
    const another = cause === 'by-hand' ? this.writtenByAnother(set, { again: true }) : undefined;
    if (another) return this.take(set, another);
    const onNodes = new Set(cluster.list().flatMap((n) => n.pods.map((p) => p.key)));
    const members = [...set.members.values()].sort((a, b) => (podKey(a.pod) < podKey(b.pod) ? -1 : 1));
    const bound = (m: { pod: Pod; node?: string }) => m.node !== undefined || onNodes.has(podKey(m.pod));
    const podSet: PodSet = {
      ...set.ref,
      pods: members.map((m) => m.pod),
      pending: members.filter((m) => !bound(m)).map((m) => m.pod),
      bound: members
        .filter(bound)
        .map((m) => (m.node && !m.pod.spec.nodeName ? { ...m.pod, spec: { ...m.pod.spec, nodeName: m.node } } : m.pod)),
    };
    const settings = this.settings(set, podSet);
    const { snapshot, placedBefore } = settings.ok ? this.withOtherPlans(set, cluster, onNodes) : { snapshot: cluster, placedBefore: [] };
    const plan = settings.ok
      ? buildPlan(
          {
            podSet,
            snapshot,
            framework: this.options.planning.framework,
            now: this.options.clock.now(),
            ...(this.options.planning.solver ? { solver: this.options.planning.solver } : {}),
            placedBefore,
          },
          // The plan being replaced: the moves objective keeps its pods where it put them.
          { ...settings.value, ...(set.plan ? { previous: new Map(set.plan.assignments.map((a) => [a.pod, a.node])) } : {}) },
        )
      : settings;
    // A set with no members yet, or settings that do not read, has no plan until that changes.
    if (!plan.ok) return;
    set.plan = plan.value;
    set.replaced.clear();
    this.remember(set, plan.value);
    // The plan written before this one was made is superseded by it, not taken later.
    const before = this.writtenFor(set);
    if (before) set.taken = planIdentity(before);
    this.options.onPlan?.(plan.value, cause);
  }

  /**
   * The cluster a set's plan is made on: `cluster` with the pods the other sets' plans put on nodes
   * and no node holds yet (the scheduler binds them as planned: their room is spoken for, and a set
   * whose trigger depends on another is planned once that one's plan is complete, before its pods
   * are bound), as plan-all assumes the plans made before (placed-before.ts assumePlacements, the
   * one way placements go on a copy); and those pods, which the plan records. The cluster itself
   * when there are none (no copy).
   */
  private withOtherPlans(
    set: SetRecord,
    cluster: NodeInfoLister,
    onNodes: ReadonlySet<string>,
  ): { snapshot: NodeInfoLister; placedBefore: PlacedPod[] } {
    const candidates: PlacedPod[] = [];
    const pods = new Map<string, Pod>();
    // First the written plans that stand before it (every trigger here is planned here: only plans of sets without one).
    const triggers = [...this.sets.values()].flatMap((s) => (s.trigger ? [s.trigger.spec] : []));
    for (const written of writtenPlansBefore(set.ref, triggers, this.written, () => true)) {
      const other = this.sets.get(podSetKey({ namespace: written.namespace, name: written.podSet }));
      for (const a of written.assignments) {
        const key = `${written.namespace}/${a.pod}`;
        const member = other?.members.get(key);
        if (!member || member.node !== undefined || onNodes.has(key)) continue;
        candidates.push({ namespace: written.namespace, pod: a.pod, node: a.node });
        pods.set(key, member.pod);
      }
    }
    // Then the plans of the other sets that are Schedule (one held, or whose trigger is gone, binds nothing).
    for (const other of this.sets.values()) {
      if (other === set || !other.plan || other.trigger?.state !== 'Schedule' || other.invalid !== undefined) continue;
      for (const a of other.plan.assignments) {
        const key = `${other.ref.namespace}/${a.pod}`;
        const member = other.members.get(key);
        if (!member || member.node !== undefined || onNodes.has(key) || pods.has(key)) continue;
        candidates.push({ namespace: other.ref.namespace, pod: a.pod, node: a.node });
        pods.set(key, member.pod);
      }
    }
    if (candidates.length === 0) return { snapshot: cluster, placedBefore: [] };
    const working = new WhatIf(cluster);
    const placedBefore = assumePlacements(working, candidates, (p) => pods.get(`${p.namespace}/${p.pod}`));
    return { snapshot: working.snapshot, placedBefore };
  }

  /** Planner and gang from the trigger's labels, else the pods', else the profile's PodSetPlanner args. */
  private settings(set: SetRecord, podSet: PodSet): Result<PlanSettings> {
    const settings = planSettings(this.options.planning.args, [set.trigger?.spec.labels, ...podSet.pods.map((p) => p.metadata.labels)]);
    if (!settings.ok) return err(settings.error.message);
    return ok({ ...settings.value, ...(set.trigger ? { trigger: set.trigger.spec.name } : {}) });
  }

  private entryOf(plan: Plan, pod: string): PlanEntry | undefined {
    const assignment = plan.assignments.find((a) => a.pod === pod);
    if (assignment) return { assignment };
    const unplaced = plan.unplaced.find((u) => u.pod === pod);
    return unplaced && { unplaced };
  }

  /** The plan with the pod's entry replaced, told to the listener. */
  private replace(set: SetRecord, pod: string, entry: PlanEntry, cause: PlanCause): void {
    const plan = set.plan as Plan;
    const assignments = plan.assignments.filter((a) => a.pod !== pod);
    const unplaced = plan.unplaced.filter((u) => u.pod !== pod);
    if ('assignment' in entry) assignments.push(entry.assignment);
    else unplaced.push(entry.unplaced);
    set.plan = { ...plan, assignments, unplaced };
    this.remember(set, set.plan);
    this.options.onPlan?.(set.plan, cause);
  }

  /** A plan made or changed here, to be known as this coordinator's own when the watch brings it back. */
  private remember(set: SetRecord, plan: Plan): void {
    set.made.add(planIdentity(plan));
    for (const old of set.made) if (set.made.size > MADE_REMEMBERED) set.made.delete(old);
  }
}
