/**
 * The one shape every construct of this library raises for a wrong prop or option: where (the
 * construct path), which prop, the value received, what is wrong and how to fix it. Each
 * construct keeps its own subclass with its own stable codes, so `instanceof SvcConstructError`
 * catches any of them, `instanceof DeploymentPolicyPropError` one construct's, and `code` tells
 * problems apart. Props are named as the user wrote them (camelCase paths such as
 * `installationRole.trustedPrincipal`), never by a file of this repository or a template key.
 */

/** What a construct error is made from. */
export interface SvcConstructErrorDetails<Code extends string = string> {
  /** Stable across releases: callers branch on it, never on the message. */
  readonly code: Code;
  /** The construct's path (`stack/deployment-policy`), or the command's name when a command raised it. */
  readonly constructPath: string;
  /** The prop as the user wrote it, e.g. `sensorCidrs[1]` or `blacklist.entries[3].ip` (a flag such as `--account-id` for a command). */
  readonly prop: string;
  /** The value received. */
  readonly value: unknown;
  /**
   * False for a value that may be a secret: the message names the prop only and `value` is not
   * kept. @default true
   */
  readonly showValue?: boolean;
  /** What is wrong, in a few words, without the prop or the value (the message adds them). */
  readonly problem: string;
  /** How to fix it. @default none: the problem says it */
  readonly fix?: string;
}

/** `<construct path>: <prop> = <value>: <problem>. Fix: <fix>`. */
function constructErrorMessage(details: SvcConstructErrorDetails): string {
  const where = details.constructPath === '' ? '' : `${details.constructPath}: `;
  const shown = details.showValue ?? true;
  const value = shown ? ` = ${JSON.stringify(details.value)}` : '';
  const fix = details.fix === undefined ? '' : `. Fix: ${details.fix}`;
  return `${where}${details.prop}${value}: ${details.problem}${fix}`;
}

/**
 * The base of every construct's prop error: SecurityPolicyPropError, DeploymentPolicyPropError,
 * ArchitectureRulesOptionError. The message reads
 * `<construct path>: <prop> = <value>: <problem>. Fix: <fix>`.
 */
export class SvcConstructError<Code extends string = string> extends Error {
  /** Stable across releases: branch on it, never on the message. */
  readonly code: Code;
  /** The construct's path, or the command's name when a command raised it. */
  readonly constructPath: string;
  /** The prop as the user wrote it, e.g. `installationRole.trustedPrincipal`. */
  readonly prop: string;
  /** The value received; undefined when it may be a secret and was not kept. */
  readonly value: unknown;
  /** What is wrong, in a few words. */
  readonly problem: string;
  /** How to fix it; undefined when the problem says it. */
  readonly fix: string | undefined;

  /** Builds the message from the details. */
  constructor(details: SvcConstructErrorDetails<Code>) {
    super(constructErrorMessage(details));
    this.name = new.target.name;
    this.code = details.code;
    this.constructPath = details.constructPath;
    this.prop = details.prop;
    this.value = (details.showValue ?? true) ? details.value : undefined;
    this.problem = details.problem;
    this.fix = details.fix;
  }
}
