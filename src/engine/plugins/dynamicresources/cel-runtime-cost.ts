// The runtime cost limit of DRA device selectors, as the scheduler's allocator meets it: upstream
// compiles every selector with cel.CostLimit(resourceapi.CELSelectorExpressionMaxCost = 1000000)
// (k8s.io/dynamic-resource-allocation v0.37.2 cel/compile.go), and cel-go stops the evaluation once
// its actual cost passes the limit (interpreter/runtimecost.go: `operation cancelled: actual cost
// limit exceeded`), which the allocator reports as the selector's CEL runtime error.
//
// The actual cost is cel-go v0.29.2's CostTracker over the program Kubernetes plans (the checked
// AST, OptOptimize, PresenceTestHasCost(false)), counted here by a second walk of the expression in
// cel-go's shape (cel-macros.ts 'cel-go'), with values from the same functions the selector runs:
// - an attribute (an identifier, or a call's result made relative) costs 1 when it is evaluated as
//   an expression, and each qualifier applied to it (a field, a constant index, an index by another
//   attribute or expression) 1 more; a branch of `?:` that is an attribute is resolved without its
//   own 1 (planCallConditional takes its Attr()); `has(a.f)` costs its qualifiers only;
// - the optional syntax's `a.?f` and `a[?k]` are qualifiers too (planCallIndex with its optional
//   flag), and so are a select and an index on an optional: once an optional qualifier or an
//   optional root is met, each qualifier tests presence and costs 1 only when present, the first
//   absent one ending the attribute as optional.none() (attributes.go applyQualifiers,
//   evalWatch*Qual.QualifyIfPresent); an optional list element or map entry costs what its value
//   does, the list or map 10 or 30 as any;
// - constants cost 0, and so do list and map literals of constants and type conversions of a
//   constant (OptOptimize folds them); another list literal costs 10, a map literal 30;
// - `&&`, `||`, `?:` and a comprehension cost nothing themselves: their operands as evaluated
//   (short-circuits, the fold stopping when its condition is false, the accumulator's initial value
//   evaluated when first read);
// - a call costs its arguments and the call's own cost from the actual values: cel-go's overload
//   trackers (the lists extension), then Kubernetes' CostEstimator.CallCost (k8s.io/apiserver
//   v0.37.2 pkg/cel/library/cost.go), then cel-go's defaults by overload id (1 for most);
//   `x in [constants]` costs its operand only (a set membership test).
// The walk stops as cel-go does once the cost passes the limit.
import { KUBERNETES_EQUALITY_TYPES, kubernetesTypeMismatch } from './cel-equality';
import {
  celEnv,
  celFunc,
  celList,
  celMap,
  CelScalar,
  listType,
  mapType,
  celUint,
  isCelError,
  isCelList,
  isCelMap,
  isCelUint,
  parse,
  plan,
  type CelEnv,
  type CelList,
  type CelMap,
} from '@bufbuild/cel';
import { isReflectMessage, type ReflectMessage } from '@bufbuild/protobuf/reflect';
import { CONVERSIONS, exprChildren, qualifiedName, TYPE_IDENTS } from './cel-ast';
import { COST, type CostExpr } from './cel-cost';
import { isOptional, optionalHeld, optionalNone, optionalOf } from './cel-optional';

/** cel-go's error when the actual cost passes the limit (interpreter.EvalCancelledError). */
export const COST_LIMIT_EXCEEDED = 'operation cancelled: actual cost limit exceeded';

/** What the walk needs: the selector in cel-go's shape, the checker's references and the selectors' functions. */
export interface CostTracking {
  readonly env: CelEnv;
  readonly expr: CostExpr;
  readonly overloads: ReadonlyMap<bigint, readonly string[]>;
  readonly qualified: ReadonlySet<bigint>;
}

/** The actual cost of evaluating the selector on `device` (its CEL value), or undefined for a construct the walk does not cover. */
export type ActualCost = { readonly cost: number; readonly exceeded: boolean } | undefined;

/** The actual cost, counted until it passes `limit` (then `exceeded`, and the cost at that point). */
export function actualCost(t: CostTracking, device: unknown, limit: number): ActualCost {
  let p = plans.get(t);
  if (!p) plans.set(t, (p = new Plans(t.expr)));
  const plan = p;
  return inEvalContext(t.env, () => {
    const walk = new Walk(t, plan, limit);
    try {
      walk.eval(t.expr, new Scope(undefined, 'device', { v: celMap(device as never) }));
    } catch (e) {
      if (e === OVER) return { cost: walk.cost, exceeded: true };
      // cel-go's program recovers a panic as an `internal error`: the evaluation ends there.
      if (e === INTERNAL) return { cost: walk.cost, exceeded: false };
      if (e === UNSUPPORTED) return undefined;
      throw e;
    }
    return { cost: walk.cost, exceeded: false };
  });
}

const OVER = Symbol('actual cost limit exceeded');
/**
 * A tree the walk does not count, none of which a selector that compiles holds: a node missing, a
 * constant of a kind the parser never makes, a select or index on a presence test, a message field
 * key in a map literal or a map key in a message literal. actualCost is then undefined, and the
 * selector is evaluated without the limit (cel.ts; docs/fidelity.md).
 */
const UNSUPPORTED = Symbol('not covered');
const INTERNAL = Symbol('a cost tracker panicked');

/** An error value (cel-go's types.Err): what it says does not matter here, only that it is one. */
class Err {
  constructor(readonly message: string) {}
}

type Val = unknown;

const isErr = (v: Val): boolean => v instanceof Err || isCelError(v);

/** A variable in scope: a value, or a comprehension's accumulator not evaluated yet. */
type Slot = { v: Val } | { lazy: () => Val };

