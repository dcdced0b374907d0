// CEL's optional syntax, which kube-apiserver's base environment enables with cel.OptionalTypes()
// (k8s.io/apiserver v0.37.2 pkg/cel/environment/base.go lines 100-105; cel-go v0.29.2 parser
// options EnableOptionalSyntax): `a.?f` (the call `_?._`(a, "f")), `a[?k]` (`_[?_]`(a, k)), list
// elements `[?e]` (the list's optional indices) and map entries `{?k: v}` (optional entries).
// @bufbuild/cel 0.6's parser does not read it, so the text is rewritten before parsing with each
// marking `?` replaced by a space (the same length: every position, and so every error's column,
// stays the user's), and the parsed tree is then given back what the `?`s said, in cel-go's shape
// (parser/parser.go VisitSelect, VisitIndex, visitListInit, VisitMapInitializerList). The checker
// (cel-cost.ts) types and costs that shape as cel-go's checker does; for evaluation,
// `optionalForEvaluation` turns it, and every select, index and presence test on an optional, into
// calls of the optional library's runtime functions (cel-optional.ts), with cel-go's interpreter's
// semantics (interpreter/attributes.go applyQualifiers: once an optional is met, later qualifiers
// test presence and yield optional.none() for what is absent).
import { exprChildren } from './cel-ast';

/** A parsed node as far as the marks touch it (cel.expr.Expr). */
interface SyntaxNode {
  id: bigint;
  exprKind: { case: string | undefined; value?: unknown };
}

/** Where the user wrote optional syntax, by the offset of the token @bufbuild/cel positions the node at. */
interface Marks {
  /** `.` of `.?f`. */
  readonly selects: Set<number>;
  /** `[` of `a[?k]`. */
  readonly indexes: Set<number>;
  /** `[` of a list literal: its optional elements' indices. */
  readonly lists: Map<number, Set<number>>;
  /** `{` of a map literal: its optional entries' indices. */
  readonly maps: Map<number, Set<number>>;
}

export interface OptionalSyntax {
  /** The text with each optional `?` a space. */
  readonly text: string;
  readonly marks: Marks;
  /** Whether any optional syntax was found. */
  readonly any: boolean;
}

type Frame = { kind: '(' | 'index' | 'list' | 'map'; open: number; element: number };

const IDENT = /[A-Za-z_0-9]/;

/** The length of the string or bytes literal starting at i (with its r/b prefixes), or 0. */
function literalLength(text: string, i: number): number {
  let j = i;
  let raw = false;
  while (j < text.length && j - i < 2 && /[rRbB]/.test(text[j]!)) {
    if (/[rR]/.test(text[j]!)) raw = true;
    j++;
  }
  const q = text[j];
  if (q !== '"' && q !== "'") return 0;
  // A prefix must not be the end of an identifier (`br"` inside `abr"` is not a prefix).
  if (j > i && i > 0 && IDENT.test(text[i - 1]!)) return 0;
  const triple = text.startsWith(q.repeat(3), j);
  const close = triple ? q.repeat(3) : q;
  let k = j + close.length;
  while (k < text.length) {
    if (!raw && text[k] === '\\') {
      k += 2;
      continue;
    }
    if (text.startsWith(close, k)) return k + close.length - i;
    if (!triple && text[k] === '\n') break;
    k++;
  }
  return text.length - i;
}

/**
 * Finds the optional syntax in a selector as cel-go's grammar reads it (CEL.g4: `member '.' '?'
 * IDENT`, `member '[' '?' expr ']'`, `'[' ('?'? expr ',')* ']'`, `'{' ('?'? expr ':' expr ',')* '}'`)
 * and blanks its `?`s. A `?` anywhere else (the conditional) stays.
 */
