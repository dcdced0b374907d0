// How the runtime calls a plugin: by its entry (name and instance, in profile order), through one
// guard that records which plugin at which stage answered and turns a throw into an Error status
// naming the plugin (a plugin that throws has failed, not the engine).
//
// The per-node stages (Filter, Score) run thousands of calls a cycle: they wrap their whole loop in
// one try and convert with `thrown`, rather than making a closure per node per plugin.
import { errorMessage } from '../api/errors';
import type { ScorePlugin } from './interfaces';
import { attributed, Code, type Stage, type Status } from './status';

/** A plugin enabled at an extension point, under its profile name. */
export interface Entry<T> {
  readonly name: string;
  readonly plugin: T;
}

export interface ScoreEntry extends Entry<ScorePlugin> {
  readonly weight: number;
}

/**
 * The status `call` answers, attributed to `plugin` at `stage`; an Error status naming them when it
 * throws or its promise rejects.
 */
export function guarded(plugin: string, stage: Stage, call: () => Status): Status;
/** For an async call: a plain status when it threw before its promise, so `await` the answer. */
export function guarded(plugin: string, stage: Stage, call: () => Promise<Status>): Promise<Status> | Status;
export function guarded(plugin: string, stage: Stage, call: () => Status | Promise<Status>): Status | Promise<Status> {
  try {
    const out = call();
    if (out instanceof Promise) {
      return out.then(
        (status) => attributed(status, plugin, stage),
        (e: unknown) => thrown(e, plugin, stage),
      );
    }
    return attributed(out, plugin, stage);
  } catch (e) {
    return thrown(e, plugin, stage);
  }
}

/** `guarded` for a call answering a status and maybe a result (PreFilter, PostFilter): no result when it threw. */
export function guardedWithResult<R>(
  plugin: string,
  stage: Stage,
  call: () => { status: Status; result?: R },
): { status: Status; result: R | undefined } {
  let result: R | undefined;
  const status = guarded(plugin, stage, () => {
    const out = call();
    result = out.result;
    return out.status;
  });
  return { status, result };
}

/** The Error status of a plugin that threw. */
export function thrown(error: unknown, plugin: string, stage: Stage): Status {
  return { code: Code.Error, reasons: [`plugin ${plugin} threw at ${stage}: ${errorMessage(error)}`], plugin, stage };
}