class Scope {
  constructor(
    private readonly parent: Scope | undefined,
    private readonly name: string,
    private slot: Slot,
  ) {}

  lookup(name: string): Val | undefined {
    if (this.name !== name) return this.parent?.lookup(name);
    if ('lazy' in this.slot) this.slot = { v: this.slot.lazy() };
    return this.slot.v;
  }

  set(v: Val): void {
    this.slot = { v };
  }
}

// ---- attributes as cel-go's planner builds them ---------------------------------------------------

/** A qualifier; `opt` for the optional syntax's (`a.?f`, `a[?k]`), which tests presence. */
type Qual =
  | { readonly k: 'const'; readonly value: Val; readonly opt: boolean }
  | { readonly k: 'attr'; readonly node: CostExpr; readonly opt: boolean }
  | { readonly k: 'rel'; readonly node: CostExpr; readonly opt: boolean }
  | { readonly k: 'test'; readonly field: string };

type Root =
  | { readonly k: 'ident'; readonly name: string }
  | { readonly k: 'rel'; readonly node: CostExpr }
  | { readonly k: 'cond'; readonly cond: CostExpr; readonly t: CostExpr; readonly f: CostExpr };

interface Chain {
  readonly root: Root;
  readonly quals: readonly Qual[];
  /** Whether a qualifier is a presence test (`has()`). */
  readonly testOnly: boolean;
}

/** What the walk computes of a call node once: the function's name, its operands and overloads. */
interface CallPlan {
  readonly fn: string;
  readonly operands: readonly CostExpr[];
  /** Whether the first operand is the target the function is dispatched on. */
  readonly onTarget: boolean;
  readonly ids: readonly string[];
  readonly overloadId: string;
  /** A var-args call as cel-go plans it (see Walk.call). */
  readonly varArgs: boolean;
}

/**
 * What the walk computes of a selector's nodes once, kept with its CostTracking: a node folded to a
 * constant (null when it is not one), an attribute's chain, a call's plan, and the identifiers that
 * name a comprehension's variable (so `list` in `[1].all(list, list > 0)` is no type).
 */
class Plans {
  readonly folded = new Map<CostExpr, { readonly v: Val } | null>();
  readonly chains = new Map<CostExpr, Chain>();
  readonly calls = new Map<CostExpr, CallPlan>();
  readonly variables = new Set<CostExpr>();

  constructor(root: CostExpr) {
    const walk = (e: CostExpr | undefined, bound: ReadonlySet<string>): void => {
      if (!e) return;
      const k = e.exprKind;
      if (k.case === 'identExpr' && bound.has(k.value.name)) this.variables.add(e);
      if (k.case !== 'comprehensionExpr') {
        for (const child of exprChildren(e)) walk(child, bound);
        return;
      }
      // cel-go's checker: the range and the accumulator's initial value outside, the condition and
      // the step with the iteration variables and the accumulator, the result with the accumulator.
      const c = k.value;
      const withAccu = new Set([...bound, c.accuVar]);
      const inLoop = new Set([...withAccu, c.iterVar, ...(c.iterVar2 !== '' ? [c.iterVar2] : [])]);
      walk(c.iterRange, bound);
      walk(c.accuInit, bound);
      walk(c.loopCondition, inLoop);
      walk(c.loopStep, inLoop);
      walk(c.result, withAccu);
    };
    walk(root, new Set());
  }

  private readonly builders = new Map<CostExpr, Map<string, (ctx: Record<string, Val>) => Val>>();

  /** A program building the message literal `e` from its `present` fields' values (variables FIELD_VARIABLE + index). */
  messageBuilder(env: CelEnv, e: CostExpr, present: readonly number[]): (ctx: Record<string, Val>) => Val {
    let byFields = this.builders.get(e);
    if (!byFields) this.builders.set(e, (byFields = new Map()));
    const key = present.join(',');
    let built = byFields.get(key);
    if (!built) {
      const literal = e.exprKind.value as Extract<CostExpr['exprKind'], { case: 'structExpr' }>['value'];
      const entries = present.map((i) => ({
        ...literal.entries[i]!,
        optionalEntry: false,
        value: {
          $typeName: 'cel.expr.Expr',
          id: e.id,
          exprKind: { case: 'identExpr', value: { $typeName: 'cel.expr.Expr.Ident', name: `${FIELD_VARIABLE}${i}` } },
        },
      }));
      const expr = { ...e, exprKind: { case: 'structExpr', value: { ...literal, entries } } };
      built = plan(env, expr as never) as unknown as (ctx: Record<string, Val>) => Val;
      byFields.set(key, built);
    }
    return built;
  }

  /** Whether the node names a message type (`google.protobuf.Duration`): a constant, as the checker resolves it. */
  isMessageType(e: CostExpr, env: CelEnv): boolean {
    let root: CostExpr | undefined = e;
    while (root?.exprKind.case === 'selectExpr') root = root.exprKind.value.operand;
    if (!root || this.variables.has(root)) return false;
    const name = qualifiedName(e);
    return name !== undefined && name !== 'device' && env.registry.getMessage(name) !== undefined;
  }

  /** Whether the node is a type identifier (not a comprehension's variable of that name). */
  isTypeIdent(e: CostExpr): boolean {
    return e.exprKind.case === 'identExpr' && TYPE_IDENTS.has(e.exprKind.value.name) && !this.variables.has(e);
  }
}

const plans = new WeakMap<CostTracking, Plans>();

/** The variables a message literal's builder reads its fields' values from (no CEL identifier has a `#`). */
const FIELD_VARIABLE = '#field';

