// Where each field of a YAML document is: a map from a field path (`spec.containers[0].resources`)
// to offsets, built from the `yaml` AST node ranges, turned into line/column with its LineCounter.
//
// Paths: map keys that look like identifiers are joined with dots (`metadata.labels`), other keys
// are quoted (`metadata.labels["planner.ciena.io/pod-set"]`), sequence items use `[i]`. The
// empty path is the document's root.
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, type Node as YamlNode } from 'yaml';

export interface Position {
  /** 0-based offset into the file text, in UTF-16 code units (as JavaScript strings index). */
  readonly offset: number;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column, in UTF-16 code units (LSP's character is `column - 1`). */
  readonly column: number;
}

export interface SourceRange {
  readonly file: string;
  readonly start: Position;
  /** Exclusive. */
  readonly end: Position;
}

export type PathSegment = string | number;

const SIMPLE_KEY = /^[A-Za-z_][\w-]*$/;

/** The path of `key` inside the object at `base`. */
export function joinPath(base: string, key: PathSegment): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  if (!SIMPLE_KEY.test(key)) return `${base}[${JSON.stringify(key)}]`;
  return base ? `${base}.${key}` : key;
}

/** `relative` (a path inside the object at `base`) as a path from the root. */
export function concatPath(base: string, relative: string): string {
  if (!base) return relative;
  if (!relative) return base;
  return relative.startsWith('[') ? base + relative : `${base}.${relative}`;
}

/** The segments of a path made by `joinPath`; undefined when it is not such a path. */
export function splitPath(path: string): PathSegment[] | undefined {
  const segments: PathSegment[] = [];
  let i = 0;
  while (i < path.length) {
    if (path[i] === '[') {
      const close = path[i + 1] === '"' ? closingQuote(path, i + 1) + 1 : path.indexOf(']', i);
      if (close <= i || path[close] !== ']') return undefined;
      const inner = path.slice(i + 1, close);
      if (inner.startsWith('"')) segments.push(JSON.parse(inner) as string);
      else if (/^\d+$/.test(inner)) segments.push(Number(inner));
      else return undefined;
      i = close + 1;
    } else {
      if (path[i] === '.') {
        if (segments.length === 0) return undefined;
        i++;
      }
      const m = /^[A-Za-z_][\w-]*/.exec(path.slice(i));
      if (!m) return undefined;
      segments.push(m[0]);
      i += m[0].length;
    }
  }
  return segments;
}

function closingQuote(path: string, open: number): number {
  for (let i = open + 1; i < path.length; i++) {
    if (path[i] === '\\') i++;
    else if (path[i] === '"') return i;
  }
  return -1;
}

export interface Span {
  readonly start: number;
  readonly end: number;
  readonly keyStart?: number;
  readonly keyEnd?: number;
}

type Range3 = readonly [number, number, number];

function nodeRange(node: unknown): Range3 | undefined {
  const range = (node as { range?: Range3 | null } | null | undefined)?.range;
  return range ?? undefined;
}

/** Where a node's content ends: a block collection's range runs on to the next line, its last item does not. */
function contentEnd(node: unknown): number | undefined {
  if ((isMap(node) || isSeq(node)) && !node.flow) {
    const last: unknown = node.items[node.items.length - 1];
    const end = isPair(last) ? (contentEnd(last.value) ?? contentEnd(last.key)) : contentEnd(last);
    if (end !== undefined) return end;
  }
  return nodeRange(node)?.[1];
}

/** A scalar key's text; undefined for complex keys and merge keys (`<<`), whose fields are not mapped. */
function keyText(key: unknown): string | undefined {
  if (!isScalar(key) || key.value === null || typeof key.value === 'object') return undefined;
  const text = String(key.value);
  return text === '<<' ? undefined : text;
}

/** What a SourceMap reads of a text's lines: where each starts, and the line and column of an offset (yaml's LineCounter). */
export type Lines = Pick<LineCounter, 'lineStarts' | 'linePos'>;

/**
 * Line starts of `text`, for turning offsets into lines and columns, found when first asked for: a
 * 56 MB dump has two million lines, and most reads report nothing located.
 */
export function lineCounterOf(text: string): Lines {
  let counter: LineCounter | undefined;
  const counted = (): LineCounter => {
    if (!counter) {
      counter = new LineCounter();
      counter.addNewLine(0);
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) counter.addNewLine(i + 1);
    }
    return counter;
  };
  return {
    get lineStarts() {
      return counted().lineStarts;
    },
    linePos: (offset: number) => counted().linePos(offset),
  };
}

/** Where a document's fields are, with offsets relative to the start of the document's text. */
export interface Syntax {
  /** The document's range, relative. */
  readonly span: readonly [number, number];
  /** Where the field at `path` is; undefined when the document has no such field. */
  lookup(path: string): Span | undefined;
  /** The deepest field whose key or value contains the relative `offset`. */
  pathAt(offset: number): string | undefined;
}

/**
 * One document's syntax tree, with offsets relative to the start of the document's text so it can be
 * reused unchanged when text before it is edited. Its path index is built on first use.
 */
export class DocumentSyntax implements Syntax {
  private index: Map<string, Span> | undefined;

  constructor(
    /** The document's tree (a document read by the fast path gets one when first asked: LazySyntax, parse.ts). */
    private readonly node: YamlNode | null,
    /** The document's range, relative. */
    readonly span: readonly [number, number],
    /** Offset of the document's text in the text the tree was parsed from (its nodes' offsets are from there). */
    private readonly origin = 0,
  ) {}

