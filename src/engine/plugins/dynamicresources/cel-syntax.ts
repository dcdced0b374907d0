/**
 * cel-go's syntax errors, in its words, at its places and in its order: the expression parsed by a
 * parser generated from cel-go v0.29.2's own grammar (cel-grammar/CEL.g4, by antlr-ng for the
 * antlr4ng runtime; cel-grammar/README.md) with cel-go's error handling (parser/parser.go): the
 * ANTLR runtime's DefaultErrorStrategy (`mismatched input … expecting …`, `extraneous input`,
 * `missing … at`, `no viable alternative at input`, the lexer's `token recognition error at:`),
 * each `Syntax error: …` at its token; the recovery limits (30 recovery attempts, 256 tokens
 * consumed by one recovery, 100 syntax errors), the parse listener's recursion limit (250 of one
 * rule nested) and the expression size limit (100,000 code points); and, of the parser's visitor,
 * its recursion limit, the reserved identifiers it refuses (`reserved identifier: if`, and a
 * macro's `argument must be a simple name` when one, or a literal, is its variable; has() of a
 * literal or an identifier), numbers out of range
 * (`invalid int literal`) and a `.?` with no name.
 * @bufbuild/cel stays the parser the planner evaluates; this one only says whether, and why, cel-go
 * refuses to parse.
 */
import {
  BaseErrorListener,
  CharStream,
  CommonTokenStream,
  DefaultErrorStrategy,
  ParserRuleContext,
  type TerminalNode,
  type ATNSimulator,
  type ErrorNode,
  type ParseTree,
  type ParseTreeListener,
  type Parser,
  type RecognitionException,
  type Recognizer,
  type Token,
} from 'antlr4ng';
import { CELLexer } from './cel-grammar/gen/cel-lexer';
import {
  CalcContext,
  CELParser,
  DoubleContext,
  IntContext,
  LiteralContext,
  UintContext,
  EscapeIdentContext,
  ExprContext,
  GlobalCallContext,
  IdentContext,
  IndexContext,
  MemberCallContext,
  RelationContext,
  SelectContext,
} from './cel-grammar/gen/cel-parser';

/** cel-go's parser limits (parser/parser.go NewParser defaults; Kubernetes sets none of them). */
const ERROR_RECOVERY_LIMIT = 30;
const ERROR_RECOVERY_LOOKAHEAD_LIMIT = 256;
const ERROR_REPORTING_LIMIT = 100;
const MAX_RECURSION_DEPTH = 250;
const EXPRESSION_SIZE_CODE_POINT_LIMIT = 100_000;
/** common/errors.go NewErrors: the errors a message shows, then how many more there were. */
const MAX_ERRORS_TO_REPORT = 100;

