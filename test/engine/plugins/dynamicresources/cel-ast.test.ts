import assert from 'node:assert/strict';
import { parse } from '@bufbuild/cel';
import { exprChildren, qualifiedName, type AstNode } from '../../../../src/engine/plugins/dynamicresources/cel-ast';

/** A node as text, enough to tell the children apart: an identifier's name, a constant's value, a call's function. */
function label(e: AstNode | undefined): string {
  if (!e) return '-';
  const v = e.exprKind.value as Record<string, unknown>;
  switch (e.exprKind.case) {
    case 'identExpr':
      return v['name'] as string;
    case 'constExpr':
      return String((v['constantKind'] as { value: unknown }).value);
    case 'callExpr':
      return `${v['function'] as string}()`;
    case 'selectExpr':
      return `.${v['field'] as string}`;
    default:
      return e.exprKind.case ?? '?';
  }
}

describe('engine/plugins/dynamicresources/cel-ast', () => {
  // The children in cel-go's planning order: a call's target first, a map's key before its value,
  // a comprehension's range, accumulator, condition, step and result.
  const children: Array<[expression: string, expected: string[]]> = [
    ['f(a, b)', ['-', 'a', 'b']],
    ['a.f(b, 1)', ['a', 'b', '1']],
    ['a.b', ['a']],
    ['[a, 2, c]', ['a', '2', 'c']],
    ['{a: b, "k": 1}', ['a', 'b', 'k', '1']],
    ['a', []],
    ['[1].all(x, x > 0)', ['listExpr', 'true', '@not_strictly_false()', '_&&_()', '@result']],
  ];
  for (const [expression, expected] of children) {
    it(`the children of ${expression}`, () => {
      assert.deepEqual(exprChildren(parse(expression).expr! as AstNode).map(label), expected);
    });
  }

  const names: Array<[expression: string, expected: string | undefined]> = [
    ['sets', 'sets'],
    ['a.b.c', 'a.b.c'],
    ['a[0].b', undefined],
    ['f(a).b', undefined],
  ];
  for (const [expression, expected] of names) {
    it(`the qualified name of ${expression}`, () => {
      assert.equal(qualifiedName(parse(expression).expr as AstNode), expected);
    });
  }
});
