// Kubernetes' CEL `url` library (k8s.io/apiserver/pkg/cel/library/urls.go, in the base environment
// since 1.0: pkg/cel/environment/base.go, `UnversionedLib(library.URLs)`): url(), isURL(),
// getScheme, getHost, getHostname, getPort, getEscapedPath, getQuery. Upstream parses with Go's
// net/url (url() is url.ParseRequestURI then url.Parse; isURL is url.ParseRequestURI); this is our
// own reading of Go 1.26's net/url (the Go Kubernetes 1.37 builds with, go.mod `go 1.26.0`, so the
// urlstrictcolons default: a host's port starts at its first colon), working on UTF-8 bytes as Go
// does, with its error words (`URL parse error during conversion from string: parse "x": invalid
// URI for request`).
import { celFunc, celList, celMap, celMethod, CelScalar, listType, mapType, objectType, type CelFunc } from '@bufbuild/cel';
import { create, createFileRegistry, type DescMessage } from '@bufbuild/protobuf';
import { reflect, type ReflectMessage } from '@bufbuild/protobuf/reflect';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { COST, est, fixed, member, overload, T, type CallCoster, type CelCostLibrary } from './cel-cost';
import { goParseAddr } from './cel-ip';

/** apiservercel.URLType: cel.ObjectType("kubernetes.URL") (k8s.io/apiserver pkg/cel/url.go line 38). */
const URL_T = T.struct('kubernetes.URL');

const STRING = 9;
const OPTIONAL = 1;

export const urlRegistry = createFileRegistry(
  create(FileDescriptorProtoSchema, {
    name: 'podplan/k8s_cel_url.proto',
    package: 'kubernetes',
    syntax: 'proto3',
    // A parsed URL: the parts the library reads, as Go's url.URL holds them (UTF-8 text).
    messageType: [
      {
        name: 'URL',
        field: ['scheme', 'host', 'path', 'raw_path', 'raw_query'].map((name, i) => ({
          name,
          number: i + 1,
          type: STRING,
          label: OPTIONAL,
        })),
      },
    ],
  }),
  () => undefined,
);

const URLDesc = urlRegistry.getMessage('kubernetes.URL') as DescMessage;
const URL_TYPE = objectType(URLDesc);

// Go strings are bytes: here a "byte string" holds one UTF-8 byte per UTF-16 unit (0..255).
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const toBytes = (s: string): string => String.fromCharCode(...encoder.encode(s));
const fromBytes = (b: string): string => decoder.decode(Uint8Array.from(b, (c) => c.charCodeAt(0)));

/** Go's strconv.Quote (printable text as is, control characters escaped). */
function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (c === 7) out += '\\a';
    else if (c === 8) out += '\\b';
    else if (c === 12) out += '\\f';
    else if (c === 10) out += '\\n';
    else if (c === 13) out += '\\r';
    else if (c === 9) out += '\\t';
    else if (c === 11) out += '\\v';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c >= 0x80 && c < 0xa0) out += `\\u00${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + '"';
}

type Mode = 'path' | 'pathSegment' | 'host' | 'zone' | 'userPassword' | 'queryComponent' | 'fragment';

const isAlnum = (c: string): boolean => /^[a-zA-Z0-9]$/.test(c);
const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9a-fA-F]$/.test(c);

/** Go's shouldEscape (net/url, RFC 3986). */
function shouldEscape(c: string, mode: Mode): boolean {
  if (isAlnum(c)) return false;
  if ((mode === 'host' || mode === 'zone') && `!$&'()*+,;=:[]<>"`.includes(c)) return false;
  if ('-_.~'.includes(c)) return false;
  if ('$&+,/:;=?@'.includes(c)) {
    switch (mode) {
      case 'path':
        return c === '?';
      case 'pathSegment':
        return c === '/' || c === ';' || c === ',' || c === '?';
      case 'userPassword':
        return c === '@' || c === '/' || c === '?' || c === ':';
      case 'queryComponent':
        return true;
      case 'fragment':
        return false;
      default:
        break;
    }
  }
  if (mode === 'fragment' && '!()*'.includes(c)) return false;
  return true;
}

