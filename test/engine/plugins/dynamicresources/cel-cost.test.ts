import assert from 'node:assert/strict';
import { SET_KEY } from '../../../../src/engine/plugins/dynamicresources/cel-equality';
import { execFileSync } from 'node:child_process';
import {
  compileSelector,
  newSelectorError,
  SELECTOR_COST_LIBRARIES,
  SELECTOR_FUNCS,
  selectorCost,
  TOO_COMPLEX,
} from '../../../../src/engine/plugins/dynamicresources/cel';
import type { DeviceAttribute, DeviceCapacity } from '../../../../src/engine/api/dra';
import { CEL_SELECTOR_EXPRESSION_MAX_COST } from '../../../../src/engine/plugins/dynamicresources/cel-cost';
import { OPTIONAL_SYNTAX_RUNTIME } from '../../../../src/engine/plugins/dynamicresources/cel-optional';
// generate.ts first: it and generate-dra.ts import each other.
import '../../../upstream/fidelity/generate';
import { GPU_SELECTORS, NIC_SELECTORS } from '../../../upstream/fidelity/generate-dra';
import { oraclePath } from '../../../upstream/fidelity/oracle';
import {
  CEL10,
  CEL8,
  MALFORMED,
  generatedCel8Selectors,
  generatedOptionalSelectors,
  generatedSelectors,
  HANDWRITTEN,
  OPTIONAL_SYNTAX,
  REVERTED_7239678,
  UPSTREAM_TABLES,
} from './cel-cost-corpus';

const A = 'device.attributes["gpu.example.com"]';
const C = 'device.capacity["gpu.example.com"]';

// Each expected cost is upstream's: the oracle's -celcost mode (k8s.io/dynamic-resource-allocation
// v0.37.2's compiler, 1.37's default features) printed it; the upstream block below re-checks the
// whole corpus against the oracle itself.
const TABLE: Array<[expression: string, upstreamCost: bigint]> = [
  ['device.driver == "gpu.example.com"', 4n],
  [`${A}.model == "a100"`, 5n],
  [`${A}.healthy`, 4n],
  [`${C}.memory.isGreaterThan(quantity("30Gi"))`, 6n],
  [`"model" in ${A} && ${A}.model.startsWith("h")`, 9n],
  [`has(${A}.model)`, 3n],
  // The lists, sets, ip and cidr selectors of 7239678: the one kube-apiserver refused is string(int)
  // of unknown size fed to ip(); string() of an attribute (dyn) is bounded by the attribute's 64.
  [`[${A}.numa, ${A}.index].max() >= 1`, 21n],
  [`[0, 2, 4].indexOf(${A}.index) >= 0`, 18n],
  [`sets.contains([0, 1], [${A}.numa])`, 27n],
  [`cidr("10.0.0.0/31").containsIP("10.0.0." + string(${A}.index))`, 33n],
  [`ip("fe80::" + string(${A}.index + 1)).isLinkLocalUnicast()`, 3689348814741910535n],
  // Strings: traversal of the attribute's 64 characters; split/join of unknown sizes.
  [`${A}.model.matches("^a[0-9]+$")`, 25n],
  [`${A}.model.contains("100")`, 11n],
  [`${A}.model.replace("a", "b") == "b100"`, 18n],
  [`${A}.model.split("0").size() > 1`, 19n],
  ['["a", "b"].join("-") == "a-b"', 1844674407370955275n],
  ['["a", "b"].indexOf("a") == 0', 3689348814741910541n],
  [`strings.quote(${A}.model) != ""`, 11n],
  // Macros over the attribute maps (32 domains × 32 attributes).
  ['device.attributes.exists(d, true)', 131n],
  [`${A}.exists(k, k == "x")`, 196n],
  ['device.attributes.all(d, device.attributes[d].all(a, device.attributes[d][a] != "x"))', 10499n],
  ['device.attributes.exists_one(d, d == "gpu.example.com")', 164n],
  ['device.attributes.map(d, device.attributes[d].map(a, a)).size() > 0', 14191n],
  ['device.attributes.filter(d, d.startsWith("gpu")).size() == 1', 495n],
  [
    'device.attributes.exists(d, device.attributes[d].exists(a, device.attributes[d][a] == "x" && device.attributes[d].exists(b, b.matches(a))))',
    1261859n,
  ],
  [
    'device.attributes.exists(d, device.attributes.exists(e, device.attributes.exists(f, device.attributes[d].exists(a, device.attributes[e].exists(b, a == b)))))',
    345283811n,
  ],
  // Kubernetes' types: == is constant, != traverses an unknown size.
  [`${C}.memory == quantity("80Gi")`, 6n],
  [`${C}.memory != quantity("80Gi")`, 1844674407370955269n],
  [`${A}.driverVersion == semver("1.0.0")`, 12n],
  ['cidr("10.0.0.0/8").containsCIDR("10.1.0.0/16")', 10n],
  [`ip.isCanonical(${A}.model)`, 17n],
  [`(${A}.index > 1 ? "a" : "bb") == ${A}.model`, 10n],
  ['{"a": 1, "b": 2}[device.attributes["gpu.example.com"].model] == 1', 36n],
  [`string(bytes(${A}.model)) == "a100"`, 38n],
  [`type(${A}.model) == string`, 1844674407370955270n],
  [`dyn(${A}.model) == "a100"`, 6n],
  // cel8's libraries and macros.
  [`${A}.model.find("[0-9]+") == "100"`, 19n],
  [`url(${A}.model).getHost() == "x"`, 13n],
  ['device.attributes.map(d, d).sort()[0] != ""', 2592n],
  [`${A}.model.split("0").sortBy(s, s)[0] == ""`, 9486n],
  ['lists.range(3) == [0, 1, 2]', 25n],
  ['[[1], [2, 3]].flatten() == [1, 2, 3]', 54n],
  [`${A}.transformMap(k, v, string(v)).size() > 0`, 388n],
  // cel-go appends to a path in place: the key variable's path ends in the @values its value
  // variable's append wrote over @keys (64 characters, not an id's 32), as does a bound map's key
  // once a[k] appended @values to the same path before k is sized.
  ['device.attributes.exists(d, device.attributes[d].exists(k, "a".matches(k)))', 13603n],
  ['device.attributes.exists(d, m, m.exists(k, v, "a".matches(k)))', 21699n],
  [`cel.bind(a, ${A}, a.exists(k, a[k] == "x" && "a".matches(k)))`, 815n],
  [`cel.bind(a, ${A}, a.exists(k, string(a[k]).matches(k)))`, 2287n],
];

