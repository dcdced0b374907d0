// Which documents hold our kinds: by their value when they parse, by their text when they do not.
import { POD_SET_LABEL } from '../../engine/planner/plan';
import { joinPath, type ManifestDocument } from '../../manifests';
import type { SourceFile } from '../workspace';

export const TRIGGER = 'ScheduleTrigger';
export const PLAN = 'SchedulePlan';
export const PROFILE_CONFIG = 'KubeSchedulerConfiguration';

/** Kinds whose documents the server reports on in full. */
export const OUR_KINDS: readonly string[] = [TRIGGER, PLAN, PROFILE_CONFIG];

export type PlainObject = Record<string, unknown>;

export const isPlainObject = (v: unknown): v is PlainObject => typeof v === 'object' && v !== null && !Array.isArray(v);
export const own = (o: PlainObject, key: string): unknown => (Object.hasOwn(o, key) ? o[key] : undefined);

export interface RawObject {
  readonly value: PlainObject;
  /** '' for a top-level object, `items[i]` in a List. */
  readonly base: string;
  readonly kind?: string;
}

/** The objects of a document as written: the document itself, or the items of a List. */
export function rawObjects(document: ManifestDocument): RawObject[] {
  const value = document.value;
  if (!isPlainObject(value)) return [];
  const kind = own(value, 'kind');
  const items = own(value, 'items');
  if (typeof kind === 'string' && kind.endsWith('List') && Array.isArray(items)) {
    return items.flatMap((item, i) => (isPlainObject(item) ? [{ value: item, base: joinPath('items', i), ...kindOf(item) }] : []));
  }
  return [{ value, base: '', ...kindOf(value) }];
}

function kindOf(value: PlainObject): { kind?: string } {
  const kind = own(value, 'kind');
  return typeof kind === 'string' ? { kind } : {};
}

const DECLARED_KIND = /^kind:[ \t]*["']?([A-Za-z]+)/m;

/** The text of a document in its file. */
export function documentText(file: SourceFile, document: ManifestDocument): string {
  const r = document.source.documentRange;
  return file.document.getText().slice(r.start.offset, r.end.offset);
}

/** The kind a document declares at its top level, read from its text (for documents that do not parse). */
export function declaredKind(file: SourceFile, document: ManifestDocument): string | undefined {
  const own = rawObjects(document)[0]?.kind;
  return own ?? DECLARED_KIND.exec(documentText(file, document))?.[1];
}

/** Whether a raw object carries the pod-set label on itself or its pod template. */
export function carriesPodSetLabel(value: PlainObject): boolean {
  const labelsAt = (o: unknown): boolean => {
    const meta = isPlainObject(o) ? own(o, 'metadata') : undefined;
    const labels = isPlainObject(meta) ? own(meta, 'labels') : undefined;
    return isPlainObject(labels) && Object.hasOwn(labels, POD_SET_LABEL);
  };
  const spec = own(value, 'spec');
  return labelsAt(value) || (isPlainObject(spec) && labelsAt(own(spec, 'template')));
}

/** The document of a file that holds an offset. */
export function documentAt(file: SourceFile, offset: number): ManifestDocument | undefined {
  let found: ManifestDocument | undefined;
  for (const d of file.model.documents) {
    if (d.source.documentRange.start.offset <= offset) found = d;
    else break;
  }
  return found;
}

/** The value at `path` in a plain value; undefined when absent. */
export function valueAt(value: unknown, path: readonly (string | number)[]): unknown {
  let current = value;
  for (const segment of path) {
    if (typeof segment === 'number') current = Array.isArray(current) ? current[segment] : undefined;
    else current = isPlainObject(current) ? own(current, segment) : undefined;
  }
  return current;
}

export const stringAt = (value: unknown, path: readonly (string | number)[]): string | undefined => {
  const v = valueAt(value, path);
  return typeof v === 'string' ? v : undefined;
};

/** A label or field written in a document's text, for documents that do not parse (`namespace: x`). */
export function writtenField(text: string, key: string): string | undefined {
  const escaped = key.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return new RegExp(`^\\s+["']?${escaped}["']?:[ \\t]*["']?([^\\s"'#]+)`, 'm').exec(text)?.[1];
}
