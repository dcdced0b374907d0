// DefaultBinder (Bind): binds the pod through the framework's Binder (the API server's binding
// subresource in a cluster, memory in a preview).
import type { CycleState } from '../framework/cycle-state';
import type { BindPlugin, FrameworkHandle } from '../framework/interfaces';
import type { PodInfo } from '../framework/node-info';
import type { Status } from '../framework/status';
import { factoryOf, noArgs } from './args';
import { Names } from './names';

export const NAME = Names.DefaultBinder;

export class DefaultBinder implements BindPlugin {
  readonly name = NAME;

  constructor(private readonly handle: FrameworkHandle) {}

  bind(_state: CycleState, pod: PodInfo, nodeName: string): Promise<Status> {
    return this.handle.binder.bind(pod.pod, nodeName);
  }
}

export const factory = factoryOf(noArgs(NAME), (_args, handle) => new DefaultBinder(handle));