describe('engine/plugins/dynamicresources/cel-cost', () => {
  for (const [expression, cost] of TABLE) {
    it(`${expression} costs ${cost}${cost > CEL_SELECTOR_EXPRESSION_MAX_COST ? ' (over the limit)' : ''}`, () => {
      assert.deepEqual(selectorCost(expression), { cost, exceeds: cost > CEL_SELECTOR_EXPRESSION_MAX_COST });
    });
  }

  it('every function the selector environment evaluates has a cost-model declaration of the same name, kind and arity', () => {
    const decls = SELECTOR_COST_LIBRARIES.flatMap((l) => l.decls);
    // @entries only exists in the tree Podplan evaluates (the two-variable comprehensions' pairs);
    // the estimate walks cel-go's own expansion, which iterates both variables without it.
    // So do the optional syntax's runtime functions (cel-optional-syntax.ts rewrites the tree it evaluates).
    // And the set membership test's key (cel-equality.ts).
    const evaluationOnly = new Set(['@entries', ...OPTIONAL_SYNTAX_RUNTIME, SET_KEY]);
    const missing = SELECTOR_FUNCS.filter((f) => !evaluationOnly.has(f.name))
      .filter((f) => {
        const isMember = f.target !== undefined;
        const arity = f.arguments.length + (isMember ? 1 : 0);
        return !decls.some((d) => d.fn === f.name && d.member === isMember && d.params.length === arity);
      })
      .map((f) => `${f.target ? 'member ' : ''}${f.name}/${f.arguments.length}`);
    assert.deepEqual(missing, []);
    // The walk saw the whole environment (strings, quantity, semver, lists, sets, ip, cidr, regex, url, lists extension).
    assert.ok(SELECTOR_FUNCS.length >= 85, `${SELECTOR_FUNCS.length} functions`);
  });

  it('an expression that does not parse has no cost', () => {
    assert.equal(selectorCost('device.driver =='), undefined);
  });
});

/** The oracle, or why this machine cannot run it (no Go to build it). */
function findOracle(): { path: string } | { skip: string } {
  if (process.env.PODPLAN_ORACLE) return { path: process.env.PODPLAN_ORACLE };
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
  } catch {
    return { skip: 'Go is not installed, so the oracle (test/upstream/oracle) cannot be built' };
  }
  return { path: oraclePath(true) };
}

