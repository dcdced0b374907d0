// The one guard every edit Podplan makes to a user's file goes through (quick fixes, "Create the
// SchedulePlan", Schedule Now): each text edit carries what it means to change (an Intent on the
// parsed document), the edits are applied to the file's text, the result is read again with the
// same reader the server uses, and the edit is refused, with the reason, when the result does not
// parse, when any document other than the intended fields reads differently (a lost `---` merges
// two documents; a mangled indent moves a key), or when a comment, a `---` or a `...` is lost.
import { Lexer, parse as parseYaml } from 'yaml';
import type { TextEdit, WorkspaceEdit } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { err, ok, type Result } from '../../engine/api/result';
import { readFile, type FileModel } from '../../manifests';
import { isPlainObject } from './documents';

export type Segment = string | number;

/** What a text edit means to change, on the document's plain value. */
export type Intent =
  /** The value at `path` becomes `value` (missing or empty mappings on the way are created). */
  | { readonly kind: 'set'; readonly document: number; readonly path: readonly Segment[]; readonly value: unknown }
  /** The key or sequence item at `path` goes. */
  | { readonly kind: 'delete'; readonly document: number; readonly path: readonly Segment[] }
  /** `items` are added at the end of the sequence at `path` (written out when empty or null). */
  | { readonly kind: 'append'; readonly document: number; readonly path: readonly Segment[]; readonly items: readonly unknown[] }
  /** The whole document becomes `value` (its comments may go with it). */
  | { readonly kind: 'replace-document'; readonly document: number; readonly value: unknown }
  /** A new document reading as `value` follows document `after` (-1: before the first). */
  | { readonly kind: 'insert-document'; readonly after: number; readonly value: unknown };

/** A text edit of one file and what it means to change. */
export interface Change {
  readonly uri: string;
  readonly edit: TextEdit;
  readonly intent: Intent;
}

/** A YAML value's text (a scalar or a flow collection) as the value it reads back as. */
export function valueOf(text: string): unknown {
  return parseYaml(text, { logLevel: 'silent' }) as unknown;
}

/** The file's line break: CRLF when its first line ends so, LF otherwise. */
export function eolOf(text: string): '\r\n' | '\n' {
  const lf = text.indexOf('\n');
  return lf > 0 && text[lf - 1] === '\r' ? '\r\n' : '\n';
}

/** The edits with their inserted line breaks written as the file writes them (an editor does the same on apply). */
export function withEol(text: string, edits: readonly TextEdit[]): TextEdit[] {
  const eol = eolOf(text);
  return edits.map((e) => ({ range: e.range, newText: e.newText.replace(/\r?\n/g, eol) }));
}

export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  return TextDocument.applyEdits(TextDocument.create('file:///x', 'yaml', 0, text), [...edits]);
}

// ---------------------------------------------------------------------------------------------
// The expected value of each document after the intents.

const clone = (v: unknown): unknown => (v === undefined ? undefined : (structuredClone(v) as unknown));

function setIn(root: unknown, path: readonly Segment[], value: unknown): unknown {
  if (path.length === 0) return clone(value);
  const [head, ...rest] = path as [Segment, ...Segment[]];
  if (typeof head === 'number') {
    const list = Array.isArray(root) ? [...(root as unknown[])] : [];
    list[head] = setIn(list[head], rest, value);
    return list;
  }
  const map: Record<string, unknown> = isPlainObject(root) ? { ...root } : {};
  map[head] = setIn(map[head], rest, value);
  return map;
}

function deleteIn(root: unknown, path: readonly Segment[]): unknown {
  const [head, ...rest] = path as [Segment, ...Segment[]];
  if (rest.length > 0) {
    if (Array.isArray(root) && typeof head === 'number') return root.map((v, i) => (i === head ? deleteIn(v, rest) : v));
    if (isPlainObject(root) && typeof head === 'string') return { ...root, [head]: deleteIn(root[head], rest) };
    return root;
  }
  if (Array.isArray(root) && typeof head === 'number') return root.filter((_, i) => i !== head);
  if (isPlainObject(root) && typeof head === 'string') {
    const { [head]: _gone, ...kept } = root;
    return kept;
  }
  return root;
}

function getIn(root: unknown, path: readonly Segment[]): unknown {
  let v = root;
  for (const s of path) v = Array.isArray(v) && typeof s === 'number' ? v[s] : isPlainObject(v) && typeof s === 'string' ? v[s] : undefined;
  return v;
}

