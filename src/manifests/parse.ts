// Multi-document YAML text into documents. The text is cut at its `---` lines and each piece parsed
// on its own, so a caller can keep the pieces whose text did not change and parse only the edited
// one (yaml's parser costs far more than the rest of reading a file). A piece written in the YAML
// subset of fast-yaml.ts is read by that fast path, whatever the text's size, its syntax tree made
// by yaml only when a position in it is asked for (LazySyntax: in a kubectl List, only the item's);
// any other piece is parsed by yaml. A document with a syntax error is reported and has no value;
// the other documents are read.
import { parseAllDocuments, type Document } from 'yaml';
import type { Severity } from './errors';
import { fastParse, type FastDocument } from './fast-yaml';
import { DocumentSyntax, type Span, type Syntax } from './source-map';
import { errorMessage } from '../engine/api/errors';

export interface Chunk {
  /** Offset of the piece in the file. */
  readonly offset: number;
  readonly text: string;
}

// A `---` at the start of a line always starts a document (YAML forbids it inside scalars). Directives
// (`%YAML`) belong to the document after them, so text with directives is parsed whole.
const DOCUMENT_START = /^---(?=[ \t\r\n]|$)/gm;
const DIRECTIVE = /^%/m;

export function splitDocuments(text: string): Chunk[] {
  if (DIRECTIVE.test(text)) return [{ offset: 0, text }];
  const starts = [0];
  for (const m of text.matchAll(DOCUMENT_START)) if (m.index > 0) starts.push(m.index);
  return starts.map((start, i) => ({ offset: start, text: text.slice(start, starts[i + 1] ?? text.length) }));
}

export interface SyntaxProblem {
  readonly message: string;
  readonly severity: Severity;
  /** Offsets in the chunk's text. */
  readonly start: number;
  readonly end: number;
}

export interface ParsedDocument {
  readonly syntax: Syntax;
  readonly problems: readonly SyntaxProblem[];
  /** The plain value (mappings as objects); undefined when the document has errors, null when empty. */
  readonly value: unknown;
}

/** Past this many alias expansions a document is refused (the "billion laughs" guard of `yaml`). */
const MAX_ALIAS_COUNT = 1000;

/** A document whose offsets count from `origin` in the parsed text, made relative to its chunk. */
function parsedDocument(doc: Document.Parsed, origin: number): ParsedDocument {
  const span = [doc.range[0] - origin, doc.range[1] - origin] as const;
  const problems: SyntaxProblem[] = [];
  for (const [list, severity] of [
    [doc.errors, 'error'],
    [doc.warnings, 'warning'],
  ] as const) {
    for (const e of list) problems.push({ message: e.message, severity, start: e.pos[0] - origin, end: e.pos[1] - origin });
  }
  let value: unknown;
  if (doc.errors.length === 0) {
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (e) {
      // toJS throws on alias bombs and unresolved aliases: input problems, reported like syntax errors.
      problems.push({ message: errorMessage(e), severity: 'error', start: span[0], end: span[1] });
    }
  }
  return { syntax: new DocumentSyntax(doc.contents, span, origin), problems, value };
}

// silent: yaml would otherwise print its warnings (collection keys stringified, …) to the console.
const OPTIONS = { prettyErrors: false, logLevel: 'silent' } as const;

/** The documents of one chunk by yaml (usually one; none for an empty chunk). */
function parseChunkSlowly(text: string): ParsedDocument[] {
  return parseAllDocuments(text, OPTIONS).map((doc) => parsedDocument(doc, 0));
}

/** The chunk's document when the fast path reads it; its syntax tree is made by yaml when first asked for. */
function parseChunkFast(text: string, onProgress?: (offset: number) => void): ParsedDocument[] | undefined {
  const fast = fastParse(text, onProgress);
  return fast && [{ syntax: new LazySyntax(text, fast), problems: [], value: fast.value }];
}

/** The documents of one chunk (usually one; none for an empty chunk). */
export function parseChunk(text: string): ParsedDocument[] {
  return parseChunkFast(text) ?? parseChunkSlowly(text);
}

/**
 * When more than this share of a file's chunks is outside the fast path's subset, the whole text is
 * parsed by yaml at once (cheaper than chunk by chunk).
 */
const SLOW_SHARE = 0.125;

/**
 * The documents of every chunk of `text`, grouped by chunk: by the fast path where it reads them,
 * else by yaml. Once more than SLOW_SHARE of the chunks are outside the fast path's subset, the
 * fast path is no longer tried and the whole text is parsed by yaml at once (one parse of the whole
 * text costs less than one per chunk); should a document not fall within one chunk, each chunk is
 * parsed alone. `onProgress` is told how far the reading got (an offset into `text`) every
 * megabyte or so, within a large chunk too.
 */