interface OracleCost {
  readonly expression: string;
  readonly cost?: string;
  readonly compileError?: string;
  readonly errors: readonly string[];
}

/**
 * Whether upstream's message carries each of Podplan's errors (one a line), in Podplan's order, and
 * as many errors as Podplan's (cel-go's display: `ERROR: <input>:1:5: words`, a line each).
 */
function inUpstreamOrder(ours: string, upstream: string): boolean {
  const lines = ours.split('\n');
  const count = upstream.split('\n').filter((l) => /^(compilation failed: )?ERROR: /.test(l)).length;
  let from = 0;
  for (const line of lines) {
    const at = upstream.indexOf(line, from);
    if (at < 0) return false;
    from = at + line.length;
  }
  return count === 0 || count === lines.length;
}

/** The optional syntax: handwritten, and drawn from its grammar. */
const OPTIONAL_CORPUS = [...OPTIONAL_SYNTAX, ...generatedOptionalSelectors(11, 400)];

/** Devices (the oracle's and Podplan's input shapes alike) the optional syntax is evaluated on. */
const DEVICES: readonly {
  readonly driver: string;
  readonly attributes: Readonly<Record<string, DeviceAttribute>>;
  readonly capacity: Readonly<Record<string, DeviceCapacity>>;
}[] = [
  {
    driver: 'gpu.example.com',
    attributes: {
      model: { string: 'a100' },
      numa: { int: 0 },
      index: { int: 1 },
      healthy: { bool: true },
      driverVersion: { version: '1.2.3' },
    },
    capacity: { memory: { value: '80Gi' } },
  },
  { driver: 'gpu.example.com', attributes: { model: { string: '' }, 'other.example.com/x': { int: 3 } }, capacity: {} },
];

/** cel8's functions and macros: every one of them compiles on both sides, so each is compared. */
const CEL8_CORPUS = [...CEL8, ...generatedCel8Selectors(7, 400)];

describe('upstream: DRA selector cost against k8s.io/dynamic-resource-allocation v0.37.2 and kube-apiserver 1.37.2 validation (the oracle)', function () {
  this.timeout(600_000);
  const corpus = [
    ...new Set([
      ...REVERTED_7239678,
      ...GPU_SELECTORS,
      ...NIC_SELECTORS,
      ...UPSTREAM_TABLES,
      ...HANDWRITTEN,
      ...CEL8,
      ...generatedSelectors(1, 600),
      ...CEL8_CORPUS,
      ...CEL10,
      ...OPTIONAL_CORPUS,
      ...MALFORMED,
    ]),
  ];
  let results: OracleCost[] = [];

  before(function () {
    const found = findOracle();
    if ('skip' in found) {
      console.log(`      skipped: ${found.skip}`);
      this.skip();
    }
    const input = corpus.map((expression) => JSON.stringify({ expression })).join('\n');
    const out = execFileSync(found.path, ['-celcost'], { input, encoding: 'utf8', maxBuffer: 64 << 20 });
    results = out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as OracleCost);
  });

  it('every expression both compile gets the same estimated cost and the same verdict, in kube-apiserver words', () => {
    assert.equal(results.length, corpus.length);
    const PATH = 'spec.devices.requests[0].exactly.selectors[0].cel.expression';
    const diffs: string[] = [];
    let compared = 0;
    let refused = 0;
    const cel8 = new Set(CEL8_CORPUS);
    const cel8Uncompared: string[] = [];
    for (const r of results) {
      if (cel8.has(r.expression) && (r.cost === undefined || !compileSelector(r.expression).ok)) cel8Uncompared.push(r.expression);
      if (r.cost === undefined || !compileSelector(r.expression).ok) continue;
      compared++;
      const ours = selectorCost(r.expression);
      const upstreamRefuses = r.errors.includes(`${PATH}: ${TOO_COMPLEX}`);
      if (upstreamRefuses) refused++;
      if (ours?.cost !== BigInt(r.cost) || ours.exceeds !== upstreamRefuses) {
        diffs.push(
          `${r.expression}: upstream ${r.cost}${upstreamRefuses ? ' refused' : ''}, Podplan ${ours?.cost}${ours?.exceeds ? ' refused' : ''}`,
        );
      }
    }
    assert.deepEqual(diffs, []);
    assert.deepEqual(cel8Uncompared, []);
    // The comparison saw real work: most of the corpus, on both sides of the limit.
    assert.ok(compared >= 450, `compared ${compared}`);
    assert.ok(refused >= 50, `refused ${refused}`);
  });

  it('compiles what upstream compiles and refuses, in its words, nearly all it refuses (new expressions)', () => {
    // Podplan's verdict on a new expression: compileSelector, then what new expressions lack.
    const podplanError = (e: string): string | undefined => {
      const c = compileSelector(e);
      return c.ok ? newSelectorError(e) : c.error;
    };
    const podplanOnly: string[] = [];
    const upstreamOnly: string[] = [];
    let bothRefuse = 0;
    let sameWords = 0;
    let syntaxErrors = 0;
    const otherWords: string[] = [];
    for (const r of results) {
      const ours = podplanError(r.expression);
      if (ours !== undefined && r.cost !== undefined) podplanOnly.push(`${r.expression}: ${ours}`);
      if (ours === undefined && r.cost === undefined) upstreamOnly.push(`${r.expression}: ${r.compileError}`);
      if (ours !== undefined && r.cost === undefined) {
        bothRefuse++;
        if (inUpstreamOrder(ours, r.compileError ?? '')) {
          sameWords++;
          if (r.compileError?.includes('Syntax error')) syntaxErrors++;
        } else otherWords.push(`${r.expression}\n  Podplan: ${ours}\n  upstream: ${r.compileError}`);
      }
    }
    // Podplan compiles all upstream compiles, and refuses all upstream refuses (the string.format
    // clauses, overloads on operands typed dyn or any, free type variables' dyn output, the validator's
    // panic on an optional element typed dyn).
    assert.deepEqual(podplanOnly, []);
    assert.deepEqual(upstreamOnly, []);
    // Where both refuse, upstream's message carries each of Podplan's errors, at its line and column
    // (`<input>:1:5: …`), in its words, in its order and as many: syntax errors too.
    assert.deepEqual(otherWords, []);
    assert.ok(bothRefuse >= 400 && sameWords === bothRefuse, `${sameWords} of ${bothRefuse} in upstream's words`);
    // The malformed selectors' syntax errors among them.
    assert.ok(syntaxErrors >= 90, `${syntaxErrors} syntax errors in upstream's words`);
  });
});

