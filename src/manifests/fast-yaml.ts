// A fast reader for the YAML that kubectl, oc and most hand-written manifests are made of: block
// mappings and sequences indented with spaces, plain, quoted and literal (`|`) scalars, flow
// collections on one line, comments, LF or CRLF line ends, and JSON. It gives the value `yaml`
// would give (YAML 1.2, the core schema's null, booleans, integers and floats), the document's
// range exactly as yaml's `Document.range[0..1]`, and, for a kubectl List, where each of its items
// is, so locations can be found later by parsing only the item asked about (LazySyntax, parse.ts).
//
// It is a shortcut, not a second YAML implementation: anything outside that subset (anchors,
// aliases, tags, folded `>` scalars, complex, duplicate or non-string keys, tabs, directives, flow
// collections over several lines, a document whose range it cannot tell, anything it is unsure of)
// makes it give up, and the document is read by `yaml`, which also reports every syntax error.
// yaml's own parser costs about ten times more. test/manifests/fast-yaml.test.ts holds it to
// yaml's answers.

/** A document read by the fast path. */
export interface FastDocument {
  readonly value: unknown;
  /** The document's range in the text, as yaml's `Document.range[0..1]`. */
  readonly span: readonly [number, number];
  /**
   * The items of the root mapping's `items` sequence (a kubectl List), as offsets in the text:
   * where each starts and ends, and the path of the item inside its own text when that text is
   * parsed alone (`[0]` for a block sequence entry, '' for a JSON object).
   */
  readonly items?: { readonly ranges: readonly (readonly [number, number])[]; readonly prefix: string };
}

/** Thrown inside the parser to give up; never escapes `fastParse`. */
class GiveUp extends Error {}
const giveUp = (): never => {
  throw new GiveUp();
};

const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT = /^[-+]?[0-9]+$/;
const OCT = /^0o[0-7]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT_SPECIAL = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const FLOAT_EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;

/** A plain scalar's value as yaml's core schema resolves it. */
function resolvePlain(s: string): unknown {
  const c = s.charCodeAt(0);
  // Most scalars start with a letter other than those of null/true/false/.inf: a string at once.
  if ((c >= 97 && c <= 122 && c !== 110 && c !== 116 && c !== 102) || (c >= 65 && c <= 90 && c !== 78 && c !== 84 && c !== 70) || c === 47)
    return s;
  if (NULL.test(s)) return null;
  if (BOOL.test(s)) return s[0] === 't' || s[0] === 'T';
  if (INT.test(s)) return parseInt(s, 10);
  if (OCT.test(s)) return parseInt(s.slice(2), 8);
  if (HEX.test(s)) return parseInt(s.slice(2), 16);
  if (FLOAT_SPECIAL.test(s)) return s.slice(-3).toLowerCase() === 'nan' ? NaN : s[0] === '-' ? -Infinity : Infinity;
  if (FLOAT_EXP.test(s) || FLOAT.test(s)) return parseFloat(s);
  return s;
}

/** A key written plain: only keys that read as strings are taken (yaml turns others into strings its own way). */
function plainKey(s: string): string {
  if (s === '<<' || s === '__proto__' || resolvePlain(s) !== s) giveUp();
  return s;
}

const SPACE = 32;
const HASH = 35;
const DASH = 45;
const COLON = 58;
const NEWLINE = 10;
const COMMA = 44;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const DOUBLE_QUOTE = 34;
const SINGLE_QUOTE = 39;
/** What `String.prototype.trimEnd` takes off within one line: white space and line terminators (ECMAScript's WhiteSpace and LineTerminator). */
const isTrimmed = (c: number): boolean =>
  c === 32 ||
  (c >= 9 && c <= 13) ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff;

/** Characters that may not start a plain scalar here (indicators), besides `-`, `?`, `:` followed by a space. */
const BAD_START = new Set(['&', '*', '!', '|', '>', '%', '@', '`', ',', ']', '}', '?', "'", '"', '[', '{', '#']);

