// Pallet's planner objects (planner.ciena.io/v1alpha1) as read from manifests. ScheduleTrigger:
// spec.state Planning|Schedule, the pod set and quiet time as labels, and our extension
// spec.dependsOn. SchedulePlan: spec.plan [{pod, node}], the pod set as a label, and our status.
import { DEFAULT_NAMESPACE, type Labels, type ObjectMeta } from '../engine/api/types';
import { Code, STAGES, type Stage, type Status } from '../engine/framework/status';
import type { Diagnosis, FilterRecord, NodeRejection, NodeScoreRecord, PluginScore, StageOutcome } from '../engine/framework/diagnosis';
import {
  LOST_ON,
  type CandidateRecord,
  type LostOn,
  type PreemptionRecord,
  type VictimRecord,
} from '../engine/framework/preemption/record';
import { POD_SET_LABEL, QUIET_TIME_LABEL, type PlanVictim } from '../engine/planner/plan';
import type { TriggerSpec } from '../engine/planner/podset/trigger';
import { arrayOf, boolean, integer, number, object, oneOf, string, tolerated, type DecodeContext, type Decoder } from './decode';
import { objectMeta } from './kube';
import { joinPath } from './source-map';

export const TRIGGER_STATES = ['Planning', 'Schedule'] as const;
export type TriggerState = (typeof TRIGGER_STATES)[number];

/** What a dependsOn entry may name; ScheduleTrigger when left out. */
export const DEPENDENCY_KINDS = ['ScheduleTrigger', 'SchedulePlan', 'PodSet'] as const;
export type DependencyKind = (typeof DEPENDENCY_KINDS)[number];

export interface DependencyRef {
  readonly name: string;
  /** The trigger's own namespace when left out. */
  readonly namespace?: string;
  readonly kind?: DependencyKind;
}

export interface ScheduleTriggerManifest {
  readonly name: string;
  readonly namespace: string;
  readonly labels: Labels;
  /** metadata.labels[planner.ciena.io/pod-set] */
  readonly podSet: string;
  /** metadata.labels[planner.ciena.io/quiet-time], as written (a Go duration; the planner parses it). */
  readonly quietTime?: string;
  readonly state: TriggerState;
  readonly dependsOn: readonly DependencyRef[];
  /** spec.requireReady: wait for the dependencies' pods to be Ready, not only planned. */
  readonly requireReady?: boolean;
}

/** A ScheduleTrigger as the engine's trigger logic reads it. */
export function triggerSpec(t: ScheduleTriggerManifest): TriggerSpec {
  return {
    name: t.name,
    namespace: t.namespace,
    podSet: t.podSet,
    state: t.state,
    labels: t.labels,
    dependsOn: t.dependsOn,
    ...(t.quietTime !== undefined ? { quietTime: t.quietTime } : {}),
    ...(t.requireReady ? { requireReady: true } : {}),
  };
}

export interface PlanEntry {
  readonly pod: string;
  readonly node: string;
}

export interface UnplacedEntry {
  readonly pod: string;
  readonly message: string;
  readonly diagnosis?: Diagnosis;
}

export interface DecisionEntry {
  readonly pod: string;
  readonly diagnosis: Diagnosis;
}

/** Our status on a SchedulePlan (absent in Pallet): how the plan was made and what it left out. */
export interface SchedulePlanStatus {
  readonly planner?: string;
  readonly profile?: string;
  readonly trigger?: string;
  /** RFC 3339. */
  readonly createdAt?: string;
  readonly snapshotHash?: string;
  readonly placed?: number;
  readonly unplaced?: readonly UnplacedEntry[];
  /** The cycle that chose each placed pod's node, when written with diagnoses. */
  readonly decisions?: readonly DecisionEntry[];
  /** The running pods the plan evicts (a profile that lets plans preempt). */
  readonly victims?: readonly PlanVictim[];
}

export interface SchedulePlanManifest {
  readonly name: string;
  readonly namespace: string;
  readonly labels: Labels;
  /** metadata.labels[planner.ciena.io/pod-set] */
  readonly podSet: string;
  readonly plan: readonly PlanEntry[];
  readonly status?: SchedulePlanStatus;
}

interface Envelope<Spec> {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: ObjectMeta;
  readonly spec: Spec;
}

interface PodSetIdentity {
  readonly name: string;
  readonly namespace: string;
  readonly labels: Labels;
  readonly podSet: string;
}

/** Name, namespace (defaulted) and labels of a planner object, and its pod-set label: reported on metadata.labels when missing. */
function podSetIdentity(meta: ObjectMeta, path: string, kind: string, ctx: DecodeContext): PodSetIdentity | undefined {
  const podSet = meta.labels?.[POD_SET_LABEL];
  if (!podSet) {
    const metadata = joinPath(path, 'metadata');
    return ctx.report(
      meta.labels ? joinPath(metadata, 'labels') : metadata,
      'missing-field',
      `missing label "${POD_SET_LABEL}": a ${kind} names its pod set with it`,
    );
  }
  return { name: meta.name, namespace: meta.namespace ?? DEFAULT_NAMESPACE, labels: meta.labels ?? {}, podSet };
}

const dependencyRef = object<DependencyRef>({ name: string, namespace: string, kind: oneOf(DEPENDENCY_KINDS) }, ['name']);

