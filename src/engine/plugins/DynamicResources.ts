// DynamicResources for pods without resource claims, which is every pod Podplan reads (full DRA:
// ResourceClaims, DeviceClasses, ResourceSlices is a later step, see docs/fidelity.md). As upstream
// 1.37: PreFilter records that the pod has no claims and skips Filter; Score gives every node 0
// (the plugin has no PreScore, so it is never skipped there); PostFilter, which runs before
// DefaultPreemption so an idle claim is freed before a working pod is evicted, has nothing to free
// and says nothing. When a PreFilter rejection stopped the cycle before this plugin's PreFilter ran,
// its PostFilter cannot read its state and fails with the state's "not found", which ends the
// PostFilter stage and upstream's message ("… not found. not found").
import type { CycleState } from '../framework/cycle-state';
import { StateKey } from '../framework/cycle-state';
import type { FilterPlugin, PostFilterPlugin, PostFilterResult, PreFilterPlugin, ScorePlugin } from '../framework/interfaces';
import type { NodeInfo, PodInfo } from '../framework/node-info';
import { PREEMPTION_MODE } from '../framework/preemption/record';
import { errorStatus, SKIP, SUCCESS, unschedulable, type Status } from '../framework/status';
import { factoryOf, noArgs } from './args';
import { Names } from './names';

export const NAME = Names.DynamicResources;

/** The error upstream's CycleState.Read returns for a key never written. */
export const STATE_NOT_FOUND = 'not found';

const NOTHING_TO_DEALLOCATE: Status = Object.freeze(unschedulable());
const NO_STATE: Status = Object.freeze(errorStatus(STATE_NOT_FOUND));

export class DynamicResources implements PreFilterPlugin, FilterPlugin, PostFilterPlugin, ScorePlugin {
  readonly name = NAME;
  private readonly ran = new StateKey<true>(`PreFilter${NAME}`);

  preFilter(state: CycleState): { status: Status } {
    state.write(this.ran, true);
    return { status: SKIP };
  }

  filter(_state: CycleState, _pod: PodInfo, _node: NodeInfo): Status {
    return SUCCESS;
  }

  /** A planning cycle that only reports preemption has nothing to say about claims either. */
  postFilter(state: CycleState): { status: Status; result?: PostFilterResult } {
    if (state.read(PREEMPTION_MODE) === 'report') return { status: SKIP };
    return { status: state.read(this.ran) ? NOTHING_TO_DEALLOCATE : NO_STATE };
  }

  score(): number {
    return 0;
  }
}

export const factory = factoryOf(noArgs(NAME), () => new DynamicResources());
