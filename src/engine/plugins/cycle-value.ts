// A plugin's per-pod value in the CycleState (written at PreFilter or PreScore, read for every node),
// remembered for the state it was last read from: the per-node read is then one comparison instead of
// a map lookup, which shows at thousands of nodes per pod. A different state (a clone for a what-if,
// the next cycle) misses and reads its own value, so the shortcut never serves another state's value.
import { StateKey, type CycleState } from '../framework/cycle-state';

export class CycleValue<T> {
  private readonly key: StateKey<T>;
  private lastState: CycleState | undefined;
  private lastValue: T | undefined;

  constructor(name: string) {
    this.key = new StateKey<T>(name);
  }

  write(state: CycleState, value: T): void {
    state.write(this.key, value);
    this.lastState = state;
    this.lastValue = value;
  }

  read(state: CycleState): T | undefined {
    if (state === this.lastState) return this.lastValue;
    const value = state.read(this.key);
    if (value !== undefined) {
      this.lastState = state;
      this.lastValue = value;
    }
    return value;
  }
}