class UrlError extends Error {}

/** Go's unescape over a byte string; UrlError with Go's words when it cannot. */
function unescape(s: string, mode: Mode): string {
  let out = '';
  for (let i = 0; i < s.length;) {
    const c = s[i]!;
    if (c === '%') {
      if (i + 2 >= s.length || !isHex(s[i + 1]) || !isHex(s[i + 2])) {
        throw new UrlError(`invalid URL escape ${goQuote(fromBytes(s.slice(i, i + 3)))}`);
      }
      const v = parseInt(s.slice(i + 1, i + 3), 16);
      if (mode === 'host' && v >> 4 < 8 && s.slice(i, i + 3) !== '%25') {
        throw new UrlError(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`);
      }
      if (mode === 'zone' && s.slice(i, i + 3) !== '%25' && v !== 0x20 && shouldEscape(String.fromCharCode(v), 'host')) {
        throw new UrlError(`invalid URL escape ${goQuote(s.slice(i, i + 3))}`);
      }
      out += String.fromCharCode(v);
      i += 3;
    } else {
      if ((mode === 'host' || mode === 'zone') && c.charCodeAt(0) < 0x80 && shouldEscape(c, mode)) {
        throw new UrlError(`invalid character ${goQuote(c)} in host name`);
      }
      out += c === '+' && mode === 'queryComponent' ? ' ' : c;
      i++;
    }
  }
  return out;
}

/** Go's escape over a byte string. */
function escape(s: string, mode: Mode): string {
  let out = '';
  for (const c of s) {
    if (c === ' ' && mode === 'queryComponent') out += '+';
    else if (shouldEscape(c, mode)) out += `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
    else out += c;
  }
  return out;
}

function validOptionalPort(port: string): boolean {
  return port === '' || /^:[0-9]*$/.test(port);
}

const validUserinfo = (s: string): boolean => /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(s);

interface Parsed {
  scheme: string;
  host: string;
  path: string;
  rawPath: string;
  rawQuery: string;
}

/** Go's getScheme. */
function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new UrlError('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

/** Go's parseHost (Go 1.26, strict colons). */
function parseHost(host: string): string {
  const open = host.lastIndexOf('[');
  if (open > 0) throw new UrlError('invalid IP-literal');
  if (open === 0) {
    const close = host.lastIndexOf(']');
    if (close < 0) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${goQuote(fromBytes(colonPort))} after host`);
    const port = unescape(colonPort, 'host');
    const hostname = host.slice(1, close);
    const zone = hostname.indexOf('%25');
    const unescaped =
      zone >= 0 ? unescape(hostname.slice(0, zone), 'host') + unescape(hostname.slice(zone), 'zone') : unescape(hostname, 'host');
    const addr = goParseAddr(fromBytes(unescaped));
    if (typeof addr === 'string') throw new UrlError(`invalid host: ${addr}`);
    if (addr.is4) throw new UrlError('invalid IP-literal');
    return `[${unescaped}]${port}`;
  }
  const colon = host.indexOf(':');
  if (colon >= 0 && !validOptionalPort(host.slice(colon))) {
    throw new UrlError(`invalid port ${goQuote(fromBytes(host.slice(colon)))} after host`);
  }
  return unescape(host, 'host');
}

/** Go's parse(rawURL, viaRequest) on a byte string. */
function parse(raw: string, viaRequest: boolean): Parsed {
  if ([...raw].some((c) => c < ' ' || c === '\x7f')) throw new UrlError('net/url: invalid control character in URL');
  if (raw === '' && viaRequest) throw new UrlError('empty url');
  const u: Parsed = { scheme: '', host: '', path: '', rawPath: '', rawQuery: '' };
  if (raw === '*') return { ...u, path: '*' };
  const [scheme, afterScheme] = getScheme(raw);
  let rest = afterScheme;
  u.scheme = scheme.toLowerCase();
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) {
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf('?');
    if (q >= 0) [rest, u.rawQuery] = [rest.slice(0, q), rest.slice(q + 1)];
  }
  if (!rest.startsWith('/')) {
    if (u.scheme !== '') return u; // opaque: no host, no path
    if (viaRequest) throw new UrlError('invalid URI for request');
    const slash = rest.indexOf('/');
    if ((slash < 0 ? rest : rest.slice(0, slash)).includes(':')) {
      throw new UrlError('first path segment in URL cannot contain colon');
    }
  }
  if ((u.scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) [authority, rest] = [authority.slice(0, slash), authority.slice(slash)];
    const at = authority.lastIndexOf('@');
    u.host = parseHost(at < 0 ? authority : authority.slice(at + 1));
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      if (!validUserinfo(userinfo)) throw new UrlError('net/url: invalid userinfo');
      const colon = userinfo.indexOf(':');
      if (colon < 0) unescape(userinfo, 'userPassword');
      else {
        unescape(userinfo.slice(0, colon), 'userPassword');
        unescape(userinfo.slice(colon + 1), 'userPassword');
      }
    }
  }
  u.path = unescape(rest, 'path');
  u.rawPath = escape(u.path, 'path') === rest ? '' : rest;
  return u;
}

/** upstream's stringToUrl: url.ParseRequestURI, then url.Parse (which splits the fragment off). */
function parseURL(text: string): Parsed {
  const raw = toBytes(text);
  const fail = (input: string, e: unknown): never => {
    if (!(e instanceof UrlError)) throw e;
    throw new Error(`URL parse error during conversion from string: parse ${goQuote(fromBytes(input))}: ${e.message}`);
  };
  try {
    parse(raw, true);
  } catch (e) {
    fail(raw, e);
  }
  const hash = raw.indexOf('#');
  const before = hash < 0 ? raw : raw.slice(0, hash);
  let u: Parsed | undefined;
  try {
    u = parse(before, false);
  } catch (e) {
    fail(before, e);
  }
  if (hash >= 0) {
    try {
      unescape(raw.slice(hash + 1), 'fragment');
    } catch (e) {
      fail(raw, e);
    }
  }
  return u!;
}

function isURL(text: string): boolean {
  try {
    parse(toBytes(text), true);
    return true;
  } catch (e) {
    if (e instanceof UrlError) return false;
    throw e;
  }
}

/**
 * Go's url.ParseRequestURI error text (`parse "x": invalid URI for request`, a *url.Error), or
 * undefined when it parses: what the format library's uri format reports.
 */
export function parseRequestURIError(text: string): string | undefined {
  const raw = toBytes(text);
  try {
    parse(raw, true);
    return undefined;
  } catch (e) {
    if (!(e instanceof UrlError)) throw e;
    return `parse ${goQuote(text)}: ${e.message}`;
  }
}

function message(u: Parsed): ReflectMessage {
  return reflect(
    URLDesc,
    create(URLDesc, {
      scheme: fromBytes(u.scheme),
      host: fromBytes(u.host),
      path: fromBytes(u.path),
      rawPath: fromBytes(u.rawPath),
      rawQuery: fromBytes(u.rawQuery),
    }),
  );
}

function partsOf(m: unknown): Parsed {
  const msg = m as ReflectMessage;
  const get = (name: string) => toBytes(msg.get(URLDesc.field[name]!) as string);
  return { scheme: get('scheme'), host: get('host'), path: get('path'), rawPath: get('rawPath'), rawQuery: get('rawQuery') };
}

/** Go's splitHostPort (url.URL's Hostname and Port). */
function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && validOptionalPort(host.slice(colon))) [host, port] = [host.slice(0, colon), host.slice(colon + 1)];
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}

/** Go's validEncoded. */
function validEncoded(s: string, mode: Mode): boolean {
  for (const c of s) if (!"!$&'()*+,;=:@[]%".includes(c) && shouldEscape(c, mode)) return false;
  return true;
}

/** Go's URL.EscapedPath. */
function escapedPath(u: Parsed): string {
  if (u.rawPath !== '' && validEncoded(u.rawPath, 'path')) {
    try {
      if (unescape(u.rawPath, 'path') === u.path) return u.rawPath;
    } catch (e) {
      if (!(e instanceof UrlError)) throw e;
    }
  }
  if (u.path === '*') return '*';
  return escape(u.path, 'path');
}

/** Go's url.ParseQuery, errors ignored as URL.Query ignores them: key → values in order. */
function query(raw: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (raw.split('&').length > 10_000) return out;
  for (const part of raw.split('&')) {
    if (part.includes(';') || part === '') continue;
    const eq = part.indexOf('=');
    let key: string;
    let value: string;
    try {
      key = fromBytes(unescape(eq < 0 ? part : part.slice(0, eq), 'queryComponent'));
      value = fromBytes(unescape(eq < 0 ? '' : part.slice(eq + 1), 'queryComponent'));
    } catch (e) {
      if (e instanceof UrlError) continue;
      throw e;
    }
    out.set(key, [...(out.get(key) ?? []), value]);
  }
  return out;
}

export const urlFuncs: readonly CelFunc[] = [
  celFunc('url', [CelScalar.STRING], URL_TYPE, (s) => message(parseURL(s))),
  celFunc('isURL', [CelScalar.STRING], CelScalar.BOOL, isURL),
  celMethod('getScheme', URL_TYPE, [], CelScalar.STRING, function () {
    return fromBytes(partsOf(this).scheme);
  }),
  celMethod('getHost', URL_TYPE, [], CelScalar.STRING, function () {
    return fromBytes(partsOf(this).host);
  }),
  celMethod('getHostname', URL_TYPE, [], CelScalar.STRING, function () {
    return fromBytes(splitHostPort(partsOf(this).host)[0]);
  }),
  celMethod('getPort', URL_TYPE, [], CelScalar.STRING, function () {
    return fromBytes(splitHostPort(partsOf(this).host)[1]);
  }),
  celMethod('getEscapedPath', URL_TYPE, [], CelScalar.STRING, function () {
    return fromBytes(escapedPath(partsOf(this)));
  }),
  celMethod('getQuery', URL_TYPE, [], mapType(CelScalar.STRING, listType(CelScalar.STRING)), function () {
    return celMap(new Map([...query(partsOf(this).rawQuery)].map(([k, v]) => [k, celList(v)])));
  }),
];

const urlAccessor: CallCoster = () => ({ cost: fixed(1n) });

/**
 * The url library's share of the cost model: urls.go's declarations (lines 127-153) and
 * library/cost.go's estimates: url() traverses its string and is as large (lines 312-316), the
 * getters cost 1 (lines 505-507).
 */
export const urlCost: CelCostLibrary = {
  decls: [
    overload('url', 'string_to_url', [T.string], URL_T),
    overload('isURL', 'is_url_string', [T.string], T.bool),
    member('getScheme', 'url_get_scheme', [URL_T], T.string),
    member('getHost', 'url_get_host', [URL_T], T.string),
    member('getHostname', 'url_get_hostname', [URL_T], T.string),
    member('getPort', 'url_get_port', [URL_T], T.string),
    member('getEscapedPath', 'url_get_escaped_path', [URL_T], T.string),
    member('getQuery', 'url_get_query', [URL_T], T.map(T.string, T.list(T.string))),
  ],
  byFunction: {
    url: (ctx, _fn, _id, _target, args) => {
      if (args.length !== 1) return undefined;
      const sz = ctx.size(args[0]!);
      return { cost: est.factor(sz, COST.stringTraversalFactor), resultSize: sz };
    },
    getScheme: urlAccessor,
    getHostname: urlAccessor,
    getHost: urlAccessor,
    getPort: urlAccessor,
    getEscapedPath: urlAccessor,
    getQuery: urlAccessor,
  },
};