/** The calls cel-go's planner makes attributes of: indexes (planCallIndex, the optional syntax's too) and the conditional. */
const ATTRIBUTE_CALLS = new Set(['_[_]', '_[?_]', '_?._', '_?_:_']);

/**
 * The type identifiers' values (a checked identifier of type kind: a constant) as @bufbuild/cel's
 * type() gives them: `list` and `map` as the list and map of dyn, whatever their elements (cel-go's
 * ListType and MapType equal any list and map type); `dyn`, which type() never gives and DRA's
 * environment does not declare, as dyn.
 */
const TYPE_VALUES: Readonly<Record<string, unknown>> = {
  bool: CelScalar.BOOL,
  bytes: CelScalar.BYTES,
  double: CelScalar.DOUBLE,
  int: CelScalar.INT,
  uint: CelScalar.UINT,
  string: CelScalar.STRING,
  null_type: CelScalar.NULL,
  type: CelScalar.TYPE,
  list: listType(CelScalar.DYN),
  map: mapType(CelScalar.DYN, CelScalar.DYN),
  dyn: CelScalar.DYN,
};

function call(e: CostExpr): { function: string; target?: CostExpr; args: readonly CostExpr[] } | undefined {
  return e.exprKind.case === 'callExpr' ? e.exprKind.value : undefined;
}

class Walk {
  cost = 0;

  constructor(
    private readonly t: CostTracking,
    private readonly plans: Plans,
    private readonly limit: number,
  ) {}

  private add(n: number): void {
    this.cost += n;
    if (this.cost > this.limit) throw OVER;
  }

  /** Whether the planner makes the node an attribute (InterpretableAttribute). */
  private isAttr(e: CostExpr): boolean {
    const k = e.exprKind;
    if (k.case === 'identExpr') return !this.plans.isTypeIdent(e) && !this.plans.isMessageType(e, this.t.env);
    if (k.case === 'selectExpr') return !this.plans.isMessageType(e, this.t.env);
    const c = call(e);
    return c !== undefined && ATTRIBUTE_CALLS.has(c.function) && !this.t.qualified.has(e.id);
  }

  /** The node folded to a constant by OptOptimize (InterpretableConst), with its value; undefined when it is not one. */
  private constant(e: CostExpr): { readonly v: Val } | undefined {
    let folded = this.plans.folded.get(e);
    if (folded === undefined) this.plans.folded.set(e, (folded = this.fold0(e) ?? null));
    return folded ?? undefined;
  }

  private fold0(e: CostExpr): { v: Val } | undefined {
    const k = e.exprKind;
    if (k.case === 'constExpr') return { v: this.evalConst(e) };
    if (this.plans.isTypeIdent(e)) return { v: TYPE_VALUES[(k.value as { name: string }).name] };
    if (this.plans.isMessageType(e, this.t.env)) return { v: (plan(this.t.env, e as never) as unknown as (ctx: object) => Val)({}) };
    if (k.case === 'listExpr') {
      const vals: Val[] = [];
      for (const el of k.value.elements) {
        const c = this.constant(el);
        if (!c) return undefined;
        vals.push(c.v);
      }
      // An optional element must be an optional, which a constant is not: the folded list is an error.
      if ((k.value.optionalIndices ?? []).length > 0) return { v: new Err('cannot initialize optional list element') };
      return { v: celList(vals as never) };
    }
    if (k.case === 'structExpr' && k.value.messageName === '') {
      const m = new Map<unknown, unknown>();
      for (const entry of k.value.entries) {
        if (entry.keyKind.case !== 'mapKey' || !entry.value) return undefined;
        const key = this.constant(entry.keyKind.value as CostExpr);
        const val = this.constant(entry.value);
        if (!key || !val) return undefined;
        if (entry.optionalEntry === true) return { v: new Err('cannot initialize optional entry') };
        m.set(key.v, val.v);
      }
      return { v: celMap(m as never) };
    }
    const c = call(e);
    if (c && c.target === undefined && c.args.length === 1 && CONVERSIONS.has(c.function)) {
      const arg = this.constant(c.args[0]!);
      if (!arg) return undefined;
      return { v: this.dispatch(e, c.function, undefined, [arg.v]) };
    }
    return undefined;
  }

  private evalConst(e: CostExpr): Val {
    if (e.exprKind.case !== 'constExpr') throw UNSUPPORTED;
    const c = e.exprKind.value.constantKind;
    switch (c.case) {
      case 'stringValue':
      case 'bytesValue':
      case 'doubleValue':
      case 'boolValue':
      case 'int64Value':
        return c.value;
      case 'uint64Value':
        return celUint(c.value as bigint);
      case 'nullValue':
        return null;
      default:
        throw UNSUPPORTED;
    }
  }

