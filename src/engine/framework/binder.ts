// Where a pod is finally bound: the kube layer's binder posts a Binding; previews and tests use the
// in-memory one. The DefaultBinder plugin calls whichever the framework was built with.
import type { Pod } from '../api/types';
import { podKey } from '../api/types';
import { errorStatus, SUCCESS, type Status } from './status';

export interface Binder {
  /** Binds the pod to the node; a conflict or failure is a Status, not an exception. */
  bind(pod: Pod, nodeName: string): Promise<Status>;
}

/** Records bindings in memory; a pod bound twice is an error, as the API server would say. */
export class InMemoryBinder implements Binder {
  readonly bindings = new Map<string, string>();

  async bind(pod: Pod, nodeName: string): Promise<Status> {
    const key = podKey(pod);
    const existing = this.bindings.get(key);
    if (existing !== undefined) return errorStatus(`pod ${key} is already bound to ${existing}`);
    this.bindings.set(key, nodeName);
    return SUCCESS;
  }
}
