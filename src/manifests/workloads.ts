// Workloads whose pod template becomes pods, as their controllers would create them, so a snapshot
// of workload manifests schedules like the cluster would.
//
// Names are deterministic `<name>-<index>` for every controller. That is upstream's rule for
// StatefulSet ordinals; for a Deployment (upstream `<name>-<template hash>-<random>`), a ReplicaSet
// and a Job (`<name>-<random>`) it is a simplification, so names in plans stay stable across reads.
// Pods are owned by their workload directly: a Deployment's intermediate ReplicaSet is not modelled.
import { selectorMatches } from '../engine/api/labels';
import { DEFAULT_NAMESPACE, type LabelSelector, type Labels, type ObjectMeta, type Pod, type PodSpec } from '../engine/api/types';
import { integer, object, string, type DecodeContext, type Decoder } from './decode';
import { labelSelector, objectMeta, podSpec, templateMeta } from './kube';
import { joinPath } from './source-map';

export type WorkloadKind = 'Deployment' | 'ReplicaSet' | 'StatefulSet' | 'Job' | 'DaemonSet';

export const WORKLOAD_API_VERSIONS: Readonly<Record<WorkloadKind, string>> = {
  Deployment: 'apps/v1',
  ReplicaSet: 'apps/v1',
  StatefulSet: 'apps/v1',
  DaemonSet: 'apps/v1',
  Job: 'batch/v1',
};

export interface PodTemplate {
  readonly metadata?: Partial<ObjectMeta>;
  readonly spec: PodSpec;
}

export interface Workload {
  readonly apiVersion?: string;
  readonly kind: WorkloadKind;
  readonly metadata: ObjectMeta;
  /**
   * How many pods it runs at once: spec.replicas (default 1); for a Job spec.parallelism (default 1)
   * capped by spec.completions. A DaemonSet runs one per eligible node instead.
   */
  readonly replicas: number;
  readonly selector?: LabelSelector;
  readonly template: PodTemplate;
}

interface WorkloadSpec {
  readonly replicas?: number;
  readonly parallelism?: number;
  readonly completions?: number;
  readonly selector?: LabelSelector;
  readonly template: PodTemplate;
}

const count = integer(0, 1_000_000);

const workloadSpec = object<WorkloadSpec>(
  {
    replicas: count,
    parallelism: count,
    completions: count,
    selector: labelSelector,
    template: object<PodTemplate>({ metadata: templateMeta, spec: podSpec }, ['spec']),
  },
  ['template'],
);

const workloadShape = object<{ apiVersion?: string; metadata: ObjectMeta; spec: WorkloadSpec }>(
  { apiVersion: string, metadata: objectMeta, spec: workloadSpec },
  ['metadata', 'spec'],
);

/** Decodes a workload of `kind` and checks its selector against its template, as the API server does. */
export function workloadDecoder(kind: WorkloadKind): Decoder<Workload> {
  return (v, path, ctx) => {
    const w = workloadShape(v, path, ctx);
    if (!w?.metadata || !w.spec?.template?.spec) return undefined;
    const spec = w.spec;
    checkSelector(kind, spec, joinPath(path, 'spec'), ctx);
    const replicas = kind === 'Job' ? Math.min(spec.parallelism ?? 1, spec.completions ?? Infinity) : (spec.replicas ?? 1);
    return {
      ...(w.apiVersion !== undefined ? { apiVersion: w.apiVersion } : {}),
      kind,
      metadata: w.metadata,
      replicas,
      ...(spec.selector ? { selector: spec.selector } : {}),
      template: spec.template,
    };
  };
}

function checkSelector(kind: WorkloadKind, spec: WorkloadSpec, path: string, ctx: DecodeContext): void {
  const at = joinPath(path, 'selector');
  if (!spec.selector) {
    // Required for apps/v1 but irrelevant to placement: say so without dropping the workload.
    if (kind !== 'Job') ctx.report(path, 'missing-field', `missing field "selector" (apps/v1 ${kind} requires one matching the template labels)`, 'warning');
    return;
  }
  if (!selectorMatches(spec.selector, spec.template.metadata?.labels)) {
    ctx.report(at, 'selector-mismatch', `the selector does not match the pod template's labels (spec.template.metadata.labels)`);
  }
}

/** A pod as the workload's controller creates it: template labels and spec, owner, namespace. */
export function podFromTemplate(w: Workload, name: string, extraLabels: Labels = {}, spec: PodSpec = w.template.spec): Pod {
  const meta = w.template.metadata;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: w.metadata.namespace ?? DEFAULT_NAMESPACE,
      labels: { ...meta?.labels, ...extraLabels },
      ...(meta?.annotations ? { annotations: meta.annotations } : {}),
      ownerReferences: [
        {
          apiVersion: w.apiVersion ?? WORKLOAD_API_VERSIONS[w.kind],
          kind: w.kind,
          name: w.metadata.name,
          ...(w.metadata.uid !== undefined ? { uid: w.metadata.uid } : {}),
          controller: true,
        },
      ],
    },
    spec,
  };
}

/** Labels upstream controllers add to the pods they create. */
function controllerLabels(w: Workload, index: number): Labels {
  const name = w.metadata.name;
  switch (w.kind) {
    case 'StatefulSet':
      return { 'statefulset.kubernetes.io/pod-name': `${name}-${index}`, 'apps.kubernetes.io/pod-index': String(index) };
    case 'Job':
      return { 'batch.kubernetes.io/job-name': name, 'job-name': name };
    default:
      return {};
  }
}

/** The pods of a Deployment, ReplicaSet, StatefulSet or Job (DaemonSets need the nodes: see daemonset.ts). */
export function workloadPods(w: Workload): Pod[] {
  const pods: Pod[] = [];
  for (let i = 0; i < w.replicas; i++) pods.push(podFromTemplate(w, `${w.metadata.name}-${i}`, controllerLabels(w, i)));
  return pods;
}
