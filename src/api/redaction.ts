/**
 * Scrubs credentials (API keys, session tokens) out of text before it reaches an error message,
 * an error's `cause`, a serialised error or a log line. Secrets are registered in one registry
 * as soon as the client learns them, so every error built afterwards is clean wherever it is
 * raised.
 */
import { REDACTED, redactUrlCredentials } from '../url-credentials';

export { REDACTED, redactUrlCredentials };

/** How deep a cause chain is copied; real chains are two or three links long. */
const MAX_CAUSE_DEPTH = 8;

export class SecretRegistry {
  private readonly secrets = new Set<string>();
  /** Longest first, so a secret that contains another is replaced whole. */
  private ordered: string[] = [];

  /** Registers a secret and the spellings it takes inside JSON strings and URLs. */
  add(secret: string | undefined | null): void {
    if (typeof secret !== 'string' || secret.length === 0) return;
    const spellings = [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)];
    let changed = false;
    for (const spelling of spellings) {
      if (spelling.length > 0 && !this.secrets.has(spelling)) {
        this.secrets.add(spelling);
        changed = true;
      }
    }
    if (changed) this.ordered = [...this.secrets].sort((a, b) => b.length - a.length);
  }

  has(secret: string): boolean {
    return this.secrets.has(secret);
  }

  /**
   * The text with every registered secret replaced by [REDACTED], and the user name and password
   * of any URL in it too (`https://admin:KEY@host` -> `https://[REDACTED]@host`): a URL setting
   * may carry a key the registry has not learnt yet, e.g. in the error that refuses the setting.
   */
  redact(text: string): string {
    let result = redactUrlCredentials(text);
    for (const secret of this.ordered) {
      if (result.includes(secret)) result = result.split(secret).join(REDACTED);
    }
    return result;
  }

  /** A deep copy of a JSON-like value with secrets scrubbed from every string and key. */
  redactValue(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (value === null || typeof value !== 'object') return value;
    if (depth > MAX_CAUSE_DEPTH) return '[nested value omitted]';
    if (value instanceof Error) return this.redactError(value, depth + 1);
    if (Array.isArray(value)) return value.map((item) => this.redactValue(item, depth + 1));
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      copy[this.redact(key)] = this.redactValue(item, depth + 1);
    }
    return copy;
  }

  /**
   * A scrubbed stand-in for an error we did not build (an undici or system error): same name,
   * code and errno fields, message and stack redacted, its own cause chain redacted in turn.
   * The original is not kept, because its fields may hold a secret.
   */
  redactError(error: Error, depth = 0): Error {
    const copy: Error & Record<string, unknown> = new Error(this.redact(error.message)) as Error &
      Record<string, unknown>;
    copy.name = error.name;
    if (error.stack !== undefined) copy.stack = this.redact(error.stack);
    const source = error as Error & Record<string, unknown>;
    for (const field of ['code', 'errno', 'syscall', 'address', 'port']) {
      const fieldValue = source[field];
      if (typeof fieldValue === 'string' || typeof fieldValue === 'number') {
        copy[field] = typeof fieldValue === 'string' ? this.redact(fieldValue) : fieldValue;
      }
    }
    if (error instanceof AggregateError && depth < MAX_CAUSE_DEPTH) {
      copy.errors = error.errors.map((inner: unknown) => this.redactValue(inner, depth + 1));
    }
    if (error.cause !== undefined && depth < MAX_CAUSE_DEPTH) {
      copy.cause = this.redactValue(error.cause, depth + 1);
    }
    return copy;
  }
}

/** The registry every client and error of this process shares. */
export const secretRegistry = new SecretRegistry();

export function registerSecret(secret: string | undefined | null): void {
  secretRegistry.add(secret);
}

export function redact(text: string): string {
  return secretRegistry.redact(text);
}