const ESCAPES: Readonly<Record<string, string>> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
};

class Parser {
  /** Start of the current line. */
  private pos = 0;
  private readonly length: number;
  items: FastDocument['items'];
  /** Where the document starts (its `---` line, else its first content). */
  private start = 0;
  /**
   * What the last value read was: empty (`key:`, `-`: yaml ends the document at the end of that
   * line), a literal scalar whose trailing blank lines are in yaml's range (`|+`, or one of blank
   * lines only), or anything else (the range ends after the newline of the last content line).
   */
  private last: 'empty' | 'blanks' | 'other' = 'other';

  constructor(
    private readonly text: string,
    private readonly onProgress: ((offset: number) => void) | undefined,
  ) {
    this.length = text.length;
  }

  private nextProgress = 1 << 20;

  private lineEnd(from: number): number {
    const end = this.text.indexOf('\n', from);
    return end === -1 ? this.length : end;
  }

  /** Skips blank and comment lines; the indent of the next content line, or -1 at the end. */
  private nextContent(): number {
    const t = this.text;
    while (this.pos < this.length) {
      let i = this.pos;
      while (t.charCodeAt(i) === SPACE) i++;
      const c = t.charCodeAt(i);
      if (i >= this.length) {
        this.pos = this.length;
        return -1;
      }
      if (c === NEWLINE || c === HASH) {
        this.pos = this.lineEnd(i) + 1;
        continue;
      }
      if (this.pos >= this.nextProgress && this.onProgress) {
        this.onProgress(this.pos);
        this.nextProgress = this.pos + (1 << 20);
      }
      return i - this.pos;
    }
    return -1;
  }

  parseDocument(): unknown {
    let indent = this.nextContent();
    this.start = this.pos;
    if (indent === 0 && this.text.startsWith('---', this.pos)) {
      const rest = this.text.slice(this.pos + 3, this.lineEnd(this.pos));
      if (rest.trim() !== '' && !/^\s+#/.test(rest)) giveUp();
      this.pos = this.lineEnd(this.pos) + 1;
      indent = this.nextContent();
    }
    if (indent < 0) giveUp(); // an empty document: yaml's own reading of it (a null, or none) stands
    // An indented root: yaml's range starts at the line, not the content; left to yaml.
    if (indent !== 0) giveUp();
    if (!this.text.startsWith('---', this.start)) this.start = this.pos;
    const value = this.block(indent, true);
    if (this.nextContent() !== -1) giveUp();
    return value;
  }

  /**
   * The document's range as yaml gives it, once it is read: from its `---` line or first content to
   * the end of its last content line (after the newline, unless the last value is empty). Gives up
   * where yaml's range depends on more (comments or CRLF after an empty last value, a comment
   * indented after the last content line, trailing blank lines in a literal's range).
   */
  documentSpan(crlf: boolean): [number, number] {
    const t = this.text;
    let comment = false;
    let end = this.length;
    let start = t.lastIndexOf('\n', end - 1) + 1;
    for (;;) {
      let j = start;
      while (t.charCodeAt(j) === SPACE) j++;
      if (j < end) {
        if (t.charCodeAt(j) !== HASH) break;
        if (j > start) giveUp();
        comment = true;
      }
      if (start === 0) giveUp();
      end = start - 1;
      start = t.lastIndexOf('\n', end - 1) + 1;
    }
    if (this.last === 'blanks') giveUp();
    if (this.last === 'empty') {
      if (comment || crlf || t.slice(start, end).includes('#')) giveUp();
      return [this.start, end];
    }
    return [this.start, Math.min(end + 1, this.length)];
  }

  /** The collection at the content line under `pos`, indented `indent`. */
  private block(indent: number, root = false): unknown {
    const start = this.pos + indent;
    if (this.text.startsWith('...', this.pos) || this.text.startsWith('---', this.pos)) giveUp();
    if (this.isEntry(start)) return this.sequence(indent, start);
    const c = this.text[start] ?? '';
    if (c === '{' || c === '[') {
      // A flow collection as the whole document (JSON, or `{}`).
      if (!root) giveUp();
      return this.rootFlow(start);
    }
    return this.mapping(indent, start, root);
  }

  private isEntry(at: number): boolean {
    if (this.text.charCodeAt(at) !== DASH) return false;
    const next = this.text.charCodeAt(at + 1);
    return next === SPACE || next === NEWLINE || at + 1 >= this.length;
  }

  private rootFlow(start: number): unknown {
    const t = this.text;
    try {
      const value: unknown = JSON.parse(t.slice(start));
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) this.items = jsonItems(t, start);
      this.pos = this.length;
      return value;
    } catch {
      const end = this.lineEnd(start);
      const [value, after] = this.flow(start, end);
      this.trailing(after, end);
      this.pos = end + 1;
      return value;
    }
  }

