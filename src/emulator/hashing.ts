/**
 * One-way hashes of the secrets the emulator must recognise but never hand back: API keys and
 * session tokens. Only these hashes are kept in memory and in the state file.
 */
import { createHash } from 'node:crypto';

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
