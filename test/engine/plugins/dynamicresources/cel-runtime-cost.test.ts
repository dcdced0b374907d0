import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import type { Device, DeviceClass, ResourceClaim, ResourceSlice } from '../../../../src/engine/api/dra';
import { allocate, SliceIndex } from '../../../../src/engine/plugins/dynamicresources/allocator';
import { compileSelector, selectorActualCost } from '../../../../src/engine/plugins/dynamicresources/cel';
import { COST_LIMIT_EXCEEDED } from '../../../../src/engine/plugins/dynamicresources/cel-runtime-cost';
// generate.ts first: it and generate-dra.ts import each other.
import '../../../upstream/fidelity/generate';
import { GPU_SELECTORS, NIC_SELECTORS } from '../../../upstream/fidelity/generate-dra';
import { oraclePath } from '../../../upstream/fidelity/oracle';
import {
  CEL10,
  CEL8,
  generatedCel8Selectors,
  generatedSelectors,
  HANDWRITTEN,
  OPTIONAL_SYNTAX,
  REVERTED_7239678,
  UPSTREAM_TABLES,
} from './cel-cost-corpus';

const GPU = 'gpu.example.com';
const SHORT: Device = { name: 'short', attributes: { model: { string: 'a1' } } };
const LONG: Device = { name: 'long', attributes: { model: { string: 'a100-sxm4-80gb-hbm2e-nvlink-x' } } };
const A = `device.attributes["${GPU}"]`;
const NO_KEY = 'no such key';

type Expected = 'exceeded' | readonly [cost: number, verdict: boolean | typeof NO_KEY];

