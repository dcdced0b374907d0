// Reading a plugin's args (the profile's pluginConfig entry, untyped as it comes from YAML or JSON).
// Absent args mean the plugin's defaults; a wrong type or a field the plugin does not know is an error
// naming the field, as upstream's strict decoding reports it. Errors are data (api/field FieldError:
// type, path, value), so the profile's reader points at the field; their text is made from them.
import { fieldInvalid, fieldUnknown, type ArgsError, type FieldError, type FieldPath } from '../api/field';
import { err, ok, type Result } from '../api/result';
import { parseGoDurationNanos } from '../planner/podset/duration';
import type { FrameworkHandle, Plugin } from '../framework/interfaces';

export type ArgsObject = Readonly<Record<string, unknown>>;

function isObject(value: unknown): value is ArgsObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Collects the field errors of one plugin's args; `result` turns them into the factory's Result. */
export class ArgsReader {
  readonly errors: FieldError[] = [];

  constructor(readonly plugin: string) {}

  /** An object with only `known` fields; undefined when absent (null counts as absent). */
  object(value: unknown, path: FieldPath, known: readonly string[]): ArgsObject | undefined {
    if (value === undefined || value === null) return undefined;
    if (!isObject(value)) {
      this.errors.push(fieldInvalid(path, value, 'must be an object'));
      return undefined;
    }
    for (const key of Object.keys(value)) {
      // The args object may carry its type, as kube-scheduler's strict decoding accepts it.
      if (path.length === 0 && (key === 'apiVersion' || key === 'kind')) continue;
      if (!known.includes(key)) this.errors.push(fieldUnknown([...path, key]));
    }
    if (path.length === 0) this.checkType(value);
    return value;
  }

  /** `kind` must be this plugin's args type, `apiVersion` the config API's. */
  private checkType(value: ArgsObject): void {
    const kind = value['kind'];
    const apiVersion = value['apiVersion'];
    if (kind !== undefined && kind !== `${this.plugin}Args`) this.errors.push(fieldInvalid(['kind'], kind, `must be ${this.plugin}Args`));
    if (apiVersion !== undefined && apiVersion !== 'kubescheduler.config.k8s.io/v1')
      this.errors.push(fieldInvalid(['apiVersion'], apiVersion, 'must be kubescheduler.config.k8s.io/v1'));
  }

  list(value: unknown, path: FieldPath): readonly unknown[] | undefined {
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value)) {
      this.errors.push(fieldInvalid(path, value, 'must be a list'));
      return undefined;
    }
    return value;
  }

  int(value: unknown, path: FieldPath): number | undefined {
    return this.typed(value, path, (v): v is number => typeof v === 'number' && Number.isSafeInteger(v), 'must be an integer');
  }

  bool(value: unknown, path: FieldPath): boolean | undefined {
    return this.typed(value, path, (v): v is boolean => typeof v === 'boolean', 'must be true or false');
  }

  string(value: unknown, path: FieldPath): string | undefined {
    return this.typed(value, path, (v): v is string => typeof v === 'string', 'must be a string');
  }

  /** A scalar of the type `is` checks; undefined when absent (null counts as absent) or of another type, which is an error. */
  private typed<T>(value: unknown, path: FieldPath, is: (v: unknown) => v is T, detail: string): T | undefined {
    if (value === undefined || value === null) return undefined;
    if (is(value)) return value;
    this.errors.push(fieldInvalid(path, value, detail));
    return undefined;
  }

  /** A metav1.Duration: Go's duration text ("30s", "1m30s"), as nanoseconds; undefined when absent or not one, which is an error. */
  duration(value: unknown, path: FieldPath): bigint | undefined {
    const text = this.typed(value, path, (v): v is string => typeof v === 'string', 'must be a duration such as "30s"');
    if (text === undefined) return undefined;
    const nanos = parseGoDurationNanos(text);
    if (nanos.ok) return nanos.value;
    this.errors.push(fieldInvalid(path, value, nanos.error));
    return undefined;
  }

  strings(value: unknown, path: FieldPath): string[] {
    return (this.list(value, path) ?? []).flatMap((v, i) => this.string(v, [...path, i]) ?? []);
  }

  result<T>(value: T): Result<T, ArgsError> {
    return argsResult(this.plugin, this.errors, value);
  }
}

/** The args check of a plugin that takes none: absent or empty args are fine, anything else is an error. */
export function noArgs(plugin: string): (args: unknown) => Result<undefined, ArgsError> {
  return (args) => {
    const reader = new ArgsReader(plugin);
    reader.object(args, [], []);
    return reader.result(undefined);
  };
}

/** The args as an object with only `known` fields (absent args: an empty object), or the error. */
export function argsObject(plugin: string, args: unknown, known: readonly string[]): Result<ArgsObject, ArgsError> {
  const reader = new ArgsReader(plugin);
  const value = reader.object(args, [], known) ?? {};
  return reader.result(value);
}

/** The field errors as the plugin's args error, or the value when there are none. */
export function argsResult<T>(plugin: string, errors: readonly FieldError[], value: T): Result<T, ArgsError> {
  return errors.length > 0 ? err({ plugin, errors: [...errors] }) : ok(value);
}

/** A plugin's factory: its args checked (and defaulted) by `validate`, then the plugin built from them. Every plugin's factory is one. */
export function factoryOf<A, P extends Plugin>(
  validate: (args: unknown) => Result<A, ArgsError>,
  make: (args: A, handle: FrameworkHandle) => P,
): (args: unknown, handle: FrameworkHandle) => Result<P, ArgsError> {
  return (args, handle) => {
    const valid = validate(args);
    return valid.ok ? ok(make(valid.value, handle)) : valid;
  };
}