export function scanOptionalSyntax(text: string): OptionalSyntax {
  const out = text.split('');
  const marks: Marks = { selects: new Set(), indexes: new Set(), lists: new Map(), maps: new Map() };
  const stack: Frame[] = [];
  let any = false;
  // The previous significant token: an operand's end (ident, literal, `)`, `]`, `}`) or the character.
  let prev: { kind: 'operand' | 'in' | 'punct'; ch: string; at: number } = { kind: 'punct', ch: '', at: -1 };
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (text.startsWith('//', i)) {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    const lit = literalLength(text, i);
    if (lit > 0) {
      i += lit;
      prev = { kind: 'operand', ch: '"', at: i - 1 };
      continue;
    }
    if (IDENT.test(ch) || (ch === '.' && /[0-9]/.test(text[i + 1] ?? '') && prev.kind !== 'operand')) {
      const start = i;
      // Numbers with fractions and exponents, identifiers.
      while (
        i < text.length &&
        (IDENT.test(text[i]!) || (text[i] === '.' && /[0-9]/.test(text[i + 1] ?? '') && /^[0-9]/.test(text.slice(start, i + 1))))
      ) {
        if ((text[i] === 'e' || text[i] === 'E') && /^[0-9.]+$/.test(text.slice(start, i)) && /[+-]/.test(text[i + 1] ?? '')) i++;
        i++;
      }
      const word = text.slice(start, i);
      prev = { kind: word === 'in' ? 'in' : 'operand', ch: word, at: start };
      continue;
    }
    if (ch === '`') {
      const end = text.indexOf('`', i + 1);
      i = end < 0 ? text.length : end + 1;
      prev = { kind: 'operand', ch: '`', at: i - 1 };
      continue;
    }
    const top = stack[stack.length - 1];
    switch (ch) {
      case '(':
        stack.push({ kind: '(', open: i, element: 0 });
        break;
      case '[':
        stack.push({ kind: prev.kind === 'operand' ? 'index' : 'list', open: i, element: 0 });
        break;
      case '{':
        stack.push({ kind: 'map', open: i, element: 0 });
        break;
      case ')':
      case ']':
      case '}':
        stack.pop();
        prev = { kind: 'operand', ch, at: i };
        i++;
        continue;
      case ',':
        if (top) top.element++;
        break;
      case '?': {
        const afterOpen = top !== undefined && prev.at === top.open;
        const afterComma = top !== undefined && prev.ch === ',' && prev.kind === 'punct';
        let marked = false;
        if (prev.kind === 'punct' && prev.ch === '.') {
          marks.selects.add(prev.at);
          marked = true;
        } else if (top?.kind === 'index' && afterOpen) {
          marks.indexes.add(top.open);
          marked = true;
        } else if ((top?.kind === 'list' || top?.kind === 'map') && (afterOpen || afterComma)) {
          const byOpen = top.kind === 'list' ? marks.lists : marks.maps;
          const set = byOpen.get(top.open) ?? new Set<number>();
          set.add(top.element);
          byOpen.set(top.open, set);
          marked = true;
        }
        if (marked) {
          out[i] = ' ';
          any = true;
        }
        break;
      }
    }
    prev = { kind: 'punct', ch, at: i };
    i++;
  }
  return { text: out.join(''), marks, any };
}

/**
 * Gives the parsed tree (positions by node id) back the optional syntax the scan found; an error
 * (at an offset where cel-go reports it) when the syntax is where cel-go refuses it.
 */
export function applyOptionalSyntax(
  root: SyntaxNode | undefined,
  positions: Readonly<Record<string, number>>,
  marks: Marks,
  nextId: () => bigint,
  macroCalls: Readonly<Record<string, SyntaxNode>> = {},
): { readonly error: string; readonly at?: number } | undefined {
  const seen = { selects: 0, indexes: 0, lists: 0, maps: 0 };
  const walk = (e: SyntaxNode | undefined): void => {
    if (!e) return;
    for (const child of exprChildren(e)) walk(child);
    const at = positions[String(e.id)];
    const k = e.exprKind;
    switch (k.case) {
      case 'selectExpr': {
        const v = k.value as { operand?: SyntaxNode; field: string; testOnly: boolean };
        if (at !== undefined && marks.selects.has(at)) {
          seen.selects++;
          const field: SyntaxNode = {
            $typeName: 'cel.expr.Expr',
            id: nextId(),
            exprKind: {
              case: 'constExpr',
              value: { $typeName: 'cel.expr.Constant', constantKind: { case: 'stringValue', value: v.field } },
            },
          } as SyntaxNode;
          e.exprKind = { case: 'callExpr', value: { $typeName: 'cel.expr.Expr.Call', function: '_?._', args: [v.operand, field] } };
        }
        return;
      }
      case 'callExpr': {
        const v = k.value as { function: string; target?: SyntaxNode; args: SyntaxNode[] };
        if (v.function === '_[_]' && at !== undefined && marks.indexes.has(at)) {
          seen.indexes++;
          v.function = '_[?_]';
        }
        return;
      }
      case 'listExpr': {
        const v = k.value as { elements: SyntaxNode[]; optionalIndices: number[] };
        const opt = at === undefined ? undefined : marks.lists.get(at);
        if (opt) {
          seen.lists++;
          v.optionalIndices = [...opt].sort((a, b) => a - b);
        }
        return;
      }
      case 'structExpr': {
        const v = k.value as {
          entries: { keyKind: { case: string | undefined; value?: unknown }; value?: SyntaxNode; optionalEntry: boolean }[];
        };
        const opt = at === undefined ? undefined : marks.maps.get(at);
        if (opt) {
          seen.maps++;
          for (const i of opt) if (v.entries[i]) v.entries[i].optionalEntry = true;
        }
        return;
      }
      default:
        return;
    }
  };
  walk(root);
  // has(a.?f): @bufbuild/cel's parser expands has() itself, keeping the select only in its macro
  // calls; the has() macro takes a field selection only (cel-go parser/macro.go makeHas).
  for (const m of Object.values(macroCalls)) {
    if (m.exprKind.case !== 'callExpr') continue;
    const c = m.exprKind.value as { function: string; target?: SyntaxNode; args: SyntaxNode[] };
    const arg = c.args[0];
    const at = arg && positions[String(arg.id)];
    if (c.function === 'has' && !c.target && at !== undefined && marks.selects.has(at))
      return { error: 'invalid argument to has() macro', at };
  }
  if (
    seen.selects !== marks.selects.size ||
    seen.indexes !== marks.indexes.size ||
    seen.lists !== marks.lists.size ||
    seen.maps !== marks.maps.size
  ) {
    return { error: "unsupported syntax '?'" };
  }
  return undefined;
}