  /** A block sequence whose `-` entries are at column `indent`; the first entry's `-` is at `first`. */
  private sequence(indent: number, first: number): unknown[] {
    const out: unknown[] = [];
    let at = first;
    for (;;) {
      out.push(this.entry(indent, at));
      const next = this.nextContent();
      if (next !== indent) {
        if (next > indent) giveUp();
        return out;
      }
      at = this.pos + next;
      if (!this.isEntry(at)) return out;
    }
  }

  /** One `-` entry at `at` (column `indent`): its value. Leaves `pos` after the entry's last line. */
  private entry(indent: number, at: number): unknown {
    const t = this.text;
    let i = at + 1;
    while (t.charCodeAt(i) === SPACE) i++;
    const end = this.lineEnd(at);
    if (i >= end || t.charCodeAt(i) === HASH) {
      this.pos = end + 1;
      const next = this.nextContent();
      if (next > indent) return this.block(next);
      this.last = 'empty';
      return null;
    }
    if (this.isEntry(i)) giveUp(); // `- - x`
    const column = i - this.lineStart(i);
    if (this.startsKey(i, end)) return this.mapping(column, i, false);
    return this.inlineValue(i, end, indent);
  }

  private lineStart(at: number): number {
    return this.text.lastIndexOf('\n', at - 1) + 1;
  }

  /** Whether the text from `i` to `end` is a `key: …` entry. */
  private startsKey(i: number, end: number): boolean {
    const t = this.text;
    const c = t[i];
    if (c === '"' || c === "'") {
      const close = c === "'" ? this.singleQuotedEnd(i, end) : this.doubleQuotedEnd(i, end);
      if (close < 0) return false;
      let j = close;
      while (t.charCodeAt(j) === SPACE) j++;
      return t.charCodeAt(j) === COLON && (j + 1 >= end || t.charCodeAt(j + 1) === SPACE);
    }
    if (c === '[' || c === '{') return false;
    return this.plainKeyEnd(i, end) >= 0;
  }

  /** Where a plain key starting at `i` ends (its `:`), or -1 when the line is no `key:` entry. */
  private plainKeyEnd(i: number, end: number): number {
    const t = this.text;
    for (let j = i; j < end; j++) {
      const c = t.charCodeAt(j);
      if (c === COLON) {
        const n = t.charCodeAt(j + 1);
        if (j + 1 >= end || n === SPACE) return j;
      } else if (c === HASH && t.charCodeAt(j - 1) === SPACE) return -1;
    }
    return -1;
  }

  private singleQuotedEnd(open: number, end: number): number {
    const t = this.text;
    for (let j = open + 1; j < end; j++) {
      if (t[j] === "'") {
        if (t[j + 1] === "'") j++;
        else return j + 1;
      }
    }
    return -1;
  }

  private doubleQuotedEnd(open: number, end: number): number {
    const t = this.text;
    for (let j = open + 1; j < end; j++) {
      const c = t[j];
      if (c === '\\') j++;
      else if (c === '"') return j + 1;
    }
    return -1;
  }

