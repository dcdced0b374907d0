// A fast reader for the plain subset of YAML that manifests are mostly written in: block mappings
// and sequences, single-line flow collections, plain and single-line quoted scalars, comments. It
// gives the value `yaml` gives (YAML 1.2, core schema) and the document's range, and nothing for
// anything else (anchors, aliases, tags, block scalars, multi-line scalars or flow collections,
// duplicate keys, keys that are not strings, directives, …): the caller parses those documents with
// `yaml`, which also reports their errors. yaml's own parser costs about ten times more, and a
// workspace of 15,000 documents paid seconds for it before its first answer; the syntax tree of a
// document this reads is made by `yaml` when a position in it is first asked for (source-map.ts).
// test/manifests/fast-parse.test.ts holds it to yaml's answers.

/** One document read by the fast path: its value, and its range in the text as yaml's `Document.range[0..1]`. */
export interface FastDocument {
  readonly value: unknown;
  readonly span: readonly [number, number];
}

interface Line {
  indent: number;
  /** Offset of the content (after the indentation). */
  at: number;
  /** Offset just after the content (a comment and trailing white space left out). */
  readonly end: number;
  /** Offset of the line's end (its `\r\n` or `\n`, or the end of the text). */
  readonly eol: number;
  /** Offset just after the line's newline (or the end of the text). */
  readonly next: number;
}

type Value = unknown;
/** Marks an answer the fast path does not give (never a YAML value). */
const NO: unique symbol = Symbol('not read');
type Read<T> = T | typeof NO;

const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT_OCT = /^0o[0-7]+$/;
const INT = /^[-+]?[0-9]+$/;
const INT_HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT_NAN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const FLOAT_EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;

/** A plain scalar's value under the core schema, tested in yaml's order. */
function resolvePlain(text: string): Value {
  if (NULL.test(text)) return null;
  if (BOOL.test(text)) return text[0] === 't' || text[0] === 'T';
  if (INT_OCT.test(text)) return parseInt(text.substring(2), 8);
  if (INT.test(text)) return parseInt(text, 10);
  if (INT_HEX.test(text)) return parseInt(text.substring(2), 16);
  if (FLOAT_NAN.test(text))
    return text.slice(-3).toLowerCase() === 'nan' ? NaN : text[0] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  if (FLOAT_EXP.test(text) || FLOAT.test(text)) return parseFloat(text);
  return text;
}

/** Characters a plain scalar may not start with (`-`, `?` and `:` may, before a non-space). */
const INDICATORS = new Set(['[', ']', '{', '}', ',', '#', '&', '*', '!', '|', '>', "'", '"', '%', '@', '`']);
const FLOW_STOPS = new Set([',', '[', ']', '{', '}']);

/** The document of `text` (one chunk of a file, as parse.ts cuts it), or undefined when it is not in the subset. */
export function fastParse(text: string): FastDocument | undefined {
  const lines = contentLines(text);
  if (!lines) return undefined;
  const { list, start, commentAfter } = lines;
  const first = list[0];
  const last = list[list.length - 1];
  if (!first || !last || first.indent !== 0) return undefined;
  const reader = new Reader(text, list);
  const value = reader.block(0);
  if (value === NO || reader.i !== list.length) return undefined;
  // yaml ends a document whose last value is empty (`key:`, `-`) at the end of its line, else after its newline.
  const empty = text[last.end - 1] === ':' || (text[last.at] === '-' && last.end === last.at + 1);
  // …or somewhere else when a comment is on that line or after it, or lines end in CRLF: left to yaml.
  if (empty && (commentAfter || text.includes('\r') || text.slice(last.end, last.eol).includes('#'))) return undefined;
  return { value, span: [start ?? first.at, empty ? last.eol : last.next] };
}

