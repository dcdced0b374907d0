// cel-go's `cel.bind(var, init, expr)` macro (github.com/google/cel-go ext/bindings.go, celBind),
// which DRA's environment adds (k8s.io/dynamic-resource-allocation/cel/compile.go, newCompiler:
// `ext.Bindings(ext.BindingsVersion(0))`, introduced 1.31): @bufbuild/cel 0.6 parses the call but
// takes no macros, so the parsed expression is rewritten here as cel-go expands it, to the
// comprehension over an empty list whose accumulator is the variable, initialised to `init`, and
// whose result is `expr`. Nested binds expand inside out, as the parser meets them.

/** A parsed CEL expression node (cel.expr.Expr), as far as the rewrite reads and writes it. */
export interface MacroNode {
  id: bigint;
  exprKind: { case: string | undefined; value?: unknown };
}

const UNUSED_ITER_VAR = '#unused';

function node(id: bigint, exprKind: MacroNode['exprKind']): MacroNode {
  return { $typeName: 'cel.expr.Expr', id, exprKind } as MacroNode;
}

function subnodes(e: MacroNode): (MacroNode | undefined)[] {
  const k = e.exprKind;
  switch (k.case) {
    case 'callExpr': {
      const v = k.value as { target?: MacroNode; args: MacroNode[] };
      return [v.target, ...v.args];
    }
    case 'selectExpr':
      return [(k.value as { operand?: MacroNode }).operand];
    case 'listExpr':
      return (k.value as { elements: MacroNode[] }).elements;
    case 'structExpr':
      return (k.value as { entries: { value?: MacroNode; keyKind: { case: string | undefined; value?: unknown } }[] }).entries.flatMap(
        (entry) => [entry.keyKind.case === 'mapKey' ? (entry.keyKind.value as MacroNode) : undefined, entry.value],
      );
    case 'comprehensionExpr': {
      const c = k.value as Record<string, MacroNode | undefined>;
      return [c['iterRange'], c['accuInit'], c['loopCondition'], c['loopStep'], c['result']];
    }
    default:
      return [];
  }
}

/**
 * Expands every `cel.bind(v, init, expr)` in place; the error cel-go's parser reports when the
 * variable is not a plain identifier. `nextId` hands out ids for the new nodes.
 */
export function expandMacros(e: MacroNode | undefined, nextId: () => bigint): string | undefined {
  if (!e) return undefined;
  for (const child of subnodes(e)) {
    const error = expandMacros(child, nextId);
    if (error !== undefined) return error;
  }
  if (e.exprKind.case !== 'callExpr') return undefined;
  const call = e.exprKind.value as { function: string; target?: MacroNode; args: MacroNode[] };
  const target = call.target?.exprKind;
  if (call.function !== 'bind' || call.args.length !== 3 || target?.case !== 'identExpr') return undefined;
  if ((target.value as { name: string }).name !== 'cel') return undefined;
  const [variable, init, result] = call.args as [MacroNode, MacroNode, MacroNode];
  if (variable.exprKind.case !== 'identExpr') return 'cel.bind() variable names must be simple identifiers';
  const name = (variable.exprKind.value as { name: string }).name;
  e.exprKind = {
    case: 'comprehensionExpr',
    value: {
      $typeName: 'cel.expr.Expr.Comprehension',
      iterVar: UNUSED_ITER_VAR,
      iterVar2: '',
      iterRange: node(nextId(), { case: 'listExpr', value: { $typeName: 'cel.expr.Expr.CreateList', elements: [], optionalIndices: [] } }),
      accuVar: name,
      accuInit: init,
      loopCondition: node(nextId(), {
        case: 'constExpr',
        value: { $typeName: 'cel.expr.Constant', constantKind: { case: 'boolValue', value: false } },
      }),
      loopStep: node(nextId(), { case: 'identExpr', value: { $typeName: 'cel.expr.Expr.Ident', name } }),
      result,
    },
  };
  return undefined;
}
