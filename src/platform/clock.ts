// The real clock for the processes that run the engine (server, CLI, kube code).
import type { Clock } from '../engine/api/clock';

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (delayMs, callback) => {
    const handle = setTimeout(callback, Math.max(0, delayMs));
    return { cancel: () => clearTimeout(handle) };
  },
};