  spans(): Map<string, Span> {
    if (!this.index) {
      this.index = new Map();
      const root = this.node;
      const r = nodeRange(root);
      if (r) this.index.set('', { start: r[0] - this.origin, end: (contentEnd(root) ?? r[1]) - this.origin });
      this.walk(root, '', this.index);
    }
    return this.index;
  }

  lookup(path: string): Span | undefined {
    return this.spans().get(path);
  }

  // Aliases are mapped where they are written, not followed: the fields they stand for live at the anchor.
  private walk(node: unknown, path: string, index: Map<string, Span>): void {
    if (isAlias(node)) return;
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = keyText(pair.key);
        const keyRange = nodeRange(pair.key);
        if (key === undefined || !keyRange) continue;
        const child = joinPath(path, key);
        const valueStart = nodeRange(pair.value)?.[0] ?? keyRange[1];
        const valueEnd = contentEnd(pair.value) ?? keyRange[1];
        const o = this.origin;
        index.set(child, { start: valueStart - o, end: valueEnd - o, keyStart: keyRange[0] - o, keyEnd: keyRange[1] - o });
        this.walk(pair.value, child, index);
      }
    } else if (isSeq(node)) {
      for (const [i, item] of node.items.entries()) {
        const range = nodeRange(item);
        if (!range) continue;
        const child = joinPath(path, i);
        index.set(child, { start: range[0] - this.origin, end: (contentEnd(item) ?? range[1]) - this.origin });
        this.walk(item, child, index);
      }
    }
  }

  /** The deepest field whose key or value contains the relative `offset`. */
  pathAt(offset: number): string | undefined {
    if (offset < this.span[0] || offset > this.span[1]) return undefined;
    let path = '';
    let node: unknown = this.node;
    for (;;) {
      const next = childAt(node, offset + this.origin, path);
      if (!next) return path;
      [path, node] = next;
    }
  }
}

function childAt(node: unknown, offset: number, path: string): [string, unknown] | undefined {
  const within = (n: unknown): boolean => {
    const r = nodeRange(n);
    return r !== undefined && offset >= r[0] && offset <= r[1];
  };
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = keyText(pair.key);
      if (key === undefined) continue;
      if (within(pair.key) || within(pair.value)) return [joinPath(path, key), pair.value];
    }
  } else if (isSeq(node)) {
    for (const [i, item] of node.items.entries()) if (within(item)) return [joinPath(path, i), item];
  }
  return undefined;
}

/** Where the fields of one document are in its file: a document's syntax placed at its offset in the file. */
export class SourceMap {
  constructor(
    readonly file: string,
    private readonly lines: Lines,
    private readonly syntax: Syntax,
    /** Offset of the document's text in the file. */
    private readonly shift: number,
  ) {}

  /** The position of a file offset. */
  position(offset: number): Position {
    const { line, col } = this.lines.linePos(offset);
    return { offset, line: Math.max(line, 1), column: col };
  }

  /** The range between two file offsets. */
  rangeOf(start: number, end: number): SourceRange {
    return { file: this.file, start: this.position(start), end: this.position(Math.max(start, end)) };
  }

  /** The whole document. */
  get documentRange(): SourceRange {
    return this.rangeOf(this.shift + this.syntax.span[0], this.shift + this.syntax.span[1]);
  }

  /** The value at `path` (its key when the value is empty, as in `spec:`); undefined when absent. */
  range(path: string): SourceRange | undefined {
    const span = this.syntax.lookup(path);
    if (!span) return undefined;
    if (span.end > span.start || span.keyStart === undefined) return this.rangeOf(this.shift + span.start, this.shift + span.end);
    return this.rangeOf(this.shift + span.keyStart, this.shift + (span.keyEnd ?? span.keyStart));
  }

  /** The key of a map entry at `path`. */
  keyRange(path: string): SourceRange | undefined {
    const span = this.syntax.lookup(path);
    return span?.keyStart === undefined ? undefined : this.rangeOf(this.shift + span.keyStart, this.shift + (span.keyEnd ?? span.keyStart));
  }

  has(path: string): boolean {
    return this.syntax.lookup(path) !== undefined;
  }

  /** The deepest existing field on the way to `path` (the path itself when present). */
  nearestPath(path: string): string {
    if (this.has(path)) return path;
    // From the deepest ancestor up (an ancestor of an existing field exists): a document read lazily
    // (a kubectl List) then looks inside the item only, never at the whole List.
    const ancestors: string[] = [];
    let current = '';
    for (const segment of splitPath(path) ?? []) ancestors.push((current = joinPath(current, segment)));
    for (let i = ancestors.length - 2; i >= 0; i--) if (this.has(ancestors[i] as string)) return ancestors[i] as string;
    return '';
  }

  /** The range of `path`, or of its nearest existing ancestor (a missing field is shown on its parent). */
  locate(path: string): SourceRange {
    const nearest = this.nearestPath(path);
    return this.range(nearest) ?? this.documentRange;
  }

  /** Like `locate`, but on one line: the key when there is one, else the first line of the value. */
  locateLine(path: string): SourceRange {
    const nearest = this.nearestPath(path);
    const range = this.keyRange(nearest) ?? this.range(nearest) ?? this.documentRange;
    const nextLine = this.lines.lineStarts[range.start.line];
    if (nextLine === undefined || range.end.offset < nextLine) return range;
    return this.rangeOf(range.start.offset, Math.max(range.start.offset, nextLine - 1));
  }

  /** The deepest field whose key or value contains the file `offset` ('' for the root); undefined outside the document. */
  pathAt(offset: number): string | undefined {
    return this.syntax.pathAt(offset - this.shift);
  }
}