  /** A block mapping whose keys are at column `indent`; the first key starts at `first`. */
  private mapping(indent: number, first: number, root: boolean): Record<string, unknown> {
    const t = this.text;
    const out: Record<string, unknown> = {};
    let at = first;
    for (;;) {
      const end = this.lineEnd(at);
      let key: string;
      let colon: number;
      const c = t[at];
      if (c === '"' || c === "'") {
        const close = c === "'" ? this.singleQuotedEnd(at, end) : this.doubleQuotedEnd(at, end);
        if (close < 0) giveUp();
        key = c === "'" ? singleQuoted(t.slice(at + 1, close - 1)) : doubleQuoted(t.slice(at + 1, close - 1));
        colon = close;
        while (t.charCodeAt(colon) === SPACE) colon++;
        if (t.charCodeAt(colon) !== COLON || (colon + 1 < end && t.charCodeAt(colon + 1) !== SPACE)) giveUp();
      } else {
        if (BAD_START.has(c ?? '') || this.isEntry(at)) giveUp();
        colon = this.plainKeyEnd(at, end);
        if (colon < 0) giveUp();
        key = plainKey(t.slice(at, colon).trimEnd());
      }
      if (key === '__proto__' || Object.prototype.hasOwnProperty.call(out, key)) giveUp();
      let v = colon + 1;
      while (t.charCodeAt(v) === SPACE) v++;
      if (v >= end || t.charCodeAt(v) === HASH) {
        this.pos = end + 1;
        const next = this.nextContent();
        if (next > indent) out[key] = root && key === 'items' ? this.listItems(next) : this.block(next);
        else if (next === indent && this.isEntry(this.pos + next))
          out[key] = root && key === 'items' ? this.listItems(next) : this.sequence(next, this.pos + next);
        else {
          out[key] = null;
          this.last = 'empty';
        }
      } else {
        out[key] = this.inlineValue(v, end, indent);
      }
      const next = this.nextContent();
      if (next !== indent) {
        if (next > indent) giveUp();
        return out;
      }
      at = this.pos + next;
      if (this.isEntry(at)) return out;
    }
  }

  /** The root's `items` (a kubectl List), with where each item is. */
  private listItems(indent: number): unknown {
    const at = this.pos + indent;
    if (!this.isEntry(at)) return this.block(indent);
    const ranges: Array<readonly [number, number]> = [];
    const out: unknown[] = [];
    let lineStart = this.pos;
    for (;;) {
      out.push(this.entry(indent, lineStart + indent));
      ranges.push([lineStart, this.contentEnd()]);
      const next = this.nextContent();
      if (next !== indent || !this.isEntry(this.pos + next)) {
        if (next > indent) giveUp();
        this.items = { ranges, prefix: '[0]' };
        return out;
      }
      lineStart = this.pos;
    }
  }

  /** The end of the last content line before `pos` (where an item ends, without trailing blank or comment lines). */
  private contentEnd(): number {
    let end = this.pos - 1;
    const t = this.text;
    for (;;) {
      const start = t.lastIndexOf('\n', end - 1) + 1;
      const line = t.slice(start, end);
      const trimmed = line.trimStart();
      if (trimmed !== '' && !trimmed.startsWith('#')) return Math.min(end, this.length);
      if (start === 0) return end;
      end = start - 1;
    }
  }

  /** A value written after `key: ` or `- ` at `v` (its line ends at `end`); `indent` is its parent's column. */
  private inlineValue(v: number, end: number, indent: number): unknown {
    const t = this.text;
    const c = t[v] ?? '';
    this.last = 'other';
    if (c === '"' || c === "'") return this.quoted(v, indent);
    if (c === '{' || c === '[') {
      const [value, after] = this.flow(v, end);
      this.trailing(after, end);
      this.pos = end + 1;
      return value;
    }
    if (c === '|') return this.literal(v, end, indent);
    if (BAD_START.has(c) || this.isEntry(v)) giveUp();
    return this.plain(v, end, indent);
  }

