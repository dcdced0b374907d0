// What several of the selector files read of a CEL expression tree (cel.expr.Expr as @bufbuild/cel's
// parser gives it), in one place: a node's sub-expressions in the order cel-go's planner and checker
// meet them, a select chain as a qualified name, and the identifiers cel-go's standard environment
// declares as types and conversions.

/** The part of a parsed node these functions read; each caller keeps its own node type. */
export interface AstNode {
  readonly exprKind: { readonly case: string | undefined; readonly value?: unknown };
}

/**
 * A node's sub-expressions, in the order cel-go plans and checks them: a call's target then its
 * arguments, a select's operand, a list's elements, each map entry's key then value (a message
 * field's key is no expression: undefined), a comprehension's range, accumulator, condition, step
 * and result.
 */
export function exprChildren<N extends AstNode>(e: N): (N | undefined)[] {
  const k = e.exprKind;
  switch (k.case) {
    case 'callExpr': {
      const v = k.value as { readonly target?: N; readonly args: readonly N[] };
      return [v.target, ...v.args];
    }
    case 'selectExpr':
      return [(k.value as { readonly operand?: N }).operand];
    case 'listExpr':
      return [...(k.value as { readonly elements: readonly N[] }).elements];
    case 'structExpr':
      return (
        k.value as {
          readonly entries: readonly {
            readonly value?: N;
            readonly keyKind: { readonly case: string | undefined; readonly value?: unknown };
          }[];
        }
      ).entries.flatMap((entry) => [entry.keyKind.case === 'mapKey' ? (entry.keyKind.value as N) : undefined, entry.value]);
    case 'comprehensionExpr': {
      const c = k.value as Readonly<Record<'iterRange' | 'accuInit' | 'loopCondition' | 'loopStep' | 'result', N | undefined>>;
      return [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result];
    }
    default:
      return [];
  }
}

/** `a.b.c` as a name, as cel-go resolves qualified function names (`sets.contains`); undefined for another node. */
export function qualifiedName(e: AstNode | undefined): string | undefined {
  if (!e) return undefined;
  if (e.exprKind.case === 'identExpr') return (e.exprKind.value as { readonly name: string }).name;
  if (e.exprKind.case === 'selectExpr') {
    const v = e.exprKind.value as { readonly operand?: AstNode; readonly field: string };
    const q = qualifiedName(v.operand);
    return q === undefined ? undefined : `${q}.${v.field}`;
  }
  return undefined;
}

/**
 * The type identifiers (`type(x) == string`), as cel-go's checker knows them: `dyn` among them,
 * though the DRA environment declares no `dyn` identifier (`undeclared reference to 'dyn'`).
 */
export const TYPE_IDENTS: ReadonlySet<string> = new Set([
  'bool',
  'bytes',
  'double',
  'int',
  'uint',
  'string',
  'list',
  'map',
  'null_type',
  'type',
  'dyn',
]);

/** cel-go's type conversion functions (overloads.IsTypeConversionFunction). */
export const CONVERSIONS: ReadonlySet<string> = new Set([
  'bool',
  'bytes',
  'double',
  'duration',
  'dyn',
  'int',
  'string',
  'timestamp',
  'type',
  'uint',
]);
