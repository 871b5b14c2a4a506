/**
 * Session tokens. Only a SHA-256 hash of each token is kept (in memory and in the state
 * file), so neither a heap dump nor the state file hands out live sessions. A token lives
 * `ttlSeconds` on the emulator clock from its issue; reuse does not extend it.
 */
import { randomBytes } from 'node:crypto';
import { hashSecret } from './hashing';

export interface StoredToken {
  tokenHash: string;
  email: string;
  issuedAt: number;
}

export type TokenCheck = { kind: 'valid'; email: string } | { kind: 'expired' } | { kind: 'invalid' };

/** Expired tokens are remembered this long so they keep answering "expired", then dropped. */
const EXPIRED_TOKEN_MEMORY_SECONDS = 24 * 60 * 60;

export class TokenStore {
  private readonly byHash = new Map<string, StoredToken>();

  /** `onIssue` (tests only) sees each new token; nothing here keeps it. */
  constructor(
    readonly ttlSeconds: number,
    private readonly onIssue?: (token: string) => void,
  ) {}

  issue(email: string, now: number): string {
    this.forgetOldTokens(now);
    const token = randomBytes(24).toString('base64url');
    const tokenHash = hashSecret(token);
    this.byHash.set(tokenHash, { tokenHash, email, issuedAt: now });
    this.onIssue?.(token);
    return token;
  }

  check(token: unknown, now: number): TokenCheck {
    if (typeof token !== 'string' || token === '') return { kind: 'invalid' };
    const stored = this.byHash.get(hashSecret(token));
    if (!stored) return { kind: 'invalid' };
    if (now >= stored.issuedAt + this.ttlSeconds) return { kind: 'expired' };
    return { kind: 'valid', email: stored.email };
  }

  snapshot(): StoredToken[] {
    return [...this.byHash.values()].map((token) => ({ ...token }));
  }

  restore(tokens: StoredToken[]): void {
    for (const token of tokens) this.byHash.set(token.tokenHash, { ...token });
  }

  get size(): number {
    return this.byHash.size;
  }

  private forgetOldTokens(now: number): void {
    for (const [hash, stored] of this.byHash) {
      if (now >= stored.issuedAt + this.ttlSeconds + EXPIRED_TOKEN_MEMORY_SECONDS) this.byHash.delete(hash);
    }
  }
}