  /** Only spaces or a comment may follow a value on its line. */
  private trailing(from: number, end: number): void {
    const t = this.text;
    let i = from;
    while (t.charCodeAt(i) === SPACE) i++;
    if (i < end && !(t.charCodeAt(i) === HASH && i > from)) giveUp();
  }

  /** A plain scalar, possibly continued on more indented lines (folded with spaces). */
  private plain(v: number, end: number, indent: number): unknown {
    const first = this.plainLine(v, end);
    this.pos = end + 1;
    let text = first.text;
    if (first.comment) return resolvePlain(text);
    let continued = false;
    for (;;) {
      // Blank lines inside a multi-line plain scalar are line feeds.
      const save = this.pos;
      let blanks = 0;
      let i = this.pos;
      for (;;) {
        let j = i;
        while (this.text.charCodeAt(j) === SPACE) j++;
        if (j < this.length && this.text.charCodeAt(j) === NEWLINE) {
          blanks++;
          i = j + 1;
          continue;
        }
        break;
      }
      let j = i;
      while (this.text.charCodeAt(j) === SPACE) j++;
      if (j >= this.length || j - i <= indent || this.text.charCodeAt(j) === HASH) {
        this.pos = save;
        break;
      }
      const lineEnd = this.lineEnd(j);
      const line = this.plainLine(j, lineEnd);
      if (this.isEntry(j)) giveUp();
      text += blanks > 0 ? '\n'.repeat(blanks) : ' ';
      text += line.text;
      continued = true;
      this.pos = lineEnd + 1;
      // A comment ends the scalar (a more indented line after it is an error, left to yaml by the caller).
      if (line.comment) break;
    }
    return continued ? text : resolvePlain(text);
  }

  /** One line of a plain scalar: its text (trimmed, without a trailing comment) and whether a comment ended it. */
  private plainLine(from: number, end: number): { text: string; comment: boolean } {
    const t = this.text;
    let stop = end;
    let comment = false;
    for (let j = from; j < end; j++) {
      const c = t.charCodeAt(j);
      if (c === COLON && (j + 1 >= end || t.charCodeAt(j + 1) === SPACE)) giveUp(); // `a: b: c`
      if (c === HASH && j > from && t.charCodeAt(j - 1) === SPACE) {
        stop = j;
        comment = true;
        break;
      }
    }
    return { text: t.slice(from, stop).trimEnd(), comment };
  }

  /** A quoted scalar starting at `v`, possibly over several lines. Leaves `pos` after its last line. */
  private quoted(v: number, indent: number): string {
    const t = this.text;
    const single = t[v] === "'";
    let out = '';
    let i = v + 1;
    let lineBegin = i;
    for (;;) {
      if (i >= this.length) giveUp();
      const c = t[i];
      if (single && c === "'") {
        if (t[i + 1] === "'") {
          out += t.slice(lineBegin, i + 1);
          i += 2;
          lineBegin = i;
          continue;
        }
        out += t.slice(lineBegin, i);
        break;
      }
      if (!single && c === '"') {
        out += t.slice(lineBegin, i);
        break;
      }
      if (!single && c === '\\') {
        out += t.slice(lineBegin, i);
        const e = t[i + 1] ?? '';
        if (e === '\n') {
          // An escaped line break: the lines join without a space.
          i = this.continuation(i + 2, indent);
          lineBegin = i;
          continue;
        }
        const [text, length] = escape(t, i);
        out += text;
        i += length;
        lineBegin = i;
        continue;
      }
      if (c === '\n') {
        out += t.slice(lineBegin, i).replace(/ +$/, '');
        // Folding: one line break is a space, each blank line after it a line feed.
        let blanks = 0;
        let j = i + 1;
        for (;;) {
          let k = j;
          while (t.charCodeAt(k) === SPACE) k++;
          if (t.charCodeAt(k) === NEWLINE) {
            blanks++;
            j = k + 1;
            continue;
          }
          break;
        }
        out += blanks > 0 ? '\n'.repeat(blanks) : ' ';
        i = this.continuation(j, indent);
        lineBegin = i;
        continue;
      }
      i++;
    }
    const close = i + 1;
    const end = this.lineEnd(close);
    this.trailing(close, end);
    this.pos = end + 1;
    return out;
  }

