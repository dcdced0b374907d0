// Multi-document YAML text into documents. The text is cut at its `---` lines and each piece parsed
// on its own, so a caller can keep the pieces whose text did not change and parse only the edited
// one (yaml's parser costs far more than the rest of reading a file). A piece written in plain YAML
// is read by the fast path (fast-parse.ts), its syntax tree made by yaml only when a position in it
// is asked for; any other piece is parsed by yaml. A document with a syntax error is reported and
// has no value; the other documents are read.
import { parseAllDocuments, type Document } from 'yaml';
import type { Severity } from './errors';
import { fastParse } from './fast-parse';
import { DocumentSyntax } from './source-map';
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
  readonly syntax: DocumentSyntax;
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
  for (const [list, severity] of [[doc.errors, 'error'], [doc.warnings, 'warning']] as const) {
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
function parseChunkFast(text: string): ParsedDocument[] | undefined {
  const fast = fastParse(text);
  if (!fast) return undefined;
  const tree = () => parseAllDocuments(text, OPTIONS)[0]?.contents ?? null;
  return [{ syntax: new DocumentSyntax(tree, fast.span), problems: [], value: fast.value }];
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
 * else by yaml. One yaml parse of the whole text costs less than one per chunk; should a document not
 * fall within one chunk, each chunk is parsed alone.
 */
export function parseChunks(text: string, chunks: readonly Chunk[]): ParsedDocument[][] {
  const fast: Array<ParsedDocument[] | undefined> = [];
  let slow = 0;
  for (const chunk of chunks) {
    const read = slow <= chunks.length * SLOW_SHARE ? parseChunkFast(chunk.text) : undefined;
    if (!read) slow++;
    fast.push(read);
  }
  if (slow <= chunks.length * SLOW_SHARE) return chunks.map((chunk, i) => fast[i] ?? parseChunkSlowly(chunk.text));
  return parseWhole(text, chunks);
}

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
