// Kubernetes' CEL `ip` and `cidr` libraries (k8s.io/apiserver/pkg/cel/library/ip.go and cidr.go,
// in the base environment since 1.30): ip(), isIP(), ip.isCanonical(), string(ip), family,
// isUnspecified, isLoopback, isLinkLocalMulticast, isLinkLocalUnicast, isGlobalUnicast; cidr(),
// isCIDR(), string(cidr), containsIP, containsCIDR, ip, masked, prefixLength. Addresses and prefixes
// parse as Go's netip.ParseAddr and netip.ParsePrefix, with their error messages; zones and
// IPv4-mapped IPv6 addresses are refused as upstream's parseIPAddr and parseCIDR refuse them.
import { celFunc, celMethod, CelScalar, objectType, type CelFunc } from '@bufbuild/cel';
import { CIDR_T, COST, est, fixed, IP_T, member, overload, T, type CallCoster, type CelCostLibrary } from './cel-cost';
import { create, createFileRegistry, type DescMessage } from '@bufbuild/protobuf';
import { reflect, type ReflectMessage } from '@bufbuild/protobuf/reflect';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';

const BYTES = 12;
const INT64 = 3;
const OPTIONAL = 1;

export const ipRegistry = createFileRegistry(
  create(FileDescriptorProtoSchema, {
    name: 'podplan/k8s_cel_net.proto',
    package: 'net',
    syntax: 'proto3',
    // An address: its 4 or 16 bytes.
    messageType: [
      { name: 'IP', field: [{ name: 'addr', number: 1, type: BYTES, label: OPTIONAL }] },
      // A prefix: its address as written (4 or 16 bytes) and its length.
      {
        name: 'CIDR',
        field: [
          { name: 'addr', number: 1, type: BYTES, label: OPTIONAL },
          { name: 'bits', number: 2, type: INT64, label: OPTIONAL },
        ],
      },
    ],
  }),
  () => undefined,
);

const IPDesc = ipRegistry.getMessage('net.IP') as DescMessage;
const IP = objectType(IPDesc);
const CIDRDesc = ipRegistry.getMessage('net.CIDR') as DescMessage;
const CIDR = objectType(CIDRDesc);

class AddrError extends Error {}

/** Go's strconv.Quote for the ASCII text addresses are. */
function quote(s: string): string {
  return JSON.stringify(s);
}

function addrError(input: string, msg: string, at?: string): AddrError {
  return new AddrError(`ParseAddr(${quote(input)}): ${msg}${at !== undefined && at !== '' ? ` (at ${quote(at)})` : ''}`);
}

function parseIPv4Fields(input: string, off: number, end: number, out: number[]): void {
  let val = 0;
  let pos = 0;
  let digLen = 0;
  const s = input.slice(off, end);
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c >= '0' && c <= '9') {
      if (digLen === 1 && val === 0) throw addrError(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + (c.charCodeAt(0) - 48);
      digLen++;
      if (val > 255) throw addrError(input, 'IPv4 field has value >255');
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') throw addrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (pos === 3) throw addrError(input, 'IPv4 address too long');
      out[pos++] = val;
      val = 0;
      digLen = 0;
    } else {
      throw addrError(input, 'unexpected character', s.slice(i));
    }
  }
  if (pos < 3) throw addrError(input, 'IPv4 address too short');
  out[3] = val;
}

interface Addr {
  readonly bytes: number[];
  readonly zone: string;
}