  eval(e: CostExpr | undefined, scope: Scope): Val {
    if (!e) throw UNSUPPORTED;
    const folded = this.constant(e);
    if (folded) return folded.v;
    const k = e.exprKind;
    if (this.isAttr(e)) return this.resolve(this.chain(e), scope, true);
    switch (k.case) {
      case 'listExpr': {
        // evalList stops at the first error; the construction is counted either way. An optional
        // element is left out when empty, its value taken otherwise.
        const vals: Val[] = [];
        const optional = new Set(k.value.optionalIndices ?? []);
        let bad: Val | undefined;
        for (const [i, el] of k.value.elements.entries()) {
          const v = optional.has(i) ? optionalMember(this.eval(el, scope), 'list element') : this.eval(el, scope);
          if (v === undefined) continue;
          if (isErr(v)) {
            bad = v;
            break;
          }
          vals.push(v);
        }
        this.add(10);
        return bad !== undefined ? bad : celList(vals as never);
      }
      case 'structExpr': {
        if (k.value.messageName !== '') return this.message(e, k.value.entries, scope);
        const m = new Map<unknown, unknown>();
        let bad: Val | undefined;
        for (const entry of k.value.entries) {
          if (entry.keyKind.case !== 'mapKey') throw UNSUPPORTED;
          const key = this.eval(entry.keyKind.value as CostExpr, scope);
          if (isErr(key)) {
            bad = key;
            break;
          }
          let val = this.eval(entry.value, scope);
          if (!isErr(val) && entry.optionalEntry === true) {
            // An optional entry: an empty one removes the key, a valued one sets its value.
            if (!isOptional(val)) val = new Err('cannot initialize optional entry from non-optional value');
            else {
              const held = optionalHeld(val);
              if (!held) {
                m.delete(key);
                continue;
              }
              val = held.value;
            }
          }
          if (isErr(val)) {
            bad = val;
            break;
          }
          if (m.has(key)) {
            bad = new Err('duplicate key');
            break;
          }
          m.set(key, val);
        }
        this.add(30);
        return bad !== undefined ? bad : celMap(m as never);
      }
      case 'comprehensionExpr':
        return this.fold(k.value, scope);
      case 'callExpr':
        return this.call(e, k.value, scope);
      default:
        throw UNSUPPORTED;
    }
  }

  /**
   * A message literal (`google.protobuf.Duration{seconds: i}`, cel-go's evalObj): its fields'
   * values in order, stopping at the first error, then 40 (StructCreateBaseCost) either way; an
   * optional field left out when empty. The message is built by @bufbuild/cel from the values.
   */
  private message(e: CostExpr, entries: Extract<CostExpr['exprKind'], { case: 'structExpr' }>['value']['entries'], scope: Scope): Val {
    const values: Record<string, Val> = {};
    const present: number[] = [];
    let bad: Val | undefined;
    for (const [i, entry] of entries.entries()) {
      if (entry.keyKind.case !== 'fieldKey') throw UNSUPPORTED;
      const v = entry.optionalEntry === true ? optionalMember(this.eval(entry.value, scope), 'entry') : this.eval(entry.value, scope);
      if (v === undefined) continue;
      if (isErr(v)) {
        bad = v;
        break;
      }
      values[`${FIELD_VARIABLE}${i}`] = v;
      present.push(i);
    }
    this.add(40);
    if (bad !== undefined) return bad;
    return this.plans.messageBuilder(this.t.env, e, present)(values);
  }

  /** The attribute the planner makes of an attribute node: its root and qualifiers (made once per node). */
  private chain(e: CostExpr): Chain {
    let chain = this.plans.chains.get(e);
    if (!chain) {
      const made = this.chain0(e);
      this.plans.chains.set(e, (chain = { ...made, testOnly: made.quals.some((q) => q.k === 'test') }));
    }
    return chain;
  }

  private chain0(e: CostExpr): Omit<Chain, 'testOnly'> {
    const k = e.exprKind;
    if (k.case === 'identExpr') return { root: { k: 'ident', name: k.value.name }, quals: [] };
    if (k.case === 'selectExpr') {
      const base = this.operandChain(k.value.operand);
      const qual: Qual = k.value.testOnly ? { k: 'test', field: k.value.field } : { k: 'const', value: k.value.field, opt: false };
      return { root: base.root, quals: [...base.quals, qual] };
    }
    const c = call(e)!;
    if (c.function === '_?_:_') return { root: { k: 'cond', cond: c.args[0]!, t: c.args[1]!, f: c.args[2]! }, quals: [] };
    const base = this.operandChain(c.args[0]);
    const ind = c.args[1]!;
    const opt = c.function !== '_[_]';
    const folded = this.constant(ind);
    const qual: Qual = folded
      ? { k: 'const', value: folded.v, opt }
      : this.isAttr(ind)
        ? { k: 'attr', node: ind, opt }
        : { k: 'rel', node: ind, opt };
    return { root: base.root, quals: [...base.quals, qual] };
  }

  private operandChain(op: CostExpr | undefined): Omit<Chain, 'testOnly'> {
    if (!op) throw UNSUPPORTED;
    if (this.isAttr(op) && !this.constant(op)) {
      const inner = this.chain(op);
      // A test-only select as an operand is not an attribute one can qualify further.
      if (inner.testOnly) throw UNSUPPORTED;
      return inner;
    }
    return { root: { k: 'rel', node: op }, quals: [] };
  }

  /**
   * An attribute's value: the root, then each qualifier until one fails. Observed as an expression
   * (`observed`), it costs 1 more unless it is a conditional or a presence test.
   */
  private resolve(chain: Chain, scope: Scope, observed: boolean): Val {
    const root = chain.root;
    let v: Val;
    if (root.k === 'ident') {
      const found = scope.lookup(root.name);
      v = found === undefined ? new Err(`no such attribute: ${root.name}`) : found;
    } else if (root.k === 'rel') {
      v = this.eval(root.node, scope);
    } else {
      const cond = this.eval(root.cond, scope);
      if (cond === true || cond === false) {
        const branch = cond ? root.t : root.f;
        v = this.isAttr(branch) && !this.constant(branch) ? this.resolve(this.chain(branch), scope, false) : this.eval(branch, scope);
      } else {
        v = isErr(cond) ? cond : new Err('no such overload');
      }
    }
    const testOnly = chain.testOnly;
    v = this.qualifyAll(v, chain.quals, scope);
    // evalTestOnly: a presence test that met an optional is whether the optional holds a value.
    if (testOnly && isOptional(v)) v = optionalHeld(v) !== undefined;
    if (observed && root.k !== 'cond' && !testOnly) this.add(1);
    return v;
  }

