/**
 * The one error the ControlPlane construct throws for a wrong prop or parameter-file entry.
 * It carries where (construct path), what (prop name, value) and how to fix it, so a user
 * reading a failed `cdktf synth` does not have to open this code.
 */

import { SvcConstructError } from '../construct-error';
import type { StackNameProblemCode } from '../stack-naming';

/** Stable codes: tests and callers branch on these, never on the message text. */
export type ControlPlaneValidationCode =
  | StackNameProblemCode
  | 'stack_name_unresolved'
  | 'too_few_subnets'
  | 'invalid_desired_count'
  | 'invalid_vpc_id'
  | 'invalid_subnet_id'
  | 'invalid_hosted_zone_id'
  | 'invalid_hosted_zone_name'
  | 'certificate_name_too_long'
  | 'empty_tenant_id'
  | 'empty_analyzer_tags'
  | 'empty_key_name'
  | 'invalid_cidr'
  | 'invalid_gateway_hostname'
  | 'invalid_image_tag'
  | 'invalid_image_repository'
  | 'invalid_otel_gateway_url'
  | 'invalid_registry_login_secret_arn'
  | 'invalid_instance_image'
  | 'invalid_container_contract'
  | 'api_key_not_sensitive'
  | 'api_key_literal'
  | 'invalid_boolean'
  | 'invalid_provider'
  | 'name_clash'
  | 'unknown_parameter'
  | 'missing_parameter'
  | 'invalid_parameter_value';

/** What a ControlPlaneValidationError is built from. */
export interface ControlPlaneValidationErrorDetails {
  readonly code: ControlPlaneValidationCode;
  /** The construct path, or `parameter file` when the error comes from a parameter file. */
  readonly constructPath: string;
  /** The prop (camelCase) or parameter key (template spelling) that is wrong. */
  readonly propName: string;
  /** The value received. Never the API key: that one is not a prop. */
  readonly value: unknown;
  /**
   * False for a value that may be a secret (an unknown parameter may be a mistyped ApiKey):
   * the message names the parameter only, and `.value` is not kept. @default true
   */
  readonly showValue?: boolean;
  /** What is wrong, in a few words. */
  readonly problem: string;
  /** How to fix it. */
  readonly fix: string;
}

/**
 * A wrong ControlPlane prop or parameter: one SvcConstructError of the library's shape, with the
 * control plane's codes; `problems` lists every wrong prop when several were found at once.
 */
export class ControlPlaneValidationError extends SvcConstructError<ControlPlaneValidationCode> {
  /** Every wrong prop found at once; this error itself when it is the only one. */
  readonly problems: readonly ControlPlaneValidationError[] = [this];

  /** One error for several wrong props: the first's code and fields, every problem in the message. */
  static combine(problems: readonly ControlPlaneValidationError[]): ControlPlaneValidationError {
    const [first] = problems;
    const combined = new ControlPlaneValidationError({
      code: first.code,
      constructPath: first.constructPath,
      propName: first.prop,
      value: first.value,
      problem: first.problem,
      fix: first.fix ?? '',
    });
    combined.message = `${problems.length} props are wrong:\n${problems.map((problem) => `- ${problem.message}`).join('\n')}`;
    Object.defineProperty(combined, 'problems', { value: problems });
    return combined;
  }

  /** Builds the message from the details, in the library's one error shape. */
  constructor(details: ControlPlaneValidationErrorDetails) {
    super({
      code: details.code,
      constructPath: details.constructPath,
      prop: details.propName,
      value: details.value,
      showValue: details.showValue,
      problem: details.problem,
      fix: details.fix,
    });
    this.name = 'ControlPlaneValidationError';
  }

  /** @deprecated Read `prop`, the name every construct error of the library uses. */
  get propName(): string {
    return this.prop;
  }
}
