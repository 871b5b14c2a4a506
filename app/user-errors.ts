/**
 * The errors a user causes and fixes (a bad configuration value, entry file or construct prop,
 * a provider build that cannot be prepared): their message names the file, field and value and
 * says how to fix it, so the app prints that message alone. Anything else is a bug in this
 * repository and keeps its stack trace.
 */
import { redact } from '../src/api/redaction';
import { ArchitectureRulesOptionError } from '../modules/architecture-rules/options';
import { ControlPlaneValidationError } from '../modules/control-plane/errors';
import { DeploymentPolicyPropError } from '../modules/deployment-policy/errors';
import { PolicyFileError, SecurityPolicyConfigError, SecurityPolicyPropError } from '../modules/security-policy/errors';
import { SensitiveLiteralValueError } from '../modules/svc-provider/provider';
import { BuildError } from '../src/provider-identity';
import { AppConfigError } from './config';
import { ProviderMirrorError } from '../src/pipeline/provider-mirror';

const USER_ERRORS = [
  AppConfigError,
  SecurityPolicyConfigError,
  PolicyFileError,
  SecurityPolicyPropError,
  ControlPlaneValidationError,
  DeploymentPolicyPropError,
  ArchitectureRulesOptionError,
  SensitiveLiteralValueError,
  ProviderMirrorError,
  BuildError,
] as const;

export function isUserError(error: unknown): error is Error {
  return USER_ERRORS.some((type) => error instanceof type);
}

/**
 * Runs the app's entry point: a user error prints its message (no stack trace, which would bury
 * it twice over in cdktf's output) and sets exit code 1; other errors propagate.
 */
export function runReportingUserErrors(main: () => void, write: (text: string) => void = (text) => process.stderr.write(text)): void {
  try {
    main();
  } catch (error) {
    if (!isUserError(error)) throw error;
    // A message may quote a setting; URL credentials and registered secrets never reach the output.
    write(`${redact(error.message)}\n`);
    process.exitCode = 1;
  }
}
