/**
 * Where the app's stacks keep their Terraform state: the `stateBackend` field of the config
 * file. Without it cdktf's default local backend writes `terraform.<stack>.tfstate` into the
 * directory cdktf runs in, which a fresh CI checkout does not have, so its drift check sees
 * every resource as new. With it every stack gets its own state object in one place:
 *
 *   { "s3":    { "bucket", "region", "keyPrefix"?, "dynamodbTable"?, "useLockfile"?, "encrypt"? } }
 *              -> S3Backend, key `<keyPrefix>/<stack>.tfstate`
 *   { "local": { "directory" } }
 *              -> LocalBackend, path `<directory>/<stack>.tfstate`, directory relative to the
 *                 config file
 *
 * Credentials never come from the file: the S3 backend reads them from the AWS environment.
 */
import * as path from 'node:path';
import { LocalBackend, S3Backend, TerraformStack } from 'cdktf';
import type { Construct } from 'constructs';
import type { NamesEveryField } from '../src/field-names';
import { isSecretName } from '../src/secret-names';
import { AppConfigError } from './config-error';

export interface S3StateBackend {
  readonly bucket: string;
  readonly region: string;
  /** Folder of the state objects in the bucket, without leading or trailing `/`. @default none: `<stack>.tfstate` at the bucket's root */
  readonly keyPrefix?: string;
  /** DynamoDB table for state locking (terraform deprecates it in favour of useLockfile). */
  readonly dynamodbTable?: string;
  /** Lock with a `.tflock` object next to the state (terraform 1.10 or later). */
  readonly useLockfile?: boolean;
  /** Server-side encryption of the state objects. */
  readonly encrypt?: boolean;
}

export interface LocalStateBackend {
  /** Absolute: resolved against the config file's directory when parsed. */
  readonly directory: string;
}

export type StateBackendConfig = { readonly s3: S3StateBackend } | { readonly local: LocalStateBackend };

const BACKEND_TYPES = ['s3', 'local'] as const;
const S3_FIELDS = ['bucket', 'region', 'keyPrefix', 'dynamodbTable', 'useLockfile', 'encrypt'] as const satisfies readonly (keyof S3StateBackend)[];
true satisfies NamesEveryField<S3StateBackend, typeof S3_FIELDS>;
const LOCAL_FIELDS = ['directory'] as const satisfies readonly (keyof LocalStateBackend)[];
true satisfies NamesEveryField<LocalStateBackend, typeof LOCAL_FIELDS>;

function asObject(file: string, field: string, value: unknown, expected: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AppConfigError(file, field, `expected ${expected}, got ${JSON.stringify(value)}`);
  }
  return value as Record<string, unknown>;
}

function checkFields(file: string, field: string, object: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(object)) {
    // Credentials the S3 backend would accept (accessKey, secretKey, token, sseCustomerKey, ...):
    // refused before the unknown-field check, with the advice where they belong, value unquoted.
    if (isSecretName(key)) {
      throw new AppConfigError(
        file,
        `${field}.${key}`,
        'credentials never go in this file; give the S3 backend its AWS credentials through the environment of the shell or CI job ' +
          '(AWS_PROFILE, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the job\'s role)',
      );
    }
    if (!known.includes(key)) throw new AppConfigError(file, `${field}.${key}`, `unknown field; expected one of ${known.join(', ')}`);
  }
}

function requiredString(file: string, field: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new AppConfigError(file, field, `expected a non-empty string, got ${JSON.stringify(value)}`);
  return value;
}

function optionalBoolean(file: string, field: string, value: unknown): boolean | undefined {
  if (value !== undefined && typeof value !== 'boolean') throw new AppConfigError(file, field, `expected true or false, got ${JSON.stringify(value)}`);
  return value;
}

