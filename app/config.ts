/**
 * The app's configuration file (`SVC_CONFIG`, default `svc.config.json`): which AWS account and
 * region, the control plane's template parameters, and the security policy (`securityPolicy`,
 * parsed by modules/security-policy/config.ts). Secrets never come from this file: the API key
 * reaches Terraform as the ephemeral variable `api_key` (TF_VAR_api_key), or the svc provider
 * reads SVC_API_KEY.
 */
import { readFileSync } from 'node:fs';
import type { ContainerOverrides, ServiceName } from '../modules/control-plane';
import { containerOverrideProblems } from '../modules/control-plane/container-validation';
import { parseSecurityPolicyConfig, type SecurityPolicyConfig } from '../modules/security-policy/config';
import type { NamesEveryField } from '../src/field-names';
import { isSecretName } from '../src/secret-names';
import { AppConfigError } from './config-error';
import { parseStateBackendConfig, type StateBackendConfig } from './state-backend';

// The error lives in its own module so that state-backend.ts can throw it without importing this one.
export { AppConfigError };

export const DEFAULT_CONFIG_FILE = 'svc.config.json';

export interface AppConfig {
  readonly aws: { readonly region: string; readonly accountId: string };
  /** The control plane's parameters, keyed as in the vendor's template (TenantId, VPC, ...). */
  readonly controlPlane: Record<string, string>;
  /** Construct-only control plane props. */
  readonly stackName?: string;
  readonly vpcCidr?: string;
  readonly sensorCidrs?: string[];
  /** Also create the installation role with the deployment policy attached. @default false */
  readonly installationRole?: boolean;
  /** The ControlPlane's customerManagedEbsKeyGranted: the default EBS key is customer managed and auto scaling may use it. @default false */
  readonly customerManagedEbsKeyGranted?: boolean;
  /** The ControlPlane's containers: per service, overrides of the container contract. @default - our documented assumptions */
  readonly containers?: { readonly [Name in ServiceName]?: ContainerOverrides };
  /** The security-policy stack's lists and SSO settings; absent: the app has no such stack. */
  readonly securityPolicy?: SecurityPolicyConfig;
  /** Where every stack keeps its state (app/state-backend.ts); absent: cdktf's local terraform.<stack>.tfstate. */
  readonly stateBackend?: StateBackendConfig;
}

/** The top-level keys of the file, in the order the "unknown field" error lists them. */
const APP_CONFIG_FIELDS = ['$comment', 'aws', 'controlPlane', 'stackName', 'vpcCidr', 'sensorCidrs', 'installationRole', 'customerManagedEbsKeyGranted', 'containers', 'securityPolicy', 'stateBackend'] as const satisfies readonly (keyof AppConfig | '$comment')[];
true satisfies NamesEveryField<AppConfig, typeof APP_CONFIG_FIELDS>;

function expectString(file: string, field: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new AppConfigError(file, field, `expected a non-empty string, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** Checks the shape of a parsed configuration; the constructs check the values themselves. */
export function parseAppConfig(file: string, raw: unknown): AppConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new AppConfigError(file, '(top level)', 'expected a JSON object');
  }
  const config = raw as Record<string, unknown>;
  const known: readonly string[] = APP_CONFIG_FIELDS;
  for (const key of Object.keys(config)) {
    if (!known.includes(key)) throw new AppConfigError(file, key, `unknown field; expected one of ${known.join(', ')}`);
  }
  const aws = config.aws as Record<string, unknown> | undefined;
  if (typeof aws !== 'object' || aws === null) throw new AppConfigError(file, 'aws', 'expected an object with region and accountId');
  const region = expectString(file, 'aws.region', aws.region);
  const accountId = expectString(file, 'aws.accountId', aws.accountId);

  const controlPlane = config.controlPlane as Record<string, unknown> | undefined;
  if (typeof controlPlane !== 'object' || controlPlane === null || Array.isArray(controlPlane)) {
    throw new AppConfigError(file, 'controlPlane', 'expected an object of template parameters (TenantId, VPC, Subnets, ...)');
  }
  for (const [key, value] of Object.entries(controlPlane)) {
    // Refused here, before a construct's error could quote the value of a name it does not know.
    if (isSecretName(key)) {
      throw new AppConfigError(file, `controlPlane.${key}`, 'secrets never go in this file; export TF_VAR_api_key in the shell that plans instead');
    }
    expectString(file, `controlPlane.${key}`, value);
  }
  if (config.sensorCidrs !== undefined && !(Array.isArray(config.sensorCidrs) && config.sensorCidrs.every((cidr) => typeof cidr === 'string'))) {
    throw new AppConfigError(file, 'sensorCidrs', `expected an array of CIDR strings, got ${JSON.stringify(config.sensorCidrs)}`);
  }
  for (const flag of ['installationRole', 'customerManagedEbsKeyGranted'] as const) {
    if (config[flag] !== undefined && typeof config[flag] !== 'boolean') {
      throw new AppConfigError(file, flag, `expected true or false, got ${JSON.stringify(config[flag])}`);
    }
  }
  // The construct's own checks, run here so that the error names this file.
  const [containerProblem] = containerOverrideProblems(config.containers);
  if (containerProblem !== undefined) {
    const got = containerProblem.showValue ? ` (got ${JSON.stringify(containerProblem.value)})` : '';
    throw new AppConfigError(file, containerProblem.field, `${containerProblem.problem}${got}; ${containerProblem.fix}`);
  }
  return {
    aws: { region, accountId },
    controlPlane: controlPlane as Record<string, string>,
    stackName: config.stackName === undefined ? undefined : expectString(file, 'stackName', config.stackName),
    vpcCidr: config.vpcCidr === undefined ? undefined : expectString(file, 'vpcCidr', config.vpcCidr),
    sensorCidrs: config.sensorCidrs as string[] | undefined,
    installationRole: config.installationRole as boolean | undefined,
    customerManagedEbsKeyGranted: config.customerManagedEbsKeyGranted as boolean | undefined,
    containers: config.containers as AppConfig['containers'],
    ...(config.securityPolicy === undefined ? {} : { securityPolicy: parseSecurityPolicyConfig(file, config.securityPolicy) }),
    ...(config.stateBackend === undefined ? {} : { stateBackend: parseStateBackendConfig(file, config.stateBackend) }),
  };
}

export function loadAppConfig(file: string): AppConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new AppConfigError(file, '(file)', `cannot be read (${(error as NodeJS.ErrnoException).code}); set SVC_CONFIG to your configuration file`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new AppConfigError(file, '(file)', `is not valid JSON: ${(error as Error).message}`);
  }
  return parseAppConfig(file, raw);
}

