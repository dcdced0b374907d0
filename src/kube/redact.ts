// The one place credentials are kept out of text. Every message that leaves src/kube (errors,
// warnings, log lines) goes through a Redactor: it knows the secrets of the kubeconfig in use
// (tokens, passwords, client keys, exec plugin environment, auth-provider settings) and those
// client-node puts on requests (an exec plugin's token shows up only there), and it blanks
// anything shaped like a credential even when it knows nothing about it.

export const REDACTED = '<redacted>';

/** Shapes a credential has in text whatever its value: bearer headers, PEM keys, `token: …` fields. */
const CREDENTIAL_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g, REDACTED],
  [/\b(Bearer|Basic)\s+[^\s"',;]+/gi, `$1 ${REDACTED}`],
  [
    /((?:token|password|secret|client-key-data|client-key|id-token|refresh-token|access-token)["']?\s*[:=]\s*["']?)[^\s"',;}]+/gi,
    `$1${REDACTED}`,
  ],
];

/** Secrets shorter than this are not searched for on their own (they would blank ordinary words). */
const MIN_SECRET_LENGTH = 6;

export class Redactor {
  private readonly secrets = new Set<string>();

  constructor(secrets: Iterable<string | undefined | null> = []) {
    for (const s of secrets) this.add(s);
  }

  /** Adds a value that must never be shown, and its base64 form (kubeconfigs hold keys base64-encoded). */
  add(secret: string | undefined | null): void {
    if (!secret || secret.length < MIN_SECRET_LENGTH || this.secrets.has(secret)) return;
    this.secrets.add(secret);
    this.secrets.add(Buffer.from(secret, 'utf8').toString('base64'));
    // A decoded base64 value (client-key-data) is a secret too: its PEM text may show up decoded.
    if (/^[A-Za-z0-9+/]+=*$/.test(secret) && secret.length % 4 === 0) {
      const decoded = Buffer.from(secret, 'base64').toString('utf8');
      if (decoded.length >= MIN_SECRET_LENGTH && !decoded.includes('\uFFFD')) this.secrets.add(decoded.trim());
    }
  }

  /** `text` with every known secret and every credential-shaped value replaced by <redacted>. */
  redact(text: string): string {
    let out = text;
    // Longest first, so a secret that contains another is blanked whole.
    for (const s of [...this.secrets].sort((a, b) => b.length - a.length)) if (s) out = out.split(s).join(REDACTED);
    for (const [pattern, replacement] of CREDENTIAL_PATTERNS) out = out.replace(pattern, replacement);
    return out;
  }

  /** One line for an error of any kind, redacted. */
  describe(error: unknown): string {
    return this.redact(error instanceof Error ? error.message : typeof error === 'string' ? error : safeJson(error));
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