function parseS3(file: string, raw: unknown): S3StateBackend {
  const field = 'stateBackend.s3';
  const s3 = asObject(file, field, raw, 'an object with bucket and region');
  checkFields(file, field, s3, S3_FIELDS);
  const bucket = requiredString(file, `${field}.bucket`, s3.bucket);
  const region = requiredString(file, `${field}.region`, s3.region);
  let keyPrefix: string | undefined;
  if (s3.keyPrefix !== undefined) {
    keyPrefix = requiredString(file, `${field}.keyPrefix`, s3.keyPrefix);
    // The S3 backend refuses keys that start or end with "/"; "a//b" is a different object than "a/b".
    if (keyPrefix.startsWith('/') || keyPrefix.endsWith('/') || keyPrefix.includes('//')) {
      throw new AppConfigError(file, `${field}.keyPrefix`, `${JSON.stringify(keyPrefix)} must not start or end with "/" nor contain "//"; write it like "svc-prevent/prod"`);
    }
  }
  const dynamodbTable = s3.dynamodbTable === undefined ? undefined : requiredString(file, `${field}.dynamodbTable`, s3.dynamodbTable);
  const useLockfile = optionalBoolean(file, `${field}.useLockfile`, s3.useLockfile);
  const encrypt = optionalBoolean(file, `${field}.encrypt`, s3.encrypt);
  return {
    bucket,
    region,
    ...(keyPrefix === undefined ? {} : { keyPrefix }),
    ...(dynamodbTable === undefined ? {} : { dynamodbTable }),
    ...(useLockfile === undefined ? {} : { useLockfile }),
    ...(encrypt === undefined ? {} : { encrypt }),
  };
}

function parseLocal(file: string, raw: unknown): LocalStateBackend {
  const field = 'stateBackend.local';
  const local = asObject(file, field, raw, 'an object with directory');
  checkFields(file, field, local, LOCAL_FIELDS);
  const directory = requiredString(file, `${field}.directory`, local.directory);
  // Terraform runs in cdktf.out/stacks/<stack>: a relative path would mean a different place there.
  return { directory: path.resolve(path.dirname(path.resolve(file)), directory) };
}

/** Checks the `stateBackend` field: exactly one backend type, its fields, no credentials. */
export function parseStateBackendConfig(file: string, raw: unknown): StateBackendConfig {
  const backend = asObject(file, 'stateBackend', raw, `an object with one of ${BACKEND_TYPES.join(', ')}, e.g. { "s3": { "bucket": "...", "region": "..." } }`);
  const types = Object.keys(backend);
  const unknown = types.find((type) => !(BACKEND_TYPES as readonly string[]).includes(type));
  if (unknown !== undefined) throw new AppConfigError(file, `stateBackend.${unknown}`, `unknown field; expected one of ${BACKEND_TYPES.join(', ')}`);
  if (types.length !== 1) {
    throw new AppConfigError(file, 'stateBackend', `expected exactly one backend type (${BACKEND_TYPES.join(' or ')}), got ${types.length === 0 ? 'none' : types.join(' and ')}`);
  }
  return types[0] === 's3' ? { s3: parseS3(file, backend.s3) } : { local: parseLocal(file, backend.local) };
}

/** The state object of one stack in the bucket. */
export function s3StateKey(backend: S3StateBackend, stackName: string): string {
  return backend.keyPrefix === undefined ? `${stackName}.tfstate` : `${backend.keyPrefix}/${stackName}.tfstate`;
}

/** The state file of one stack in the local directory. */
export function localStatePath(backend: LocalStateBackend, stackName: string): string {
  return path.join(backend.directory, `${stackName}.tfstate`);
}

/** Gives `stack` the configured backend; undefined leaves cdktf's default local backend. */
export function applyStateBackend(stack: TerraformStack, backend: StateBackendConfig | undefined): void {
  if (backend === undefined) return;
  const name = stack.node.id;
  if ('s3' in backend) {
    const { bucket, region, dynamodbTable, encrypt, useLockfile } = backend.s3;
    const s3 = new S3Backend(stack, {
      bucket,
      region,
      key: s3StateKey(backend.s3, name),
      ...(dynamodbTable === undefined ? {} : { dynamodbTable }),
      ...(encrypt === undefined ? {} : { encrypt }),
    });
    // cdktf 0.21's S3BackendConfig predates terraform 1.10's use_lockfile.
    if (useLockfile !== undefined) s3.addOverride('use_lockfile', useLockfile);
  } else {
    new LocalBackend(stack, { path: localStatePath(backend.local, name) });
  }
}

/** Applies the backend to every stack of the app. */
export function applyStateBackendToStacks(app: Construct, backend: StateBackendConfig | undefined): void {
  for (const child of app.node.children) if (child instanceof TerraformStack) applyStateBackend(child, backend);
}