// The runtime cost limit (1000000) as upstream's allocator meets it: each figure is upstream's
// actual cost on the device, from the oracle's -celruntime mode (k8s.io/dynamic-resource-allocation
// v0.37.2's cache and DeviceMatches: cel-go v0.29.2's CostTracker with Kubernetes' CallCost), and
// `exceeded` its `operation cancelled: actual cost limit exceeded`. The comments give upstream's
// estimated cost (the -celcost mode) where it tells why the row is there.
const TABLE: Array<[expression: string, short: Expected, long: Expected]> = [
  // An attribute costs 1 and each qualifier 1; `==` on strings the shorter's length / 10, rounded up.
  [`device.driver == "${GPU}"`, [4, true], [4, true]],
  [`${A}.model == "a1"`, [5, true], [5, false]],
  // has(): the qualifiers only (PresenceTestHasCost(false)).
  [`has(${A}.model)`, [3, true], [3, true]],
  // Constant lists are constants (OptOptimize): estimated 26, actual 16.
  ['[1, 2, 3].all(x, x > 0)', [16, true], [16, true]],
  ['[1, 2].map(x, x + 1).size() == 2', [31, true], [31, true]],
  ['[1, 2].filter(x, x > 1).size() == 1', [20, true], [20, true]],
  // A branch of ?: that is an attribute costs no 1 of its own.
  ['[1, 2].exists_one(x, x > 5)', [6, false], [6, false]],
  ['[1, 2, 3][0] == 1', [3, true], [3, true]],
  // A call's result indexed: an attribute of its own (1) and the index (1); split by the actual length.
  [`${A}.model.split("-")[0] == "a1"`, [8, true], [13, false]],
  // `in` a constant list of primitives is a set membership test: the operand only.
  [`${A}.model in ["a1", "b2"]`, [4, true], [4, false]],
  [`${A}.model.matches("^a[0-9]+")`, [6, true], [10, true]],
  // An error: a constant pattern's matches is rebuilt as a var-args call, not counted after the error.
  [`${A}.missing.matches("^a[0-9]+")`, [4, NO_KEY], [4, NO_KEY]],
  [`${A}.missing > 0`, [5, NO_KEY], [5, NO_KEY]],
  [`${A}.exists(k, v, k == "model" && v.startsWith("a"))`, [12, true], [12, true]],
  [`cel.bind(m, ${A}.model, m + m == "a1a1")`, [8, true], [8, false]],
  // Near the limit: 6 per element, the range 11 more than its size.
  ['lists.range(166664).all(i, i >= 0)', [999996, true], [999996, true]],
  ['lists.range(166665).all(i, i >= 0)', 'exceeded', 'exceeded'],
  // Estimated 999984, so kube-apiserver accepts it, yet it passes the limit when evaluated: each
  // [i][0] costs 1 more than the estimate counts.
  ['lists.range(55554).all(i, [i][0] == i)', 'exceeded', 'exceeded'],
  // Stored objects only (estimated 1425012): within the limit for the device whose model has no x
  // (all stops at the first element), past it for the other.
  [`lists.range(95000).all(i, ${A}.model.contains("x"))`, [95022, false], 'exceeded'],
  // cel.bind's value is evaluated when first read: never here.
  ['cel.bind(x, lists.range(200000).all(i, i >= 0), true)', [0, true], [0, true]],
  ['cel.bind(x, lists.range(200000).all(i, i >= 0), x)', 'exceeded', 'exceeded'],
  // exists stops at its first true; && at its first false; || evaluates left to right.
  ['lists.range(500000).exists(i, i == 3)', [500039, true], [500039, true]],
  ['device.driver == "other.example.com" && lists.range(200000).all(i, i >= 0)', [4, false], [4, false]],
  ['lists.range(200000).all(i, i >= 0) || true', 'exceeded', 'exceeded'],
  ['lists.range(1000).all(i, lists.range(1000).all(j, i + j >= 0))', 'exceeded', 'exceeded'],
  [`lists.range(100000).all(i, ${A}.model.matches("^a.*$"))`, 'exceeded', 'exceeded'],
  ['lists.range(90000).map(i, string(i)).join(",").size() > 0', 'exceeded', 'exceeded'],
  ['lists.range(300000).filter(i, i % 2 == 0).size() > 0', 'exceeded', 'exceeded'],
  // sort: twice the square of the size (the lists extension's tracker).
  ['lists.range(706).sort().size() == 706', [997602, true], [997602, true]],
  ['lists.range(707).sort().size() == 707', 'exceeded', 'exceeded'],
  // The type identifiers are constants, `list` and `map` too; a comprehension's variable of that
  // name is a variable (an attribute).
  ['lists.range(200000).all(i, type(i) != list)', 'exceeded', 'exceeded'],
  ['lists.range(200000).all(i, type(i) != map)', 'exceeded', 'exceeded'],
  ['lists.range(200000).all(i, [type(i)] != [list])', 'exceeded', 'exceeded'],
  ['lists.range(3).all(i, type(i) != list)', [33, true], [33, true]],
  ['lists.range(10).all(i, type(i) != map)', [82, true], [82, true]],
  ['[1, 2].all(list, list > 0)', [11, true], [11, true]],
  ['lists.range(200000).all(list, list >= 0)', 'exceeded', 'exceeded'],
  // A message literal costs 40 (its fields as evaluated); a message type's name is a constant.
  ['size([google.protobuf.Duration{seconds: 1}]) == 1', [52, true], [52, true]],
  ['type(google.protobuf.Duration{}) == google.protobuf.Duration', [42, true], [42, true]],
  ['lists.range(3).all(i, size([google.protobuf.Duration{seconds: i, nanos: 2}]) == 1)', [183, true], [183, true]],
  ['size([google.protobuf.Duration{seconds: size(device.driver)}]) == 1', [55, true], [55, true]],
  ['lists.range(200000).all(i, size([google.protobuf.Duration{seconds: i}]) == 1)', 'exceeded', 'exceeded'],
];

