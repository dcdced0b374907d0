// VolumeZone (PreFilter, Filter) as upstream's volumezone plugin: a bound volume labelled with a
// zone or region (GA or beta keys; a value may list several zones joined by "__") keeps the pod to
// nodes in one of them. A node with none of those labels has no zone constraint and passes.
import { podClaimNames, claimKey, storageIndex } from '../api/volumes';
import type { CycleState } from '../framework/cycle-state';
import type { FilterPlugin, FrameworkHandle, PreFilterPlugin } from '../framework/interfaces';
import type { NodeInfo, PodInfo } from '../framework/node-info';
import { SKIP, SUCCESS, unresolvable, type Status } from '../framework/status';
import { factoryOf, noArgs } from './args';
import { CycleValue } from './cycle-value';
import { Names } from './names';

export const NAME = Names.VolumeZone;
export const ERR_REASON_CONFLICT = 'node(s) had no available volume zone';

const GA_ZONE = 'topology.kubernetes.io/zone';
const GA_REGION = 'topology.kubernetes.io/region';
const BETA_ZONE = 'failure-domain.beta.kubernetes.io/zone';
const BETA_REGION = 'failure-domain.beta.kubernetes.io/region';
const TOPOLOGY_LABELS = [BETA_ZONE, BETA_REGION, GA_ZONE, GA_REGION];
const TO_GA: Readonly<Record<string, string>> = { [BETA_ZONE]: GA_ZONE, [BETA_REGION]: GA_REGION };

interface VolumeTopology {
  readonly key: string;
  readonly values: ReadonlySet<string>;
}

export class VolumeZone implements PreFilterPlugin, FilterPlugin {
  readonly name = NAME;
  private readonly state = new CycleValue<readonly VolumeTopology[]>(`PreFilter${NAME}`);

  constructor(private readonly handle: FrameworkHandle) {}

  preFilter(state: CycleState, pod: PodInfo): { status: Status } {
    const names = podClaimNames(pod.pod);
    if (names.length === 0) return { status: SKIP };
    const index = storageIndex(this.handle.objects?.() ?? {});
    const topologies: VolumeTopology[] = [];
    for (const name of names) {
      const claim = index.claims.get(claimKey(pod.pod, name));
      if (!claim) return { status: unresolvable(`persistentvolumeclaim "${name}" not found`) };
      const volume = claim.spec?.volumeName ? index.volumes.get(claim.spec.volumeName) : undefined;
      const labels = volume?.metadata.labels ?? {};
      for (const key of TOPOLOGY_LABELS) {
        const value = labels[key];
        if (value !== undefined) topologies.push({ key, values: new Set(value.split('__')) });
      }
    }
    if (topologies.length === 0) return { status: SKIP };
    this.state.write(state, topologies);
    return { status: SUCCESS };
  }

  filter(state: CycleState, _pod: PodInfo, node: NodeInfo): Status {
    const topologies = this.state.read(state);
    if (!topologies) return SUCCESS;
    const labels = node.node.metadata.labels ?? {};
    if (!TOPOLOGY_LABELS.some((key) => labels[key] !== undefined)) return SUCCESS;
    for (const { key, values } of topologies) {
      const value = labels[key] ?? labels[TO_GA[key] ?? key];
      if (value === undefined || !values.has(value)) return unresolvable(ERR_REASON_CONFLICT);
    }
    return SUCCESS;
  }
}

export const factory = factoryOf(noArgs(NAME), (_args, handle) => new VolumeZone(handle));
