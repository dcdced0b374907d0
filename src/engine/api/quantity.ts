// Kubernetes resource quantities ("100m", "0.5", "1Gi", "500Mi", "1e3", "1.5k") parsed exactly.
// A quantity is kept as a rational number (numerator / 10^scale with a binary or decimal multiplier
// folded in) using bigint, so "0.1" + "0.2" is exactly "0.3" and rounding happens once, upwards, as
// upstream's Value() and MilliValue() do.
import { err, ok, type Result } from './result';

export interface Quantity {
  /** The exact value is `numerator / denominator`. */
  readonly numerator: bigint;
  readonly denominator: bigint;
  /** The text it was parsed from. */
  readonly text: string;
  /** How it prints, when not by its text's suffix (a sum keeps its first term's). */
  readonly format?: QuantityFormat;
}

const BINARY: Readonly<Record<string, bigint>> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
const DECIMAL_EXPONENT: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

// sign, digits with optional fraction, then a suffix: binary (Ki..Ei), decimal SI, or exponent (e3, E-2).
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+|[numkMGTPE]?)$/;

export function parseQuantity(text: string): Result<Quantity> {
  const trimmed = text.trim();
  const match = QUANTITY.exec(trimmed);
  if (!match) return err(`"${text}" is not a quantity (examples: 100m, 0.5, 1Gi, 500Mi, 1e3)`);
  const [, sign = '', number = '', suffix = ''] = match;
  const [whole = '', fraction = ''] = number.split('.');
  let numerator = BigInt((whole || '0') + fraction);
  let denominator = 10n ** BigInt(fraction.length);
  const binary = BINARY[suffix];
  if (binary !== undefined) {
    numerator *= binary;
  } else {
    const exponent = suffix.startsWith('e') || suffix.startsWith('E') ? Number(suffix.slice(1)) : DECIMAL_EXPONENT[suffix];
    if (exponent === undefined || Math.abs(exponent) > 64) return err(`"${text}" has an exponent out of range`);
    if (exponent >= 0) numerator *= 10n ** BigInt(exponent);
    else denominator *= 10n ** BigInt(-exponent);
  }
  if (sign === '-') numerator = -numerator;
  return ok({ numerator, denominator, text: trimmed });
}

function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a > 0n ? q + 1n : q;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function toSafeNumber(value: bigint, text: string): Result<number> {
  if (value > MAX_SAFE || value < -MAX_SAFE) return err(`"${text}" is too large`);
  return ok(Number(value));
}

/** The value rounded up to a whole unit (bytes, counts), as upstream's Value(). */
export function quantityValue(q: Quantity): Result<number> {
  return toSafeNumber(ceilDiv(q.numerator, q.denominator), q.text);
}

/** The value in thousandths rounded up (millicores), as upstream's MilliValue(). */
export function quantityMilliValue(q: Quantity): Result<number> {
  return toSafeNumber(ceilDiv(q.numerator * 1000n, q.denominator), q.text);
}

/** Bytes as the API server prints a binary quantity (Quantity.String): 1Gi, 600Mi, 1536Ki; plain bytes otherwise. */
export function formatBytes(bytes: number): string {
  for (const [suffix, size] of Object.entries(BINARY).reverse()) {
    const unit = Number(size);
    if (bytes !== 0 && bytes % unit === 0) return `${bytes / unit}${suffix}`;
  }
  return String(bytes);
}

/** Millicores as the API server prints a cpu quantity: 2, 500m. */
export function formatMilliCPU(milli: number): string {
  return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
}

/** How upstream's Quantity prints itself: chosen by the suffix it was written with (Ki…Ei, an exponent, or SI). */
export type QuantityFormat = 'BinarySI' | 'DecimalSI' | 'DecimalExponent';

export function quantityFormat(q: Quantity): QuantityFormat {
  if (q.format !== undefined) return q.format;
  const suffix = /(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+)$/.exec(q.text)?.[1];
  if (suffix === undefined) return 'DecimalSI';
  return suffix.startsWith('e') || suffix.startsWith('E') ? 'DecimalExponent' : 'BinarySI';
}

const SI_SUFFIX: Readonly<Record<number, string>> = {
  [-9]: 'n',
  [-6]: 'u',
  [-3]: 'm',
  0: '',
  3: 'k',
  6: 'M',
  9: 'G',
  12: 'T',
  15: 'P',
  18: 'E',
};
const BINARY_SUFFIX = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/**
 * The quantity as upstream's Quantity.String() prints it (CanonicalizeBytes): "1.5Gi" is 1536Mi,
 * "0.1" is 100m, "1000m" is 1, "1e3" stays 1e3; a binary quantity below 1024 or not whole prints
 * as SI. `format` is the quantity's own unless given (a sum takes its first term's).
 */
export function formatQuantity(q: Quantity, format: QuantityFormat = quantityFormat(q)): string {
  let { numerator, denominator } = q;
  if (numerator === 0n) return '0';
  const negative = numerator < 0n;
  if (negative) numerator = -numerator;
  const sign = negative ? '-' : '';
  if (format === 'BinarySI' && numerator >= 1024n * denominator && numerator % denominator === 0n) {
    let amount = numerator / denominator;
    let power = 0;
    while (power < BINARY_SUFFIX.length - 1 && amount % 1024n === 0n) {
      amount /= 1024n;
      power++;
    }
    return `${sign}${amount}${BINARY_SUFFIX[power]}`;
  }
  // Decimal (the denominator is a power of ten): every factor of ten taken out, the exponent then a multiple of three.
  let exponent = 0;
  while (denominator > 1n && denominator % 10n === 0n) {
    denominator /= 10n;
    exponent--;
  }
  while (numerator % 10n === 0n) {
    numerator /= 10n;
    exponent++;
  }
  const shift = ((exponent % 3) + 3) % 3;
  numerator *= 10n ** BigInt(shift);
  exponent -= shift;
  const suffix = format === 'DecimalSI' ? SI_SUFFIX[exponent] : undefined;
  return `${sign}${numerator}${suffix ?? (exponent === 0 ? '' : `e${exponent}`)}`;
}

/** The exact sum, printed (and so formatted) as upstream's Quantity.Add leaves it: in the first term's format, or the second's when the first is zero. */
export function addQuantities(a: Quantity, b: Quantity): Quantity {
  const denominator = a.denominator > b.denominator ? a.denominator : b.denominator;
  const numerator = a.numerator * (denominator / a.denominator) + b.numerator * (denominator / b.denominator);
  const format = a.numerator === 0n ? quantityFormat(b) : quantityFormat(a);
  const sum = { numerator, denominator, text: '', format };
  return { ...sum, text: formatQuantity(sum) };
}

/** Compares two quantities exactly: negative, zero or positive as a is less than, equal to or greater than b. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  const left = a.numerator * b.denominator;
  const right = b.numerator * a.denominator;
  return left < right ? -1 : left > right ? 1 : 0;
}