  /** The first character of a quoted scalar's continuation line starting at `from`; it must be indented past `indent`. */
  private continuation(from: number, indent: number): number {
    let k = from;
    while (this.text.charCodeAt(k) === SPACE) k++;
    if (k - from <= indent || k >= this.length) giveUp();
    if (this.text.startsWith('---', from) || this.text.startsWith('...', from)) giveUp();
    return k;
  }

  /** A literal block scalar (`|`, `|-`, `|+`) whose header is at `v`. */
  private literal(v: number, end: number, indent: number): string {
    const t = this.text;
    const header = t.slice(v + 1, end);
    const m = /^([-+]?)(\s+#.*)?\s*$/.exec(header);
    if (!m) giveUp();
    const chomp = m?.[1] ?? '';
    this.pos = end + 1;
    const lines: string[] = [];
    let contentIndent = -1;
    let leadingBlankMax = 0;
    while (this.pos < this.length) {
      const lineEnd = this.lineEnd(this.pos);
      let j = this.pos;
      while (t.charCodeAt(j) === SPACE) j++;
      const spaces = j - this.pos;
      if (j >= lineEnd) {
        // A blank line: part of the scalar whatever its indent (unless it holds more spaces than the content's indent).
        if (contentIndent < 0) leadingBlankMax = Math.max(leadingBlankMax, spaces);
        else if (spaces > contentIndent) giveUp();
        lines.push('');
        this.pos = lineEnd + 1;
        continue;
      }
      if (contentIndent < 0) {
        if (spaces <= indent || spaces < leadingBlankMax) break;
        contentIndent = spaces;
      }
      if (spaces < contentIndent) break;
      lines.push(t.slice(this.pos + contentIndent, lineEnd));
      this.pos = lineEnd + 1;
    }
    if (contentIndent < 0 && leadingBlankMax > indent) giveUp();
    // Trailing blank lines belong to the scalar only for chomping; the lines after it start at pos.
    let trailing = 0;
    while (trailing < lines.length && lines[lines.length - 1 - trailing] === '') trailing++;
    // Blank lines counted at the end may lie beyond the document (pos moved past them): they are chomped either way.
    const body = lines.slice(0, lines.length - trailing).join('\n');
    // yaml's range of a literal that keeps its trailing blank lines, or has only blank lines, takes them in.
    if (chomp === '+' || body === '') this.last = 'blanks';
    if (body === '') return chomp === '+' ? '\n'.repeat(trailing) : '';
    if (chomp === '-') return body;
    if (chomp === '+') return `${body}\n${'\n'.repeat(trailing)}`;
    return `${body}\n`;
  }

  /** A flow collection on one line from `at`: its value and where it ends. */
  private flow(at: number, end: number): [unknown, number] {
    const value = this.flowValue(at, end);
    return [value, this.flowEnd];
  }

  /** Where the last flow value read (`flowValue`, `flowScalar`) ends. */
  private flowEnd = 0;

  /** The first position from `i` that is not a space. */
  private skipSpaces(i: number): number {
    const t = this.text;
    while (t.charCodeAt(i) === SPACE) i++;
    return i;
  }

  /** A flow collection on one line from `at`, which ends before `end`: its value; `flowEnd` is after it. */
  private flowValue(at: number, end: number): unknown {
    const t = this.text;
    let i = this.skipSpaces(at + 1);
    if (t.charCodeAt(at) === OPEN_BRACKET) {
      const out: unknown[] = [];
      if (t.charCodeAt(i) === CLOSE_BRACKET) {
        this.flowEnd = i + 1;
        return out;
      }
      for (;;) {
        out.push(this.flowScalar(i, end, false));
        i = this.skipSpaces(this.flowEnd);
        const c = t.charCodeAt(i);
        if (c === COMMA) {
          i = this.skipSpaces(i + 1);
          if (t.charCodeAt(i) === CLOSE_BRACKET) giveUp(); // a trailing comma
          continue;
        }
        if (c === CLOSE_BRACKET) {
          this.flowEnd = i + 1;
          return out;
        }
        giveUp();
      }
    }
    const out: Record<string, unknown> = {};
    if (t.charCodeAt(i) === CLOSE_BRACE) {
      this.flowEnd = i + 1;
      return out;
    }
    for (;;) {
      const key = this.flowScalar(i, end, true);
      if (typeof key !== 'string' || key === '__proto__' || key === '<<' || Object.prototype.hasOwnProperty.call(out, key)) giveUp();
      let j = this.skipSpaces(this.flowEnd);
      if (t.charCodeAt(j) !== COLON) giveUp();
      j = this.skipSpaces(j + 1);
      const next = t.charCodeAt(j);
      if (next === COMMA || next === CLOSE_BRACE) giveUp(); // a key without a value
      out[key as string] = this.flowScalar(j, end, true);
      i = this.skipSpaces(this.flowEnd);
      const c = t.charCodeAt(i);
      if (c === COMMA) {
        i = this.skipSpaces(i + 1);
        if (t.charCodeAt(i) === CLOSE_BRACE) giveUp();
        continue;
      }
      if (c === CLOSE_BRACE) {
        this.flowEnd = i + 1;
        return out;
      }
      giveUp();
    }
  }

  /** A value inside a flow collection at `i` (a nested collection, a quoted or a plain scalar); `flowEnd` is after it. */
  private flowScalar(i: number, end: number, inMap: boolean): unknown {
    const t = this.text;
    const c = t.charCodeAt(i);
    if (c === OPEN_BRACE || c === OPEN_BRACKET) return this.flowValue(i, end);
    if (c === DOUBLE_QUOTE || c === SINGLE_QUOTE) {
      const close = c === SINGLE_QUOTE ? this.singleQuotedEnd(i, end) : this.doubleQuotedEnd(i, end);
      if (close < 0) giveUp();
      const body = t.slice(i + 1, close - 1);
      this.flowEnd = close;
      return c === SINGLE_QUOTE ? singleQuoted(body) : doubleQuoted(body);
    }
    if (Number.isNaN(c) || BAD_START.has(t[i] as string) || c === COLON || (c === DASH && t.charCodeAt(i + 1) === SPACE)) giveUp();
    let j = i;
    for (; j < end; j++) {
      const d = t.charCodeAt(j);
      if (d === COMMA || d === CLOSE_BRACKET || d === CLOSE_BRACE) break;
      if (d === COLON) {
        const after = t.charCodeAt(j + 1);
        if (after === SPACE || (inMap && (after === COMMA || after === CLOSE_BRACKET || after === CLOSE_BRACE))) break;
      } else if (d === HASH) {
        if (t.charCodeAt(j - 1) === SPACE) giveUp();
      } else if (d === OPEN_BRACKET || d === OPEN_BRACE) giveUp();
    }
    let k = j;
    while (k > i && isTrimmed(t.charCodeAt(k - 1))) k--;
    if (k === i) giveUp();
    this.flowEnd = j;
    return resolvePlain(t.slice(i, k));
  }
}

function singleQuoted(body: string): string {
  if (body.includes('\n')) giveUp();
  return body.replaceAll("''", "'");
}

function doubleQuoted(body: string): string {
  if (body.includes('\n')) giveUp();
  if (!body.includes('\\')) return body;
  let out = '';
  for (let i = 0; i < body.length; i++) {
    if (body[i] !== '\\') {
      out += body[i];
      continue;
    }
    const [text, length] = escape(body, i);
    out += text;
    i += length - 1;
  }
  return out;
}

/** The escape at `i` (a backslash) in double-quoted text: its text and length. */
function escape(t: string, i: number): [string, number] {
  const e = t[i + 1] ?? '';
  const simple = ESCAPES[e];
  if (simple !== undefined) return [simple, 2];
  const digits = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
  if (digits === 0) giveUp();
  const hex = t.slice(i + 2, i + 2 + digits);
  if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(hex)) giveUp();
  const code = parseInt(hex, 16);
  if (code > 0x10ffff) giveUp();
  return [String.fromCodePoint(code), 2 + digits];
}

