// Cluster events and queueing hints, as upstream 1.37's kube-scheduler/framework types.go
// (ClusterEvent, ActionType, EventResource, ClusterEventWithHint, QueueingHint) and
// pkg/scheduler/framework/events.go and types.go (how an object's update is split into action types,
// how a registered event matches an incoming one, the labels metrics and logs use).
//
// A plugin that can reject a pod says which events could make the pod schedulable again
// (`eventsToRegister`), each with a hint function that looks at the object before and after the
// event and answers Queue or QueueSkip; the scheduling queue moves a rejected pod only when one of
// the plugins that rejected it answers Queue.
import type { Node, Pod } from '../api/types';
import { podResources, type Resource } from '../api/resources';

/** upstream ActionType: a bit set; the UpdateNodeXYZ and UpdatePodXYZ bits are the parts of an update. */
export const ActionType = {
  None: 0,
  Add: 1 << 0,
  Delete: 1 << 1,
  UpdateNodeAllocatable: 1 << 2,
  UpdateNodeLabel: 1 << 3,
  /** A node's taints, or its spec.unschedulable turned off. */
  UpdateNodeTaint: 1 << 4,
  UpdateNodeCondition: 1 << 5,
  UpdateNodeAnnotation: 1 << 6,
  UpdateNodeDeclaredFeature: 1 << 7,
  UpdateNodePreemptionPolicy: 1 << 8,
  UpdatePodLabel: 1 << 9,
  UpdatePodScaleDown: 1 << 10,
  UpdatePodScaleUp: 1 << 11,
  UpdatePodToleration: 1 << 12,
  UpdatePodSchedulingGatesEliminated: 1 << 13,
  UpdatePodGeneratedResourceClaim: 1 << 14,
  /** Every update bit (2 to 14): an update none of the specific ones describes, or a plugin that cares about any. */
  Update: 0x7ffc,
  All: 0x7fff,
} as const;

/** upstream EventResource (the group-qualified names are upstream's, and appear in metric labels). */
export type EventResource =
  | 'Pod'
  | 'AssignedPod'
  | 'UnscheduledPod'
  | 'TargetPod'
  | 'Node'
  | 'PersistentVolume'
  | 'PersistentVolumeClaim'
  | 'storage.k8s.io/CSINode'
  | 'storage.k8s.io/CSIDriver'
  | 'storage.k8s.io/VolumeAttachment'
  | 'storage.k8s.io/CSIStorageCapacity'
  | 'storage.k8s.io/StorageClass'
  | 'resource.k8s.io/ResourceClaim'
  | 'resource.k8s.io/ResourceSlice'
  | 'resource.k8s.io/DeviceClass'
  | '*';

export interface ClusterEvent {
  readonly resource: EventResource;
  /** An ActionType bit set. */
  readonly actionType: number;
  /** Replaces the label (upstream CustomLabel: UnschedulableTimeout, ForceActivate). */
  readonly customLabel?: string;
}

/** upstream QueueingHint. */
export type QueueingHint = 'Queue' | 'QueueSkip';

/**
 * upstream QueueingHintFn: whether the event (the object before, undefined for an add; after,
 * undefined for a delete) may make `pod`, which this plugin rejected, schedulable. A hint that
 * fails (returns a HintError, or throws) is taken by the queue as Queue, as upstream takes a
 * QueueingHintFn's error, and the event goes on to the other pods.
 */
export type QueueingHintFn = (pod: Pod, oldObj: unknown, newObj: unknown) => QueueingHint | HintError;

/** A hint function's error (upstream's QueueingHintFn returns one with its hint; the queue takes it as Queue). */
export interface HintError {
  readonly error: string;
}

/** upstream ClusterEventWithHint; no hint means Queue for every such event. */
export interface ClusterEventWithHint {
  readonly event: ClusterEvent;
  readonly hint?: QueueingHintFn;
}

/** upstream EnqueueExtensions: a plugin that says which events could undo its rejections. */
export interface EnqueueExtensions {
  eventsToRegister(): readonly ClusterEventWithHint[];
}

/** One plugin's registered event and hint, as the queue keeps them (upstream QueueingHintFunction). */
export interface QueueingHintEntry {
  readonly plugin: string;
  readonly event: ClusterEvent;
  readonly hint: QueueingHintFn;
}

/** Special event labels (upstream framework/events.go). */
export const ScheduleAttemptFailure = 'ScheduleAttemptFailure';
export const BackoffComplete = 'BackoffComplete';
export const PopFromBackoffQ = 'PopFromBackoffQ';
export const ForceActivate = 'ForceActivate';
export const UnschedulableTimeout = 'UnschedulableTimeout';

