// A text's digest, so the client can tell that a file reads as the server expects (before Podplan
// edits it, and after the edit is saved) without the whole text travelling twice.

/** Length and FNV-1a (32-bit) of the UTF-16 code units: equal texts have equal digests. */
export function textDigest(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `${text.length}:${hash.toString(16).padStart(8, '0')}`;
}
