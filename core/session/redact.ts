/** What a secret is replaced with in session files. */
export const REDACTED = "[REDACTED]";

/** Secrets shorter than this are not searched for: replacing every "test" or "1234" in a transcript would wreck it. */
export const MIN_SECRET_LENGTH = 8;

/**
 * Shapes of credentials that should never be stored even when nobody told us the value: provider
 * keys, GitHub tokens, bearer headers and PEM private keys. Anchored on a non-token character
 * before them so that words merely containing `sk-` are left alone; OpenAI-style keys must also
 * contain a digit, which hyphenated words (`sk-learn-docs-...`) do not.
 */
const TOKEN_SHAPES: [RegExp, string][] = [
  [/(?<![A-Za-z0-9_-])sk-(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,}/g, REDACTED],
  [/(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g, REDACTED],
  [/(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{30,}/g, REDACTED],
  [/(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{30,}/g, REDACTED],
  [/\b(Bearer\s+)[A-Za-z0-9._~+/-]{16,}=*/gi, `$1${REDACTED}`],
  // AWS access key ids, and JSON Web Tokens (three base64url parts, the first two JSON objects).
  [/(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Z0-9])/g, REDACTED],
  [/(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, REDACTED],
  [/-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----/g, `-----BEGIN $1PRIVATE KEY-----\n${REDACTED}\n-----END $1PRIVATE KEY-----`],
];

/**
 * A piece every shape above must contain (case aside): text without any is left alone after one
 * scan instead of eight. Keep it in step with TOKEN_SHAPES.
 */
const SHAPE_MARK = /sk-|AIza|gh[pousr]_|github_pat_|bearer|AKIA|ASIA|eyJ|-----BEGIN /i;

/**
 * Replaces secrets in text bound for disk: the exact values the caller knows are in use (API keys
 * from the store, the environment, `--api-key`), then anything shaped like a credential.
 */
export class Redactor {
  private readonly secrets: string[];

  constructor(secrets: Iterable<string> = []) {
    // Longest first, so a key that contains a shorter known secret is replaced whole.
    this.secrets = [...new Set(secrets)].filter((secret) => secret.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
  }

  redact(text: string): string {
    let result = text;
    for (const secret of this.secrets) {
      if (result.includes(secret)) result = result.replaceAll(secret, REDACTED);
    }
    if (!SHAPE_MARK.test(result)) return result;
    for (const [shape, replacement] of TOKEN_SHAPES) result = result.replace(shape, replacement);
    return result;
  }
}