function parseIPv6(input: string): Addr {
  let s = input;
  let zone = '';
  const pct = s.indexOf('%');
  if (pct !== -1) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === '') throw addrError(input, 'zone must be a non-empty string');
  }
  const ip = new Array<number>(16).fill(0);
  let ellipsis = -1;
  if (s.length >= 2 && s[0] === ':' && s[1] === ':') {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return { bytes: ip, zone };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const c = s[off]!;
      const d = /[0-9a-fA-F]/.test(c) ? parseInt(c, 16) : -1;
      if (d < 0) break;
      acc = acc * 16 + d;
      if (off > 3) throw addrError(input, 'each group must have 4 or less digits', s);
      if (acc > 0xffff) throw addrError(input, 'IPv6 field has value >=2^16', s);
    }
    if (off === 0) throw addrError(input, 'each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12) throw addrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16) throw addrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      let end = input.length;
      if (zone.length > 0) end -= zone.length + 1;
      const v4: number[] = [];
      parseIPv4Fields(input, end - s.length, end, v4);
      for (let k = 0; k < 4; k++) ip[i + k] = v4[k]!;
      s = '';
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (s.length === 0) break;
    if (s[0] !== ':') throw addrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) throw addrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) throw addrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    }
  }
  if (s.length !== 0) throw addrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) throw addrError(input, 'address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j]!;
    for (let j = ellipsis; j < ellipsis + n; j++) ip[j] = 0;
  } else if (ellipsis >= 0) {
    throw addrError(input, 'the :: must expand to at least one field of zeros', s);
  }
  return { bytes: ip, zone };
}

/** Go's netip.ParseAddr. */
function parseAddr(s: string): Addr {
  for (const c of s) {
    if (c === '.') {
      const out: number[] = [];
      parseIPv4Fields(s, 0, s.length, out);
      return { bytes: out, zone: '' };
    }
    if (c === ':') return parseIPv6(s);
    if (c === '%') throw addrError(s, 'missing IPv6 address');
  }
  throw addrError(s, 'unable to parse IP');
}

/** Go's netip.ParseAddr for net/url's IP-literal check: whether it is IPv4, or its error text. */
export function goParseAddr(s: string): { readonly is4: boolean } | string {
  try {
    return { is4: parseAddr(s).bytes.length === 4 };
  } catch (e) {
    if (e instanceof AddrError) return e.message;
    throw e;
  }
}

function is4In6(b: readonly number[]): boolean {
  return b.length === 16 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
}

/** upstream's parseIPAddr: an address, or the error in its words. */
function parseIPAddr(raw: string): number[] {
  let addr: Addr;
  try {
    addr = parseAddr(raw);
  } catch (e) {
    if (e instanceof AddrError)
      throw new Error(`IP Address ${quote(raw)} parse error during conversion from string: ${e.message}`, { cause: e });
    throw e;
  }
  if (addr.zone !== '') throw new Error(`IP address ${quote(raw)} with zone value is not allowed`);
  if (is4In6(addr.bytes)) throw new Error(`IPv4-mapped IPv6 address ${quote(raw)} is not allowed`);
  return addr.bytes;
}

/** Go's Addr.String (RFC 5952 for IPv6: the first longest run of two or more zero fields is ::). */
function addrString(b: readonly number[]): string {
  if (b.length === 4) return b.join('.');
  const fields: number[] = [];
  for (let i = 0; i < 16; i += 2) fields.push((b[i]! << 8) | b[i + 1]!);
  let zeroStart = -1;
  let zeroEnd = -1;
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && fields[j] === 0) j++;
    if (j - i >= 2 && j - i > zeroEnd - zeroStart) {
      zeroStart = i;
      zeroEnd = j;
    }
  }
  let out = '';
  for (let i = 0; i < 8; i++) {
    if (i === zeroStart) {
      out += '::';
      i = zeroEnd - 1;
      continue;
    }
    if (out !== '' && !out.endsWith(':')) out += ':';
    out += fields[i]!.toString(16);
  }
  return out;
}

interface Prefix {
  readonly bytes: number[];
  readonly bits: number;
}