/**
 * Deep equality of plain YAML values (mappings compared without regard to key order). Aliases can
 * make a value refer to itself: a pair of objects already being compared counts as equal.
 */
export function sameValue(a: unknown, b: unknown, seen: Map<object, Set<object>> = new Map()): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) && Number.isNaN(b);
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const pairs = seen.get(a);
  if (pairs?.has(b)) return true;
  if (pairs) pairs.add(b);
  else seen.set(a, new Set([b]));
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameValue(v, b[i], seen));
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && sameValue(a[k], b[k], seen));
  }
  return false;
}

interface Expected {
  /** The document's value, or its text when it does not parse (and is not meant to change). */
  readonly value: unknown;
  readonly text?: string;
  /** The index of the document it was before, when it was one. */
  readonly from?: number;
  readonly parses: boolean;
}

function expectedDocuments(model: FileModel, text: string, intents: readonly Intent[]): Result<Expected[]> {
  const docs: Expected[] = model.documents.map((d) => {
    const r = d.source.documentRange;
    return d.value === undefined
      ? { value: undefined, text: text.slice(r.start.offset, r.end.offset), from: d.index, parses: false }
      : { value: d.value, from: d.index, parses: true };
  });
  for (const intent of intents) {
    if (intent.kind === 'insert-document') continue;
    const doc = docs[intent.document];
    if (!doc) return err(`the edit names document ${intent.document + 1}, which the file does not have`);
    if (!doc.parses) return err(`document ${intent.document + 1} does not parse, so it is not changed`);
    let value = doc.value;
    if (intent.kind === 'set') value = setIn(value, intent.path, intent.value);
    else if (intent.kind === 'delete') value = deleteIn(value, intent.path);
    else if (intent.kind === 'append') {
      const list = getIn(value, intent.path);
      value = setIn(value, intent.path, [...(Array.isArray(list) ? list : []), ...intent.items]);
    } else value = clone(intent.value);
    docs[intent.document] = { ...doc, value };
  }
  // Inserted documents, last position first so earlier indexes hold.
  const inserts = intents.filter((i): i is Extract<Intent, { kind: 'insert-document' }> => i.kind === 'insert-document');
  const byAfter = [...inserts].sort((a, b) => b.after - a.after);
  for (const insert of byAfter) docs.splice(insert.after + 1, 0, { value: clone(insert.value), parses: true });
  return ok(docs);
}

// ---------------------------------------------------------------------------------------------
// Comments and document markers, which the plain values do not show.

interface Marks {
  readonly comments: Map<string, number>;
  readonly starts: number;
  readonly ends: number;
}

/** The file's comments (as a multiset, by text) and its `---` and `...` markers, from yaml's lexer. */
function marksOf(text: string, skip: ReadonlyArray<readonly [number, number]> = []): Marks {
  const comments = new Map<string, number>();
  let starts = 0;
  let ends = 0;
  let offset = 0;
  for (const token of new Lexer().lex(text)) {
    // yaml's lexer marks some places with one control character that is not in the source.
    if (token.length === 1 && token < ' ' && token !== '\t' && token !== '\n' && token !== '\r') continue;
    const at = offset;
    offset += token.length;
    if (skip.some(([s, e]) => at >= s && at < e)) continue;
    if (token === '---') starts++;
    else if (token === '...') ends++;
    else if (token.startsWith('#')) comments.set(token.trimEnd(), (comments.get(token.trimEnd()) ?? 0) + 1);
  }
  return { comments, starts, ends };
}

// ---------------------------------------------------------------------------------------------

const describeDoc = (value: unknown, index: number): string => {
  const kind = isPlainObject(value) ? value['kind'] : undefined;
  const meta = isPlainObject(value) ? value['metadata'] : undefined;
  const name = isPlainObject(meta) ? meta['name'] : undefined;
  return typeof kind === 'string'
    ? `${kind}${typeof name === 'string' ? ` ${name}` : ''} (document ${index + 1})`
    : `document ${index + 1}`;
};

function firstDifference(a: unknown, b: unknown, path = '', depth = 0): string {
  // Deep enough to name the field; aliases can make a value endless.
  if (depth > 20) return path || 'its value';
  if (isPlainObject(a) && isPlainObject(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (!sameValue(a[k], b[k])) return firstDifference(a[k], b[k], path ? `${path}.${k}` : k, depth + 1);
    }
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    const i = a.findIndex((v, j) => !sameValue(v, b[j]));
    if (i >= 0) return firstDifference(a[i], b[i], `${path}[${i}]`, depth + 1);
  }
  return path || 'its value';
}

