// Plugin name → factory, as upstream's runtime.Registry. Profiles name plugins; the registry is how a
// name becomes an instance, so an unknown name is caught when a profile is built, not mid-cycle.
import { err, ok, type Result } from '../api/result';
import type { PluginFactory } from './interfaces';

export class Registry {
  private readonly factories = new Map<string, PluginFactory>();

  /** Adds a factory; a name already registered is an error (two plugins cannot answer to one name). */
  register(name: string, factory: PluginFactory): Result<void> {
    if (this.factories.has(name)) return err(`plugin ${name} is already registered`);
    this.factories.set(name, factory);
    return ok(undefined);
  }

  get(name: string): PluginFactory | undefined {
    return this.factories.get(name);
  }

  has(name: string): boolean {
    return this.factories.has(name);
  }

  /** Registered names, in registration order. */
  names(): string[] {
    return [...this.factories.keys()];
  }
}
