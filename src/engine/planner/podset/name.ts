// The name of a pod set's SchedulePlan, as Pallet gives it (ciena/pallet, internal/pkg/client/utils.go
// getName): the pod set, a dash, and the FNV-1a 32-bit hash of namespace + pod set written in decimal
// and passed through apimachinery's rand.SafeEncodeString. Matching it lets a plan exported here
// replace the one Pallet's controllers look up.

const FNV32_OFFSET = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;

/** apimachinery rand's alphabet: no vowels, no look-alike digits, so no words and no confusion. */
const SAFE_ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** FNV-1a, 32 bits, over the UTF-8 bytes of `text` (Go's hash/fnv New32a). */
export function fnv32a(text: string): number {
  let hash = FNV32_OFFSET;
  for (const byte of utf8(text)) {
    hash ^= byte;
    hash = Math.imul(hash, FNV32_PRIME) >>> 0;
  }
  return hash;
}

/** apimachinery rand.SafeEncodeString: each character mapped by its code point into the safe alphabet. */
export function safeEncodeString(text: string): string {
  let out = '';
  for (const ch of text) out += SAFE_ALPHANUMS[(ch.codePointAt(0) ?? 0) % SAFE_ALPHANUMS.length];
  return out;
}

/** `<podSet>-<SafeEncodeString(decimal fnv32a(namespace + podSet))>`, Pallet's SchedulePlan name. */
export function schedulePlanName(namespace: string, podSet: string): string {
  return `${podSet}-${safeEncodeString(String(fnv32a(namespace + podSet)))}`;
}

function* utf8(text: string): Generator<number> {
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp < 0x80) {
      yield cp;
    } else if (cp < 0x800) {
      yield 0xc0 | (cp >> 6);
      yield 0x80 | (cp & 0x3f);
    } else if (cp < 0x10000) {
      yield 0xe0 | (cp >> 12);
      yield 0x80 | ((cp >> 6) & 0x3f);
      yield 0x80 | (cp & 0x3f);
    } else {
      yield 0xf0 | (cp >> 18);
      yield 0x80 | ((cp >> 12) & 0x3f);
      yield 0x80 | ((cp >> 6) & 0x3f);
      yield 0x80 | (cp & 0x3f);
    }
  }
}