const event = (resource: EventResource, actionType: number, customLabel?: string): ClusterEvent =>
  Object.freeze(customLabel === undefined ? { resource, actionType } : { resource, actionType, customLabel });

export const EventAssignedPodAdd = event('AssignedPod', ActionType.Add);
export const EventAssignedPodDelete = event('AssignedPod', ActionType.Delete);
export const EventUnscheduledPodAdd = event('UnscheduledPod', ActionType.Add);
export const EventNodeAdd = event('Node', ActionType.Add);
export const EventNodeDelete = event('Node', ActionType.Delete);
export const EventUnschedulableTimeout = event('*', ActionType.All, UnschedulableTimeout);
export const EventForceActivate = event('*', ActionType.All, ForceActivate);

export function clusterEvent(resource: EventResource, actionType: number): ClusterEvent {
  return event(resource, actionType);
}

const ACTION_NAMES: ReadonlyMap<number, string> = new Map(
  Object.entries(ActionType)
    .filter(([name]) => name !== 'None')
    .map(([name, bit]) => [bit, name]),
);

/** upstream ClusterEvent.Label: the resource and action type run together ("NodeUpdateNodeLabel", "AssignedPodDelete"), or the custom label. */
export function eventLabel(e: ClusterEvent): string {
  return e.customLabel ?? `${e.resource}${ACTION_NAMES.get(e.actionType) ?? ''}`;
}

/** upstream ClusterEventIsWildCard. */
export function isWildCard(e: ClusterEvent): boolean {
  return e.resource === '*' && e.actionType === ActionType.All;
}

/**
 * upstream MatchClusterEvents: whether the incoming event is the registered one or more specific
 * (a registered Update matches an incoming UpdateNodeLabel, not the other way round; Pod matches
 * AssignedPod, UnscheduledPod and TargetPod).
 */
export function matchClusterEvents(registered: ClusterEvent, incoming: ClusterEvent): boolean {
  if (isWildCard(registered)) return true;
  const resource =
    registered.resource === '*' ||
    registered.resource === incoming.resource ||
    (registered.resource === 'Pod' &&
      (incoming.resource === 'AssignedPod' || incoming.resource === 'UnscheduledPod' || incoming.resource === 'TargetPod'));
  return resource && (registered.actionType & incoming.actionType) !== 0 && incoming.actionType <= registered.actionType;
}

/** upstream MatchAnyClusterEvent. */
export function matchAnyClusterEvent(incoming: ClusterEvent, registered: readonly ClusterEvent[]): boolean {
  return registered.some((r) => matchClusterEvents(r, incoming));
}

/**
 * upstream UnrollWildCardResource: what a plugin without EnqueueExtensions is registered for (every
 * resource, every action), so a pod it rejected moves on any event.
 */
export const ALL_EVENTS: readonly ClusterEventWithHint[] = (
  [
    'AssignedPod',
    'UnscheduledPod',
    'TargetPod',
    'Node',
    'PersistentVolume',
    'PersistentVolumeClaim',
    'storage.k8s.io/CSINode',
    'storage.k8s.io/CSIDriver',
    'storage.k8s.io/CSIStorageCapacity',
    'storage.k8s.io/StorageClass',
    'resource.k8s.io/ResourceClaim',
    'resource.k8s.io/DeviceClass',
  ] as const
).map((resource) => ({ event: event(resource, ActionType.All) }));

/** upstream UnrollPodEvent: a registered Pod event stands for the same on AssignedPod, UnscheduledPod and TargetPod. */
export function unrollPodEvent(e: ClusterEvent): readonly ClusterEvent[] {
  if (e.resource !== 'Pod') return [e];
  return (['AssignedPod', 'UnscheduledPod', 'TargetPod'] as const).map((resource) => event(resource, e.actionType));
}

const json = (v: unknown) => JSON.stringify(v ?? null);

/**
 * upstream NodeSchedulingPropertiesChange: the parts of a node an update changed, one event each, in
 * upstream's order (spec.unschedulable turned off counts as UpdateNodeTaint); none when none of them did.
 */
export function nodeSchedulingPropertiesChange(newNode: Node, oldNode: Node): ClusterEvent[] {
  const actions: number[] = [];
  if (!!newNode.spec?.unschedulable !== !!oldNode.spec?.unschedulable && !newNode.spec?.unschedulable)
    actions.push(ActionType.UpdateNodeTaint);
  if (!sameMap(oldNode.status?.allocatable, newNode.status?.allocatable)) actions.push(ActionType.UpdateNodeAllocatable);
  if (!sameMap(oldNode.metadata.labels, newNode.metadata.labels)) actions.push(ActionType.UpdateNodeLabel);
  if (json(emptyAsUndefined(oldNode.spec?.taints)) !== json(emptyAsUndefined(newNode.spec?.taints)))
    actions.push(ActionType.UpdateNodeTaint);
  if (!sameMap(conditionStatuses(oldNode), conditionStatuses(newNode))) actions.push(ActionType.UpdateNodeCondition);
  if (!sameMap(oldNode.metadata.annotations, newNode.metadata.annotations)) actions.push(ActionType.UpdateNodeAnnotation);
  if (json(declaredFeatures(oldNode)) !== json(declaredFeatures(newNode))) actions.push(ActionType.UpdateNodeDeclaredFeature);
  return actions.map((a) => event('Node', a));
}

