// Kubernetes' CEL `format` library (k8s.io/apiserver v0.37.2 pkg/cel/library/format.go; in the base
// environment from 1.31, pkg/cel/environment/base.go): format.named(name) → optional NamedFormat,
// format.<name>() → NamedFormat for each of its 13 formats, and f.validate(s) → optional list of
// error strings (none when s is valid). The validators are our reading of the Go ones upstream
// calls, with their words: k8s.io/apimachinery v0.37.2 pkg/api/validation NameIsDNSLabel,
// NameIsDNSSubdomain, NameIsDNS1035Label (with their prefix masking), pkg/util/validation
// IsDNS1123Label, IsDNS1123Subdomain, IsDNS1035Label (lengths "characters"), pkg/api/validate/content
// IsLabelKey (qualifiedName) and IsLabelValue (lengths "bytes"), Go's url.ParseRequestURI (uri, via
// cel-url.ts), and k8s.io/kube-openapi strfmt's uuid, byte (govalidator's base64 pattern), date
// (time.Parse "2006-01-02") and datetime checks. Lengths are Go's: UTF-8 bytes.
import { celFunc, celList, celMethod, CelScalar, objectType, type CelFunc } from '@bufbuild/cel';
import { create, createFileRegistry, type DescMessage } from '@bufbuild/protobuf';
import { reflect, type ReflectMessage } from '@bufbuild/protobuf/reflect';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { COST, est, fixed, member, overload, T, type CallCoster, type CelCostLibrary } from './cel-cost';
import { OPTIONAL_TYPE, optionalNone, optionalOf, optionalT } from './cel-optional';
import { parseRequestURIError } from './cel-url';

const STRING = 9;
const OPTIONAL_LABEL = 1;

export const formatRegistry = createFileRegistry(
  create(FileDescriptorProtoSchema, {
    name: 'podplan/k8s_cel_format.proto',
    package: 'kubernetes',
    syntax: 'proto3',
    // apiservercel.Format: equal when their names are (pkg/cel/format.go Equal).
    messageType: [{ name: 'NamedFormat', field: [{ name: 'name', number: 1, type: STRING, label: OPTIONAL_LABEL }] }],
  }),
  () => undefined,
);

const FormatDesc = formatRegistry.getMessage('kubernetes.NamedFormat') as DescMessage;
const FORMAT_TYPE = objectType(FormatDesc);
/** apiservercel.FormatType: cel.ObjectType("kubernetes.NamedFormat"). */
const FORMAT_T = T.struct('kubernetes.NamedFormat');
export const FORMAT_T_NAME = 'kubernetes.NamedFormat';

const encoder = new TextEncoder();
const byteLength = (s: string): number => encoder.encode(s).length;

// pkg/util/validation's words (its MaxLenError says "characters").
const maxLenChars = (n: number): string => `must be no more than ${n} characters`;
// pkg/api/validate/content's words (its MaxLenError says "bytes").
const maxLenBytes = (n: number): string => `must be no more than ${n} bytes`;

/** RegexError: the message, its examples and the pattern (both packages word it alike). */
function regexError(msg: string, pattern: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${pattern}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${pattern}')`;
}

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const DNS1035_LABEL = '[a-z]([-a-z0-9]*[a-z0-9])?';
const anchored = (p: string): RegExp => new RegExp(`^(?:${p})$`);
const dns1123LabelRe = anchored(DNS1123_LABEL);
const dns1123SubdomainRe = anchored(DNS1123_SUBDOMAIN);
const dns1035LabelRe = anchored(DNS1035_LABEL);

function isDNS1123Label(value: string, maxLen = maxLenChars): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLen(63));
  if (!dns1123LabelRe.test(value)) {
    if (dns1123SubdomainRe.test(value)) errs.push('must not contain dots');
    else
      errs.push(
        regexError(
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
          DNS1123_LABEL,
          'my-name',
          '123-abc',
        ),
      );
  }
  return errs;
}

function isDNS1123Subdomain(value: string, maxLen = maxLenChars): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLen(253));
  if (!dns1123SubdomainRe.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN,
        'example.com',
      ),
    );
  }
  return errs;
}

function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenChars(63));
  if (!dns1035LabelRe.test(value)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL,
        'my-name',
        'abc-123',
      ),
    );
  }
  return errs;
}

/**
 * pkg/api/validation maskTrailingDash, as upstream has it: a name longer than one byte ending in '-'
 * loses its last two bytes and gains an 'a'.
 */
function maskTrailingDash(name: string): string {
  const bytes = encoder.encode(name);
  if (bytes.length > 1 && name.endsWith('-')) return new TextDecoder().decode(bytes.slice(0, bytes.length - 2)) + 'a';
  return name;
}

const LABEL_KEY = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_KEY_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelKeyRe = anchored(LABEL_KEY);
const LABEL_VALUE = `(${LABEL_KEY})?`;
const labelValueRe = anchored(LABEL_VALUE);

