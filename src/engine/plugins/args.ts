// Plugin args as they come from a profile's pluginConfig: an object with known fields, checked so a
// misspelt field is an error where it was written rather than a setting silently ignored (upstream
// decodes plugin args strictly).
import { err, ok, type Result } from '../api/result';
import { type FrameworkHandle, type Plugin, type PluginFactory } from '../framework/interfaces';

/** The args as an object (absent args are an empty one), or an error naming the unknown fields. */
export function argsObject(plugin: string, args: unknown, known: readonly string[]): Result<Readonly<Record<string, unknown>>> {
  if (args === undefined || args === null) return ok({});
  if (typeof args !== 'object' || Array.isArray(args)) return err(`${plugin} args: want an object, got ${JSON.stringify(args)}`);
  const unknown = Object.keys(args).filter((key) => !known.includes(key));
  if (unknown.length > 0) return err(`${plugin} args: unknown field(s) ${unknown.map((k) => `"${k}"`).join(', ')} (known: ${known.join(', ')})`);
  return ok(args as Record<string, unknown>);
}

/** All the field errors as one message, or the value when there are none. */
export function argsResult<T>(plugin: string, errors: readonly string[], value: T): Result<T> {
  return errors.length > 0 ? err(`${plugin} args: ${errors.join('; ')}`) : ok(value);
}

/** A factory that validates the args before building the plugin. */
export function factoryOf<A>(validate: (args: unknown) => Result<A>, make: (args: A, handle: FrameworkHandle) => Plugin): PluginFactory {
  return (args, handle) => {
    const valid = validate(args);
    return valid.ok ? ok(make(valid.value, handle)) : valid;
  };
}
