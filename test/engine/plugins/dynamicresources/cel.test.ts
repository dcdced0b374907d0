import assert from 'node:assert/strict';
import type { Device } from '../../../../src/engine/api/dra';
import { compileSelector } from '../../../../src/engine/plugins/dynamicresources/cel';

// k8s.io/dynamic-resource-allocation/cel/compile_test.go, TestCompile: the expressions on driver,
// attributes (with and without a domain), capacity (quantity) and versions (semver).
const DRIVER = 'dra.example.com';
const device: Device = {
  name: 'd0',
  attributes: {
    name: { string: 'gpu-a' },
    numa: { int: 1 },
    healthy: { bool: true },
    driverVersion: { version: '1.4.2' },
    'other.example.com/flavor': { string: 'x' },
    str: { string: 'this is a 123 string 456' },
  },
  capacity: { memory: { value: '40Gi' } },
};

describe('engine/plugins/dynamicresources/cel', () => {
  const table: Array<[expression: string, expected: boolean | string]> = [
    ['true', true],
    [`device.driver == "${DRIVER}"`, true],
    [`device.attributes["${DRIVER}"].name == "gpu-a"`, true],
    [`device.attributes["${DRIVER}"].numa > 0`, true],
    [`device.attributes["${DRIVER}"].healthy`, true],
    ['device.attributes["other.example.com"].flavor == "x"', true],
    [`"numa" in device.attributes["${DRIVER}"]`, true],
    ['"numa" in device.attributes["unknown.example.com"]', false],
    [`device.capacity["${DRIVER}"].memory.compareTo(quantity("40960Mi")) == 0`, true],
    [`device.capacity["${DRIVER}"].memory.isGreaterThan(quantity("1Ti"))`, false],
    [`device.capacity["${DRIVER}"].memory == quantity("40Gi")`, true],
    [`device.attributes["${DRIVER}"].driverVersion.isGreaterThan(semver("1.4.0"))`, true],
    [`device.attributes["${DRIVER}"].driverVersion.compareTo(semver("1.4.2")) == 0`, true],
    [`device.attributes["${DRIVER}"].driverVersion.major() == 1`, true],
    [`device.attributes["${DRIVER}"].name.startsWith("gpu")`, true],
    ['device.allowMultipleAllocations', false],
    // A runtime error (no such attribute) and a compile error are errors, not false.
    [`device.attributes["${DRIVER}"].nope == 1`, 'runtime:no such key: nope'],
    [`device.attributes["${DRIVER}"]["nope"] == 1`, 'runtime:no such key: nope'],
    ['device.driver ==', 'compile'],
    // A function the environment does not declare is a compile error (cel-go's checker), anywhere.
    ['nope(1)', "compile:<input>:1:5: undeclared reference to 'nope' (in container '')"],
    ['device.driver.nope()', "compile:<input>:1:19: undeclared reference to 'nope' (in container '')"],
    [
      '[1].all(x, x > 0 && sets.nope([x], [1]))',
      "compile:<input>:1:21: undeclared reference to 'sets' (in container '')\n<input>:1:30: undeclared reference to 'nope' (in container '')",
    ],
    ['{"a": nope()}.size() == 1', "compile:<input>:1:11: undeclared reference to 'nope' (in container '')"],
    ['[1, 2].exists(x, x == 2) && has(device.driver) && size("ab") == 2 && int("3") == 3', true],
    ['device.driver.matches("^dra") ? true : false', true],
    // Equality where an operand is typed dyn, as cel-go v0.29.2 evaluates it (each row's verdict from
    // the oracle's -celcost mode on this device): a Kubernetes type on the left of == meeting another
    // type is `no such overload`; != is never an error; lists and maps are equal unless a pair is
    // false; `x in [constants]` is a hash lookup that panics on a Semver or Format (cel-equality.ts).
    [`device.attributes["${DRIVER}"].driverVersion == "1.4.2"`, 'runtime:no such overload'],
    [`device.attributes["${DRIVER}"].driverVersion == 1`, 'runtime:no such overload'],
    [`device.attributes["${DRIVER}"].driverVersion != "1.4.2"`, true],
    [`"1.4.2" == device.attributes["${DRIVER}"].driverVersion`, false],
    [`device.attributes["${DRIVER}"].driverVersion == null`, false],
    [`device.attributes["${DRIVER}"].driverVersion == semver("1.4.2")`, true],
    [`[device.attributes["${DRIVER}"].driverVersion] == ["1.4.2"]`, true],
    [`{"a": device.attributes["${DRIVER}"].driverVersion} == {"a": "x"}`, true],
    [`device.attributes["${DRIVER}"].exists(k, device.attributes["${DRIVER}"][k] == "gpu-a")`, true],
    [`device.attributes["${DRIVER}"].exists(k, device.attributes["${DRIVER}"][k] == "zzz")`, 'runtime:no such overload'],
    ['dyn(quantity("1")) == 1', 'runtime:no such overload'],
    ['dyn(ip("1.2.3.4")) == "1.2.3.4"', 'runtime:no such overload'],
    [
      `device.attributes["${DRIVER}"].driverVersion in ["1.4.2"]`,
      'runtime:internal error: runtime error: hash of unhashable type cel.Semver',
    ],
    ['dyn(format.named("uuid").value()) in ["x"]', 'runtime:internal error: runtime error: hash of unhashable type cel.Format'],
    [`device.attributes["${DRIVER}"].driverVersion in []`, false],
    [`device.attributes["${DRIVER}"].driverVersion in ["a", device.driver]`, false],
    ['dyn(quantity("1")) in ["a"]', false],
    ['[dyn(semver("1.0.0"))] in [["a"]]', true],
    // k8s.io/apiserver/pkg/cel/library/lists.go (ListsVersion(1)), its documented examples.
    ['[1, 2, 3].isSorted()', true],
    ["['a', 'b', 'b', 'c'].isSorted()", true],
    ['[2.0, 1.0].isSorted()', false],
    ['[1].isSorted()', true],
    ['[].isSorted()', true],
    ['[1, 3].sum() == 4', true],
    ['[1.0, 3.0].sum() == 4.0', true],
    ["[duration('1m'), duration('1s')].sum() == duration('1m1s')", true],
    ['[].sum() == 0', true],
    ['[1, 3].min() == 1', true],
    ['[1, 3].max() == 3', true],
    ['[].min() == 0', 'runtime:min called on empty list'],
    ['[].max() == 0', 'runtime:max called on empty list'],
    ['[1].min() == 1', true],
    ["['b', 'c', 'a'].max() == 'c'", true],
    ['[1, 2, 2, 3].indexOf(2) == 1', true],
    ["['a', 'b', 'b', 'c'].lastIndexOf('b') == 2", true],
    ['[1.0].indexOf(1.1) == -1', true],
    ["[].indexOf('string') == -1", true],
    // Upstream's isSorted/min/max: a list whose elements are known not to be comparable does not
    // compile (the checker finds no overload); a comparison across types that fails is not
    // "greater" (cel-go's Compare returns an error).
    ['[{}].isSorted()', "compile:<input>:1:14: found no matching overload for 'isSorted' applied to 'list(map(dyn, dyn)).()'"],
    ['[[1]].max() == [1]', "compile:<input>:1:10: found no matching overload for 'max' applied to 'list(list(int)).()'"],
    ['[1, "a"].isSorted()', "compile:<input>:1:5: expected type 'int' but found 'string'"],
    ['[2, 1.5, 3u].min() == 1.5', "compile:<input>:1:5: expected type 'int' but found 'double'"],
    ['[2, 1.5, 3u].max() == 3u', "compile:<input>:1:5: expected type 'int' but found 'double'"],
    ['[1, 2.0, 2u].isSorted()', "compile:<input>:1:5: expected type 'int' but found 'double'"],
    ['[false, true].isSorted() && ![true, false].isSorted()', true],
    ["['b', 'a'].min() == 'a'", true],
    ['[1, 2, 3].includes(2)', true],
    ['[1, 2, 3].includes(4)', false],
    // On a device: a list built from attributes.
    // A literal's elements are of one type (kube-apiserver validates homogeneous aggregate literals):
    // an attribute is google.protobuf.Any, so it takes a conversion to sit beside ints.
    [`[device.attributes["${DRIVER}"].numa, 2, 3].isSorted()`, "compile:<input>:1:45: expected type 'any' but found 'int'"],
    [`[int(device.attributes["${DRIVER}"].numa), 2, 3].isSorted()`, true],
    [`["gpu-a", "gpu-b"].indexOf(device.attributes["${DRIVER}"].name) == 0`, true],
    // The strings extension's indexOf still applies to strings.
    ['"abc".indexOf("c") == 2', true],
    // k8s.io/apiserver/pkg/cel/library/cost_test.go, TestSetsCost rows (cel-go's sets extension).
    ['sets.contains([], [])', true],
    ['sets.contains([1], [])', true],
    ['sets.contains([1], [1])', true],
    ['sets.contains([1], [1, 1])', true],
    ['sets.contains([1, 1], [1])', true],
    ['sets.contains([2, 1], [1])', true],
    ['sets.contains([1, 2, 3, 4], [2, 3])', true],
    ['sets.contains([1], [1.0, 1])', "compile:<input>:1:26: expected type 'double' but found 'int'"],
    ['sets.contains([1, 2], [2u, 2.0])', "compile:<input>:1:28: expected type 'uint' but found 'double'"],
    [
      'sets.contains([1, 2u], [2, 2.0])',
      "compile:<input>:1:19: expected type 'int' but found 'uint'\n<input>:1:28: expected type 'int' but found 'double'",
    ],
    [
      'sets.contains([1, 2.0, 3u], [1.0, 2u, 3])',
      "compile:<input>:1:19: expected type 'int' but found 'double'\n<input>:1:35: expected type 'double' but found 'uint'",
    ],
    ['sets.contains([[1], [2, 3]], [[2, 3.0]])', "compile:<input>:1:35: expected type 'int' but found 'double'"],
    ['!sets.contains([1], [2])', true],
    ['!sets.contains([1], [1, 2])', true],
    ['!sets.contains([1], ["1", 1])', "compile:<input>:1:27: expected type 'string' but found 'int'"],
    ['!sets.contains([1], [1.1, 1u])', "compile:<input>:1:27: expected type 'double' but found 'uint'"],
    ['sets.equivalent([], [])', true],
    ['sets.equivalent([1], [1])', true],
    ['sets.equivalent([1], [1, 1])', true],
    ['sets.equivalent([1, 1], [1])', true],
    ['sets.equivalent([1], [1u, 1.0])', "compile:<input>:1:27: expected type 'uint' but found 'double'"],
    ['sets.equivalent([1, 2, 3], [3u, 2.0, 1])', "compile:<input>:1:33: expected type 'uint' but found 'double'"],
    [
      'sets.equivalent([[1.0], [2, 3]], [[1], [2, 3.0]])',
      "compile:<input>:1:25: expected type 'list(double)' but found 'list(int)'\n<input>:1:40: expected type 'list(int)' but found 'list(dyn)'\n<input>:1:44: expected type 'int' but found 'double'",
    ],
    ['!sets.equivalent([2, 1], [1])', true],
    ['!sets.equivalent([1], [1, 2])', true],
    ['!sets.equivalent([1, 2], [2u, 2, 2.0])', "compile:<input>:1:31: expected type 'uint' but found 'int'"],
    ['!sets.equivalent([1, 2], [1u, 2, 2.3])', "compile:<input>:1:31: expected type 'uint' but found 'int'"],
    ['sets.intersects([1], [1])', true],
    ['sets.intersects([1], [1, 1])', true],
    ['sets.intersects([1, 1], [1])', true],
    ['sets.intersects([2, 1], [1])', true],
    ['sets.intersects([1], [1, 2])', true],
    ['sets.intersects([1], [])', false],
    ['sets.intersects([1], [2])', false],
    // k8s.io/apiserver/pkg/cel/library/ip_test.go, TestIP rows.
    ['ip("192.168.0.1") == ip("192.168.0.1")', true],
    [
      'ip("192.168.0.1.0") == ip("1.2.3.4")',
      'runtime:IP Address "192.168.0.1.0" parse error during conversion from string: ParseAddr("192.168.0.1.0"): IPv4 address too long',
    ],
    ['isIP("192.168.0.1")', true],
    ['isIP("192.168.0.1.0")', false],
    ['ip.isCanonical("127.0.0.1")', true],
    [
      'ip.isCanonical("127.0.0.1.0")',
      'runtime:IP Address "127.0.0.1.0" parse error during conversion from string: ParseAddr("127.0.0.1.0"): IPv4 address too long',
    ],
    ['ip("192.168.0.1").family() == 4', true],
    ['ip("0.0.0.0").isUnspecified()', true],
    ['ip("127.0.0.1").isUnspecified()', false],
    ['ip("127.0.0.1").isLoopback()', true],
    ['ip("1.2.3.4").isLoopback()', false],
    ['ip("224.0.0.1").isLinkLocalMulticast()', true],
    ['ip("224.0.1.1").isLinkLocalMulticast()', false],
    ['ip("169.254.169.254").isLinkLocalUnicast()', true],
    ['ip("192.168.0.1").isLinkLocalUnicast()', false],
    ['ip("192.168.0.1").isGlobalUnicast()', true],
    ['ip("255.255.255.255").isGlobalUnicast()', false],
    ['ip("2001:db8::68") == ip("2001:0db8:0:0:0:0:0:68")', true],
    [
      'ip("2001:db8:::68") == ip("::")',
      'runtime:IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68")',
    ],
    ['isIP("2001:db8::68")', true],
    ['isIP("2001:db8:::68")', false],
    ['ip.isCanonical("2001:db8::68")', true],
    ['ip.isCanonical("2001:DB8::68")', false],
    [
      'ip.isCanonical("2001:db8:::68")',
      'runtime:IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68")',
    ],
    ['ip("2001:db8::68").family() == 6', true],
    ['ip("::").isUnspecified()', true],
    ['ip("::1").isUnspecified()', false],
    ['ip("::1").isLoopback()', true],
    ['ip("2001:db8::abcd").isLoopback()', false],
    ['ip("ff02::1").isLinkLocalMulticast()', true],
    ['ip("fd00::1").isLinkLocalMulticast()', false],
    ['ip("fe80::1").isLinkLocalUnicast()', true],
    ['ip("fd80::1").isLinkLocalUnicast()', false],
    ['ip("2001:db8::abcd").isGlobalUnicast()', true],
    ['ip("ff00::1").isGlobalUnicast()', false],
    ['string(ip("192.168.0.1")) == "192.168.0.1"', true],
    ['type(ip("192.168.0.1")) == net.IP', true],
    // Go's netip.ParseAddr messages and upstream's parseIPAddr refusals.
    ['isIP("::ffff:1.2.3.4")', false],
    ['ip("::ffff:1.2.3.4") == ip("::")', 'runtime:IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed'],
    ['ip("fe80::1%eth0") == ip("::")', 'runtime:IP address "fe80::1%eth0" with zone value is not allowed'],
    [
      'ip("01.2.3.4") == ip("::")',
      'runtime:IP Address "01.2.3.4" parse error during conversion from string: ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero',
    ],
    [
      'ip("host") == ip("::")',
      'runtime:IP Address "host" parse error during conversion from string: ParseAddr("host"): unable to parse IP',
    ],
    ['string(ip("2001:0:0:1:0:0:0:1")) == "2001:0:0:1::1"', true],
    ['string(ip("::1.2.3.4")) == "::102:304"', true],
    // k8s.io/apiserver/pkg/cel/library/cidr_test.go, TestCIDR rows.
    ['cidr("192.168.0.0/24") == cidr("192.168.0.0/24")', true],
    [
      'cidr("192.168.0.0/") == cidr("192.168.0.0/24")',
      'runtime:network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0/"): bad bits after slash: ""',
    ],
    ['cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))', true],
    ['cidr("192.168.0.0/24").containsIP(ip("192.168.1.1"))', false],
    ['cidr("192.168.0.0/24").containsIP("192.168.0.1")', true],
    ['cidr("192.168.0.0/24").containsIP("192.168.1.1")', false],
    ['cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25"))', true],
    ['cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.1/32"))', true],
    ['cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/23"))', false],
    ['cidr("192.168.0.0/24").containsCIDR(cidr("192.169.0.1/32"))', false],
    ['cidr("192.168.0.0/24").containsCIDR("192.168.0.0/25")', true],
    ['cidr("192.168.0.0/24").containsCIDR("192.168.0.0/23")', false],
    ['cidr("192.168.0.0/24").ip() == ip("192.168.0.0")', true],
    ['cidr("192.168.0.0/24").masked() == cidr("192.168.0.0/24")', true],
    ['cidr("192.168.0.1/24").masked() == cidr("192.168.0.0/24")', true],
    ['cidr("192.168.0.0/24").prefixLength() == 24', true],
    ['cidr("2001:db8::/32") == cidr("2001:db8::/32")', true],
    [
      'cidr("2001:db8::/") == cidr("2001:db8::/32")',
      'runtime:network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("2001:db8::/"): bad bits after slash: ""',
    ],
    ['cidr("2001:db8::/32").containsIP(ip("2001:db8::1"))', true],
    ['cidr("2001:db8::/32").containsIP(ip("2001:dc8::1"))', false],
    ['cidr("2001:db8::/32").containsIP("2001:db8::1")', true],
    ['cidr("2001:db8::/32").containsIP("2001:dc8::1")', false],
    ['cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/33"))', true],
    ['cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/31"))', false],
    ['cidr("2001:db8::/32").containsCIDR("2001:db8::/33")', true],
    ['cidr("2001:db8::/32").containsCIDR("2001:db8::/31")', false],
    ['cidr("2001:db8::/32").ip() == ip("2001:db8::")', true],
    ['cidr("2001:db8::/32").masked() == cidr("2001:db8::/32")', true],
    ['cidr("2001:db8:1::/32").masked() == cidr("2001:db8::/32")', true],
    ['cidr("2001:db8::/32").prefixLength() == 32', true],
    ['string(cidr("192.168.0.0/24")) == "192.168.0.0/24"', true],
    ['type(cidr("192.168.0.0/24")) == net.CIDR', true],
    // Go's netip.ParsePrefix messages and upstream's refusals.
    ['isCIDR("10.0.0.0/8")', true],
    ['isCIDR("10.0.0.0")', false],
    ['isCIDR("::ffff:10.0.0.0/104")', false],
    [
      'cidr("10.0.0.0") == cidr("10.0.0.0/8")',
      `runtime:network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0"): no '/'`,
    ],
    [
      'cidr("10.0.0.0/33") == cidr("10.0.0.0/8")',
      'runtime:network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0/33"): prefix length out of range',
    ],
    [
      'cidr("10.0.0.0/08") == cidr("10.0.0.0/8")',
      'runtime:network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0/08"): bad bits after slash: "08"',
    ],
    ['cidr("10.0.0.0/8").containsIP("10.1")', 'runtime:no such overload'],
    ['cidr("10.0.0.0/8").containsIP(ip("::1"))', false],
    ['cidr("0.0.0.0/0").containsCIDR("10.0.0.0/8")', true],
    ['string(cidr("2001:db8:1::/32")) == "2001:db8:1::/32"', true],
    ['ip.isCanonical("2001:db8:0:0:1:0:0:1") == false && ip.isCanonical("2001:db8::1:0:0:1")', true],
    // k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation_test.go (v0.37.2),
    // TestValidationExpressions "stdlib regex functions" (self.str as a device attribute): the
    // Kubernetes regex library (k8s.io/apiserver/pkg/cel/library/regex.go).
    ...[
      "str.find('[0-9]+') == '123'",
      "str.find('[0-9]+') != '456'",
      "str.find('xyz') == ''",
      "str.findAll('[0-9]+') == ['123', '456']",
      "str.findAll('[0-9]+', 0) == []",
      "str.findAll('[0-9]+', 1) == ['123']",
      "str.findAll('[0-9]+', 2) == ['123', '456']",
      "str.findAll('[0-9]+', 3) == ['123', '456']",
      "str.findAll('[0-9]+', -1) == ['123', '456']",
      "str.findAll('xyz') == []",
      "str.findAll('xyz', 1) == []",
    ].map((e): [string, boolean] => [`device.attributes["${DRIVER}"].${e}`, true]),
    // Same table, its errors: a constant pattern that does not compile is a compile error.
    [`device.attributes["${DRIVER}"].str.find(')') == ''`, 'compile:program instantiation failed: error parsing regexp: unexpected ): `)`'],
    [
      `device.attributes["${DRIVER}"].str.findAll(')') == []`,
      'compile:program instantiation failed: error parsing regexp: unexpected ): `)`',
    ],
    [
      `device.attributes["${DRIVER}"].str.findAll(')', 1) == []`,
      'compile:program instantiation failed: error parsing regexp: unexpected ): `)`',
    ],
    [`device.attributes["${DRIVER}"].str.matches('x++')`, 'compile:<input>:1:50: invalid matches argument'],
    // k8s.io/apiserver/pkg/cel/environment/environment_test.go: the base environment's regex row.
    ["'a 1 b 2'.find('[0-9]') == '1'", true],
    // k8s.io/apiserver/pkg/cel/library/cost_test.go, TestRegexLibrary... expressions (values here).
    ["'abc 123 def 123'.find('123') == '123'", true],
    ["'abc 123 def 123'.findAll('123') == ['123', '123']", true],
    ["'abc 123 def 123'.findAll('123', 1) == ['123']", true],
    // A pattern only known at evaluation that does not compile: regex.go's runtime error.
    [
      `device.attributes["${DRIVER}"].str.find(device.driver + ')') == ''`,
      'runtime:Illegal regex: error parsing regexp: unexpected ): `dra.example.com)`',
    ],
    // Go's FindAllString: an empty match right after a match is skipped; a limit counts matches.
    ["'baaab'.findAll('a*') == ['', 'aaa', '']", true],
    ["'baaab'.findAll('a*', 2) == ['', 'aaa']", true],
    ["'ab'.findAll('') == ['', '', '']", true],
    ["'héllo wörld'.findAll('[^a-z ]') == ['é', 'ö']", true],
    ["'a😀b'.findAll('.') == ['a', '😀', 'b']", true],
    ["'line1\\nline2'.findAll('(?m)^line[0-9]') == ['line1', 'line2']", true],
    ["'aaa'.find('a+?') == 'a' && 'xay'.find('^a') == ''", true],
    // cel-go ext/bindings_test.go (v0.29.2), TestBindings: cel.bind, which DRA's environment adds
    // (k8s.io/dynamic-resource-allocation/cel/compile.go, ext.Bindings).
    ["cel.bind(a, 'hello!', cel.bind(b, 'goodbye', a + ' and, ' + b)) == 'hello! and, goodbye'", true],
    ["cel.bind(a, cel.bind(a, 'world', a + '!'), 'hello ' + a) == 'hello ' + 'world' + '!'", true],
    ['cel.bind(a, [3, 7], cel.bind(b, a[0], cel.bind(c, a[1], b + c))) == 10', true],
    ['cel.bind(a.b, 1, a.b)', 'compile:<input>:1:11: cel.bind() variable names must be simple identifiers'],
    // cel-go ext/comprehensions_test.go (v0.29.2), TestTwoVarComprehensions and
    // TestTwoVarComprehensionsRuntimeCost: two-variable comprehensions (ext.TwoVarComprehensions,
    // k8s.io/apiserver pkg/cel/environment/base.go, since 1.32). Rows using optional syntax
    // (`l[?i]`, `{?k: v}`) are left out: @bufbuild/cel 0.6 does not parse it; rows using the
    // strings extension's reverse (not in the StringsVersion(2) Kubernetes enables) too.
    ...(
      [
        '[1, 2, 3, 4].all(i, v, i < 5 && v > 0)',
        '[1, 2, 3, 4].all(i, v, i < v)',
        '[1, 2, 3, 4].all(i, v, i > v) == false',
        '[\'Hello\', \'world\'].transformList(i, v, "[%d]%s".format([i, v.lowerAscii()])) == ["[0]hello", "[1]world"]',
        "['hello', 'world'].transformList(i, v, v.startsWith('greeting'), \"[%d]%s\".format([i, v])) == []",
        '[1, 2, 3].transformList(indexVar, valueVar, (indexVar * valueVar) + valueVar) == [1, 4, 9]',
        '[1, 2, 3].transformList(indexVar, valueVar, indexVar % 2 == 0, (indexVar * valueVar) + valueVar) == [1, 9]',
        "['Hello', 'world'].transformMap(i, v, [v.lowerAscii()]) == {0: ['hello'], 1: ['world']}",
        "['world', 'Hello'].transformMap(i, v, [v.lowerAscii()]).transformList(k, v, v).flatten().sort() == ['hello', 'world']",
        '[1, 2, 3].transformMap(indexVar, valueVar, (indexVar * valueVar) + valueVar) == {0: 1, 1: 4, 2: 9}',
        '[1, 2, 3].transformMap(indexVar, valueVar, indexVar % 2 == 0, (indexVar * valueVar) + valueVar) == {0: 1, 2: 9}',
        "\"key1:value1 key2:value2 key3:value3\".split(\" \").transformMapEntry(i, v, cel.bind(entry, v.split(\":\"), entry.size() == 2 ? {entry[0]: entry[1]} : {})) == {'key1': 'value1', 'key2': 'value2', 'key3': 'value3'}",
        "{'hello': 'world', 'hello!': 'world'}.all(k, v, k.startsWith('hello') && v == 'world')",
        "{'hello': 'world', 'hello!': 'worlds'}.all(k, v, k.startsWith('hello') && v.endsWith('world')) == false",
        "{'hello': 'world', 'hello!': 'worlds'}.exists(k, v, k.startsWith('hello') && v.endsWith('world'))",
        "{'hello': 'world', 'hello!': 'worlds'}.existsOne(k, v, k.startsWith('hello') && v.endsWith('world'))",
        "{'hello': 'world', 'hello!': 'worlds'}.exists_one(k, v, k.startsWith('hello') && v.endsWith('world'))",
        "{'hello': 'world', 'hello!': 'wow, world'}.exists_one(k, v, k.startsWith('hello') && v.endsWith('world')) == false",
        '{\'Hello\': \'world\'}.transformList(k, v, "%s=%s".format([k.lowerAscii(), v])) == ["hello=world"]',
        'dyn({\'Hello\': \'world\'}).transformList(k, v, "%s=%s".format([k.lowerAscii(), v])) == ["hello=world"]',
        "{'hello': 'world'}.transformList(k, v, k.startsWith('greeting'), \"%s=%s\".format([k, v])) == []",
        "{'greeting': 'hello', 'farewell': 'goodbye'}.transformList(k, _, k).sort() == ['farewell', 'greeting']",
        "{'greeting': 'hello', 'farewell': 'goodbye'}.transformList(_, v, v).sort() == ['goodbye', 'hello']",
        "{'hello': 'world', 'goodbye': 'cruel world'}.transformMap(k, v, \"%s, %s!\".format([k, v])) == {'hello': 'hello, world!', 'goodbye': 'goodbye, cruel world!'}",
        "dyn({'hello': 'world', 'goodbye': 'cruel world'}).transformMap(k, v, \"%s, %s!\".format([k, v])) == {'hello': 'hello, world!', 'goodbye': 'goodbye, cruel world!'}",
        "{'hello': 'world', 'goodbye': 'cruel world'}.transformMap(k, v, v.startsWith('world'), \"%s, %s!\".format([k, v])) == {'hello': 'hello, world!'}",
        "{'hello': 'world', 'greetings': 'tacocat'}.transformMapEntry(k, v, {}) == {}",
        '[].transformList(i, v, v) == []',
        '[1].transformList(i, v, i) == [0]',
        '[3, 2, 1].transformList(i, v, v > i, v) == [3, 2]',
        '[].transformMap(k, v, v + 1) == {}',
        '{}.transformMap(k, v, v + 1) == {}',
        '{1: 2}.transformMap(k, v, v + 1) == {1: 3}',
        '{1: 2, 3: 4, 5: 6}.transformMap(k, v, k % 3 == 0, v + 1) == {3: 5}',
        '{1: 2}.transformMapEntry(k, v, {v: k}) == {2: 1}',
        '{1: 1, 2: 2, 3: 3}.all(i, v, i < 5 && v > 0)',
        '!{0: 0}.all(i, v, i < 5 && v > 0)',
      ] as const
    ).map((e): [string, boolean] => [e, true]),
    // Same file, TestTwoVarComprehensionsErrors (the parser's errors).
    ['[].all(i, i, i < i)', 'compile:<input>:1:11: duplicate variable name: i'],
    ['[].all(__result__, i, __result__ < i)', 'compile:<input>:1:8: iteration variable overwrites accumulator variable'],
    ['[].all(j, __result__, __result__ < j)', 'compile:<input>:1:11: iteration variable overwrites accumulator variable'],
    ['[].all(i.j, k, i.j < k)', 'compile:<input>:1:9: argument must be a simple name'],
    ['[].all(j, i.k, j < i.k)', 'compile:<input>:1:12: argument must be a simple name'],
    ['[].exists(i.j, k, i.j < k)', 'compile:<input>:1:12: argument must be a simple name'],
    ['[].existsOne(j, i.k, j < i.k)', 'compile:<input>:1:18: argument must be a simple name'],
    ['[].transformList(i.j, k, i.j + k)', 'compile:<input>:1:19: argument must be a simple name'],
    // A key made twice: types.InsertMapKeyValue's error.
    // A selector must evaluate to a bool (compile.go validateOutputType): the rows of cel-go's tests
    // whose result is a list or map compare it, so the runtime error is what shows.
    [
      "{'greeting': 'aloha', 'farewell': 'aloha'}.transformMapEntry(k, v, {v: k}).size() == 2",
      'runtime:insert failed: key aloha already exists',
    ],
    ["{'a': 1}.transformMap(k, v, v + 1)", 'compile:must evaluate to bool or the unknown type, not map(string, int)'],
    ['[1, 2].slice(0, 1)', 'compile:must evaluate to bool or the unknown type, not list(int)'],
    ['"a"', 'compile:must evaluate to bool or the unknown type, not string'],
    ['dyn(true)', 'compile:must evaluate to bool or the unknown type, not dyn'],
    ['dyn(true) == true', true],
    ['nope == 1', "compile:<input>:1:1: undeclared reference to 'nope' (in container '')"],
    ['type(quantity("1")) == kubernetes.Quantity', "compile:<input>:1:24: undeclared reference to 'kubernetes' (in container '')"],
    // On a device: its attribute domains and attributes as two-variable comprehensions.
    [`device.attributes["${DRIVER}"].exists(k, v, k == 'name' && v.find('-[a-z]') == '-a')`, true],
    [`device.attributes["${DRIVER}"].transformList(k, v, k.startsWith('num'), v) == [1]`, true],
    // cel-go ext/lists_test.go (v0.29.2), TestLists: cel-go's lists extension at ListsVersion(3)
    // (k8s.io/apiserver pkg/cel/environment/base.go, since 1.34).
    ['lists.range(4) == [0,1,2,3]', true],
    ['lists.range(0) == []', true],
    ['[5,1,2,3].reverse() == [3,2,1,5]', true],
    ['[].reverse() == []', true],
    ['[1].reverse() == [1]', true],
    ["['are', 'you', 'as', 'bored', 'as', 'I', 'am'].reverse() == ['am', 'I', 'as', 'bored', 'as', 'you', 'are']", true],
    ['[false, true, true].reverse().reverse() == [false, true, true]', true],
    ['[1,2,3,4].slice(0, 4) == [1,2,3,4]', true],
    ['[1,2,3,4].slice(0, 0) == []', true],
    ['[1,2,3,4].slice(1, 1) == []', true],
    ['[1,2,3,4].slice(4, 4) == []', true],
    ['[1,2,3,4].slice(1, 3) == [2, 3]', true],
    ['[1,2,3,4].slice(3, 0) == []', 'runtime:cannot slice(3, 0), start index must be less than or equal to end index'],
    ['[1,2,3,4].slice(0, 10) == []', 'runtime:cannot slice(0, 10), list is length 4'],
    ['[1,2,3,4].slice(-5, 10) == []', 'runtime:cannot slice(-5, 10), negative indexes not supported'],
    ['[1,2,3,4].slice(-5, -3) == []', 'runtime:cannot slice(-5, -3), negative indexes not supported'],
    ['dyn([]).flatten() == []', true],
    ['dyn([1,2,3,4]).flatten() == [1,2,3,4]', true],
    [
      '[1,[2,[3,4]]].flatten() == [1,2,[3,4]]',
      "compile:<input>:1:4: expected type 'int' but found 'list(dyn)'\n<input>:1:7: expected type 'int' but found 'list(int)'\n<input>:1:33: expected type 'int' but found 'list(int)'",
    ],
    // kube-apiserver's homogeneous-literal validator: an empty list is list(dyn) beside an int (the oracle's words).
    ['[1,2,[],[],[3,4]].flatten() == [1,2,3,4]', "compile:<input>:1:6: expected type 'int' but found 'list(dyn)'"],
    [
      '[1,[2,[3,4]]].flatten(2) == [1,2,3,4]',
      "compile:<input>:1:4: expected type 'int' but found 'list(dyn)'\n<input>:1:7: expected type 'int' but found 'list(int)'",
    ],
    [
      '[1,[2,[3,[4]]]].flatten(-1) == [1,2,3,4]',
      "compile:<input>:1:4: expected type 'int' but found 'list(dyn)'\n<input>:1:7: expected type 'int' but found 'list(dyn)'\n<input>:1:10: expected type 'int' but found 'list(int)'",
    ],
    ['[].sort() == []', true],
    ['[1].sort() == [1]', true],
    ['[4, 3, 2, 1].sort() == [1, 2, 3, 4]', true],
    ['["d", "a", "b", "c"].sort() == ["a", "b", "c", "d"]', true],
    ['["d", 3, 2, "c"].sort() == ["a", "b", "c", "d"]', "compile:<input>:1:7: expected type 'string' but found 'int'"],
    ['[].sortBy(e, e) == []', true],
    ['["a"].sortBy(e, e) == ["a"]', true],
    ['[-3, 1, -5, -2, 4].sortBy(e, -(e * e)) == [-5, 4, -3, -2, 1]', true],
    ['[-3, 1, -5, -2, 4].map(e, e * 2).sortBy(e, -(e * e)) == [-10, 8, -6, -4, 2]', true],
    ['lists.range(3).sortBy(e, -e) == [2, 1, 0]', true],
    ['["a", "c", "b", "first"].sortBy(e, e == "first" ? "" : e) == ["first", "a", "b", "c"]', true],
    ['[].distinct() == []', true],
    ['[1].distinct() == [1]', true],
    ['[-2, 5, -2, 1, 1, 5, -2, 1].distinct() == [-2, 5, 1]', true],
    ["['c', 'a', 'a', 'b', 'a', 'b', 'c', 'c'].distinct() == ['c', 'a', 'b']", true],
    [
      '[1, 2.0, "c", 3, "c", 1].distinct() == [1, 2.0, "c", 3]',
      "compile:<input>:1:5: expected type 'int' but found 'double'\n<input>:1:44: expected type 'int' but found 'double'",
    ],
    ['[1, 1.0, 2].distinct() == [1, 2]', "compile:<input>:1:5: expected type 'int' but found 'double'"],
    ['[[1], [1], [2]].distinct() == [[1], [2]]', true],
    // Same file, TestListsRuntimeErrors; and the key a sort cannot order.
    // (upstream: `no such overload: map.flatten()`; @bufbuild/cel's dispatch words here)
    ['dyn({}).flatten() == []', "runtime:found no matching overload for 'flatten' applied to 'map(dyn, dyn).()'"],
    ['[].flatten(-1) == []', 'runtime:level must be non-negative'],
    ['[[1], [2]].sort()', "compile:<input>:1:16: found no matching overload for 'sort' applied to 'list(list(int)).()'"],
    ['1.sortBy(e, e)', 'compile:<input>:1:1: sortBy can only be applied to a list, identifier, comprehension, call or select expression'],
    // k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/validation_test.go (v0.37.2),
    // TestValidationExpressions "URL parsing" (self.url written out): the Kubernetes url library
    // (k8s.io/apiserver/pkg/cel/library/urls.go).
    ...(
      [
        "url('/path').getScheme() == ''",
        "url('https://example.com/').getScheme() == 'https'",
        "url('https://example.com:80/').getHost() == 'example.com:80'",
        "url('https://example.com/').getHost() == 'example.com'",
        "url('https://[::1]:80/').getHost() == '[::1]:80'",
        "url('https://[::1]/').getHost() == '[::1]'",
        "url('/path').getHost() == ''",
        "url('https://example.com:80/').getHostname() == 'example.com'",
        "url('https://127.0.0.1/').getHostname() == '127.0.0.1'",
        "url('https://[::1]/').getHostname() == '::1'",
        "url('/path').getHostname() == ''",
        "url('https://example.com:80/').getPort() == '80'",
        "url('https://example.com/').getPort() == ''",
        "url('/path').getPort() == ''",
        "url('https://example.com/path').getEscapedPath() == '/path'",
        "url('https://example.com/with space/').getEscapedPath() == '/with%20space/'",
        "url('https://example.com').getEscapedPath() == ''",
        "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery() == { 'k1': ['a'], 'k2': ['b', 'c']}",
        "url('https://example.com/path?key with spaces=value with spaces').getQuery() == { 'key with spaces': ['value with spaces']}",
        "url('https://example.com/path?').getQuery() == {}",
        "url('https://example.com/path').getQuery() == {}",
        "url('https://user:pass@kubernetes.io:80/docs/home?k1=a&k2=b&k2=c#anchor').getScheme() == 'https'",
        "url('https://user:pass@kubernetes.io:80/docs/home?k1=a&k2=b&k2=c#anchor').getHost() == 'kubernetes.io:80'",
        "url('https://user:pass@kubernetes.io:80/docs/home?k1=a&k2=b&k2=c#anchor').getHostname() == 'kubernetes.io'",
        "url('https://user:pass@kubernetes.io:80/docs/home?k1=a&k2=b&k2=c#anchor').getPort() == '80'",
        "url('https://user:pass@kubernetes.io:80/docs/home?k1=a&k2=b&k2=c#anchor').getEscapedPath() == '/docs/home'",
        "url('https://user:pass@kubernetes.io:80/docs/home?k1=a&k2=b&k2=c#anchor').getQuery() == {'k1': ['a'], 'k2': ['b', 'c']}",
        "isURL('https://user:pass@example.com:80/path?query=val#fragment')",
        "isURL('/path') == true",
        "isURL('https://a:b:c/') == false",
        "isURL('../relative-path') == false",
      ] as const
    ).map((e): [string, boolean] => [e, true]),
    // Escapes, non-ASCII text and queries Go's net/url skips (a bad escape, a semicolon).
    ...(
      [
        "url('https://example.com/a%2Fb').getEscapedPath() == '/a%2Fb'",
        "url('https://example.com/\u00fc').getEscapedPath() == '/%C3%BC'",
        "url('https://example.com/?a=%ZZ&b=1').getQuery() == {'b': ['1']}",
        "url('https://example.com/?a=1;b=2&c=3').getQuery() == {'c': ['3']}",
        "url('mailto:a@b').getHost() == '' && url('mailto:a@b').getScheme() == 'mailto'",
        "url('http://[fe80::1%25en0]/').getHostname() == 'fe80::1%en0'",
      ] as const
    ).map((e): [string, boolean] => [e, true]),
    // Errors in Go's words: each as Go 1.26.8's url.ParseRequestURI reports it for the same text.
    ...(
      [
        ['../x', 'invalid URI for request'],
        ['https://a:b:c/', 'invalid port ":b:c" after host'],
        ['http://[::1', "missing ']' in host"],
        ['http://x/%zz', 'invalid URL escape "%zz"'],
        ['http://x/%2', 'invalid URL escape "%2"'],
        ['https://[1.2.3.4]/', 'invalid IP-literal'],
        ['http://ex ample.com/', 'invalid character " " in host name'],
        [':x', 'missing protocol scheme'],
        ['', 'empty url'],
        ['http://[::1]:8a/', 'invalid port ":8a" after host'],
        ['http://us er@x/', 'net/url: invalid userinfo'],
        ['http://x%41/', 'invalid URL escape "%41"'],
        ['http://[zz]/', 'invalid host: ParseAddr("zz"): unable to parse IP'],
      ] as const
    ).map(([text, error]): [string, string] => [
      `url('${text}').getScheme() == ''`,
      `runtime:URL parse error during conversion from string: parse "${text}": ${error}`,
    ]),
    // k8s.io/dynamic-resource-allocation/cel/compile_test.go, "bind".
    [`cel.bind(dra, device.attributes["${DRIVER}"], dra.healthy)`, true],
    [`cel.bind(dra, device.attributes["${DRIVER}"], dra.numa == 1 && dra.name.find('-[a-z]+') == '-a')`, true],
    ['cel.bind(x, 0, x == 0) && [1, 2].all(x, cel.bind(y, x * 2, y > x))', true],
    ['cel.bind(x, 1, nope(x))', "compile:<input>:1:20: undeclared reference to 'nope' (in container '')"],
  ];
  for (const [expression, expected] of table) {
    it(expression, () => {
      const compiled = compileSelector(expression);
      if (!compiled.ok) {
        if (typeof expected === 'string' && expected.startsWith('compile:'))
          return assert.equal(compiled.error, expected.slice('compile:'.length));
        return assert.equal(expected, 'compile', compiled.error);
      }
      const result = compiled.matches(device, DRIVER);
      if (!result.ok) {
        if (typeof expected === 'string' && expected.startsWith('runtime:'))
          return assert.equal(result.error, expected.slice('runtime:'.length));
        return assert.equal(expected, 'runtime', result.error);
      }
      assert.equal(result.value, expected);
    });
  }
});