  /**
   * cel-go's applyQualifiers: an optional root is unwrapped (an empty one is the result as it is);
   * once it or an optional qualifier is met, every later qualifier tests presence (QualifyIfPresent),
   * costs 1 only when present, and makes the result optional.none() when absent; the result is then
   * an optional of what was found. Otherwise a qualifier costs 1 and fails with an error.
   */
  private qualifyAll(root: Val, quals: readonly Qual[], scope: Scope): Val {
    let v = root;
    if (isErr(v)) return v;
    let opt = false;
    if (isOptional(v)) {
      const held = optionalHeld(v);
      if (!held) return v;
      v = held.value;
      opt = true;
    }
    for (const q of quals) {
      if (q.k !== 'test') opt ||= q.opt;
      let key: Val;
      if (q.k === 'const') key = q.value;
      else if (q.k === 'test') key = q.field;
      else key = q.k === 'attr' ? this.resolve(this.chain(q.node), scope, false) : this.eval(q.node, scope);
      if (!opt) {
        this.add(1);
        if (isErr(key)) return key;
        v = q.k === 'test' ? present(v, q.field) : qualify(v, key);
        if (isErr(v)) return v;
        continue;
      }
      if (isErr(key)) return key;
      const found = qualifyIfPresent(v, key);
      if (found === undefined) return optionalNone();
      if (isErr(found.value)) return found.value;
      this.add(1);
      v = q.k === 'test' ? true : found.value;
    }
    return opt ? optionalOf(v) : v;
  }

  /** cel-go's evalFold and folder: the accumulator evaluated when first read, the loop stopping when its condition is false. */
  private fold(c: Extract<CostExpr['exprKind'], { case: 'comprehensionExpr' }>['value'], scope: Scope): Val {
    const range = this.eval(c.iterRange, scope);
    if (isErr(range)) return range;
    const accu = new Scope(scope, c.accuVar, { lazy: () => this.eval(c.accuInit, scope) });
    const twoVars = c.iterVar2 !== '';
    // One step; false when the loop stops.
    const step = (key: Val, value: Val): boolean => {
      let iter = new Scope(accu, c.iterVar, { v: key });
      if (twoVars) iter = new Scope(iter, c.iterVar2, { v: value });
      const cond = this.eval(c.loopCondition, iter);
      if (cond === false) return false;
      accu.set(this.eval(c.loopStep, iter));
      return true;
    };
    if (isCelList(range)) {
      // A list's element by index (the first variable its index when there are two).
      const l = range as CelList;
      for (let i = 0; i < l.size; i++) {
        const v = l.get(i);
        if (!(twoVars ? step(BigInt(i), v) : step(v, undefined))) break;
      }
    } else if (isCelMap(range)) {
      for (const [key, value] of (range as CelMap).entries()) if (!step(key, value)) break;
    } else return new Err('expected iterable type');
    return this.eval(c.result, accu);
  }

  /** A call node's plan, made once. */
  private callPlan(e: CostExpr, c: { function: string; target?: CostExpr; args: readonly CostExpr[] }): CallPlan {
    let p = this.plans.calls.get(e);
    if (p) return p;
    const qualified = this.t.qualified.has(e.id);
    let fn = c.function;
    if (qualified) {
      const name = qualifiedName(c.target);
      if (name === undefined) throw UNSUPPORTED;
      fn = `${name}.${fn}`;
    }
    const operands = qualified || c.target === undefined ? c.args : [c.target, ...c.args];
    const ids = this.t.overloads.get(e.id) ?? [];
    // evalVarArgs stops at the first error, and the call is then not counted when an operand after
    // it was not evaluated (the tracker's stack lacks it): three or more operands, a function cel-go dispatches at run time
    // (more than one overload the checker leaves open, unless the function has one binding for all,
    // as the standard operators), a call the regex optimizer rebuilt (a constant pattern).
    const varArgs =
      operands.length > 2 ||
      (ids.length > 1 && !SINGLETON_BINDINGS.has(fn)) ||
      (REGEX_OPTIMIZED.has(fn) && operands[1] !== undefined && this.constant(operands[1]) !== undefined);
    p = { fn, operands, onTarget: !qualified && c.target !== undefined, ids, overloadId: ids.length === 1 ? ids[0]! : '', varArgs };
    this.plans.calls.set(e, p);
    return p;
  }

  private call(e: CostExpr, c: { function: string; target?: CostExpr; args: readonly CostExpr[] }, scope: Scope): Val {
    const { fn, operands, onTarget, overloadId, varArgs } = this.callPlan(e, c);
    if (fn === '_&&_' || fn === '_||_') {
      const stop = fn === '_||_';
      let err: Val | undefined;
      for (const term of operands) {
        const v = this.eval(term, scope);
        if (v === stop) return stop;
        if (v !== !stop && err === undefined) err = isErr(v) ? v : new Err('no such overload');
      }
      return err !== undefined ? err : !stop;
    }
    if (fn === 'or' || fn === 'orValue') {
      // cel-go's decorateOptionalOr: the argument only when the optional is empty; no cost of its own.
      const opt = this.eval(operands[0], scope);
      if (isErr(opt)) return opt;
      const held = optionalHeld(opt);
      if (held) return fn === 'or' ? opt : held.value;
      return this.eval(operands[1], scope);
    }
    if (fn === '@in' && overloadId === 'in_list') {
      const list = this.constant(operands[1]!);
      if (list && isCelList(list.v)) {
        // maybeOptimizeSetMembership: a constant list of primitives is a set; testing it costs nothing.
        const elems = list.v as CelList;
        if (elems.size === 0) return false;
        let primitives = true;
        for (const el of elems) primitives &&= isPrimitive(el);
        if (primitives) {
          const v = this.eval(operands[0], scope);
          return isErr(v) ? v : this.dispatch(e, fn, undefined, [v, list.v]);
        }
      }
    }
    const args: Val[] = [];
    for (let i = 0; i < operands.length; i++) {
      const v = this.eval(operands[i], scope);
      args.push(v);
      if (varArgs && isErr(v) && i < operands.length - 1) return v;
    }
    let result: Val;
    const bad = args.find(isErr);
    if (fn === '@not_strictly_false' || fn === '__not_strictly_false__') result = args[0] === false ? false : true;
    else if (bad !== undefined) result = bad;
    // cel-go's evalNe is `Equal(l, r) != True`: the mismatch is an error for == only (cel-equality.ts).
    else if (fn === '_==_' && kubernetesTypeMismatch(args[0], args[1])) result = new Err('no such overload');
    else if (fn === '_!=_' && kubernetesTypeMismatch(args[0], args[1])) result = true;
    else if (!onTarget) result = this.dispatch(e, fn, undefined, args);
    else result = this.dispatch(e, fn, args[0], args.slice(1));
    this.add(callCost(fn, overloadId, args, result));
    return result;
  }

