// Text edits that change one field of a YAML document and leave the rest as written: replace a
// value, add a key to a mapping (block or flow), remove a sequence item, add items. Each comes with
// what it means to change (safe-edit.ts's Intent), which the guard checks the result against.
import type { Range } from 'vscode-languageserver';
import { concatPath, joinPath, splitPath, type PathSegment, type SourceMap } from '../../manifests';
import type { SourceFile } from '../workspace';
import { isPlainObject, valueAt } from './documents';
import { lspRange } from './locate';
import { valueOf, type Change } from './safe-edit';

const PLAIN = /^[A-Za-z0-9][\w./-]*$/;
const SPECIAL = /^(true|false|yes|no|on|off|null|~|[-+]?(\d[\d_]*(\.\d*)?|\.\d+)([eE][-+]?\d+)?|0x[0-9a-fA-F]+|0o[0-7]+)$/i;

/** A string as a YAML scalar: plain when it reads back as the same string, else double-quoted. */
export function scalar(text: string): string {
  return PLAIN.test(text) && !SPECIAL.test(text) ? text : JSON.stringify(text);
}

/** Where an edit goes: a document of a file, and the object in it (its path from the document's root). */
export interface Target {
  readonly file: SourceFile;
  /** The document's index in the file. */
  readonly index: number;
  readonly source: SourceMap;
  /** The document's plain value. */
  readonly value: unknown;
  readonly base: string;
}

const rangeOf = (t: Target, start: number, end: number): Range => lspRange(t.source.rangeOf(start, end));
const segmentsOf = (t: Target, path: string): PathSegment[] => splitPath(concatPath(t.base, path)) ?? [];
const change = (t: Target, range: Range, newText: string, intent: Change['intent']): Change => ({
  uri: t.file.uri,
  edit: { range, newText },
  intent,
});

/** Replaces the value at `path` (relative to the target's object) with `newText` (YAML text). */
export function replaceValue(t: Target, path: string, newText: string): Change | undefined {
  const range = t.source.range(concatPath(t.base, path));
  return range
    ? change(t, lspRange(range), newText, { kind: 'set', document: t.index, path: segmentsOf(t, path), value: valueOf(newText) })
    : undefined;
}

/**
 * Adds `key: value` (value already YAML text) to the mapping at `path`, or sets it when present.
 * A missing or empty mapping is written as a flow mapping `{ key: value }` on its parent.
 */
export function setEntry(t: Target, path: string, key: string, value: string): Change | undefined {
  const absolute = concatPath(t.base, path);
  const field = joinPath(absolute, key);
  if (t.source.has(field)) return replaceValue(t, joinPath(path, key), value);
  const map = valueAt(t.value, splitPath(absolute) ?? []);
  const text = t.file.document.getText();
  const intent: Change['intent'] = { kind: 'set', document: t.index, path: [...segmentsOf(t, path), key], value: valueOf(value) };
  if (isPlainObject(map) && Object.keys(map).length > 0) {
    const first = t.source.keyRange(joinPath(absolute, Object.keys(map)[0] ?? ''));
    if (!first) return undefined;
    const at = first.start.offset;
    const mapStart = t.source.range(absolute)?.start.offset ?? at;
    const flow = text[mapStart] === '{';
    const insert = flow ? `${key}: ${value}, ` : `${key}: ${value}\n${' '.repeat(first.start.column - 1)}`;
    return change(t, rangeOf(t, at, at), insert, intent);
  }
  if (t.source.has(absolute)) {
    // `labels:` with nothing, or `labels: {}`: the value becomes a flow mapping.
    const range = t.source.range(absolute);
    const keyRange = t.source.keyRange(absolute);
    if (!range) return undefined;
    if (isPlainObject(map)) return change(t, lspRange(range), `{ ${key}: ${value} }`, intent);
    const colon = text.indexOf(':', keyRange?.end.offset ?? range.end.offset);
    if (colon < 0) return undefined;
    return change(t, rangeOf(t, colon + 1, colon + 1), ` { ${key}: ${value} }`, intent);
  }
  const segments = splitPath(path) ?? [];
  const last = segments.pop();
  if (typeof last !== 'string') return undefined;
  const parent = segments.reduce<string>((p, s) => joinPath(p, s), '');
  return setEntry(t, parent, last, `{ ${key}: ${value} }`);
}

/** Deletes the lines from the one holding `start` to the one holding `end`, when only `lead` precedes `start` on its line. */
function removeLines(t: Target, path: string, start: number, end: number, lead: RegExp): Change | undefined {
  const text = t.file.document.getText();
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  if (!lead.test(text.slice(lineStart, start))) return undefined;
  const next = text.indexOf('\n', Math.max(start, end - 1));
  return change(t, rangeOf(t, lineStart, next < 0 ? text.length : next + 1), '', {
    kind: 'delete',
    document: t.index,
    path: segmentsOf(t, path),
  });
}

/** Removes the item at `path` of a block sequence, its whole lines. */
export function removeItem(t: Target, path: string): Change | undefined {
  const range = t.source.range(concatPath(t.base, path));
  return range && removeLines(t, path, range.start.offset, range.end.offset, /^\s*-\s*$/);
}

/** Removes a block mapping's key and its value, their whole lines. */
export function removeKey(t: Target, path: string): Change | undefined {
  const absolute = concatPath(t.base, path);
  const key = t.source.keyRange(absolute);
  const value = t.source.range(absolute);
  return key && removeLines(t, path, key.start.offset, Math.max(key.end.offset, value?.end.offset ?? 0), /^\s*(-\s+)?$/);
}

/** Appends block items (each a mapping of scalars) to the sequence at `path`. */
export function appendItems(t: Target, path: string, items: ReadonlyArray<Readonly<Record<string, string>>>): Change | undefined {
  const absolute = concatPath(t.base, path);
  const list = valueAt(t.value, splitPath(absolute) ?? []);
  const text = t.file.document.getText();
  const intent: Change['intent'] = { kind: 'append', document: t.index, path: segmentsOf(t, path), items };
  const render = (indent: number) =>
    items
      .map((item) =>
        Object.entries(item)
          .map(([k, v], i) => `${' '.repeat(indent)}${i === 0 ? '- ' : '  '}${k}: ${scalar(v)}`)
          .join('\n'),
      )
      .join('\n');
  if (Array.isArray(list) && list.length > 0) {
    const last = t.source.range(joinPath(absolute, list.length - 1));
    const first = t.source.range(joinPath(absolute, 0));
    if (!last || !first) return undefined;
    const lineStart = text.lastIndexOf('\n', first.start.offset - 1) + 1;
    const dash = text.slice(lineStart, first.start.offset);
    if (!/^\s*-\s*$/.test(dash)) return undefined;
    return change(t, rangeOf(t, last.end.offset, last.end.offset), `\n${render(dash.indexOf('-'))}`, intent);
  }
  const keyRange = t.source.keyRange(absolute);
  const range = t.source.range(absolute);
  if (!keyRange || !range) return undefined;
  // `plan: []` or `plan:` with nothing: the list is written out as a block after the colon.
  const colon = text.indexOf(':', keyRange.end.offset);
  if (colon < 0) return undefined;
  const end = Array.isArray(list) ? range.end.offset : colon + 1;
  return change(t, rangeOf(t, colon + 1, end), `\n${render(keyRange.start.column - 1 + 2)}`, intent);
}
