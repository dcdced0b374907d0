// ImageLocality (Score): favours nodes that already hold the pod's images. Each image present scores
// its size scaled by how widely it has spread (nodes holding it / all nodes, against piling pods onto
// the few nodes that have it); the sum is clamped to [23MB, 1000MB × (containers + image volumes)]
// and mapped to 0..100. Image volumes count as containers (1.37).
import type { Pod } from '../api/types';
import type { CycleState } from '../framework/cycle-state';
import { MAX_NODE_SCORE, type FrameworkHandle, type ScorePlugin } from '../framework/interfaces';
import type { NodeInfo, PodInfo } from '../framework/node-info';
import { factoryOf, noArgs } from './args';
import { CycleValue } from './cycle-value';
import { Names } from './names';
import { mulDiv } from './resource-allocation';

export const NAME = Names.ImageLocality;

const MB = 1024 * 1024;
export const MIN_THRESHOLD = 23 * MB;
export const MAX_CONTAINER_THRESHOLD = 1000 * MB;

/** The pod's images with their spread in this cycle's snapshot, worked out at the first node scored. */
interface PodImages {
  /** Only images some node holds: the others add nothing anywhere. */
  readonly images: ReadonlyArray<{ readonly name: string; readonly spread: number }>;
  readonly maxThreshold: number;
  /** All of the above, as a scoreKey: Score reads nothing else of the pod or the snapshot. */
  readonly key: string;
}

export class ImageLocality implements ScorePlugin {
  readonly name = NAME;
  private readonly podImagesState = new CycleValue<PodImages>(`Score${NAME}`);

  constructor(private readonly handle: FrameworkHandle) {}

  score(state: CycleState, pod: PodInfo, node: NodeInfo): number {
    const podImages = this.imagesOf(state, pod);
    if (podImages.images.length === 0) return 0;
    let sum = 0;
    for (const image of podImages.images) {
      const size = node.imageSizes.get(image.name);
      if (size !== undefined) sum += Math.trunc(size * image.spread);
    }
    return calculatePriority(sum, podImages.maxThreshold);
  }

  scoreKey(state: CycleState, pod: PodInfo): string {
    return this.imagesOf(state, pod).key;
  }

  private imagesOf(state: CycleState, pod: PodInfo): PodImages {
    let podImages = this.podImagesState.read(state);
    if (!podImages) this.podImagesState.write(state, (podImages = this.podImages(pod.pod)));
    return podImages;
  }

  private podImages(pod: Pod): PodImages {
    const snapshot = this.handle.snapshot();
    const totalNodes = snapshot.list().length;
    const containers = [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
    // Image volumes count as containers do (upstream 1.37 sumImageScores).
    const references = [
      ...containers.map((c) => c.image ?? ''),
      ...(pod.spec.volumes ?? []).flatMap((v) => (v.image ? [v.image.reference ?? ''] : [])),
    ];
    const images = references.flatMap((reference) => {
      const name = normalizedImageName(reference);
      const numNodes = snapshot.imageNumNodes(name);
      return numNodes > 0 ? [{ name, spread: numNodes / totalNodes }] : [];
    });
    const maxThreshold = MAX_CONTAINER_THRESHOLD * references.length;
    return { images, maxThreshold, key: JSON.stringify([images, maxThreshold]) };
  }
}

/** The clamped sum of image scores mapped onto 0..100. */
export function calculatePriority(sumScores: number, maxThreshold: number): number {
  if (sumScores <= MIN_THRESHOLD) return 0;
  return mulDiv(MAX_NODE_SCORE, Math.min(sumScores, maxThreshold) - MIN_THRESHOLD, maxThreshold - MIN_THRESHOLD);
}

/** The name as the container runtime reports it: a name without a tag means ":latest". */
export function normalizedImageName(name: string): string {
  return name.lastIndexOf(':') <= name.lastIndexOf('/') ? `${name}:latest` : name;
}

export const factory = factoryOf(noArgs(NAME), (_args, handle) => new ImageLocality(handle));
