// Small typed decoders from the plain values YAML yields to typed objects. Each decoder checks one
// value at a path, reports what is wrong there, and copies only the fields it knows, so engine
// objects hold exactly the fields of their type. Unknown fields are not errors: Kubernetes objects
// carry many fields scheduling does not read.
import type { ManifestErrorCode, Severity } from './errors';
import { joinPath } from './source-map';

export interface Issue {
  readonly path: string;
  readonly code: ManifestErrorCode;
  readonly message: string;
  readonly severity: Severity;
  /** Shown at the key of the field at `path` rather than its value (the key is what is wrong). */
  readonly atKey?: true;
}

export class DecodeContext {
  readonly issues: Issue[] = [];
  private errorCount = 0;
  /**
   * Whether the object being decoded was admitted by an API server (it has a metadata.uid: read from
   * a cluster or dumped from one): the checks kube-apiserver applies only to new objects are not
   * applied to it, as the scheduler evaluates what the cluster stored.
   */
  admitted = false;

  report(path: string, code: ManifestErrorCode, message: string, severity: Severity = 'error'): undefined {
    this.issues.push({ path, code, message, severity });
    if (severity === 'error') this.errorCount++;
    return undefined;
  }

  /** An error about the key of the field at `path` (an invalid label key): shown at the key. */
  reportKey(path: string, code: ManifestErrorCode, message: string): undefined {
    this.issues.push({ path, code, message, severity: 'error', atKey: true });
    this.errorCount++;
    return undefined;
  }

  get errors(): number {
    return this.errorCount;
  }

  /**
   * Runs `decode`; what it reports stays reported, but its errors do not make the enclosing object
   * unusable: a part with errors is left out (undefined), never kept half-read.
   */
  tolerate<T>(decode: () => T | undefined): T | undefined {
    const before = this.errorCount;
    const decoded = decode();
    if (this.errorCount === before) return decoded;
    this.errorCount = before;
    return undefined;
  }
}

/** Decodes `value` found at `path`; undefined (with an issue reported) when it is unusable. */
export type Decoder<T> = (value: unknown, path: string, ctx: DecodeContext) => T | undefined;

export type PlainObject = Readonly<Record<string, unknown>>;

export function isPlainObject(value: unknown): value is PlainObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
  return `a ${typeof value} (${String(value)})`;
}

export function wrongType(ctx: DecodeContext, path: string, expected: string, value: unknown): undefined {
  const hint = expected === 'a string' && (typeof value === 'number' || typeof value === 'boolean') ? `; quote it: "${String(value)}"` : '';
  return ctx.report(path, 'wrong-type', `expected ${expected}, got ${describe(value)}${hint}`);
}

export const string: Decoder<string> = (v, path, ctx) => (typeof v === 'string' ? v : wrongType(ctx, path, 'a string', v));

export const boolean: Decoder<boolean> = (v, path, ctx) => (typeof v === 'boolean' ? v : wrongType(ctx, path, 'true or false', v));

export const number: Decoder<number> = (v, path, ctx) =>
  typeof v === 'number' && Number.isFinite(v) ? v : wrongType(ctx, path, 'a number', v);

/** An integer within [min, max]. */
export function integer(min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): Decoder<number> {
  return (v, path, ctx) => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) return wrongType(ctx, path, 'an integer', v);
    if (v < min || v > max) {
      const bounds = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `between ${min} and ${max}`;
      return ctx.report(path, 'bad-value', `${v} is out of range: it must be ${bounds}`);
    }
    return v;
  };
}

/** One of a fixed set of strings (case-sensitive, as the API server checks). */
export function oneOf<T extends string>(values: readonly T[]): Decoder<T> {
  return (v, path, ctx) => {
    if (typeof v !== 'string') return wrongType(ctx, path, `one of ${values.join(', ')}`, v);
    if ((values as readonly string[]).includes(v)) return v as T;
    const sameCase = values.find((x) => x.toLowerCase() === v.toLowerCase());
    const hint = sameCase ? ` (did you mean ${sameCase}?)` : '';
    return ctx.report(path, 'bad-value', `"${v}" is not one of ${values.join(', ')}${hint}`);
  };
}

/** A list; items that fail to decode are reported and left out. */
export function arrayOf<T>(item: Decoder<T>): Decoder<T[]> {
  return (v, path, ctx) => {
    if (!Array.isArray(v)) return wrongType(ctx, path, 'a list', v);
    const out: T[] = [];
    for (const [i, x] of v.entries()) {
      const d = item(x, joinPath(path, i), ctx);
      if (d !== undefined) out.push(d);
    }
    return out;
  };
}

/** A mapping from any key to values of one type (labels, annotations, plugin args). */
export function recordOf<T>(item: Decoder<T>): Decoder<Record<string, T>> {
  return (v, path, ctx) => {
    if (!isPlainObject(v)) return wrongType(ctx, path, 'a mapping', v);
    const out: Record<string, T> = {};
    for (const [key, x] of Object.entries(v)) {
      const d = item(x, joinPath(path, key), ctx);
      if (d !== undefined) out[key] = d;
    }
    return out;
  };
}

export const stringMap = recordOf(string);

/** Any value, kept as YAML gave it (plugin args, decoded by their plugin). */
export const anyValue: Decoder<unknown> = (v) => v;

export type Fields<T> = { readonly [K in keyof T]-?: Decoder<Exclude<T[K], undefined>> };

/**
 * A mapping with the given fields. Absent and null fields are left out (null means unset, as
 * kubectl reads it); a required one that is absent is reported at the mapping.
 */
export function object<T>(fields: Fields<T>, required: ReadonlyArray<keyof T & string> = []): Decoder<T> {
  const entries = Object.entries(fields) as Array<[string, Decoder<unknown>]>;
  return (v, path, ctx) => {
    if (!isPlainObject(v)) return wrongType(ctx, path, 'a mapping', v);
    const out: Record<string, unknown> = {};
    for (const [key, decode] of entries) {
      const raw = Object.hasOwn(v, key) ? v[key] : undefined;
      if (raw === undefined || raw === null) {
        if (!(required as readonly string[]).includes(key)) continue;
        // Written but empty (`spec:`): shown at the key; absent: at the mapping.
        if (raw === null) ctx.report(joinPath(path, key), 'missing-field', `"${key}" is required and is empty`);
        else ctx.report(path, 'missing-field', `missing required field "${key}"`);
        continue;
      }
      const d = decode(raw, joinPath(path, key), ctx);
      if (d !== undefined) out[key] = d;
    }
    return out as T;
  };
}

/**
 * A part whose errors are reported but do not drop the object holding it: the part is left out
 * (undefined) and the object kept, so one bad value does not blank the editor's features for the
 * whole object. For parts with a safe reading when left out (a list item, a status, a state).
 */
export function tolerated<T>(decode: Decoder<T>): Decoder<T> {
  return (v, path, ctx) => ctx.tolerate(() => decode(v, path, ctx));
}

/** Runs `check` on a decoded value, which may report more issues (a list that must not be empty, …). */
export function refine<T>(decode: Decoder<T>, check: (value: T, path: string, ctx: DecodeContext) => void): Decoder<T> {
  return (v, path, ctx) => {
    const d = decode(v, path, ctx);
    if (d !== undefined) check(d, path, ctx);
    return d;
  };
}

/** An own property of a mapping (never one inherited from its prototype). */
export function field(v: PlainObject, key: string): unknown {
  return Object.hasOwn(v, key) ? v[key] : undefined;
}