/** Where the items of a JSON object's top-level `items` array are, by a scan that skips strings. */
function jsonItems(t: string, start: number): FastDocument['items'] {
  // Find `"items"` as a key at depth 1, then each element's extent at depth 2.
  let depth = 0;
  let i = start;
  const n = t.length;
  let expectItems = false;
  let lastKey: string | undefined;
  while (i < n) {
    const c = t.charCodeAt(i);
    if (c === 34) {
      const close = stringEnd(t, i);
      if (depth === 1) lastKey = t.slice(i + 1, close - 1);
      i = close;
      continue;
    }
    if (c === 123 || c === 91) {
      if (depth === 1 && c === 91 && lastKey === 'items') {
        expectItems = true;
        break;
      }
      depth++;
    } else if (c === 125 || c === 93) depth--;
    else if (c === 44 && depth === 1) lastKey = undefined;
    i++;
  }
  if (!expectItems) return undefined;
  const ranges: Array<readonly [number, number]> = [];
  i++;
  for (;;) {
    while (i < n && /[\s,]/.test(t[i] ?? '')) i++;
    if (i >= n || t[i] === ']') break;
    const begin = i;
    let d = 0;
    for (; i < n; i++) {
      const c = t.charCodeAt(i);
      if (c === 34) {
        i = stringEnd(t, i) - 1;
        continue;
      }
      if (c === 123 || c === 91) d++;
      else if (c === 125 || c === 93) {
        d--;
        if (d === 0) {
          i++;
          break;
        }
      } else if (d === 0 && (c === 44 || c === 93)) break;
    }
    ranges.push([begin, i]);
  }
  return { ranges, prefix: '' };
}

