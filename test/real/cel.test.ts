import assert from 'node:assert/strict';
import { compileSelector, newSelectorError } from '../../src/engine/plugins/dynamicresources/cel';
import { startRealCluster, type RealCluster } from './cluster';

// Selectors using the CEL functions and macros Podplan added for issue 23 (regex find/findAll,
// cel.bind, cel-go's lists extension, two-variable comprehensions, the url library) and for cel10
// (the format library, cel-go's optional functions): the real
// kube-apiserver v1.37.2 accepts a ResourceClaim with each one Podplan compiles (so the function is
// in upstream's DRA environment and the selector is within its cost limit), and refuses the ones
// Podplan refuses (syntax, macros, regex literals, types), with Podplan's words in its message.
const D = 'device.attributes["dra.example.com"]';
const accepted = [
  `${D}.model.find('[0-9]+') == '100'`,
  `${D}.model.findAll('[a-z]') == ['a']`,
  `${D}.model.findAll('[0-9]', 2).size() == 2`,
  `cel.bind(dra, ${D}, dra.model == 'a100' && dra.numa == 0)`,
  `${D}.exists(k, v, k == 'model')`,
  `${D}.all(k, v, k != '')`,
  `[1, 2, 3].transformList(i, v, i * v) == [0, 2, 6]`,
  `[3, 1, 2].sort() == [1, 2, 3] && [1, 1].distinct() == [1] && lists.range(2) == [0, 1]`,
  `[[1], [2]].flatten() == [1, 2] && [1, 2].slice(0, 1) == [1] && [1, 2].reverse() == [2, 1]`,
  `[2, 1].sortBy(e, e) == [1, 2]`,
  `url('https://example.com:80/p').getPort() == '80' && isURL(${D}.model)`,
  `url('https://x/p?a=1').getQuery() == {'a': ['1']} && url('https://x/a b').getEscapedPath() == '/a%20b'`,
  `{'a': 1}.transformMap(k, v, v + 1) == {'a': 2} && [1, 2].existsOne(i, v, v == 2)`,
  `!format.dns1123Label().validate(${D}.model).hasValue() && format.named('uuid').hasValue()`,
  `format.named('qualifiedName').value().validate(${D}.model).orValue([]).size() == 0`,
  `optional.ofNonZeroValue(${D}.model).or(optional.none()).orValue('') == 'a100' && [${D}.numa].first().value() == 0`,
  `optional.unwrap([optional.of(1), optional.none()]) == [1] && [optional.of(2)].unwrapOpt() == [2]`,
  // The optional syntax (celopt): a.?f, a[?k], [?e], {?k: v}, and selects and indexes on optionals.
  `${D}.?model.orValue('') == 'a100' && ${D}[?'numa'].hasValue()`,
  `device.attributes.?other.?x.hasValue() || [?${D}.?model, ?${D}.?nope].size() == 1`,
  `{?'a': ${D}.?model, 'b': ${D}.model}.size() == 2 && optional.of([1])[0] == optional.of(1)`,
  `has(optional.of({'a': 1}).a) && device.capacity[?'dra.example.com'].?memory.orValue(quantity('0')).isInteger()`,
];
const refused = [
  `${D}.model.find(')') == ''`,
  `${D}.model.matches('x++')`,
  `cel.bind(a.b, 1, true)`,
  `[1].all(i, i, true)`,
  `[1].all(i.j, v, true)`,
  `[].all(__result__, i, true)`,
  // Type errors the checker finds: the output type, an undeclared identifier, a mixed literal, no overload.
  `${D}.model.split('0')`,
  `s == ${D}.model`,
  `[1, 'a'].size() == 2`,
  `device.driver + true == 'x'`,
  `format.validate(${D}.model).hasValue()`,
  `optional.of(1) == optional.of('a')`,
  // The optional syntax's errors (parser, has() macro, checker), and several errors at once in cel-go's order.
  `has(device.attributes.?x)`,
  `[?1] == [1]`,
  `device.attributes.?x == 1`,
  `${D}.?model.size() > 0 && s == 1`,
  // The 7 upstream refused that Podplan used to compile: the format clause, dyn and any operands, a free type variable.
  `"%d".format([${D}.model]) == "1"`,
  `(${D}.healthy ? ['a'] : {'k': 1}).size() > 0`,
  `[].min() == device.driver`,
  `optional.none().value()`,
];

const claim = (expression: string) => ({
  apiVersion: 'resource.k8s.io/v1',
  kind: 'ResourceClaim',
  metadata: { name: 'c', namespace: 'default' },
  spec: { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'gpu', selectors: [{ cel: { expression } }] } }] } },
});

describe('real kube-apiserver: DRA selectors with the CEL extensions Podplan evaluates', function () {
  this.timeout(600_000);
  let cluster: RealCluster;

  before(async () => {
    cluster = await startRealCluster();
  });

  after(async () => {
    await cluster?.stop();
  });

  const create = (expression: string) =>
    cluster.request<{ message?: string }>(
      'POST',
      '/apis/resource.k8s.io/v1/namespaces/default/resourceclaims?dryRun=All',
      claim(expression),
    );

  for (const expression of accepted) {
    it(`accepted: ${expression}`, async () => {
      assert.ok(compileSelector(expression).ok);
      const answer = await create(expression);
      assert.equal(answer.status, 201, answer.text);
    });
  }
  for (const expression of refused) {
    it(`refused: ${expression}`, async () => {
      const compiled = compileSelector(expression);
      assert.ok(!compiled.ok);
      const answer = await create(expression);
      assert.equal(answer.status, 422, answer.text);
      // Each of Podplan's errors (one a line) in kube-apiserver's message, in the same order.
      let from = 0;
      for (const line of compiled.error.split('\n')) {
        const at = answer.body.message?.indexOf(line, from) ?? -1;
        assert.ok(at >= 0, `${answer.body.message} should contain ${line} after offset ${from}`);
        from = at + line.length;
      }
    });
  }

  it(`refused: an optional element typed dyn, on which cel-go's literal validator panics (kube-apiserver drops the request)`, async () => {
    const expression = `[?${D}.model].size() == 1`;
    const compiled = compileSelector(expression);
    assert.ok(!compiled.ok);
    assert.equal(compiled.error, 'runtime error: index out of range [0] with length 0');
    // The handler's panic aborts the request: no answer, the connection closed.
    await assert.rejects(create(expression), /socket hang up|ECONNRESET/);
    // The server lives on.
    const after = await create(`${D}.?model.hasValue()`);
    assert.equal(after.status, 201, after.text);
  });

  it('refused as a new expression, though the scheduler evaluates it: includes (lists library v1, after 1.36)', async () => {
    const expression = `${D}.model.includes('a')`;
    assert.ok(compileSelector(expression).ok);
    const error = newSelectorError(expression);
    assert.equal(error, "<input>:1:52: undeclared reference to 'includes' (in container '')");
    const answer = await create(expression);
    assert.equal(answer.status, 422, answer.text);
    assert.ok(answer.body.message?.includes(error), `${answer.body.message} should contain ${error}`);
  });
});