describe('upstream: the optional syntax evaluated as k8s.io/dynamic-resource-allocation v0.37.2 evaluates it (the oracle)', function () {
  this.timeout(600_000);
  interface Evaluated extends OracleCost {
    readonly matches?: boolean;
    readonly evalError?: string;
  }
  let results: Evaluated[] = [];

  before(function () {
    const found = findOracle();
    if ('skip' in found) {
      console.log(`      skipped: ${found.skip}`);
      this.skip();
    }
    const input = OPTIONAL_CORPUS.flatMap((expression) => DEVICES.map((device) => JSON.stringify({ expression, device }))).join('\n');
    const out = execFileSync(found.path, ['-celcost'], { input, encoding: 'utf8', maxBuffer: 64 << 20 });
    results = out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Evaluated);
  });

  it('each selector both compile matches a device, or fails on it, as upstream', () => {
    assert.equal(results.length, OPTIONAL_CORPUS.length * DEVICES.length);
    const diffs: string[] = [];
    let evaluated = 0;
    let failed = 0;
    let matched = 0;
    results.forEach((r, i) => {
      const device = DEVICES[i % DEVICES.length]!;
      const compiled = compileSelector(r.expression);
      if (r.cost === undefined || !compiled.ok) return;
      evaluated++;
      const ours = compiled.matches({ name: 'd', attributes: device.attributes, capacity: device.capacity }, device.driver);
      const upstream = r.evalError !== undefined ? 'error' : String(r.matches);
      const podplan = ours.ok ? String(ours.value) : 'error';
      if (upstream === 'error') failed++;
      if (upstream === 'true') matched++;
      if (upstream !== podplan)
        diffs.push(
          `${r.expression} on device ${i % DEVICES.length}: upstream ${r.evalError ?? r.matches}, Podplan ${ours.ok ? ours.value : ours.error}`,
        );
    });
    assert.deepEqual(diffs, []);
    // Real work: most of the corpus evaluated, each outcome seen.
    assert.ok(evaluated >= 500 && failed >= 5 && matched >= 100, `${evaluated} evaluated, ${matched} matched, ${failed} failed`);
  });
});