/**
 * The file's text after `edits` (`intents[i]` says what `edits[i]` means), when it reads back as the intents say and keeps every comment and
 * document marker outside the documents it replaces; else why not, in words.
 */
export function checkFileEdit(uri: string, before: string, edits: readonly TextEdit[], intents: readonly Intent[]): Result<string> {
  const after = applyTextEdits(before, withEol(before, edits));
  const was = readFile({ name: uri, text: before });
  const now = readFile({ name: uri, text: after });
  const expected = expectedDocuments(was, before, intents);
  if (!expected.ok) return expected;
  const want = expected.value;
  const broken = now.documents.find((d, i) => d.value === undefined && want[i]?.parses !== false);
  if (broken) {
    const problem = now.errors.find((e) => e.severity === 'error' && e.range.start.offset >= broken.source.documentRange.start.offset);
    return err(`the result would not parse${problem ? ` at line ${problem.range.start.line}: ${problem.message}` : ''}`);
  }
  if (now.documents.length !== want.length)
    return err(`the result would have ${now.documents.length} documents where ${want.length} are meant (a \`---\` lost or added)`);
  for (const [i, doc] of now.documents.entries()) {
    const w = want[i];
    if (!w) continue;
    if (!w.parses) {
      const r = doc.source.documentRange;
      if (after.slice(r.start.offset, r.end.offset) !== w.text) return err(`document ${i + 1}, which does not parse, would change`);
      continue;
    }
    if (!sameValue(doc.value, w.value))
      return err(
        `${describeDoc(w.value, i)} would change at ${firstDifference(w.value, doc.value)}, which the edit does not mean to change`,
      );
  }
  // Replaced documents may lose their own comments; nothing else may.
  const replaced = intents.flatMap((i) => {
    if (i.kind !== 'replace-document') return [];
    const r = was.documents[i.document]?.source.documentRange;
    return r ? [[r.start.offset, r.end.offset] as const] : [];
  });
  // A removed key or item takes the comments on its own lines with it.
  const lines = TextDocument.create(uri, 'yaml', 0, before);
  const removed = intents.flatMap((intent, i) => {
    const e = edits[i];
    return intent.kind === 'delete' && e ? [[lines.offsetAt(e.range.start), lines.offsetAt(e.range.end)] as const] : [];
  });
  const kept = marksOf(before, [...replaced, ...removed]);
  const got = marksOf(after);
  for (const [comment, count] of kept.comments)
    if ((got.comments.get(comment) ?? 0) < count) return err(`the comment "${comment}" would be lost`);
  const inserted = intents.filter((i) => i.kind === 'insert-document').length;
  // A new document brings its `---`, and one more when the document after it had none (it followed a `...`).
  if (got.starts < kept.starts || got.starts > marksOf(before).starts + 2 * inserted)
    return err('the result would lose or add a `---` it does not mean to');
  if (got.ends < kept.ends) return err('the result would lose a `...`');
  return ok(after);
}

/** A file an edit would write: its text before (what the edit was made on) and after. */
export interface FileWrite {
  readonly uri: string;
  readonly before: string;
  readonly after: string;
}

/** The changes as one WorkspaceEdit, each file checked; the files before and after; or why it is refused. */
export function guardedEdit(
  changes: readonly Change[],
  textOf: (uri: string) => string | undefined,
): Result<{ edit: WorkspaceEdit; files: FileWrite[] }> {
  const byFile = new Map<string, Change[]>();
  for (const c of changes) byFile.set(c.uri, [...(byFile.get(c.uri) ?? []), c]);
  const edit: Record<string, TextEdit[]> = {};
  const files: FileWrite[] = [];
  for (const [uri, list] of byFile) {
    const before = textOf(uri);
    if (before === undefined) return err(`${uri} is no longer in the workspace`);
    const edits = withEol(
      before,
      list.map((c) => c.edit),
    );
    const checked = checkFileEdit(
      uri,
      before,
      edits,
      list.map((c) => c.intent),
    );
    if (!checked.ok) return err(`${fileName(uri)}: ${checked.error}`);
    edit[uri] = edits.map((e) => ({ range: e.range, newText: e.newText }));
    files.push({ uri, before, after: checked.value });
  }
  return ok({ edit: { changes: edit }, files });
}

const fileName = (uri: string): string => decodeURIComponent(uri.split('/').pop() ?? uri);
