// DynamicResources for pods without resource claims, which is every pod Podplan reads (full DRA:
// ResourceClaims, DeviceClasses, ResourceSlices is a later step, see docs/fidelity.md). Upstream
// skips such pods at PreFilter and PreScore, and its PostFilter, which runs before DefaultPreemption
// so an idle claim is freed before a working pod is evicted, says it has nothing to free: that
// reason is part of the message a 1.35 cluster prints ("no new claims to deallocate, preemption: …").
import type { CycleState } from '../framework/cycle-state';
import type { FilterPlugin, PostFilterPlugin, PostFilterResult, PreFilterPlugin, PreScorePlugin, ScorePlugin } from '../framework/interfaces';
import type { NodeInfo, PodInfo } from '../framework/node-info';
import { PREEMPTION_MODE } from '../framework/preemption/record';
import { SKIP, SUCCESS, unschedulable, type Status } from '../framework/status';
import { factoryOf, noArgs } from './args';
import { Names } from './names';

export const NAME = Names.DynamicResources;

export const NO_CLAIMS_TO_DEALLOCATE = 'no new claims to deallocate';

const NOTHING_TO_DEALLOCATE: Status = Object.freeze(unschedulable(NO_CLAIMS_TO_DEALLOCATE));

export class DynamicResources implements PreFilterPlugin, FilterPlugin, PostFilterPlugin, PreScorePlugin, ScorePlugin {
  readonly name = NAME;

  preFilter(): { status: Status } {
    return { status: SKIP };
  }

  filter(_state: CycleState, _pod: PodInfo, _node: NodeInfo): Status {
    return SUCCESS;
  }

  /** A planning cycle that only reports preemption has nothing to say about claims either. */
  postFilter(state: CycleState): { status: Status; result?: PostFilterResult } {
    return { status: state.read(PREEMPTION_MODE) === 'report' ? SKIP : NOTHING_TO_DEALLOCATE };
  }

  preScore(): Status {
    return SKIP;
  }

  score(): number {
    return 0;
  }
}

export const factory = factoryOf(noArgs(NAME), () => new DynamicResources());