/** The checker's view of a type, as far as this rewrite asks (cel-cost.ts CelT). */
interface TypeView {
  readonly k: string;
  readonly name?: string;
}

const isOptionalType = (t: TypeView | undefined): boolean => t?.k === 'opaque' && t.name === 'optional_type';

function mk(id: bigint, exprKind: SyntaxNode['exprKind']): SyntaxNode {
  return { $typeName: 'cel.expr.Expr', id, exprKind } as SyntaxNode;
}

function callOf(fn: string, args: SyntaxNode[]): SyntaxNode['exprKind'] {
  return { case: 'callExpr', value: { $typeName: 'cel.expr.Expr.Call', function: fn, args } };
}

function listOf(id: bigint, elements: SyntaxNode[]): SyntaxNode {
  return mk(id, { case: 'listExpr', value: { $typeName: 'cel.expr.Expr.CreateList', elements, optionalIndices: [] } });
}

function intConst(id: bigint, n: number): SyntaxNode {
  return mk(id, { case: 'constExpr', value: { $typeName: 'cel.expr.Constant', constantKind: { case: 'int64Value', value: BigInt(n) } } });
}

function stringConst(id: bigint, s: string): SyntaxNode {
  return mk(id, { case: 'constExpr', value: { $typeName: 'cel.expr.Constant', constantKind: { case: 'stringValue', value: s } } });
}

/**
 * Rewrites, in place and inside out, the tree to evaluate (its macros expanded) so that @bufbuild/cel
 * evaluates the optional syntax and qualifiers on optionals as cel-go does: `_?._` and a select on an
 * optional become `@optSelect`, `_[?_]` and an index into an optional `@optIndex`, a presence test on
 * an optional `@optHas`, a list with optional elements `@optList`, a map with optional entries
 * `@optMap` (cel-optional.ts). `types` is the checker's type of each node.
 */
export function optionalForEvaluation(e: SyntaxNode | undefined, types: ReadonlyMap<bigint, TypeView>, nextId: () => bigint): void {
  if (!e) return;
  for (const child of exprChildren(e)) optionalForEvaluation(child, types, nextId);
  const k = e.exprKind;
  switch (k.case) {
    case 'selectExpr': {
      const v = k.value as { operand?: SyntaxNode; field: string; testOnly: boolean };
      if (v.operand && isOptionalType(types.get(v.operand.id))) {
        e.exprKind = callOf(v.testOnly ? '@optHas' : '@optSelect', [v.operand, stringConst(nextId(), v.field)]);
      }
      return;
    }
    case 'callExpr': {
      const v = k.value as { function: string; target?: SyntaxNode; args: SyntaxNode[] };
      if (v.target) return;
      if (v.function === '_?._' && v.args.length === 2) e.exprKind = callOf('@optSelect', v.args);
      else if (v.function === '_[?_]' && v.args.length === 2) e.exprKind = callOf('@optIndex', v.args);
      else if (v.function === '_[_]' && v.args.length === 2 && isOptionalType(types.get(v.args[0]!.id))) {
        e.exprKind = callOf('@optIndex', v.args);
      }
      return;
    }
    case 'listExpr': {
      const v = k.value as { elements: SyntaxNode[]; optionalIndices: number[] };
      if (v.optionalIndices.length === 0) return;
      const flags = listOf(
        nextId(),
        v.optionalIndices.map((i) => intConst(nextId(), i)),
      );
      e.exprKind = callOf('@optList', [listOf(nextId(), v.elements), flags]);
      return;
    }
    case 'structExpr': {
      const v = k.value as {
        messageName: string;
        entries: { keyKind: { case: string | undefined; value?: unknown }; value?: SyntaxNode; optionalEntry: boolean }[];
      };
      if (v.messageName !== '' || !v.entries.some((entry) => entry.optionalEntry)) return;
      const pairs = v.entries.flatMap((entry) => [entry.keyKind.value as SyntaxNode, entry.value!]);
      const flags = listOf(
        nextId(),
        v.entries.flatMap((entry, i) => (entry.optionalEntry ? [intConst(nextId(), i)] : [])),
      );
      e.exprKind = callOf('@optMap', [listOf(nextId(), pairs), flags]);
      return;
    }
    default:
      return;
  }
}
