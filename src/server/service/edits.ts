// Text edits that change one field of a YAML document and leave the rest as written: replace a
// value, add a key to a mapping (block or flow), remove a sequence item, add items.
import type { Range, TextEdit } from 'vscode-languageserver';
import { concatPath, joinPath, splitPath, type SourceMap } from '../../manifests';
import type { SourceFile } from '../workspace';
import { isPlainObject, valueAt } from './documents';
import { lspRange } from './locate';

const PLAIN = /^[A-Za-z0-9][\w./-]*$/;
const SPECIAL = /^(true|false|yes|no|on|off|null|~|[-+]?(\d[\d_]*(\.\d*)?|\.\d+)([eE][-+]?\d+)?|0x[0-9a-fA-F]+|0o[0-7]+)$/i;

/** A string as a YAML scalar: plain when it reads back as the same string, else double-quoted. */
export function scalar(text: string): string {
  return PLAIN.test(text) && !SPECIAL.test(text) ? text : JSON.stringify(text);
}

/** Where an edit goes: a document of a file, and the object in it (its path from the document's root). */
export interface Target {
  readonly file: SourceFile;
  readonly source: SourceMap;
  /** The document's plain value. */
  readonly value: unknown;
  readonly base: string;
}

const rangeOf = (t: Target, start: number, end: number): Range => lspRange(t.source.rangeOf(start, end));

/** Replaces the value at `path` (relative to the target's object). */
export function replaceValue(t: Target, path: string, newText: string): TextEdit | undefined {
  const range = t.source.range(concatPath(t.base, path));
  return range ? { range: lspRange(range), newText } : undefined;
}

/**
 * Adds `key: value` (value already YAML text) to the mapping at `path`, or sets it when present.
 * A missing or empty mapping is written as a flow mapping `{ key: value }` on its parent.
 */
export function setEntry(t: Target, path: string, key: string, value: string): TextEdit | undefined {
  const absolute = concatPath(t.base, path);
  const field = joinPath(absolute, key);
  if (t.source.has(field)) return replaceValue(t, joinPath(path, key), value);
  const map = valueAt(t.value, splitPath(absolute) ?? []);
  const text = t.file.document.getText();
  if (isPlainObject(map) && Object.keys(map).length > 0) {
    const first = t.source.keyRange(joinPath(absolute, Object.keys(map)[0] ?? ''));
    if (!first) return undefined;
    const at = first.start.offset;
    const mapStart = t.source.range(absolute)?.start.offset ?? at;
    const flow = text[mapStart] === '{';
    const insert = flow ? `${key}: ${value}, ` : `${key}: ${value}\n${' '.repeat(first.start.column - 1)}`;
    return { range: rangeOf(t, at, at), newText: insert };
  }
  if (t.source.has(absolute)) {
    // `labels:` with nothing, or `labels: {}`: the value becomes a flow mapping.
    const range = t.source.range(absolute);
    const keyRange = t.source.keyRange(absolute);
    if (!range) return undefined;
    if (isPlainObject(map)) return { range: lspRange(range), newText: `{ ${key}: ${value} }` };
    const colon = text.indexOf(':', keyRange?.end.offset ?? range.end.offset);
    if (colon < 0) return undefined;
    return { range: rangeOf(t, colon + 1, colon + 1), newText: ` { ${key}: ${value} }` };
  }
  const segments = splitPath(path) ?? [];
  const last = segments.pop();
  if (typeof last !== 'string') return undefined;
  const parent = segments.reduce<string>((p, s) => joinPath(p, s), '');
  return setEntry(t, parent, last, `{ ${key}: ${value} }`);
}

/** Deletes the lines from the one holding `start` to the one holding `end`, when only `lead` precedes `start` on its line. */
function removeLines(t: Target, start: number, end: number, lead: RegExp): TextEdit | undefined {
  const text = t.file.document.getText();
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  if (!lead.test(text.slice(lineStart, start))) return undefined;
  const next = text.indexOf('\n', Math.max(start, end - 1));
  return { range: rangeOf(t, lineStart, next < 0 ? text.length : next + 1), newText: '' };
}

/** Removes the item at `path` of a block sequence, its whole lines. */
export function removeItem(t: Target, path: string): TextEdit | undefined {
  const range = t.source.range(concatPath(t.base, path));
  return range && removeLines(t, range.start.offset, range.end.offset, /^\s*-\s*$/);
}

/** Removes a block mapping's key and its value, their whole lines. */
export function removeKey(t: Target, path: string): TextEdit | undefined {
  const absolute = concatPath(t.base, path);
  const key = t.source.keyRange(absolute);
  const value = t.source.range(absolute);
  return key && removeLines(t, key.start.offset, Math.max(key.end.offset, value?.end.offset ?? 0), /^\s*(-\s+)?$/);
}

/** Appends block items (each a mapping of scalars) to the sequence at `path`. */
export function appendItems(t: Target, path: string, items: ReadonlyArray<Readonly<Record<string, string>>>): TextEdit | undefined {
  const absolute = concatPath(t.base, path);
  const list = valueAt(t.value, splitPath(absolute) ?? []);
  const text = t.file.document.getText();
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
    return { range: rangeOf(t, last.end.offset, last.end.offset), newText: `\n${render(dash.indexOf('-'))}` };
  }
  const keyRange = t.source.keyRange(absolute);
  const range = t.source.range(absolute);
  if (!keyRange || !range) return undefined;
  // `plan: []` or `plan:` with nothing: the list is written out as a block after the colon.
  const colon = text.indexOf(':', keyRange.end.offset);
  if (colon < 0) return undefined;
  const end = Array.isArray(list) ? range.end.offset : colon + 1;
  return { range: rangeOf(t, colon + 1, end), newText: `\n${render(keyRange.start.column - 1 + 2)}` };
}