/** content.IsLabelKey (validation.IsQualifiedName). */
function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...isDNS1123Subdomain(prefix, maxLenBytes).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a valid label key ${regexError(LABEL_KEY_MSG, LABEL_KEY, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (byteLength(name) > 63) errs.push(`name part ${maxLenBytes(63)}`);
  if (!labelKeyRe.test(name)) errs.push(`name part ${regexError(LABEL_KEY_MSG, LABEL_KEY, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** content.IsLabelValue (validation.IsValidLabelValue). */
function isLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenBytes(63));
  if (!labelValueRe.test(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errs;
}

const uuidRe = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const base64Re = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
// strfmt.DateTimePattern; Go's `.` is any rune but a newline.
const timeRe = /^([0-9]{2}):([0-9]{2}):([0-9]{2})([^\n][0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/u;

/** time.Parse("2006-01-02", s) succeeds: four-digit year, month 01-12, a day the month has. */
function isDate(s: string): boolean {
  const m = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(s);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return day <= days;
}

/** strfmt.IsDateTime: a date, a 't', then a time (only the text between the first and second 't' is read). */
function isDateTime(str: string): boolean {
  if (byteLength(str) < 4) return false;
  const s = str.toLowerCase().split('t');
  if (s.length < 2 || !isDate(s[0]!)) return false;
  const m = timeRe.exec(s[1]!);
  if (!m) return false;
  return m[1]! <= '23' && m[2]! <= '59' && m[3]! <= '59';
}

type Validator = (s: string) => readonly string[];

/** format.go ConstantFormats: the library's name → the Format's Name and validator. */
const FORMATS: ReadonlyMap<string, { readonly name: string; readonly validate: Validator }> = new Map([
  ['dns1123Label', { name: 'DNS1123Label', validate: (s: string) => isDNS1123Label(s) }],
  ['dns1123Subdomain', { name: 'DNS1123Subdomain', validate: (s: string) => isDNS1123Subdomain(s) }],
  ['dns1035Label', { name: 'DNS1035Label', validate: isDNS1035Label }],
  ['qualifiedName', { name: 'QualifiedName', validate: isQualifiedName }],
  ['dns1123LabelPrefix', { name: 'DNS1123LabelPrefix', validate: (s: string) => isDNS1123Label(maskTrailingDash(s)) }],
  ['dns1123SubdomainPrefix', { name: 'DNS1123SubdomainPrefix', validate: (s: string) => isDNS1123Subdomain(maskTrailingDash(s)) }],
  ['dns1035LabelPrefix', { name: 'DNS1035LabelPrefix', validate: (s: string) => isDNS1035Label(maskTrailingDash(s)) }],
  ['labelValue', { name: 'LabelValue', validate: isLabelValue }],
  [
    'uri',
    {
      name: 'URI',
      validate: (s: string) => {
        const err = parseRequestURIError(s);
        return err === undefined ? [] : [err];
      },
    },
  ],
  ['uuid', { name: 'uuid', validate: (s: string) => (uuidRe.test(s) ? [] : ['does not match the UUID format']) }],
  ['byte', { name: 'byte', validate: (s: string) => (base64Re.test(s) ? [] : ['invalid base64']) }],
  ['date', { name: 'date', validate: (s: string) => (isDate(s) ? [] : ['invalid date']) }],
  ['datetime', { name: 'datetime', validate: (s: string) => (isDateTime(s) ? [] : ['invalid datetime']) }],
]);

/** The library's format names (format.go ConstantFormats), for tests and docs. */
export const FORMAT_NAMES: readonly string[] = [...FORMATS.keys()];

const byName = new Map([...FORMATS.values()].map((f) => [f.name, f]));

function formatMessage(name: string): ReflectMessage {
  return reflect(FormatDesc, create(FormatDesc, { name }));
}

export const formatFuncs: readonly CelFunc[] = [
  celFunc('format.named', [CelScalar.STRING], OPTIONAL_TYPE, (name) => {
    const f = FORMATS.get(name);
    return f ? optionalOf(formatMessage(f.name)) : optionalNone();
  }),
  ...[...FORMATS].map(([key, f]) => celFunc(`format.${key}`, [], FORMAT_TYPE, () => formatMessage(f.name))),
  celMethod('validate', FORMAT_TYPE, [CelScalar.STRING], OPTIONAL_TYPE, function (s) {
    const f = byName.get(this.get(FormatDesc.field['name']!) as string);
    if (!f) throw new Error('no such overload');
    const errs = f.validate(s);
    return errs.length === 0 ? optionalNone() : optionalOf(celList([...errs]));
  }),
];

/** apiservercel.MaxNameFormatRegexSize. */
const MAX_NAME_FORMAT_REGEX_SIZE = 128;

const validateCost: CallCoster = (ctx, _fn, _id, _target, args) =>
  args.length >= 1
    ? {
        cost: est.factor(
          est.factor(ctx.size(args[0]!), COST.stringTraversalFactor),
          MAX_NAME_FORMAT_REGEX_SIZE * COST.regexStringLengthFactor,
        ),
      }
    : undefined;

/**
 * The format library's share of the cost model: format.go's declarations (lines 127-133 and
 * 258-275) and library/cost.go's estimates (lines 496-503): validate traverses its string times
 * MaxNameFormatRegexSize at the regex factor, format.named costs 1, the constant formats have no
 * entry (a call costs 1).
 */
export const formatCost: CelCostLibrary = {
  decls: [
    member('validate', 'format-validate', [FORMAT_T, T.string], optionalT(T.list(T.string))),
    overload('format.named', 'format-named', [T.string], optionalT(FORMAT_T)),
    ...FORMAT_NAMES.map((key) => overload(`format.${key}`, `format.${key}`, [], FORMAT_T)),
  ],
  byFunction: {
    validate: validateCost,
    'format.named': () => ({ cost: fixed(1n) }),
  },
};