  private dispatch(e: CostExpr, fn: string, target: Val | undefined, args: Val[]): Val {
    const group = this.t.env.funcs.find(fn);
    const r = group?.call(Number(e.id), target as never, args as never);
    if (r === undefined) return new Err('no such overload');
    return r;
  }
}

/**
 * The functions declared with one binding for all their overloads (cel-go common/stdlib and the
 * lists extension's SingletonUnaryBinding / SingletonBinaryBinding): planned as unary or binary
 * calls, which evaluate every operand, whatever the overload.
 */
const SINGLETON_BINDINGS = new Set([
  '!_',
  '-_',
  '_==_',
  '_!=_',
  '_+_',
  '_-_',
  '_*_',
  '_/_',
  '_%_',
  '_<_',
  '_<=_',
  '_>_',
  '_>=_',
  '@in',
  'size',
  'type',
  'dyn',
  'matches',
  'sort',
  '@sortByAssociatedKeys',
]);

/** The calls cel-go's regex optimizer rebuilds as var-args calls when the pattern is a constant (matches; Kubernetes' find, findAll). */
const REGEX_OPTIMIZED = new Set(['matches', 'find', 'findAll']);

/** types.IsPrimitiveType without bytes (maybeOptimizeSetMembership). */
function isPrimitive(v: Val): boolean {
  return typeof v === 'boolean' || typeof v === 'bigint' || typeof v === 'number' || typeof v === 'string' || isCelUint(v);
}

/** A list qualifier's index: an int, a uint or an integral double (cel-go's IndexOrError); NaN otherwise. */
function listIndex(key: Val): number {
  if (typeof key === 'bigint') return Number(key);
  if (isCelUint(key)) return Number((key as { value: bigint }).value);
  return typeof key === 'number' && Number.isInteger(key) ? key : NaN;
}

/** A qualifier applied to a value (cel-go's attribute qualification), an error when it does not apply. */
function qualify(obj: Val, key: Val): Val {
  if (isCelMap(obj)) {
    const m = obj as CelMap;
    if (typeof key !== 'string' && typeof key !== 'bigint' && typeof key !== 'boolean' && typeof key !== 'number' && !isCelUint(key))
      return new Err('unsupported key');
    const v = m.get(key as never);
    return v === undefined ? new Err('no such key') : v;
  }
  if (isCelList(obj)) {
    const l = obj as CelList;
    const i = listIndex(key);
    if (!Number.isInteger(i) || i < 0 || i >= l.size) return new Err('index out of range');
    return l.get(i);
  }
  return new Err('no such overload');
}

/**
 * A qualifier applied testing presence (cel-go's QualifyIfPresent, refQualify with presenceTest):
 * what is at a map's key or a list's index, undefined where absent (and on another value), an
 * error for an index that is not one.
 */
function qualifyIfPresent(obj: Val, key: Val): { readonly value: Val } | undefined {
  if (isCelMap(obj)) {
    const m = obj as CelMap;
    if (typeof key !== 'string' && typeof key !== 'bigint' && typeof key !== 'boolean' && typeof key !== 'number' && !isCelUint(key))
      return { value: new Err('unsupported key') };
    return m.has(key as never) ? { value: m.get(key as never) } : undefined;
  }
  if (isCelList(obj)) {
    const l = obj as CelList;
    const i = listIndex(key);
    if (!Number.isInteger(i)) return { value: new Err('unsupported index type') };
    return i >= 0 && i < l.size ? { value: l.get(i) } : undefined;
  }
  return undefined;
}

function present(obj: Val, field: string): Val {
  if (isCelMap(obj)) return (obj as CelMap).has(field as never);
  return new Err('no such overload');
}

// ---- call costs ---------------------------------------------------------------------------------

const STRING_TRAVERSAL = COST.stringTraversalFactor;
const REGEX_LENGTH = COST.regexStringLengthFactor;
const LIST_CREATE = 10;
const CALL = 1;

/** Whether the UTF-16 unit at `i` starts a surrogate pair (one code point of two units). */
function pairAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c < 0xd800 || c > 0xdbff || i + 1 >= s.length) return false;
  const d = s.charCodeAt(i + 1);
  return d >= 0xdc00 && d <= 0xdfff;
}

/** A string's code points (Go's runes), counted without making strings. */
function runes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++, n++) if (pairAt(s, i)) i++;
  return n;
}