const triggerShape = object<Envelope<{ state: TriggerState; dependsOn?: DependencyRef[]; requireReady?: boolean }>>(
  {
    apiVersion: string,
    kind: string,
    metadata: objectMeta,
    // A misspelt state or a bad dependsOn entry is reported and the trigger kept (read as Planning,
    // the entry left out), so the rest of it still has its hover, lenses and checks.
    spec: object(
      { state: tolerated(oneOf(TRIGGER_STATES)), dependsOn: arrayOf(tolerated(dependencyRef)), requireReady: tolerated(boolean) },
      ['state'],
    ),
  },
  ['metadata', 'spec'],
);

export const scheduleTrigger: Decoder<ScheduleTriggerManifest> = (v, path, ctx) => {
  const t = triggerShape(v, path, ctx);
  if (!t?.metadata || !t.spec) return undefined;
  const identity = podSetIdentity(t.metadata, path, 'ScheduleTrigger', ctx);
  if (!identity) return undefined;
  const quietTime = identity.labels[QUIET_TIME_LABEL];
  return {
    ...identity,
    ...(quietTime !== undefined ? { quietTime } : {}),
    // Pallet schedules on Schedule only: an unreadable state (reported) plans.
    state: t.spec.state ?? 'Planning',
    dependsOn: t.spec.dependsOn ?? [],
    ...(t.spec.requireReady ? { requireReady: true } : {}),
  };
};

const stage = oneOf<Stage>(STAGES);
const code = oneOf<Code>(Object.values(Code));
const strings = arrayOf(string);
const count = integer(0);

const victimRecord = object<VictimRecord>({ pod: string, priority: integer(), violatesPdb: boolean }, ['pod', 'priority', 'violatesPdb']);
const preemptionRecord = object<PreemptionRecord>(
  {
    node: string,
    candidates: arrayOf(
      object<CandidateRecord>({ node: string, victims: arrayOf(victimRecord), pdbViolations: count, lostOn: oneOf<LostOn>(LOST_ON) }, [
        'node',
        'victims',
        'pdbViolations',
      ]),
    ),
    failures: arrayOf(object<{ node: string; reasons: string[] }>({ node: string, reasons: strings }, ['node', 'reasons'])),
    reportOnly: boolean,
  },
  ['candidates', 'failures'],
);

const status = object<Status>({ code, reasons: strings, plugin: string, stage }, ['code', 'reasons']);

const diagnosis = object<Diagnosis>(
  {
    pod: string,
    profile: string,
    nodesTotal: count,
    nodesEvaluated: count,
    feasibleNodes: count,
    status,
    chosenNode: string,
    rejections: arrayOf(
      object<NodeRejection>({ node: string, plugin: string, stage, code, reasons: strings }, [
        'node',
        'plugin',
        'stage',
        'code',
        'reasons',
      ]),
    ),
    filters: arrayOf(object<FilterRecord>({ plugin: string, evaluated: count, passed: count }, ['plugin', 'evaluated', 'passed'])),
    scores: arrayOf(
      object<NodeScoreRecord>(
        {
          node: string,
          total: number,
          plugins: arrayOf(
            object<PluginScore>({ plugin: string, raw: number, normalized: number, weight: number, weighted: number }, [
              'plugin',
              'raw',
              'normalized',
              'weight',
              'weighted',
            ]),
          ),
        },
        ['node', 'total', 'plugins'],
      ),
    ),
    stages: arrayOf(object<StageOutcome>({ stage, plugin: string, status, node: string }, ['stage', 'plugin', 'status'])),
    message: string,
    preemption: preemptionRecord,
  },
  ['pod', 'profile', 'nodesTotal', 'nodesEvaluated', 'feasibleNodes', 'status', 'rejections', 'filters', 'scores', 'stages'],
);

const planStatus = object<SchedulePlanStatus>({
  planner: string,
  profile: string,
  trigger: string,
  createdAt: string,
  snapshotHash: string,
  placed: count,
  unplaced: arrayOf(object<UnplacedEntry>({ pod: string, message: string, diagnosis }, ['pod', 'message'])),
  decisions: arrayOf(object<DecisionEntry>({ pod: string, diagnosis }, ['pod', 'diagnosis'])),
  victims: arrayOf(object<PlanVictim>({ pod: string, node: string, by: string }, ['pod', 'node', 'by'])),
});

const planShape = object<Envelope<{ plan: PlanEntry[] }> & { readonly status?: SchedulePlanStatus }>(
  {
    apiVersion: string,
    kind: string,
    metadata: objectMeta,
    // A bad entry or status is reported and left out; the plan's other entries are still checked.
    spec: object({ plan: arrayOf(tolerated(object<PlanEntry>({ pod: string, node: string }, ['pod', 'node']))) }, ['plan']),
    status: tolerated(planStatus),
  },
  ['metadata', 'spec'],
);

export const schedulePlan: Decoder<SchedulePlanManifest> = (v, path, ctx) => {
  const p = planShape(v, path, ctx);
  if (!p?.metadata || !p.spec?.plan) return undefined;
  const identity = podSetIdentity(p.metadata, path, 'SchedulePlan', ctx);
  if (!identity) return undefined;
  return {
    ...identity,
    plan: p.spec.plan,
    ...(p.status ? { status: p.status } : {}),
  };
};
