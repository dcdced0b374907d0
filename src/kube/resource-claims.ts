// The live scheduler's ClaimWriter: what kube-scheduler 1.37's DynamicResources PreBind writes to a
// ResourceClaim before the pod is bound (pkg/scheduler/framework/plugins/dynamicresources,
// bindClaim), over KubeHttp. Per claim, on the object as the API server holds it now (read with a
// GET, written back whole with PUT, so no field Podplan does not decode is lost):
// - a claim being deleted, or another claim under the name (its uid differs): "claim ns/name got
//   deleted in the meantime"; an allocation to store on a claim allocated since: "claim ns/name got
//   allocated elsewhere in the meantime";
// - with an allocation to store, the finalizer resource.kubernetes.io/delete-protection added by an
//   update of the claim, when it is not there;
// - status.allocation set (with allocationTimestamp, as DRADeviceBindingConditions and
//   DRAResourceClaimDeviceStatus, both on by default in 1.37, make upstream write it) and the pod
//   appended to status.reservedFor, by an update of the status subresource.
// A conflict (the claim changed between the read and the write) reads it again and tries again, at
// most RETRIES times, as upstream's retry.RetryOnConflict(retry.DefaultRetry). The answer is the
// written claim through the manifests decoder (objects.ts), for the plugin's assume cache. Taking a
// reservation back (Unreserve after a write) is the same read and status update without the pod;
// its failure is a warning.
// For a pod's extended resources served by DRA (DRAExtendedResource), before that write: the special
// claim created (POST, its generateName `<pod>-extended-resources-` named by the API server), and
// after it the pod's status.extendedResourceClaimStatus patched (a strategic-merge patch of the
// status subresource, as upstream's PatchPodStatus). Deleting that claim for a pod not bound
// (Unreserve) first takes the finalizer off by an update, then deletes; its failure is a warning.
import type { Clock } from '../engine/api/clock';
import type { ResourceClaim } from '../engine/api/dra';
import { err, ok, type Result } from '../engine/api/result';
import type { Pod } from '../engine/api/types';
import type { ClaimBinding, ClaimWriter } from '../engine/framework/binder';
import type { ApiError, KubeHttp } from './http';
import { cleanObject, decodeResourceClaim } from './objects';
import { collectionPath, objectPath, RESOURCE_CLAIM } from './resources';

/** The finalizer upstream's PreBind adds before it stores an allocation (resourceapi.Finalizer). */
export const CLAIM_FINALIZER = 'resource.kubernetes.io/delete-protection';

/** Tries per claim write when the claim changed under it (retry.DefaultRetry's steps). */
export const RETRIES = 5;

type Json = Record<string, unknown>;

interface ClaimObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly deletionTimestamp?: string;
    readonly finalizers?: readonly string[];
    readonly [k: string]: unknown;
  };
  readonly status?: {
    readonly allocation?: unknown;
    readonly reservedFor?: ReadonlyArray<{ readonly uid?: string; readonly [k: string]: unknown }>;
    readonly [k: string]: unknown;
  };
  readonly [k: string]: unknown;
}

/** A step's outcome: done, try again after reading the claim anew, or failed for good. */
type Step<T> =
  { readonly kind: 'done'; readonly value: T } | { readonly kind: 'conflict' } | { readonly kind: 'failed'; readonly message: string };

const describe = (e: ApiError): string => (e.status ? `${e.status} ${e.message}` : e.message);

/** metav1.Time: RFC 3339 in UTC, whole seconds. */
const rfc3339 = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

export interface ResourceClaimWriterOptions {
  readonly clock: Clock;
  /** A reservation that could not be taken back (redacted, one line). */
  readonly onWarning: (message: string) => void;
}