/** Go's netip.ParsePrefix. */
function parsePrefix(s: string): Prefix {
  const fail = (msg: string): AddrError => new AddrError(`netip.ParsePrefix(${quote(s)}): ${msg}`);
  const slash = s.lastIndexOf('/');
  if (slash < 0) throw fail("no '/'");
  let addr: Addr;
  try {
    addr = parseAddr(s.slice(0, slash));
  } catch (e) {
    if (e instanceof AddrError) throw fail(e.message);
    throw e;
  }
  if (addr.bytes.length === 16 && addr.zone !== '') throw fail('IPv6 zones cannot be present in a prefix');
  const bitsStr = s.slice(slash + 1);
  // strconv.Atoi: digits with an optional sign, within int64.
  const atoiOk = /^[+-]?\d+$/.test(bitsStr) && BigInt(bitsStr) <= 9223372036854775807n && BigInt(bitsStr) >= -9223372036854775808n;
  if ((bitsStr.length > 1 && (bitsStr[0]! < '1' || bitsStr[0]! > '9')) || !atoiOk) {
    throw fail(`bad bits after slash: ${quote(bitsStr)}`);
  }
  const bits = Number(bitsStr);
  if (bits < 0 || bits > addr.bytes.length * 8) throw fail('prefix length out of range');
  return { bytes: addr.bytes, bits };
}

const CIDR_PARSE = 'network address parse error during conversion from string';

/** upstream's parseCIDR: a prefix, or the error in its words. */
function parseCIDR(raw: string): Prefix {
  let p: Prefix;
  try {
    p = parsePrefix(raw);
  } catch (e) {
    if (e instanceof AddrError) throw new Error(`${CIDR_PARSE}: ${e.message}`, { cause: e });
    throw e;
  }
  if (is4In6(p.bytes)) throw new Error(`IPv4-mapped IPv6 address ${quote(raw)} is not allowed`);
  return p;
}