/** A string's length in UTF-8 (as TextEncoder writes it: a lone surrogate as U+FFFD, 3 bytes), counted without encoding it. */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (pairAt(s, i)) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** cel-go's actualSize: a string's runes, a list's or map's entries, an optional's value's; else 1. */
function size(v: Val): number {
  if (typeof v === 'string') return runes(v);
  if (v instanceof Uint8Array) return v.length;
  if (isCelList(v)) return (v as CelList).size;
  if (isCelMap(v)) return (v as CelMap).size;
  if (isReflectMessage(v)) {
    const held = optionalHeld(v);
    if (held) return size(held.value);
    const name = v.desc.typeName;
    // apiservercel.IP: its bytes; CIDR: its prefix length in bytes.
    if (name === 'net.IP') return (v.get(v.desc.field['addr']!) as Uint8Array).length;
    if (name === 'net.CIDR') return Math.ceil(Number(v.get(v.desc.field['bits']!) as bigint) / 8);
  }
  return 1;
}

/** library/cost.go traversalCost: strings and bytes by their length, lists and maps by their elements. */
function traversal(v: Val): number {
  if (typeof v === 'string') return Math.trunc(utf8Length(v) * STRING_TRAVERSAL);
  if (v instanceof Uint8Array) return Math.trunc(v.length * STRING_TRAVERSAL);
  if (isCelList(v)) {
    let c = 0;
    for (const e of v as CelList) c += traversal(e);
    return c;
  }
  if (isCelMap(v)) {
    let c = 0;
    for (const [k, e] of (v as CelMap).entries()) c += traversal(k) + traversal(e);
    return c;
  }
  return 1;
}

const ceilTraversal = (n: number): number => Math.ceil(n * STRING_TRAVERSAL);

/** apiservercel.Format MaxRegexSize, by the format's name (pkg/cel/library/format.go). */
const FORMAT_REGEX_SIZE: Readonly<Record<string, number>> = {
  DNS1123Label: 30,
  DNS1123Subdomain: 60,
  DNS1035Label: 30,
  QualifiedName: 60,
  DNS1123LabelPrefix: 30,
  DNS1123SubdomainPrefix: 60,
  DNS1035LabelPrefix: 30,
  LabelValue: 40,
  URI: 1103,
  uuid: 70,
  byte: 84,
  date: 71,
  datetime: 71,
};

/** The Kubernetes types whose equality costs 1 (library/cost.go CallCost `_==_`). */
const UNIT_EQUALITY = KUBERNETES_EQUALITY_TYPES;

/** cel-go ext/lists.go trackAllocatingListCall. */
function allocatingList(factor: number, n: number): number {
  return Math.trunc(n * factor) + CALL + LIST_CREATE;
}

/** ext/sets.go trackSetsCost. */
function sets(args: readonly Val[], factor: number): number {
  return CALL + Math.trunc(size(args[0]) * size(args[1]) * factor);
}

/** ext/lists.go trackListSelfCompare (which panics on an operand that is not a list: an error). */
function selfCompare(l: Val): number {
  if (!isCelList(l)) throw INTERNAL;
  const n = size(l);
  if (n === 0) return allocatingList(2, 0);
  const first = (l as CelList).get(0);
  const factor = typeof first === 'string' || first instanceof Uint8Array ? 2 + STRING_TRAVERSAL : 2;
  return allocatingList(factor, n * n);
}

/**
 * A call's own cost from its actual operands (the target first) and result: cel-go's overload
 * trackers, Kubernetes' CallCost (library/cost.go lines 86-268), cel-go's CostTracker.costCall.
 */
export function callCost(fn: string, overloadId: string, args: readonly Val[], result: Val): number {
  // cel-go ext/lists.go ProgramOptions: OverloadCostTracker entries win.
  if (overloadId === 'list_slice' || overloadId === 'lists_range' || overloadId === 'list_reverse') return allocatingList(1, size(result));
  if (overloadId === 'list_flatten') return allocatingList(1, size(args[0]));
  if (overloadId === 'list_flatten_int') {
    if (typeof args[1] !== 'bigint') throw INTERNAL;
    return allocatingList(Number(args[1]), size(args[0]));
  }
  if (overloadId.startsWith('list_')) {
    if (overloadId === 'list_distinct' || overloadId.endsWith('_sort')) return selfCompare(args[0]);
    if (overloadId.endsWith('_sortByAssociatedKeys')) return selfCompare(args[1]);
  }
  if (overloadId === 'list_sets_contains_list' || overloadId === 'list_sets_intersects_list') return sets(args, 1);
  if (overloadId === 'list_sets_equivalent_list') return sets(args, 2);
  const k8s = kubernetesCallCost(fn, overloadId, args, result);
  if (k8s !== undefined) return k8s;
  switch (overloadId) {
    case 'starts_with_string':
    case 'ends_with_string':
      return ceilTraversal(size(args[1]));
    case 'string_to_bytes':
    case 'bytes_to_string':
    case 'strings_quote':
    case 'string_format':
      return ceilTraversal(size(args[0]));
    case 'in_list':
      return size(args[1]);
    case 'less_string':
    case 'greater_string':
    case 'less_equals_string':
    case 'greater_equals_string':
    case 'less_bytes':
    case 'greater_bytes':
    case 'less_equals_bytes':
    case 'greater_equals_bytes':
    case 'equals':
    case 'not_equals':
      return ceilTraversal(Math.min(size(args[0]), size(args[1])));
    case 'add_string':
    case 'add_bytes':
      return ceilTraversal(size(args[0]) + size(args[1]));
    case 'matches':
    case 'matches_string':
      return Math.ceil((1 + size(args[0])) * STRING_TRAVERSAL) * Math.ceil(size(args[1]) * REGEX_LENGTH);
    case 'contains_string':
      return ceilTraversal(size(args[0])) * ceilTraversal(size(args[1]));
    default:
      return 1;
  }
}