export function resourceClaimWriter(http: KubeHttp, options: ResourceClaimWriterOptions): ClaimWriter {
  const context = http.context.context;
  const path = (b: ClaimBinding) => objectPath(RESOURCE_CLAIM, b.name, b.namespace);
  const named = (b: ClaimBinding) => `${b.namespace}/${b.name}`;

  /** Reads the claim and runs `step` on it until it is not a conflict, at most RETRIES times. */
  async function onConflictRetry<T>(
    b: ClaimBinding,
    step: (claim: ClaimObject) => Promise<Step<T>>,
    missing?: { readonly value: T },
  ): Promise<Result<T, string>> {
    let last = '';
    for (let attempt = 0; attempt < RETRIES; attempt++) {
      const read = await http.request<ClaimObject>(path(b));
      if (!read.ok && missing && read.error.kind === 'not-found') return ok(missing.value);
      if (!read.ok)
        return err(
          read.error.kind === 'not-found'
            ? `claim ${named(b)} got deleted in the meantime`
            : `get claim ${named(b)}: ${describe(read.error)}`,
        );
      const outcome = await step(read.value);
      if (outcome.kind === 'done') return ok(outcome.value);
      if (outcome.kind === 'failed') return err(outcome.message);
      last = `claim ${named(b)} changed while it was written, ${RETRIES} times`;
    }
    return err(last);
  }

  /** PUT of the claim (`status`: its status subresource). */
  const write = (b: ClaimBinding, claim: ClaimObject, status: boolean): Promise<Result<ClaimObject, ApiError>> =>
    http.request<ClaimObject>(`${path(b)}${status ? '/status' : ''}`, { method: 'PUT', body: claim });

  return {
    async bindClaim(b) {
      const stored = await onConflictRetry<ClaimObject>(b, async (current) => {
        let claim = current;
        if (claim.metadata.deletionTimestamp || (b.uid !== undefined && claim.metadata.uid !== b.uid))
          return { kind: 'failed', message: `claim ${named(b)} got deleted in the meantime` };
        if (b.allocation) {
          if (claim.status?.allocation) return { kind: 'failed', message: `claim ${named(b)} got allocated elsewhere in the meantime` };
          const finalizers = claim.metadata.finalizers ?? [];
          if (!finalizers.includes(CLAIM_FINALIZER)) {
            const updated = await write(
              b,
              { ...claim, metadata: { ...claim.metadata, finalizers: [...finalizers, CLAIM_FINALIZER] } },
              false,
            );
            if (!updated.ok)
              return updated.error.kind === 'conflict'
                ? { kind: 'conflict' }
                : { kind: 'failed', message: `add finalizer to claim ${named(b)}: ${describe(updated.error)}` };
            claim = updated.value;
          }
        }
        const status: Json = { ...claim.status };
        if (b.allocation) status['allocation'] = { ...b.allocation, allocationTimestamp: rfc3339(options.clock.now()) };
        status['reservedFor'] = [...(claim.status?.reservedFor ?? []), b.consumer];
        const updated = await write(b, { ...claim, status }, true);
        if (updated.ok) return { kind: 'done', value: updated.value };
        if (updated.error.kind === 'conflict') return { kind: 'conflict' };
        return {
          kind: 'failed',
          message: `add ${b.allocation ? 'allocation and reservation' : 'reservation'} to claim ${named(b)}: ${describe(updated.error)}`,
        };
      });
      if (!stored.ok) return stored;
      return decoded(context, stored.value);
    },

    unreserveClaim(b) {
      void onConflictRetry<undefined>(b, async (claim) => {
        const reservedFor = claim.status?.reservedFor ?? [];
        if (!reservedFor.some((r) => r.uid === b.consumer.uid)) return { kind: 'done', value: undefined };
        const updated = await write(
          b,
          { ...claim, status: { ...claim.status, reservedFor: reservedFor.filter((r) => r.uid !== b.consumer.uid) } },
          true,
        );
        if (updated.ok) return { kind: 'done', value: undefined };
        return updated.error.kind === 'conflict' ? { kind: 'conflict' } : { kind: 'failed', message: describe(updated.error) };
      }).then((done) => {
        if (!done.ok)
          options.onWarning(`unreserve: pod ${b.consumer.name} is still in the reservedFor of claim ${named(b)}: ${done.error}`);
      });
    },

    async createClaim(claim) {
      const namespace = claim.metadata.namespace ?? 'default';
      const { name, ...metadata } = claim.metadata;
      const body = {
        apiVersion: 'resource.k8s.io/v1',
        kind: 'ResourceClaim',
        metadata: name ? claim.metadata : metadata,
        spec: claim.spec,
      };
      const created = await http.request<ClaimObject>(collectionPath(RESOURCE_CLAIM, namespace), { method: 'POST', body });
      if (!created.ok) return err(describe(created.error));
      return decoded(context, created.value);
    },

    async patchPodExtendedResourceClaimStatus(pod: Pod, status) {
      const namespace = pod.metadata.namespace ?? 'default';
      const podPath = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod.metadata.name)}/status`;
      const patched = await http.request(podPath, {
        method: 'PATCH',
        body: { status: { extendedResourceClaimStatus: status } },
        contentType: 'application/strategic-merge-patch+json',
      });
      return patched.ok ? ok(undefined) : err(describe(patched.error));
    },

    deleteClaim(namespace, name) {
      const b: ClaimBinding = { namespace, name, consumer: { resource: 'pods', name: '', uid: '' } };
      void onConflictRetry<undefined>(
        b,
        async (claim) => {
          const finalizers = claim.metadata.finalizers ?? [];
          if (!finalizers.includes(CLAIM_FINALIZER)) return { kind: 'done', value: undefined };
          const updated = await write(
            b,
            { ...claim, metadata: { ...claim.metadata, finalizers: finalizers.filter((f) => f !== CLAIM_FINALIZER) } },
            false,
          );
          if (updated.ok) return { kind: 'done', value: undefined };
          return updated.error.kind === 'conflict'
            ? { kind: 'conflict' }
            : { kind: 'failed', message: `update resourceclaim ${named(b)}: ${describe(updated.error)}` };
        },
        { value: undefined },
      )
        .then(async (done) => {
          if (!done.ok) return done;
          const deleted = await http.request(path(b), { method: 'DELETE' });
          return deleted.ok || deleted.error.kind === 'not-found' ? done : err(describe(deleted.error));
        })
        .then((done) => {
          if (!done.ok) options.onWarning(`unreserve: the claim ${named(b)} made for the extended resources is not deleted: ${done.error}`);
        });
    },
  };
}

/** The written claim as the engine's ResourceClaim (through the manifests decoder, as the informers decode it). */
function decoded(context: string, object: ClaimObject): Result<ResourceClaim, string> {
  const cleaned = cleanObject(RESOURCE_CLAIM, object);
  if (!cleaned)
    return err(`claim ${object.metadata.namespace ?? 'default'}/${object.metadata.name}: the API server's answer is not a ResourceClaim`);
  const claim = decodeResourceClaim(context, cleaned);
  return claim.ok ? claim : err(claim.error.join('; '));
}