/** The content lines (blank and comment lines left out) and where the document starts; undefined for text outside the subset. */
function contentLines(text: string): { list: Line[]; start: number | undefined; commentAfter: boolean } | undefined {
  if (text.includes('\uFEFF') || text.includes('\t')) return undefined;
  const list: Line[] = [];
  let start: number | undefined;
  let pos = 0;
  let trailingIndentedComment = false;
  let commentAfter = false;
  if (text.startsWith('---')) {
    const eol = lineEnd(text, 0);
    const rest = text.slice(3, eol.end).trim();
    if (rest !== '' && !rest.startsWith('#')) return undefined;
    if (rest.startsWith('#') && !/^\s/.test(text.slice(3))) return undefined;
    start = 0;
    pos = eol.next;
  }
  while (pos < text.length) {
    const { end, next } = lineEnd(text, pos);
    let at = pos;
    while (at < end && text[at] === ' ') at++;
    const indent = at - pos;
    if (at < end && text[at] === '#') {
      trailingIndentedComment = indent > 0;
      commentAfter = true;
    } else if (at < end && text[at] !== '\r') {
      if (text.startsWith('---', pos) || text.startsWith('...', pos) || text[pos] === '%') return undefined;
      const contentEnd = stripComment(text, at, end);
      if (contentEnd === undefined) return undefined;
      list.push({ indent, at, end: contentEnd, eol: text[end - 1] === '\r' ? end - 1 : end, next });
      trailingIndentedComment = false;
      commentAfter = false;
    }
    pos = next;
  }
  // A comment indented past the last content line may belong to it in yaml's ranges: left to yaml.
  if (trailingIndentedComment) return undefined;
  return { list, start, commentAfter };
}

function lineEnd(text: string, pos: number): { end: number; next: number } {
  const newline = text.indexOf('\n', pos);
  return newline === -1 ? { end: text.length, next: text.length } : { end: newline, next: newline + 1 };
}

/**
 * Where a line's content ends: before a comment (a `#` after white space, outside quotes) and its
 * trailing white space. A quote opens a quoted scalar only where one may start; one left open at the
 * end of the line (a multi-line scalar) is not in the subset.
 */
function stripComment(text: string, at: number, end: number): number | undefined {
  let quote: string | undefined;
  let stop = end;
  for (let i = at; i < end; i++) {
    const c = text[i];
    if (quote === "'") {
      if (c === "'") {
        if (text[i + 1] === "'") i++;
        else quote = undefined;
      }
    } else if (quote === '"') {
      if (c === '\\') i++;
      else if (c === '"') quote = undefined;
    } else if (c === "'" || c === '"') {
      const before = i === at ? ' ' : text[i - 1];
      if (before === ' ' || before === '[' || before === '{' || before === ',' || (before === '-' && i - 1 === at)) quote = c;
    } else if (c === '#' && (i === at || text[i - 1] === ' ')) {
      stop = i;
      break;
    }
  }
  if (quote !== undefined) return undefined;
  while (stop > at && (text[stop - 1] === ' ' || text[stop - 1] === '\r')) stop--;
  return stop;
}

class Reader {
  /** The next content line. */
  i = 0;

  constructor(
    private readonly text: string,
    private readonly lines: Line[],
  ) {}

  /** The block collection whose first line is the next one, at `indent`. */
  block(indent: number): Read<Value> {
    const line = this.lines[this.i];
    if (!line || line.indent !== indent) return NO;
    return this.isItem(line) ? this.sequence(indent) : this.mapping(indent);
  }

  private isItem(line: Line): boolean {
    return this.text[line.at] === '-' && (line.at + 1 === line.end || this.text[line.at + 1] === ' ');
  }

  /** The value of a key or item that ends its line: a nested block, or null. */
  private nested(indent: number, sequenceAtSameIndent: boolean): Read<Value> {
    const next = this.lines[this.i];
    if (next && next.indent > indent) return this.block(next.indent);
    if (next && sequenceAtSameIndent && next.indent === indent && this.isItem(next)) return this.sequence(indent);
    return null;
  }

  /** After a value written on its line: a line indented further would continue it (not in the subset). */
  private closed(indent: number): boolean {
    const next = this.lines[this.i];
    return !next || next.indent <= indent;
  }

