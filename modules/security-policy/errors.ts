/**
 * The errors SecurityPolicy, its entry-file loader and its config parser raise. Each names
 * where (file:line, construct path or config field), what (the field and the value) and how to
 * fix it, so a user reading a failed `cdktf synth` does not have to open this code. Callers
 * branch on `code`, never on the message text.
 */
import { ConfigFileError } from '../../src/config-file-error';
import { FILE_FIELD } from '../../src/entry-file';
import { SvcConstructError } from '../construct-error';

/** A place an entry came from, for messages: `policy/blacklist.yaml:7` or `security-policy: blacklist.entries[2]`. */
export interface EntrySource {
  /** The entry file as shown to the user (relative to the working directory when inside it). */
  readonly file?: string;
  /** 1-based line of the entry in `file`. */
  readonly line?: number;
  /** Where the entry sits, e.g. `entries[2]`, `blacklist.entries[0]` or `control-plane-egress[1]`. */
  readonly field: string;
  /** Construct path, for entries that come from props or addEntries rather than a file. */
  readonly constructPath?: string;
}

/** `policy/blacklist.yaml:7: entries[2]` or `stack/security-policy: blacklist.entries[2]`. */
export function describeSource(source: EntrySource): string {
  if (source.file !== undefined) {
    const where = source.line === undefined ? source.file : `${source.file}:${source.line}`;
    return `${where}: ${source.field}`;
  }
  return source.constructPath === undefined ? source.field : `${source.constructPath}: ${source.field}`;
}

/** The `code` of a PolicyFileError: a bad entry, the same address twice, or a file that cannot be read or parsed. */
export type PolicyFileErrorCode =
  /** An entry of a file is wrong: its ip (not an address, host bits set, empty, missing), a wrong type, an unknown field. */
  | 'invalid_policy_entry'
  /** Two entries of one list have the same canonical address; at least the later one is in a file. */
  | 'duplicate_policy_entry'
  /** The file cannot be read, is not valid YAML/JSON, has an unknown extension or the wrong top-level shape. */
  | 'invalid_policy_file';

/** The `field` of a problem with the whole file (unreadable, bad syntax); left out of the message. */
export { FILE_FIELD } from '../../src/entry-file';

/** A problem in an entry file (JSON or YAML), naming file and line. */
export class PolicyFileError extends Error {
  /** Stable across releases: branch on it, not on the message. */
  readonly code: PolicyFileErrorCode;
  /** The entry file as it was named (in `files`, or to loadPolicyEntryFile). */
  readonly file: string;
  /** The 1-based line of the problem, when it has one. */
  readonly line: number | undefined;
  /** The field path inside the file, e.g. `entries[2].ip`, or `(file)` for the whole file. */
  readonly field: string;
  /** The value found (never anything but the entry's own text). */
  readonly value: unknown;

  /** Built by the entry-file checks; the message is `<file>[:<line>]: [<field>: ]<message>`. */
  constructor(details: {
    code: PolicyFileErrorCode;
    file: string;
    line?: number;
    field: string;
    value?: unknown;
    message: string;
  }) {
    const where = details.line === undefined ? details.file : `${details.file}:${details.line}`;
    super(details.field === FILE_FIELD ? `${where}: ${details.message}` : `${where}: ${details.field}: ${details.message}`);
    this.name = 'PolicyFileError';
    this.code = details.code;
    this.file = details.file;
    this.line = details.line;
    this.field = details.field;
    this.value = details.value;
  }
}

/** The `code` of a SecurityPolicyPropError, stable across releases: branch on it, not on the message. */
export type SecurityPolicyPropErrorCode =
  | 'invalid_security_policy_prop'
  /** Two entries of one list have the same canonical address, neither later one from a file. */
  | 'duplicate_policy_entry'
  /** Two entries map to the same terraform resource name (only possible for rare IPv6 spellings). */
  | 'policy_resource_name_clash';

/**
 * A wrong SecurityPolicy prop or addEntries argument, naming the construct path, the prop and
 * the value (a SvcConstructError, as every construct's prop error).
 */
export class SecurityPolicyPropError extends SvcConstructError<SecurityPolicyPropErrorCode> {
  /** `message` is what is wrong (the problem); `fix`, when given, is printed after it as `Fix: ...`. */
  constructor(details: {
    code?: SecurityPolicyPropErrorCode;
    constructPath: string;
    prop: string;
    value: unknown;
    message: string;
    fix?: string;
  }) {
    super({
      code: details.code ?? 'invalid_security_policy_prop',
      constructPath: details.constructPath,
      prop: details.prop,
      value: details.value,
      problem: details.message,
      fix: details.fix,
    });
  }
}

/**
 * A problem in the `securityPolicy` section of the app's configuration file: the same shape and
 * code as the app's AppConfigError (both are ConfigFileErrors), so the app reports both alike.
 */
export class SecurityPolicyConfigError extends ConfigFileError {
  override readonly name = 'SecurityPolicyConfigError';
}