/** parser/parser.go reservedIds: identifiers the grammar takes that cel-go's visitor refuses. */
const RESERVED_IDS: ReadonlySet<string> = new Set([
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

/** An error at a line (from 1) and column (from 0, in code points); line -1 where cel-go has no location. */
interface SyntaxIssue {
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

/** Thrown to stop the parse where cel-go panics (its limits). */
class Stop extends Error {}

class Listener extends BaseErrorListener {
  readonly issues: SyntaxIssue[] = [];
  private reports = 0;

  override syntaxError<S extends Token, T extends ATNSimulator>(
    _recognizer: Recognizer<T>,
    _offendingSymbol: S | null,
    line: number,
    column: number,
    msg: string,
  ): void {
    // cel-go's words for a literal where a field name goes (parser.go SyntaxError, reservedIdentifier).
    const message = msg.includes('no viable alternative')
      ? msg.replace(/no viable alternative at input '.(true|false|null)'/g, "mismatched input '$1' expecting IDENTIFIER")
      : msg;
    if (this.reports < ERROR_REPORTING_LIMIT) {
      this.reports++;
      this.issues.push({ line, column, message: `Syntax error: ${message}` });
      return;
    }
    this.issues.push({ line, column, message: `Syntax error: More than ${ERROR_REPORTING_LIMIT} syntax errors` });
    throw new Stop();
  }
}

/** parser.go recoveryLimitErrorStrategy and lookaheadConsumer. */
class RecoveryLimitErrorStrategy extends DefaultErrorStrategy {
  private attempts = 0;

  constructor(private readonly internal: (message: string) => void) {
    super();
  }

  override recover(recognizer: Parser, e: RecognitionException): void {
    this.checkAttempts(recognizer);
    this.limitLookahead(recognizer, () => super.recover(recognizer, e));
  }

  override recoverInline(recognizer: Parser): Token {
    this.checkAttempts(recognizer);
    return this.limitLookahead(recognizer, () => super.recoverInline(recognizer));
  }

  private checkAttempts(recognizer: Parser): void {
    if (this.attempts === ERROR_RECOVERY_LIMIT) {
      this.attempts++;
      recognizer.notifyErrorListeners(`error recovery attempt limit exceeded: ${ERROR_RECOVERY_LIMIT}`, null, null);
      throw new Stop();
    }
    this.attempts++;
  }

  private limitLookahead<R>(recognizer: Parser, recovery: () => R): R {
    const consume = recognizer.consume.bind(recognizer);
    let consumed = 0;
    recognizer.consume = () => {
      if (consumed >= ERROR_RECOVERY_LOOKAHEAD_LIMIT) {
        this.internal(`error recovery token lookahead limit exceeded: ${ERROR_RECOVERY_LOOKAHEAD_LIMIT}`);
        throw new Stop();
      }
      consumed++;
      return consume();
    };
    try {
      return recovery();
    } finally {
      // The prototype's consume again.
      delete (recognizer as { consume?: unknown }).consume;
    }
  }
}

/** parser.go recursionListener: the depth of each rule nested in itself. */
class RecursionListener implements ParseTreeListener {
  private readonly depths = new Map<number, number>();

  constructor(private readonly internal: (message: string) => void) {}

  visitTerminal(_node: TerminalNode): void {}

  visitErrorNode(_node: ErrorNode): void {}

  enterEveryRule(ctx: ParserRuleContext): void {
    const depth = (this.depths.get(ctx.ruleIndex) ?? 0) + 1;
    this.depths.set(ctx.ruleIndex, depth);
    if (depth > MAX_RECURSION_DEPTH) {
      this.internal(`expression recursion limit exceeded: ${MAX_RECURSION_DEPTH}`);
      throw new Stop();
    }
  }

  exitEveryRule(ctx: ParserRuleContext): void {
    const depth = this.depths.get(ctx.ruleIndex) ?? 0;
    if (depth > 0) this.depths.set(ctx.ruleIndex, depth - 1);
  }
}

/**
 * cel-go's parse errors of an expression as kube-apiserver's message lists them (each
 * `<input>:line:column: words`, one a line, sorted by place); undefined when cel-go parses it.
 */
export function celGoSyntaxErrors(expression: string): string | undefined {
  if (cache.has(expression)) return cache.get(expression);
  const result = syntaxErrors(expression);
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(expression, result);
  return result;
}

const cache = new Map<string, string | undefined>();
const MAX_CACHED = 4096;

function syntaxErrors(expression: string): string | undefined {
  const issues: SyntaxIssue[] = [];
  const internal = (message: string): void => {
    issues.push({ line: -1, column: -1, message });
  };
  const size = [...expression].length;
  if (size > EXPRESSION_SIZE_CODE_POINT_LIMIT) {
    internal(`expression code point size exceeds limit: size: ${size}, limit ${EXPRESSION_SIZE_CODE_POINT_LIMIT}`);
    return display(issues);
  }
  const listener = new Listener();
  const lexer = new CELLexer(CharStream.fromString(expression));
  lexer.removeErrorListeners();
  lexer.addErrorListener(listener);
  const parser = new CELParser(new CommonTokenStream(lexer));
  parser.removeErrorListeners();
  parser.addErrorListener(listener);
  parser.addParseListener(new RecursionListener(internal));
  parser.errorHandler = new RecoveryLimitErrorStrategy(internal);
  let tree: ParseTree | undefined;
  try {
    tree = parser.start();
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
  }
  issues.unshift(...listener.issues);
  // The visitor runs on the tree (the one the recovery made too): its recursion limit, its reserved
  // identifiers (those it meets before it stops).
  if (tree && visitorDepth(tree) > MAX_RECURSION_DEPTH) internal('max recursion depth exceeded');
  else if (tree) visitorErrors(tree, issues);
  return issues.length === 0 ? undefined : display(issues);
}

/**
 * The deepest nesting of the nodes parser.go's Visit counts against its recursion limit (a
 * conditional, a relation or arithmetic with its operator, a select, a member call, an index):
 * `a.b.c…`, `1 + 1 + …` past 250 are refused though the parse listener's limit (one rule nested in
 * itself) lets them through.
 */
function visitorDepth(tree: ParseTree): number {
  let deepest = 0;
  for (let i = 0; i < tree.getChildCount(); i++) {
    const child = tree.getChild(i);
    if (child) deepest = Math.max(deepest, visitorDepth(child));
  }
  return deepest + (countsDepth(tree) ? 1 : 0);
}

function countsDepth(tree: ParseTree): boolean {
  if (tree instanceof SelectContext || tree instanceof MemberCallContext || tree instanceof IndexContext) return true;
  if (tree instanceof ExprContext || tree instanceof RelationContext || tree instanceof CalcContext) return tree._op != null;
  return false;
}

/**
 * The identifiers (a name, a global call's name) parser.go VisitIdent and VisitGlobalCall refuse,
 * and the errors the macros then give on such a name in a variable's place (macro.go
 * makeQuantifier, the map and filter macros, ext/comprehensions.go extractIterVar: `argument must be
 * a simple name`, at the name, after its own error); `.?` with no name after it (VisitSelect's
 * normalizeIdent: `unsupported ident kind`).
 */
function visitorErrors(tree: ParseTree, out: SyntaxIssue[]): void {
  if (tree instanceof IdentContext || tree instanceof GlobalCallContext) {
    const id = tree._id;
    if (id?.text !== undefined && RESERVED_IDS.has(id.text)) {
      const start = tree.start;
      out.push({ line: start?.line ?? -1, column: start?.column ?? -1, message: `reserved identifier: ${id.text}` });
    }
  }
  const literal = literalError(tree);
  if (literal !== undefined && tree instanceof ParserRuleContext) {
    out.push({ line: tree.start?.line ?? -1, column: tree.start?.column ?? -1, message: literal });
  }
  for (let i = 0; i < tree.getChildCount(); i++) {
    const child = tree.getChild(i);
    if (child) visitorErrors(child, out);
  }
  if (tree instanceof SelectContext && tree._op != null && tree._id?.constructor === EscapeIdentContext) {
    const start = tree._id.start;
    out.push({ line: start?.line ?? -1, column: start?.column ?? -1, message: 'unsupported ident kind' });
  }
  // has() of what is not a select (macro.go MakeHas).
  if (tree instanceof GlobalCallContext && tree._id?.text === 'has' && tree._args?._e.length === 1) {
    const arg = simpleArgument(tree._args._e[0]!);
    if (arg) out.push({ line: arg.start?.line ?? -1, column: arg.start?.column ?? -1, message: 'invalid argument to has() macro' });
  }
  if (tree instanceof MemberCallContext) {
    const name = tree._id?.text ?? '';
    const args = tree._args?._e ?? [];
    const receiver = tree.getChild(0)?.getText();
    const macro = MACRO_VARIABLES.get(`${receiver === 'cel' ? 'cel.' : ''}${name}/${args.length}`);
    for (const arg of args.slice(0, macro?.[0] ?? 0)) {
      const ident = notAName(arg);
      if (ident) {
        out.push({ line: ident.start?.line ?? -1, column: ident.start?.column ?? -1, message: macro![1] });
        break;
      }
    }
  }
}

/** parser.go VisitInt, VisitUint, VisitDouble: a number strconv cannot hold (only `0x` is hex). */
function literalError(tree: ParseTree): string | undefined {
  if (tree instanceof IntContext) {
    const n = integer(tree._tok?.text ?? '');
    const v = n === undefined ? undefined : tree._sign != null ? -n : n;
    return v === undefined || v < -(2n ** 63n) || v >= 2n ** 63n ? 'invalid int literal' : undefined;
  }
  if (tree instanceof UintContext) {
    const n = integer((tree._tok?.text ?? '').slice(0, -1));
    return n === undefined || n >= 2n ** 64n ? 'invalid uint literal' : undefined;
  }
  if (tree instanceof DoubleContext) {
    return Number.isFinite(Number(tree._tok?.text ?? '')) ? undefined : 'invalid double literal';
  }
  return undefined;
}

function integer(text: string): bigint | undefined {
  if (text.startsWith('0x')) return /^0x[0-9a-fA-F]+$/.test(text) ? BigInt(text) : undefined;
  return /^[0-9]+$/.test(text) ? BigInt(text) : undefined;
}

const SIMPLE_NAME = 'argument must be a simple name';
const NOT_AN_IDENTIFIER = 'argument is not an identifier';

/**
 * The receiver macros of the selector environment, by name and argument count: how many leading
 * arguments are variables, and the words for one that is not a name (parser/macro.go,
 * ext/comprehensions.go, ext/lists.go sortBy, ext/bindings.go, cel/library.go optMap, optFlatMap).
 */
const MACRO_VARIABLES: ReadonlyMap<string, readonly [number, string]> = new Map([
  ['all/2', [1, SIMPLE_NAME]],
  ['exists/2', [1, SIMPLE_NAME]],
  ['exists_one/2', [1, SIMPLE_NAME]],
  ['map/2', [1, NOT_AN_IDENTIFIER]],
  ['map/3', [1, NOT_AN_IDENTIFIER]],
  ['filter/2', [1, NOT_AN_IDENTIFIER]],
  ['sortBy/2', [1, NOT_AN_IDENTIFIER]],
  ['optMap/2', [1, 'optMap() variable name must be a simple identifier']],
  ['optFlatMap/2', [1, 'optFlatMap() variable name must be a simple identifier']],
  ['cel.bind/3', [1, 'cel.bind() variable names must be simple identifiers']],
  ['all/3', [2, SIMPLE_NAME]],
  ['exists/3', [2, SIMPLE_NAME]],
  ['existsOne/3', [2, SIMPLE_NAME]],
  ['exists_one/3', [2, SIMPLE_NAME]],
  ['transformList/3', [2, SIMPLE_NAME]],
  ['transformList/4', [2, SIMPLE_NAME]],
  ['transformMap/3', [2, SIMPLE_NAME]],
  ['transformMap/4', [2, SIMPLE_NAME]],
  ['transformMapEntry/3', [2, SIMPLE_NAME]],
  ['transformMapEntry/4', [2, SIMPLE_NAME]],
]);

/** What an argument is (in parentheses or not) when it is a literal or an identifier. */
function simpleArgument(arg: ParseTree): IdentContext | LiteralContext | undefined {
  let node: ParseTree | null = arg;
  // Down the single-child chain (expr, conditionals, relation, calc, unary, member, primary) and
  // through parentheses.
  while (node && !(node instanceof IdentContext) && !(node instanceof LiteralContext)) {
    if (node.getChildCount() === 1) node = node.getChild(0);
    else if (node.getChildCount() === 3 && node.getChild(0)?.getText() === '(' && node.getChild(2)?.getText() === ')')
      node = node.getChild(1);
    else return undefined;
  }
  return node ?? undefined;
}

/** An argument a macro takes for a variable's name that is not one: a literal, a reserved identifier. */
function notAName(arg: ParseTree): IdentContext | LiteralContext | undefined {
  const node = simpleArgument(arg);
  return node instanceof LiteralContext || (node && RESERVED_IDS.has(node._id?.text ?? '')) ? node : undefined;
}

/** common/errors.go ToDisplayString: sorted by line and column (stably), at most 100 shown. */
function display(issues: readonly SyntaxIssue[]): string {
  const sorted = [...issues].sort((a, b) => a.line - b.line || a.column - b.column);
  const lines = sorted
    .slice(0, MAX_ERRORS_TO_REPORT)
    .map((i) => (i.line < 0 ? `<input>:-1:0: ${i.message}` : `<input>:${i.line}:${i.column + 1}: ${i.message}`));
  if (sorted.length > MAX_ERRORS_TO_REPORT) lines.push(`${sorted.length - MAX_ERRORS_TO_REPORT} more errors were truncated`);
  return lines.join('\n');
}