/** upstream's stringToCIDR (which wraps parseCIDR's error once more). */
function stringToCIDR(raw: string): Prefix {
  try {
    return parseCIDR(raw);
  } catch (e) {
    throw new Error(`${CIDR_PARSE}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

function maskBytes(b: readonly number[], bits: number): number[] {
  return b.map((x, i) => {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    return x & ((0xff << (8 - keep)) & 0xff);
  });
}

function sameBytes(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Go's Prefix.Contains. */
function prefixContains(p: Prefix, ip: readonly number[]): boolean {
  return p.bytes.length === ip.length && sameBytes(maskBytes(p.bytes, p.bits), maskBytes(ip, p.bits));
}

/** Go's Prefix.Overlaps. */
function prefixOverlaps(p: Prefix, o: Prefix): boolean {
  if (p.bytes.length !== o.bytes.length) return false;
  const min = Math.min(p.bits, o.bits);
  return min === 0 || sameBytes(maskBytes(p.bytes, min), maskBytes(o.bytes, min));
}

function cidrMessage(p: Prefix): ReflectMessage {
  return reflect(CIDRDesc, create(CIDRDesc, { addr: new Uint8Array(p.bytes), bits: BigInt(p.bits) }));
}

function prefixOf(m: unknown): Prefix {
  const msg = m as ReflectMessage;
  return {
    bytes: [...(msg.get(CIDRDesc.field['addr']!) as Uint8Array)],
    bits: Number(msg.get(CIDRDesc.field['bits']!) as bigint),
  };
}

function containsCIDR(p: Prefix, o: Prefix): boolean {
  return prefixOverlaps(p, o) && p.bits <= o.bits;
}

function ipMessage(bytes: readonly number[]): ReflectMessage {
  return reflect(IPDesc, create(IPDesc, { addr: new Uint8Array(bytes) }));
}

function bytesOf(m: unknown): number[] {
  return [...((m as ReflectMessage).get(IPDesc.field['addr']!) as Uint8Array)];
}

const isUnspecified = (b: readonly number[]): boolean => b.every((x) => x === 0);
const isLoopback = (b: readonly number[]): boolean => (b.length === 4 ? b[0] === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1);
const isMulticast = (b: readonly number[]): boolean => (b.length === 4 ? (b[0]! & 0xf0) === 0xe0 : b[0] === 0xff);
const isLinkLocalUnicast = (b: readonly number[]): boolean =>
  b.length === 4 ? b[0] === 169 && b[1] === 254 : b[0] === 0xfe && (b[1]! & 0xc0) === 0x80;
const isLinkLocalMulticast = (b: readonly number[]): boolean =>
  b.length === 4 ? b[0] === 224 && b[1] === 0 && b[2] === 0 : b[0] === 0xff && (b[1]! & 0x0f) === 0x02;
const isGlobalUnicast = (b: readonly number[]): boolean =>
  !(b.length === 4 && b.every((x) => x === 255)) && !isUnspecified(b) && !isLoopback(b) && !isMulticast(b) && !isLinkLocalUnicast(b);

export const ipFuncs: CelFunc[] = [
  celFunc('cidr', [CelScalar.STRING], CIDR, (s: string) => cidrMessage(stringToCIDR(s))),
  celFunc('isCIDR', [CelScalar.STRING], CelScalar.BOOL, (s: string) => {
    try {
      parseCIDR(s);
      return true;
    } catch {
      return false;
    }
  }),
  celFunc('string', [CIDR], CelScalar.STRING, (c) => {
    const p = prefixOf(c);
    return `${addrString(p.bytes)}/${p.bits}`;
  }),
  celMethod('containsIP', CIDR, [IP], CelScalar.BOOL, function (ip) {
    return prefixContains(prefixOf(this), bytesOf(ip));
  }),
  celMethod('containsIP', CIDR, [CelScalar.STRING], CelScalar.BOOL, function (s) {
    let ip: number[];
    try {
      ip = parseIPAddr(s);
    } catch {
      // upstream's cidrContainsIP reports the CIDR, not the bad address: no such overload.
      throw new Error('no such overload');
    }
    return prefixContains(prefixOf(this), ip);
  }),
  celMethod('containsCIDR', CIDR, [CIDR], CelScalar.BOOL, function (o) {
    return containsCIDR(prefixOf(this), prefixOf(o));
  }),
  celMethod('containsCIDR', CIDR, [CelScalar.STRING], CelScalar.BOOL, function (s) {
    return containsCIDR(prefixOf(this), stringToCIDR(s));
  }),
  celMethod('ip', CIDR, [], IP, function () {
    return ipMessage(prefixOf(this).bytes);
  }),
  celMethod('masked', CIDR, [], CIDR, function () {
    const p = prefixOf(this);
    return cidrMessage({ bytes: maskBytes(p.bytes, p.bits), bits: p.bits });
  }),
  celMethod('prefixLength', CIDR, [], CelScalar.INT, function () {
    return BigInt(prefixOf(this).bits);
  }),
  celFunc('ip', [CelScalar.STRING], IP, (s: string) => ipMessage(parseIPAddr(s))),
  celFunc('isIP', [CelScalar.STRING], CelScalar.BOOL, (s: string) => {
    try {
      parseIPAddr(s);
      return true;
    } catch {
      return false;
    }
  }),
  celFunc('ip.isCanonical', [CelScalar.STRING], CelScalar.BOOL, (s: string) => addrString(parseIPAddr(s)) === s),
  celFunc('string', [IP], CelScalar.STRING, (ip) => addrString(bytesOf(ip))),
  celMethod('family', IP, [], CelScalar.INT, function () {
    return bytesOf(this).length === 4 ? 4n : 6n;
  }),
  celMethod('isUnspecified', IP, [], CelScalar.BOOL, function () {
    return isUnspecified(bytesOf(this));
  }),
  celMethod('isLoopback', IP, [], CelScalar.BOOL, function () {
    return isLoopback(bytesOf(this));
  }),
  celMethod('isLinkLocalMulticast', IP, [], CelScalar.BOOL, function () {
    return isLinkLocalMulticast(bytesOf(this));
  }),
  celMethod('isLinkLocalUnicast', IP, [], CelScalar.BOOL, function () {
    return isLinkLocalUnicast(bytesOf(this));
  }),
  celMethod('isGlobalUnicast', IP, [], CelScalar.BOOL, function () {
    return isGlobalUnicast(bytesOf(this));
  }),
];

const ipTraverse: CallCoster = (ctx, _fn, _id, _target, args) =>
  args[0] ? { cost: est.factor(ctx.size(args[0]), COST.stringTraversalFactor) } : undefined;
const ipUnit: CallCoster = () => ({ cost: fixed(1n) });
/** An IP's size as the estimator assumes it: 4 to 16 bytes. */
const IP_SIZE = { min: 4n, max: 16n };

/**
 * The ip and cidr libraries' share of the cost model: their overloads (k8s.io/apiserver
 * pkg/cel/library ip.go, cidr.go) and their entries in library/cost.go's EstimateCallCost.
 */
export const ipCost: CelCostLibrary = {
  // The opaque types' names are identifiers (ip.go and cidr.go register them: `type(ip(s)) == net.IP`).
  typeNames: ['net.IP', 'net.CIDR'],
  decls: [
    overload('ip', 'string_to_ip', [T.string], IP_T),
    member('family', 'ip_family', [IP_T], T.int),
    overload('ip.isCanonical', 'ip_is_canonical', [T.string], T.bool),
    member('isUnspecified', 'ip_is_unspecified', [IP_T], T.bool),
    member('isLoopback', 'ip_is_loopback', [IP_T], T.bool),
    member('isLinkLocalMulticast', 'ip_is_link_local_multicast', [IP_T], T.bool),
    member('isLinkLocalUnicast', 'ip_is_link_local_unicast', [IP_T], T.bool),
    member('isGlobalUnicast', 'ip_is_global_unicast', [IP_T], T.bool),
    overload('isIP', 'is_ip', [T.string], T.bool),
    overload('string', 'ip_to_string', [IP_T], T.string),
    overload('cidr', 'string_to_cidr', [T.string], CIDR_T),
    member('containsIP', 'cidr_contains_ip_string', [CIDR_T, T.string], T.bool),
    member('containsIP', 'cidr_contains_ip_ip', [CIDR_T, IP_T], T.bool),
    member('containsCIDR', 'cidr_contains_cidr_string', [CIDR_T, T.string], T.bool),
    member('containsCIDR', 'cidr_contains_cidr', [CIDR_T, CIDR_T], T.bool),
    member('ip', 'cidr_ip', [CIDR_T], IP_T),
    member('prefixLength', 'cidr_prefix_length', [CIDR_T], T.int),
    member('masked', 'cidr_masked', [CIDR_T], CIDR_T),
    overload('isCIDR', 'is_cidr', [T.string], T.bool),
    overload('string', 'cidr_to_string', [CIDR_T], T.string),
  ],
  byFunction: {
    cidr: ipTraverse,
    isIP: ipTraverse,
    isCIDR: ipTraverse,
    ip: (ctx, fn, id, target, args) => (id === 'cidr_ip' ? { cost: fixed(1n) } : ipTraverse(ctx, fn, id, target, args)),
    'ip.isCanonical': (ctx, _fn, _id, _target, args) =>
      args[0] ? { cost: est.factor(ctx.size(args[0]), 2 * COST.stringTraversalFactor) } : undefined,
    masked: ipUnit,
    prefixLength: ipUnit,
    family: ipUnit,
    isUnspecified: ipUnit,
    isLoopback: ipUnit,
    isLinkLocalMulticast: ipUnit,
    isLinkLocalUnicast: ipUnit,
    isGlobalUnicast: ipUnit,
    containsIP: (ctx, _fn, id, _target, args) => {
      if (args.length < 1) return undefined;
      let cost = est.factor(est.add(IP_SIZE, IP_SIZE), COST.stringTraversalFactor);
      if (id === 'cidr_contains_ip_string') cost = est.add(cost, est.factor(ctx.size(args[0]!), COST.stringTraversalFactor));
      return { cost };
    },
    containsCIDR: (ctx, _fn, id, _target, args) => {
      if (args.length < 1) return undefined;
      let cost = est.factor(est.add(IP_SIZE, IP_SIZE), COST.stringTraversalFactor);
      cost = est.add(cost, est.factor(IP_SIZE, COST.stringTraversalFactor));
      cost = est.add(cost, fixed(1n));
      if (id === 'cidr_contains_cidr_string') cost = est.add(cost, est.factor(ctx.size(args[0]!), COST.stringTraversalFactor));
      return { cost };
    },
  },
};