/**
 * upstream PodSchedulingPropertiesChange: the parts of a pod an update changed (labels, requests
 * down, requests up, all scheduling gates removed, tolerations, generated claims), on AssignedPod
 * for a bound pod, TargetPod for the pod being scheduled, else UnscheduledPod; the general Update
 * when none of them changed.
 */
export function podSchedulingPropertiesChange(newPod: Pod, oldPod: Pod, isTargetPod: boolean): ClusterEvent[] {
  const resource: EventResource = newPod.spec.nodeName ? 'AssignedPod' : isTargetPod ? 'TargetPod' : 'UnscheduledPod';
  const actions: number[] = [];
  if (!sameMap(oldPod.metadata.labels, newPod.metadata.labels)) actions.push(ActionType.UpdatePodLabel);
  const [before, after] = [requestsOf(oldPod), requestsOf(newPod)];
  if ([...before].some(([name, amount]) => !after.has(name) || (after.get(name) ?? 0) < amount))
    actions.push(ActionType.UpdatePodScaleDown);
  if ([...after].some(([name, amount]) => !before.has(name) || (before.get(name) ?? 0) < amount)) actions.push(ActionType.UpdatePodScaleUp);
  if ((newPod.spec.schedulingGates?.length ?? 0) === 0 && (oldPod.spec.schedulingGates?.length ?? 0) !== 0)
    actions.push(ActionType.UpdatePodSchedulingGatesEliminated);
  if ((newPod.spec.tolerations?.length ?? 0) !== (oldPod.spec.tolerations?.length ?? 0)) actions.push(ActionType.UpdatePodToleration);
  if (
    json(emptyAsUndefined(oldPod.status?.resourceClaimStatuses)) !== json(emptyAsUndefined(newPod.status?.resourceClaimStatuses)) ||
    json(extendedStatus(oldPod)) !== json(extendedStatus(newPod))
  )
    actions.push(ActionType.UpdatePodGeneratedResourceClaim);
  if (actions.length === 0) actions.push(ActionType.Update);
  return actions.map((a) => event(resource, a));
}

/** A pod's requests by resource name (upstream resource.PodRequests: only what it asks for, none when they do not read). */
function requestsOf(pod: Pod): ReadonlyMap<string, number> {
  const r = podResources(pod);
  if (!r.ok) return new Map();
  const asked = new Set<string>();
  for (const c of [...pod.spec.containers, ...(pod.spec.initContainers ?? [])])
    for (const name of [...Object.keys(c.resources?.requests ?? {}), ...Object.keys(c.resources?.limits ?? {})]) asked.add(name);
  return resourceMap(r.value.requests, asked);
}

function resourceMap(r: Resource, asked: ReadonlySet<string>): ReadonlyMap<string, number> {
  const out = new Map<string, number>();
  const put = (name: string, value: number) => {
    if (asked.has(name) || value !== 0) out.set(name, value);
  };
  put('cpu', r.milliCPU);
  put('memory', r.memory);
  put('ephemeral-storage', r.ephemeralStorage);
  for (const [name, value] of r.scalar) put(name, value);
  return out;
}

/** The pod's status.extendedResourceClaimStatus (decoded with the rest of its status). */
function extendedStatus(pod: Pod): unknown {
  return pod.status?.extendedResourceClaimStatus;
}

function conditionStatuses(node: Node): Record<string, string> {
  return Object.fromEntries((node.status?.conditions ?? []).map((c) => [c.type, c.status]));
}

function declaredFeatures(node: Node): readonly string[] {
  return node.status?.declaredFeatures ?? [];
}

function emptyAsUndefined<T>(list: readonly T[] | undefined): readonly T[] | undefined {
  return list && list.length > 0 ? list : undefined;
}

/** equality.Semantic.DeepEqual of two string maps, where nil and empty are not equal (as reflect), but the API server never sends an empty one. */
function sameMap(a: Readonly<Record<string, unknown>> | undefined, b: Readonly<Record<string, unknown>> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  const kb = Object.keys(b ?? {});
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (json((a ?? {})[k]) !== json((b ?? {})[k])) return false;
  return true;
}