describe('engine/plugins/dynamicresources/cel-runtime-cost: the runtime cost limit, as upstream counts it', function () {
  this.timeout(60_000);
  for (const [expression, short, long] of TABLE) {
    for (const [device, expected] of [
      [SHORT, short],
      [LONG, long],
    ] as const) {
      it(`${expression} on ${device.name}`, () => {
        const actual = selectorActualCost(expression, device, GPU);
        assert.ok(actual, 'counted');
        const compiled = compileSelector(expression);
        assert.ok(compiled.ok);
        const verdict = compiled.matches(device, GPU);
        if (expected === 'exceeded') {
          assert.deepEqual([actual.exceeded, verdict], [true, { ok: false, error: COST_LIMIT_EXCEEDED }]);
          return;
        }
        const [cost, value] = expected;
        assert.deepEqual([actual.exceeded, actual.cost], [false, cost]);
        if (value === NO_KEY) assert.equal(verdict.ok, false);
        else assert.deepEqual(verdict, { ok: true, value });
      });
    }
  }

  // The allocator's wording (structured/internal/incubating selectorsMatch): the claim's or the
  // class's selector, its index and the device, then cel-go's error.
  describe('the allocator reports it as upstream, and the plugin as an Error (dynamicresources.go Filter)', () => {
    const OVER = 'lists.range(166665).all(i, i >= 0)';
    const slice: ResourceSlice = {
      metadata: { name: 's' },
      spec: { driver: GPU, pool: { name: 'p', generation: 1, resourceSliceCount: 1 }, nodeName: 'n1', devices: [SHORT] },
    };
    const cls = (selectors: string[]): DeviceClass => ({
      metadata: { name: 'gpu' },
      spec: { selectors: selectors.map((expression) => ({ cel: { expression } })) },
    });
    const claim = (selectors: string[]): ResourceClaim => ({
      metadata: { name: 'c', namespace: 'default' },
      spec: {
        devices: {
          requests: [
            {
              name: 'r',
              exactly: {
                deviceClassName: 'gpu',
                allocationMode: 'ExactCount',
                count: 1,
                selectors: selectors.map((expression) => ({ cel: { expression } })),
              },
            },
          ],
        },
      },
    });
    const table: Array<[name: string, cls: DeviceClass, claim: ResourceClaim, expected: string]> = [
      [
        "a claim's selector",
        cls([]),
        claim([`device.driver == "${GPU}"`, OVER]),
        `claim default/c: selector #1 on device ${GPU}/p/short: CEL runtime error: ${COST_LIMIT_EXCEEDED}`,
      ],
      [
        "a class's selector",
        cls([OVER]),
        claim([]),
        `class gpu: selector #0 on device ${GPU}/p/short: CEL runtime error: ${COST_LIMIT_EXCEEDED}`,
      ],
      ['within the limit: allocated', cls(['lists.range(166664).all(i, i >= 0)']), claim([]), 'allocated'],
    ];
    for (const [name, deviceClass, c, expected] of table) {
      it(name, () => {
        const outcome = allocate(
          { classes: new Map([['gpu', deviceClass]]), slices: new SliceIndex([slice]), allocated: new Set() },
          { metadata: { name: 'n1' } },
          [c],
        );
        assert.equal(outcome.kind === 'error' ? outcome.message : outcome.kind, expected);
      });
    }
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

interface OracleRuntime {
  readonly expression: string;
  readonly matches?: boolean;
  readonly cost?: string;
  readonly error?: string;
  readonly compileError?: string;
}

// (The table above is not run through the oracle again: cel-go's cost tracker takes minutes on its
// rows near the limit, its stack of values growing with every iteration.)
/** Past the limit in a few calls, which cel-go counts quickly. */
const QUICK_OVER = [
  'lists.range(707).sort().size() == 707',
  'lists.range(1000000).size() > 0',
  'lists.range(2000).distinct().size() > 0',
  'sets.contains(lists.range(1000), lists.range(1001))',
  'sets.equivalent(lists.range(708), lists.range(708))',
  'lists.range(1000).map(i, string(i)).sort().size() > 0',
  `[${A}.model].sort().size() == 1 && lists.range(999989).size() > 0`,
  `${A}.model.split("").sort().size() > 0 && lists.range(999975).size() > 0`,
];

// The optional syntax's qualifiers as cel-go's planner makes them (attribute qualifiers testing
// presence, free when absent), by what indexes: a constant, another attribute, a call's result,
// a conditional; on an optional root (a call's result, a comprehension's variable, a conditional's
// branch); presence tests on them; optional list elements and map entries that are not optionals.
const OPTIONAL_QUALIFIERS = (() => {
  const A = `device.attributes["${GPU}"]`;
  return [
    `${A}[?device.driver].hasValue()`,
    `device.attributes[?device.driver].?model.orValue("") == "a1"`,
    `device.attributes[?device.driver + ""].?index.orValue(0) == 2`,
    `device.attributes[?(device.driver == "${GPU}" ? "${GPU}" : "x")].?model.hasValue()`,
    `${A}[?"mo" + "del"].orValue("") == "a1"`,
    `device.attributes[device.driver == "${GPU}" ? "${GPU}" : "x"].?model.hasValue()`,
    `device.attributes[device.driver == "${GPU}" ? "${GPU}" : "x"].model == "a1"`,
    `[1, 2][device.driver == "${GPU}" ? 0 : 1] == 1`,
    `[${A}.?model].all(o, o.?x.hasValue() || o.hasValue())`,
    `[optional.of(${A})].all(o, o.model.orValue("") == "a1")`,
    `(${A}.?model.hasValue() ? optional.of(${A}) : optional.none()).?index.orValue(1) > 0`,
    `has(optional.of(${A}).model) || has(optional.of(${A}).index)`,
    `has(${A}.?nope.model)`,
    `optional.of(device.attributes)["${GPU}"].?driverVersion.hasValue()`,
    `optional.of(device).attributes[?"${GPU}"].?index.orValue(0) >= 0`,
    `[?${A}.?index, ?${A}.?model, ?${A}.?driverVersion].size() >= 0`,
    `{?"a": ${A}.?model, "a": "b", ?"a": ${A}.?index}.size() == 1`,
    `${A}.?model.optMap(m, m + "x").orValue("") == "a1x"`,
    `${A}.?driverVersion.optFlatMap(v, v.major() > 0 ? optional.of(v.minor()) : optional.none()).orValue(0) == 2`,
    `${A}.?model.value() == "a1"`,
    `[1, 2, 3][?${A}.?index.orValue(9)].orValue(0) == 3`,
  ];
})();

// Devices whose maps hold at most one entry per level: a quantifier over a map with more stops at
// a place that depends on Go's map order, so upstream's cost changes from run to run there.
const CORPUS_DEVICES: readonly Device[] = [
  { name: 'empty' },
  SHORT,
  { name: 'index', attributes: { index: { int: 2 } }, capacity: { memory: { value: '16Gi' } } },
  { name: 'version', attributes: { driverVersion: { version: '1.2.3' } } },
];

describe("upstream: DRA selectors' actual CEL cost against k8s.io/dynamic-resource-allocation v0.37.2 (the oracle's -celruntime)", function () {
  this.timeout(600_000);
  const corpus = [
    ...new Set([
      ...REVERTED_7239678,
      ...GPU_SELECTORS,
      ...NIC_SELECTORS,
      ...UPSTREAM_TABLES,
      ...HANDWRITTEN,
      ...generatedSelectors(1, 300),
      ...CEL8,
      ...generatedCel8Selectors(7, 200),
      ...CEL10,
      ...OPTIONAL_SYNTAX,
      ...OPTIONAL_QUALIFIERS,
      ...QUICK_OVER,
    ]),
  ].filter((e) => compileSelector(e).ok);
  const cases = corpus.flatMap((expression) => CORPUS_DEVICES.map((device) => ({ expression, device })));
  let results: OracleRuntime[] = [];

  before(function () {
    const found = findOracle();
    if ('skip' in found) {
      console.log(`      skipped: ${found.skip}`);
      this.skip();
    }
    const input = cases.map(({ expression, device }) => JSON.stringify({ expression, driver: GPU, device })).join('\n');
    results = execFileSync(found.path, ['-celruntime'], { input, encoding: 'utf8', maxBuffer: 256 << 20 })
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as OracleRuntime);
  });

  it("every evaluation upstream compiles has upstream's actual cost, or passes the limit where upstream's does", () => {
    assert.equal(results.length, cases.length);
    const diffs: string[] = [];
    let compared = 0;
    let exceeded = 0;
    for (const [i, { expression, device }] of cases.entries()) {
      const up = results[i]!;
      if (up.compileError) continue;
      const actual = selectorActualCost(expression, device, GPU);
      const upExceeded = up.error === COST_LIMIT_EXCEEDED;
      const mine = actual === undefined ? 'not counted' : actual.exceeded ? 'exceeded' : String(actual.cost);
      if (mine !== (upExceeded ? 'exceeded' : up.cost))
        diffs.push(`${device.name}: ${expression}: upstream ${upExceeded ? 'exceeded' : up.cost}, Podplan ${mine}`);
      compared++;
      if (upExceeded) exceeded++;
    }
    assert.deepEqual(diffs, []);
    assert.ok(compared > 2500 && exceeded >= 8, `${compared} compared, ${exceeded} over the limit`);
  });
});
