// PrioritySort (QueueSort): higher pod priority first; equal priorities in the order they were queued.
import { podPriority } from '../api/priority';
import type { QueuedPodInfo, QueueSortPlugin } from '../framework/interfaces';
import { factoryOf, noArgs } from './args';
import { Names } from './names';

export const NAME = Names.PrioritySort;

export class PrioritySort implements QueueSortPlugin {
  readonly name = NAME;

  less(a: QueuedPodInfo, b: QueuedPodInfo): boolean {
    const p1 = podPriority(a.info.pod);
    const p2 = podPriority(b.info.pod);
    return p1 > p2 || (p1 === p2 && a.timestamp < b.timestamp);
  }
}

export const factory = factoryOf(noArgs(NAME), () => new PrioritySort());