export function parseChunks(text: string, chunks: readonly Chunk[], onProgress?: (offset: number) => void): ParsedDocument[][] {
  const fast: Array<ParsedDocument[] | undefined> = [];
  let slow = 0;
  let next = 0;
  for (const chunk of chunks) {
    if (onProgress && chunk.offset >= next) {
      onProgress(chunk.offset);
      next = chunk.offset + PROGRESS_STEP;
    }
    const inner = onProgress && ((offset: number) => onProgress(chunk.offset + offset));
    const read = slow <= chunks.length * SLOW_SHARE ? parseChunkFast(chunk.text, inner) : undefined;
    if (!read) slow++;
    fast.push(read);
  }
  if (slow <= chunks.length * SLOW_SHARE) return chunks.map((chunk, i) => fast[i] ?? parseChunkSlowly(chunk.text));
  return parseWhole(text, chunks);
}

/** How often (in characters read) `parseChunks` reports its progress between chunks. */
const PROGRESS_STEP = 1 << 20;

function parseWhole(text: string, chunks: readonly Chunk[]): ParsedDocument[][] {
  const groups: ParsedDocument[][] = chunks.map(() => []);
  let c = 0;
  for (const doc of parseAllDocuments(text, OPTIONS)) {
    while ((chunks[c + 1]?.offset ?? Infinity) <= doc.range[0]) c++;
    const chunk = chunks[c];
    const group = groups[c];
    if (!chunk || !group || doc.range[1] > (chunks[c + 1]?.offset ?? Infinity)) return chunks.map((x) => parseChunkSlowly(x.text));
    group.push(parsedDocument(doc, chunk.offset));
  }
  return groups;
}

/** How many List items' syntax a lazy document keeps parsed (each is parsed again when needed). */
const ITEMS_KEPT = 256;

/**
 * The syntax of a document read by the fast path: its range is the fast path's (yaml's own), its
 * tree is parsed by `yaml` when a location is first asked for. In a kubectl List a location inside
 * `items[i]` parses that item's text only, so a warning about one pod of a 50 MB dump does not
 * parse the dump.
 */
export class LazySyntax implements Syntax {
  private whole: DocumentSyntax | undefined;
  private readonly itemSyntax = new Map<number, DocumentSyntax | null>();
  readonly span: readonly [number, number];
  private readonly items: FastDocument['items'];

  constructor(
    /** The chunk's text, which the fast path read. */
    private readonly text: string,
    fast: Pick<FastDocument, 'span' | 'items'>,
  ) {
    this.span = fast.span;
    this.items = fast.items;
  }

  private full(): DocumentSyntax {
    if (!this.whole) {
      const doc = parseAllDocuments(this.text, OPTIONS)[0];
      this.whole = new DocumentSyntax(doc?.contents ?? null, this.span);
    }
    return this.whole;
  }

  /** Item `i`'s syntax, offsets relative to the item's start; null when it does not parse alone. */
  private item(i: number): DocumentSyntax | null {
    let syntax = this.itemSyntax.get(i);
    if (syntax !== undefined) return syntax;
    const range = this.items?.ranges[i];
    const doc = range ? parseAllDocuments(this.text.slice(range[0], range[1]), OPTIONS) : [];
    const only = doc.length === 1 && doc[0]?.errors.length === 0 ? doc[0] : undefined;
    syntax = only ? new DocumentSyntax(only.contents, [only.range[0], only.range[1]]) : null;
    if (this.itemSyntax.size >= ITEMS_KEPT) this.itemSyntax.delete(this.itemSyntax.keys().next().value as number);
    this.itemSyntax.set(i, syntax);
    return syntax;
  }

  lookup(path: string): Span | undefined {
    const m = this.items ? /^items\[(\d+)\]/.exec(path) : null;
    if (m && this.items) {
      const i = Number(m[1]);
      const range = this.items.ranges[i];
      const syntax = range ? this.item(i) : null;
      if (range && syntax) {
        const rest = path.slice(m[0].length);
        const span = syntax.lookup(this.items.prefix ? this.items.prefix + rest : rest.replace(/^\./, ''));
        if (!span) return undefined;
        const shift = (n: number | undefined) => (n === undefined ? undefined : n + range[0]);
        const keyStart = shift(span.keyStart);
        const keyEnd = shift(span.keyEnd);
        return {
          start: span.start + range[0],
          end: span.end + range[0],
          ...(keyStart !== undefined ? { keyStart } : {}),
          ...(keyEnd !== undefined ? { keyEnd } : {}),
        };
      }
    }
    return this.full().lookup(path);
  }

  pathAt(offset: number): string | undefined {
    const ranges = this.items?.ranges;
    if (ranges && this.items) {
      // The item holding the offset, by binary search over the items' ranges.
      let lo = 0;
      let hi = ranges.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const [start, end] = ranges[mid] as readonly [number, number];
        if (offset < start) hi = mid - 1;
        else if (offset > end) lo = mid + 1;
        else {
          const syntax = this.item(mid);
          const inner = syntax?.pathAt(offset - start);
          if (inner === undefined) break;
          const prefix = this.items.prefix;
          let rest: string | undefined;
          // On an entry's `-`, outside the item's node: in the List's `items`, as yaml's tree of the whole List says.
          if (prefix && inner === '') return 'items';
          if (prefix) rest = inner.startsWith(prefix) ? inner.slice(prefix.length) : undefined;
          else rest = inner === '' || inner.startsWith('[') ? inner : `.${inner}`;
          if (rest === undefined) break;
          return `items[${mid}]${rest}`;
        }
      }
    }
    return this.full().pathAt(offset);
  }
}