function stringEnd(t: string, open: number): number {
  for (let i = open + 1; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34) return i + 1;
  }
  return t.length;
}

/** Offsets in `lf` (a text whose CRLF line ends were made LF) as offsets in the CRLF text; asked in ascending order. */
function crlfOffsets(lf: string): (offset: number) => number {
  let newlines = 0;
  let next = lf.indexOf('\n');
  return (offset) => {
    while (next !== -1 && next < offset) {
      newlines++;
      next = lf.indexOf('\n', next + 1);
    }
    return offset + newlines;
  };
}

/**
 * The document in `text` (one chunk: at most one document), read by the fast path; undefined when
 * the text is outside what it reads (then `yaml` reads it). `onProgress` is told the offset reached
 * about every megabyte (in a CRLF text, counting each line end as one character).
 */
export function fastParse(text: string, onProgress?: (offset: number) => void): FastDocument | undefined {
  if (text.includes('\t') || text.includes('\ufeff')) return undefined;
  const crlf = text.includes('\r');
  if (crlf && /\r(?!\n)/.test(text)) return undefined;
  const lf = crlf ? text.replaceAll('\r\n', '\n') : text;
  if (lf.startsWith('...') || lf.includes('\n...') || /^%/m.test(lf)) return undefined;
  const parser = new Parser(lf, onProgress);
  try {
    const value = parser.parseDocument();
    const [start, end] = parser.documentSpan(crlf);
    const items = parser.items;
    if (!crlf) return items ? { value, span: [start, end], items } : { value, span: [start, end] };
    // Read as LF; the offsets are put back where they are in the CRLF text (in ascending order).
    const at = crlfOffsets(lf);
    const from = at(start);
    const ranges = items?.ranges.map(([a, b]) => [at(a), at(b)] as const);
    const span = [from, at(end)] as const;
    return items && ranges ? { value, span, items: { ranges, prefix: items.prefix } } : { value, span };
  } catch (e) {
    if (e instanceof GiveUp) return undefined;
    throw e;
  }
}