  private mapping(indent: number): Read<Record<string, Value>> {
    const out: Record<string, Value> = {};
    for (let line = this.lines[this.i]; line && line.indent === indent && !this.isItem(line); line = this.lines[this.i]) {
      const key = this.key(line.at, line.end);
      if (key === NO || key === undefined || Object.prototype.hasOwnProperty.call(out, key.key)) return NO;
      this.i++;
      let value: Read<Value>;
      if (key.after === line.end) {
        value = this.nested(indent, true);
      } else {
        value = this.inline(key.after, line.end);
        if (!this.closed(indent)) return NO;
      }
      if (value === NO) return NO;
      out[key.key] = value;
    }
    return out;
  }

  private sequence(indent: number): Read<Value[]> {
    const out: Value[] = [];
    for (let line = this.lines[this.i]; line && line.indent === indent && this.isItem(line); line = this.lines[this.i]) {
      let at = line.at + 1;
      while (at < line.end && this.text[at] === ' ') at++;
      let item: Read<Value>;
      if (at === line.end) {
        this.i++;
        item = this.nested(indent, false);
      } else {
        const key = this.key(at, line.end);
        if (key === NO) return NO;
        if (key !== undefined) {
          // A mapping that starts on the item's line: its keys line up with the first one.
          const column = at - (line.at - line.indent);
          line.indent = column;
          line.at = at;
          item = this.mapping(column);
        } else {
          if (this.text[at] === '-' && (at + 1 === line.end || this.text[at + 1] === ' ')) return NO;
          this.i++;
          item = this.inline(at, line.end);
          if (!this.closed(indent)) return NO;
        }
      }
      if (item === NO) return NO;
      out.push(item);
    }
    return out;
  }

  /**
   * The key of a block mapping entry at `at` (a string, with where its value starts), undefined when
   * the text there is not a mapping entry, NO when it is one outside the subset.
   */
  private key(at: number, end: number): Read<{ key: string; after: number } | undefined> {
    const text = this.text;
    const c = text[at];
    let key: string;
    let colon: number;
    if (c === '"' || c === "'") {
      const quoted = this.quoted(at, end);
      if (quoted === NO) return NO;
      let p = quoted.after;
      while (p < end && text[p] === ' ') p++;
      if (text[p] !== ':') return undefined;
      key = quoted.value;
      colon = p;
    } else {
      if (c === '{' || c === '[') return undefined;
      colon = -1;
      for (let p = text.indexOf(':', at); p !== -1 && p < end; p = text.indexOf(':', p + 1)) {
        if (p + 1 === end || text[p + 1] === ' ') {
          colon = p;
          break;
        }
      }
      if (colon === -1) return undefined;
      key = text.slice(at, colon).trimEnd();
      if (!this.plainOk(key, false) || resolvePlain(key) !== key) return NO;
    }
    if (colon + 1 < end && text[colon + 1] !== ' ') return NO;
    if (key === '<<' || key === '__proto__') return NO;
    let after = colon + 1;
    while (after < end && text[after] === ' ') after++;
    return { key, after };
  }

  /** A value written on its line, from `at` to `end`. */
  private inline(at: number, end: number): Read<Value> {
    const c = this.text[at];
    if (c === '{' || c === '[' || c === '"' || c === "'") {
      const flow = this.flow(at, end);
      if (flow === NO) return NO;
      let p = flow.after;
      while (p < end && this.text[p] === ' ') p++;
      return p === end ? flow.value : NO;
    }
    const plain = this.text.slice(at, end);
    if (!this.plainOk(plain, false) || plain.includes(': ') || plain.endsWith(':')) return NO;
    return resolvePlain(plain);
  }

  /** Whether a plain scalar is one the subset reads (and one yaml reads the same way). */
  private plainOk(plain: string, inFlow: boolean): boolean {
    if (plain === '') return false;
    const first = plain[0] as string;
    if (INDICATORS.has(first)) return false;
    if ((first === '-' || first === '?' || first === ':') && (plain.length === 1 || plain[1] === ' ')) return false;
    for (let i = 0; i < plain.length; i++) {
      const c = plain.charCodeAt(i);
      // " ' and # after a space; in a flow collection also , [ ] { }
      if (c === 0x22 || c === 0x27 || (c === 0x23 && plain.charCodeAt(i - 1) === 0x20)) return false;
      if (inFlow && (c === 0x2c || c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d)) return false;
    }
    return true;
  }

