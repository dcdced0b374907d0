// Where the cursor is in a YAML document while it is being typed (and often does not parse): at a
// key or at a value, under which path, with which sibling keys. Read from the lines and their
// indentation only, block style, which is how manifests are written.
import type { PathSegment } from '../../manifests';

interface Line {
  readonly text: string;
  /** Offset of the line in the text. */
  readonly offset: number;
  /** Columns of the `- ` item markers at the start of the line. */
  readonly dashes: readonly number[];
  /** Column where the content after indentation and markers starts. */
  readonly column: number;
  /** The key, when the content is `key:` or `key: value`. */
  readonly key?: string;
  /** Column of the value after `key:` (or of the end of the line). */
  readonly valueColumn: number;
  /** The value written after `key:`, without a trailing comment. */
  readonly value: string;
  /** Blank, comment-only, or a document marker. */
  readonly empty: boolean;
  readonly boundary: boolean;
}

const KEY = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"{[\]-][^:#]*?|-[^\s:#][^:#]*?)[ \t]*:(?=[ \t]|$)/;

function parseLine(text: string, offset: number): Line {
  const dashes: number[] = [];
  let column = 0;
  while (text[column] === ' ') column++;
  for (;;) {
    if (text[column] === '-' && (column + 1 === text.length || text[column + 1] === ' ' || text[column + 1] === '\t')) {
      dashes.push(column);
      column++;
      while (text[column] === ' ' || text[column] === '\t') column++;
    } else break;
  }
  const content = text.slice(column);
  const boundary = /^(---|\.\.\.)(\s|$)/.test(text);
  const empty = boundary || (content.trim() === '' && dashes.length === 0) || content.startsWith('#');
  const m = KEY.exec(content);
  if (!m || empty)
    return { text, offset, dashes, column, valueColumn: text.length, value: content.replace(/\s+#.*$/, '').trim(), empty, boundary };
  const raw = m[1] ?? '';
  const key = raw.startsWith('"') ? (JSON.parse(raw) as string) : raw.startsWith("'") ? raw.slice(1, -1).replace(/''/g, "'") : raw;
  let valueColumn = column + m[0].length;
  while (text[valueColumn] === ' ' || text[valueColumn] === '\t') valueColumn++;
  const value = text
    .slice(valueColumn)
    .replace(/(^|\s+)#.*$/, '')
    .trimEnd();
  return { text, offset, dashes, column, key, valueColumn, value, empty, boundary };
}

export interface YamlContext {
  readonly position: 'key' | 'value';
  /**
   * For a key: the path of the mapping it goes in. For a value: the path of the field (its key last).
   * Items of sequences are numbered as written.
   */
  readonly path: readonly PathSegment[];
  /** What is typed of the key or value up to the cursor. */
  readonly prefix: string;
  /** Offsets of the text a completion replaces. */
  readonly start: number;
  readonly end: number;
  /** Keys already written in the mapping (key position) or in the field's mapping (value position). */
  readonly siblings: readonly string[];
  /** Scalar fields of the mapping, as written (`pod: etl-0` beside the `node:` being completed). */
  readonly fields: Readonly<Record<string, string>>;
  /** The column a new key of the mapping starts at. */
  readonly column: number;
}

/** The lines of the document holding `offset`, and the index of the cursor's line among them. */
function documentLines(text: string, offset: number): { lines: Line[]; current: number } {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  let index = starts.length - 1;
  while (index > 0 && (starts[index] as number) > offset) index--;
  const lineAt = (i: number) =>
    parseLine(text.slice(starts[i] as number, (starts[i + 1] ?? text.length + 1) - 1).replace(/\r$/, ''), starts[i] as number);
  let first = index;
  while (first > 0 && !lineAt(first - 1).boundary) first--;
  let last = index;
  while (last + 1 < starts.length && !lineAt(last + 1).boundary) last++;
  const lines: Line[] = [];
  for (let i = first; i <= last; i++) lines.push(lineAt(i));
  return { lines, current: index - first };
}

const lastDash = (l: Line): number | undefined => l.dashes[l.dashes.length - 1];

/** Path segments of the mapping a key at `column` on line `i` belongs to, and the line where that mapping starts. */
function keyContainer(lines: readonly Line[], i: number, column: number): { path: PathSegment[]; from: number } {
  const line = lines[i];
  const dash = line ? lastDash(line) : undefined;
  if (line && dash !== undefined && line.column === column) return itemPath(lines, i, dash);
  for (let j = i - 1; j >= 0; j--) {
    const l = lines[j] as Line;
    if (l.empty) continue;
    if (l.column > column) continue;
    const d = lastDash(l);
    if (l.column === column) {
      if (d !== undefined) return itemPath(lines, j, d);
      continue;
    }
    if (l.key !== undefined) return { path: [...keyContainer(lines, j, l.column).path, l.key], from: j + 1 };
    return { path: [], from: j + 1 };
  }
  return { path: [], from: 0 };
}

/** The path of the sequence item whose marker is at `dash` on line `i`, counting the items before it. */
function itemPath(lines: readonly Line[], i: number, dash: number): { path: PathSegment[]; from: number } {
  let index = 0;
  for (let j = i - 1; j >= 0; j--) {
    const l = lines[j] as Line;
    if (l.empty) continue;
    if (l.dashes.includes(dash)) {
      index++;
      continue;
    }
    const indent = l.dashes[0] ?? l.column;
    if (indent > dash) continue;
    if (l.key !== undefined && l.value === '') return { path: [...keyContainer(lines, j, l.column).path, l.key, index], from: i };
    break;
  }
  return { path: [index], from: i };
}

/** Keys and scalar values written at `column` in the mapping that starts at line `from` (the line `skip` left out). */
function mappingFields(
  lines: readonly Line[],
  from: number,
  column: number,
  skip: number,
): { siblings: string[]; fields: Record<string, string> } {
  const siblings: string[] = [];
  const fields: Record<string, string> = {};
  for (let j = from; j < lines.length; j++) {
    const l = lines[j] as Line;
    if (l.empty) continue;
    // A line less indented than the mapping, or the next item of the sequence holding it, ends it.
    const dash = lastDash(l);
    if (j > from && ((l.dashes[0] ?? l.column) < column || (dash !== undefined && dash < column))) break;
    if (j === skip || l.column !== column || l.key === undefined) continue;
    siblings.push(l.key);
    if (l.value !== '') fields[l.key] = l.value.replace(/^(["'])(.*)\1$/, '$2');
  }
  return { siblings, fields };
}

/** Where the cursor at `offset` of `text` is, in YAML terms. */
export function yamlContext(text: string, offset: number): YamlContext {
  const { lines, current } = documentLines(text, offset);
  const line = lines[current] as Line;
  const cursor = offset - line.offset;
  if (line.key !== undefined && cursor >= line.valueColumn - (line.value === '' ? 1 : 0) && cursor > line.column + line.key.length) {
    const container = keyContainer(lines, current, line.column);
    const { siblings, fields } = mappingFields(lines, container.from, line.column, -1);
    const start = line.offset + Math.min(line.valueColumn, cursor);
    const valueEnd = line.offset + line.valueColumn + line.value.length;
    return {
      position: 'value',
      path: [...container.path, line.key],
      prefix: text.slice(start, offset).replace(/^["']/, ''),
      start,
      end: Math.max(offset, valueEnd),
      siblings,
      fields,
      column: line.column,
    };
  }
  // A key being typed: the mapping is given by the column the key starts at (or the cursor's, on an empty line).
  const blank = line.text.slice(line.column).trim() === '' && line.dashes.length === 0;
  const column = blank ? Math.min(cursor, line.text.length) : line.column;
  const probe = blank ? { ...line, column } : line;
  const withProbe = lines.map((l, i) => (i === current ? probe : l));
  const container = keyContainer(withProbe, current, column);
  const { siblings, fields } = mappingFields(withProbe, container.from, column, current);
  const start = line.offset + Math.min(column, cursor);
  const wordEnd = line.key !== undefined ? line.offset + line.column + line.key.length : line.offset + line.text.replace(/\s+$/, '').length;
  return {
    position: 'key',
    path: container.path,
    prefix: text.slice(start, offset),
    start,
    end: Math.max(offset, blank ? offset : wordEnd),
    siblings,
    fields,
    column,
  };
}