/** Kubernetes' CostEstimator.CallCost for the functions DRA's environment has; undefined where it gives none. */
function kubernetesCallCost(fn: string, overloadId: string, args: readonly Val[], result: Val): number | undefined {
  switch (fn) {
    case 'isSorted':
    case 'sum':
    case 'max':
    case 'min':
    case 'indexOf':
    case 'lastIndexOf':
    case 'includes':
      return args.length > 0 ? traversal(args[0]) : 0;
    case 'url':
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim':
    case 'jsonpatch.escapeKey':
      return args.length >= 1 ? ceilTraversal(size(args[0])) : undefined;
    case 'replace':
    case 'split':
      return args.length >= 1 ? Math.ceil(size(args[0]) * 2 * STRING_TRAVERSAL) : undefined;
    case 'join':
      return args.length >= 1 ? Math.ceil(size(result) * 2 * STRING_TRAVERSAL) : undefined;
    case 'find':
    case 'findAll':
      return args.length >= 2 ? Math.ceil((1 + size(args[0])) * STRING_TRAVERSAL) * Math.ceil(size(args[1]) * REGEX_LENGTH) : undefined;
    case 'cidr':
    case 'isIP':
    case 'isCIDR':
      return args.length >= 1 ? ceilTraversal(size(args[0])) : undefined;
    case 'ip':
      if (args.length < 1) return undefined;
      return overloadId === 'cidr_ip' ? 1 : ceilTraversal(size(args[0]));
    case 'ip.isCanonical':
      return args.length >= 1 ? Math.ceil(size(args[0]) * 2 * STRING_TRAVERSAL) : undefined;
    case 'masked':
    case 'prefixLength':
    case 'family':
    case 'isUnspecified':
    case 'isLoopback':
    case 'isLinkLocalMulticast':
    case 'isLinkLocalUnicast':
    case 'isGlobalUnicast':
      return 1;
    case 'containsIP':
    case 'containsCIDR': {
      if (args.length < 2) return undefined;
      const cidr = size(args[0]);
      let cost = ceilTraversal(cidr + cidr);
      if (fn === 'containsCIDR') cost += ceilTraversal(cidr) + 1;
      if (overloadId === (fn === 'containsIP' ? 'cidr_contains_ip_string' : 'cidr_contains_cidr_string'))
        cost += ceilTraversal(size(args[1]));
      return cost;
    }
    case 'quantity':
    case 'isQuantity':
    case 'semver':
    case 'isSemver':
      return args.length >= 1 ? ceilTraversal(size(args[0])) : undefined;
    case 'validate': {
      const format = args[0];
      if (args.length < 2 || !isReflectMessage(format) || format.desc.typeName !== 'kubernetes.NamedFormat') return undefined;
      const regexSize = FORMAT_REGEX_SIZE[(format as ReflectMessage).get(format.desc.field['name']!) as string] ?? 0;
      return Math.ceil((1 + size(args[1])) * STRING_TRAVERSAL) * Math.ceil(regexSize * REGEX_LENGTH);
    }
    case 'format.named':
    case 'sign':
    case 'asInteger':
    case 'isInteger':
    case 'asApproximateFloat':
    case 'isGreaterThan':
    case 'isLessThan':
    case 'compareTo':
    case 'add':
    case 'sub':
    case 'major':
    case 'minor':
    case 'patch':
    case 'getScheme':
    case 'getHostname':
    case 'getHost':
    case 'getPort':
    case 'getEscapedPath':
    case 'getQuery':
      return 1;
    case '_==_': {
      const lhs = args[0];
      if (args.length === 2 && isReflectMessage(lhs) && UNIT_EQUALITY.has(lhs.desc.typeName)) return 1;
      return undefined;
    }
    default:
      return undefined;
  }
}

// ---- an evaluation context for the selectors' functions -------------------------------------------

/**
 * Runs `fn` inside an evaluation of @bufbuild/cel (its functions may ask the evaluation's
 * registry): a one-call program whose function is the walk.
 */
function inEvalContext<T>(env: CelEnv, fn: () => T): T {
  let program = programs.get(env);
  if (!program) {
    const runner = celFunc('podplanActualCost', [], CelScalar.BOOL, () => {
      const job = pending.pop()!;
      try {
        job.out = { ok: job.fn() };
      } catch (e) {
        job.out = { error: e };
      }
      return true;
    });
    const compiled = plan(celEnv({ registry: env.registry, funcs: [runner] }), parse('podplanActualCost()')) as unknown as (
      ctx: Record<string, unknown>,
    ) => unknown;
    programs.set(env, (program = compiled));
  }
  const job: Job = { fn, out: undefined };
  pending.push(job);
  program({});
  const out = job.out as { ok: T } | { error: unknown } | undefined;
  if (!out) throw new Error('the cost walk did not run');
  if ('error' in out) throw out.error;
  return out.ok;
}

interface Job {
  readonly fn: () => unknown;
  out: { ok: unknown } | { error: unknown } | undefined;
}

const pending: Job[] = [];
const programs = new WeakMap<CelEnv, (ctx: Record<string, unknown>) => unknown>();

/**
 * A list element or entry marked optional (`[?e]`, `{?k: v}`), as cel-go builds it: the value its
 * optional holds, undefined when the optional is empty (left out), an error when it is no optional.
 */
function optionalMember(v: Val, what: string): Val | undefined {
  if (isErr(v)) return v;
  if (!isOptional(v)) return new Err(`cannot initialize optional ${what} from non-optional value`);
  return optionalHeld(v)?.value;
}
