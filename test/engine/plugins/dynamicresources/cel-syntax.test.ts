import assert from 'node:assert/strict';
import { compileSelector } from '../../../../src/engine/plugins/dynamicresources/cel';
import { celGoSyntaxErrors } from '../../../../src/engine/plugins/dynamicresources/cel-syntax';

// cel-go v0.29.2's parse errors as kube-apiserver 1.37.2 gives them (the oracle's -celcost output,
// each `ERROR: ` line without its prefix and snippet); cel-cost.test.ts compares a larger corpus live.
const EXPECTING_EXPR = "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

const CASES: readonly { readonly expression: string; readonly errors: readonly string[] }[] = [
  { expression: 'device.driver == (1', errors: ["<input>:1:20: Syntax error: missing ')' at '<EOF>'"] },
  {
    expression: '1 + + 2 )',
    errors: [
      `<input>:1:5: Syntax error: extraneous input '+' expecting ${EXPECTING_EXPR}`,
      "<input>:1:9: Syntax error: extraneous input ')' expecting <EOF>",
    ],
  },
  {
    expression: '"abc',
    errors: [
      `<input>:1:1: Syntax error: token recognition error at: '"abc'`,
      `<input>:1:5: Syntax error: mismatched input '<EOF>' expecting ${EXPECTING_EXPR}`,
    ],
  },
  // A literal where a field name goes: cel-go's words for it, not ANTLR's `no viable alternative`.
  { expression: 'a.true', errors: ["<input>:1:3: Syntax error: mismatched input 'true' expecting IDENTIFIER"] },
  { expression: 'a..b', errors: ["<input>:1:3: Syntax error: no viable alternative at input '..'"] },
  // A reserved identifier (the parser's visitor), sorted with the syntax errors by place.
  { expression: 'if == 1', errors: ['<input>:1:1: reserved identifier: if'] },
  {
    expression: 'if == 1 && (',
    errors: ['<input>:1:1: reserved identifier: if', `<input>:1:13: Syntax error: mismatched input '<EOF>' expecting ${EXPECTING_EXPR}`],
  },
  // A reserved identifier as a macro's variable: the macro's error too, at it, after it.
  {
    expression: '[1].exists(if, if > 0)',
    errors: [
      '<input>:1:12: reserved identifier: if',
      '<input>:1:12: argument must be a simple name',
      '<input>:1:16: reserved identifier: if',
    ],
  },
  {
    expression: 'cel.bind(if, 1, true)',
    errors: ['<input>:1:10: reserved identifier: if', '<input>:1:10: cel.bind() variable names must be simple identifiers'],
  },
  { expression: '[1].map(x, while, 1) == [1]', errors: ['<input>:1:12: reserved identifier: while'] },
  {
    expression: 'a.?',
    errors: [
      "<input>:1:4: Syntax error: mismatched input '<EOF>' expecting {IDENTIFIER, ESC_IDENTIFIER}",
      '<input>:1:4: unsupported ident kind',
    ],
  },
  // Numbers strconv cannot hold, with the syntax errors, by place.
  {
    expression: '[99999999999999999999, 1e999] == [] && (',
    errors: [
      '<input>:1:2: invalid int literal',
      '<input>:1:24: invalid double literal',
      `<input>:1:41: Syntax error: mismatched input '<EOF>' expecting ${EXPECTING_EXPR}`,
    ],
  },
  { expression: '18446744073709551616u > 0u', errors: ['<input>:1:1: invalid uint literal'] },
  {
    expression: ') ) ) )',
    errors: [`<input>:1:1: Syntax error: mismatched input ')' expecting ${EXPECTING_EXPR}`],
  },
  // Lines from 1, columns from 1 in code points.
  {
    expression: 'a\n  #\n  b == 1 )',
    errors: [
      "<input>:2:3: Syntax error: token recognition error at: '#'",
      "<input>:3:3: Syntax error: mismatched input 'b' expecting <EOF>",
    ],
  },
  { expression: '"😀😀" == a.b )', errors: ["<input>:1:13: Syntax error: extraneous input ')' expecting <EOF>"] },
  // cel-go's limits: nesting, recovery attempts.
  { expression: `${'('.repeat(260)}1${')'.repeat(260)}`, errors: ['<input>:-1:0: expression recursion limit exceeded: 250'] },
  { expression: `1${' + 1'.repeat(250)} > 0`, errors: ['<input>:-1:0: max recursion depth exceeded'] },
  { expression: `device${'.b'.repeat(300)} == 1`, errors: ['<input>:-1:0: max recursion depth exceeded'] },
];

describe('engine/plugins/dynamicresources/cel-syntax', () => {
  for (const c of CASES) {
    it(`${JSON.stringify(c.expression.length > 60 ? `${c.expression.slice(0, 60)}…` : c.expression)}: cel-go's errors`, () => {
      assert.equal(celGoSyntaxErrors(c.expression), c.errors.join('\n'));
      // compileSelector refuses it in those words.
      assert.deepEqual(compileSelector(c.expression), { ok: false, error: c.errors.join('\n') });
    });
  }

  it('what cel-go parses has no syntax error (the optional syntax too, 249 operators nested)', () => {
    for (const e of [
      `1${' + 1'.repeat(249)} > 0`,
      '-9223372036854775808 < 0',
      '18446744073709551615u > 0u',
      '1e-999 == 0.0',
      'device.driver == "a"',
      'device.attributes["a"].?b.orValue(1) == 1',
      '[?optional.none()] == []',
      '{?"a": optional.of(1)}.size() == 1',
    ]) {
      assert.equal(celGoSyntaxErrors(e), undefined, e);
    }
  });

  it('stops after 30 recovery attempts, as cel-go', () => {
    const errors = celGoSyntaxErrors(`1 ${'== '.repeat(300)}1`)!.split('\n');
    assert.equal(errors.length, 32);
    assert.equal(errors.at(-1), '<input>:1:96: Syntax error: error recovery attempt limit exceeded: 30');
  });

  it('shows 100 errors, then how many more there were', () => {
    const errors = celGoSyntaxErrors(Array.from({ length: 120 }, () => '[1 1]').join(' + '))!.split('\n');
    assert.equal(errors.length, 101);
    assert.equal(errors.at(-2), "<input>:1:796: Syntax error: extraneous input '1' expecting {']', ','}");
    assert.equal(errors.at(-1), '1 more errors were truncated');
  });

  it('refuses an expression past 100,000 code points without parsing it', () => {
    assert.equal(
      celGoSyntaxErrors(`"${'x'.repeat(100_000)}"`),
      '<input>:-1:0: expression code point size exceeds limit: size: 100002, limit 100000',
    );
  });
});
