/**
 * The optional state file. Written after every change as a whole JSON snapshot to a temporary
 * file in the same directory, flushed, then renamed over the old one: a crash leaves either
 * the old or the new state, never half of one. Tokens and API keys are kept as hashes only, so
 * a restart within a token's TTL does not log anybody out and the file hands out no credential;
 * the clock offset is kept too.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StateFileError } from './errors';
import { hashSecret } from './hashing';
import type { User } from './model';
import type { StoreSnapshot } from './store';
import type { StoredToken } from './tokens';

export const STATE_FORMAT = 'svc-emulator-state';
export const STATE_VERSION = 1;

export interface StateFileContents extends StoreSnapshot {
  format: typeof STATE_FORMAT;
  version: typeof STATE_VERSION;
  savedAt: number;
  clockOffsetSeconds: number;
  tokens: StoredToken[];
}

let temporaryCounter = 0;

/** Throws StateFileError when the file cannot be written (missing directory, no permission). */
export function writeStateFile(file: string, contents: StateFileContents): void {
  const directory = path.dirname(file);
  temporaryCounter += 1;
  const temporary = path.join(directory, `.${path.basename(file)}.${process.pid}.${temporaryCounter}.tmp`);
  let descriptor: number;
  try {
    descriptor = fs.openSync(temporary, 'w', 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new StateFileError(file, `it cannot be written (${code})`, 'Check that its directory exists and is writable');
  }
  try {
    try {
      fs.writeSync(descriptor, JSON.stringify(contents));
      fs.fsyncSync(descriptor);
    } finally {
      fs.closeSync(descriptor);
    }
    fs.renameSync(temporary, file);
  } catch (error) {
    // The old file is untouched; do not leave the half-done temporary file beside it.
    fs.rmSync(temporary, { force: true });
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new StateFileError(file, `it cannot be written (${code})`, 'Check free disk space and that the path is a writable file, not a directory');
  }
}

/** Reads the state file; undefined when it does not exist yet. Throws StateFileError. */
export function readStateFile(file: string): StateFileContents | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StateFileError(file, `it cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unknown error'})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new StateFileError(file, `it is not valid JSON (${(error as Error).message})`);
  }
  const record = parsed as Partial<StateFileContents> | null;
  if (typeof record !== 'object' || record === null || record.format !== STATE_FORMAT) {
    throw new StateFileError(file, `it is not an svc-emulator state file (format is not "${STATE_FORMAT}")`);
  }
  if (record.version !== STATE_VERSION) {
    throw new StateFileError(file, `its version ${String(record.version)} is not the supported version ${STATE_VERSION}`);
  }
  for (const key of ['tenants', 'channels', 'users', 'tokens'] as const) {
    if (!Array.isArray(record[key])) throw new StateFileError(file, `its "${key}" is not an array`);
  }
  if (typeof record.clockOffsetSeconds !== 'number') {
    throw new StateFileError(file, 'its "clockOffsetSeconds" is not a number');
  }
  record.users = (record.users as unknown[]).map((user, index) => savedUser(file, user, index));
  return record as StateFileContents;
}

/** A saved user; files written before keys were hashed carry `apiKey`, hashed here on load. */
function savedUser(file: string, value: unknown, index: number): User {
  const user = (typeof value === 'object' && value !== null ? value : {}) as Partial<User> & { apiKey?: unknown };
  const { apiKey, ...rest } = user;
  const apiKeyHash = typeof apiKey === 'string' && apiKey !== '' ? hashSecret(apiKey) : rest.apiKeyHash;
  if (typeof rest.email !== 'string' || typeof apiKeyHash !== 'string' || apiKeyHash === '') {
    throw new StateFileError(file, `its users[${index}] has no "email" and "apiKeyHash"`);
  }
  return { ...rest, apiKeyHash } as User;
}