  /** A flow collection or quoted scalar at `at`, all on this line. */
  private flow(at: number, end: number): Read<{ value: Value; after: number }> {
    const text = this.text;
    let p = at;
    const skip = () => {
      while (p < end && text[p] === ' ') p++;
    };
    const value = (): Read<Value> => {
      skip();
      const c = text[p];
      if (c === '"' || c === "'") {
        const quoted = this.quoted(p, end);
        if (quoted === NO) return NO;
        p = quoted.after;
        return quoted.value;
      }
      if (c === '{') {
        p++;
        const out: Record<string, Value> = {};
        skip();
        if (text[p] === '}') {
          p++;
          return out;
        }
        for (;;) {
          skip();
          const key = scalarKey();
          if (key === NO || Object.prototype.hasOwnProperty.call(out, key) || key === '__proto__' || key === '<<') return NO;
          if (text[p] !== ':' || text[p + 1] !== ' ') return NO;
          p += 2;
          skip();
          if (text[p] === ',' || text[p] === '}') return NO;
          const v = value();
          if (v === NO) return NO;
          out[key] = v;
          skip();
          if (text[p] === ',') {
            p++;
            skip();
            if (text[p] === '}') return NO;
            continue;
          }
          if (text[p] === '}') {
            p++;
            return out;
          }
          return NO;
        }
      }
      if (c === '[') {
        p++;
        const out: Value[] = [];
        skip();
        if (text[p] === ']') {
          p++;
          return out;
        }
        for (;;) {
          const v = value();
          if (v === NO) return NO;
          out.push(v);
          skip();
          if (text[p] === ',') {
            p++;
            skip();
            if (text[p] === ']') return NO;
            continue;
          }
          if (text[p] === ']') {
            p++;
            return out;
          }
          return NO;
        }
      }
      const plain = plainInFlow();
      if (plain === NO) return NO;
      // A `key: value` pair inside a sequence is a one-entry mapping: not in the subset.
      if (text[p] === ':') return NO;
      return resolvePlain(plain);
    };
    /** A plain scalar in a flow collection: up to a flow indicator or a `:` that ends a key. */
    const plainInFlow = (): Read<string> => {
      const from = p;
      while (
        p < end &&
        !FLOW_STOPS.has(text[p] as string) &&
        !(text[p] === ':' && (text[p + 1] === ' ' || FLOW_STOPS.has(text[p + 1] as string)))
      )
        p++;
      const plain = text.slice(from, p).trimEnd();
      return this.plainOk(plain, true) ? plain : NO;
    };
    const scalarKey = (): Read<string> => {
      const c = text[p];
      if (c === '"' || c === "'") {
        const quoted = this.quoted(p, end);
        if (quoted === NO) return NO;
        p = quoted.after;
        return quoted.value;
      }
      const plain = plainInFlow();
      return plain !== NO && resolvePlain(plain) === plain ? plain : NO;
    };
    const v = value();
    return v === NO ? NO : { value: v, after: p };
  }

  /** A single- or double-quoted scalar at `at` that closes before `end`. */
  private quoted(at: number, end: number): Read<{ value: string; after: number }> {
    const text = this.text;
    const quote = text[at];
    let out = '';
    for (let p = at + 1; p < end; p++) {
      const c = text[p] as string;
      if (quote === "'") {
        if (c !== "'") out += c;
        else if (text[p + 1] === "'") {
          out += "'";
          p++;
        } else return { value: out, after: p + 1 };
      } else if (c === '"') {
        return { value: out, after: p + 1 };
      } else if (c === '\\') {
        const e = text[++p];
        const simple = e === undefined ? undefined : ESCAPES[e];
        if (simple !== undefined) out += simple;
        else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(p + 1, p + 5))) {
          out += String.fromCharCode(parseInt(text.slice(p + 1, p + 5), 16));
          p += 4;
        } else return NO;
      } else {
        out += c;
      }
    }
    return NO;
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\',
  '"': '"',
  '/': '/',
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
  '0': '\0',
  ' ': ' ',
};
