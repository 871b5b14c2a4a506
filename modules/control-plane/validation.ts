/**
 * Synth-time checks of ControlPlane props. Each check skips values that are unresolved
 * tokens (a variable, another resource's attribute): those are checked at plan by the
 * preconditions in plan-checks.ts instead.
 */
import { Token } from 'cdktf';
import { checkAddress, parseAddress } from '../../src/address';
import { isAwsProvider } from '../aws-provider';
import { DEFAULT_STACK_NAME, HOSTED_ZONE_ID_EXAMPLE, HOSTED_ZONE_ID_PATTERN, serviceHostname, stackNameProblem } from '../stack-naming';
import { ControlPlaneValidationError, type ControlPlaneValidationCode } from './errors';
import type { ResolvedControlPlaneProps } from './props';
import { containerOverrideProblems } from './container-validation';

const VPC_ID = /^vpc-(?:[0-9a-f]{8}|[0-9a-f]{17})$/;
const SUBNET_ID = /^subnet-(?:[0-9a-f]{8}|[0-9a-f]{17})$/;
const HOSTED_ZONE_NAME = /^(?=.{1,253}\.?$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.?$/i;
// The next three land in the boot script, unquoted (a literal is checked here, so it cannot
// break the script or run as a command there).
/** Docker's tag grammar. */
const IMAGE_TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
/** Registry host with optional port, then path components, as docker references write them. */
const IMAGE_REPOSITORY = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::\d{1,5})?(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;
/** A Secrets Manager secret ARN (the login secret goes into the boot script, unquoted). */
const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+$/;
/** Characters a URL in the collector's configuration heredoc may not hold: the shell reads them. */
const SHELL_ACTIVE = /[\s$`\\"']/;

/** Records one wrong prop; the checks go on, so one synth reports every wrong prop. */
type Fail = (code: ControlPlaneValidationCode, propName: string, value: unknown, problem: string, fix: string) => void;

function isResolved(value: unknown): boolean {
  return !Token.isUnresolved(value);
}

function checkStackName(props: ResolvedControlPlaneProps, fail: Fail): void {
  const name = props.stackName;
  // Unlike the other props it cannot wait for the plan: construct code lower-cases it into the
  // service hostnames and compares it with the default for the sensor command's -s.
  if (!isResolved(name)) {
    fail('stack_name_unresolved', 'stackName', name, 'is only known at deploy time (a variable or reference), but the stack name must be known at synth', `give a literal string such as ${DEFAULT_STACK_NAME}`);
    return;
  }
  const found = stackNameProblem(name);
  if (found) fail(found.code, 'stackName', name, found.problem, found.fix);
}

/** ACM refuses a certificate whose first domain name is longer than this. */
export const MAX_CERTIFICATE_DOMAIN_NAME_LENGTH = 64;

/** The service whose name is the certificate's first domain name (the others are alternative names). */
export const CERTIFICATE_DOMAIN_SERVICE = 'analyzer';

function checkCertificateName(props: ResolvedControlPlaneProps, fail: Fail): void {
  if (!isResolved(props.stackName) || !isResolved(props.hostedZoneName) || !HOSTED_ZONE_NAME.test(props.hostedZoneName)) return;
  const zone = props.hostedZoneName.toLowerCase().replace(/\.$/, '');
  const name = serviceHostname(CERTIFICATE_DOMAIN_SERVICE, props.stackName, zone);
  if (name.length <= MAX_CERTIFICATE_DOMAIN_NAME_LENGTH) return;
  const room = MAX_CERTIFICATE_DOMAIN_NAME_LENGTH - (name.length - zone.length);
  fail(
    'certificate_name_too_long',
    'hostedZoneName',
    props.hostedZoneName,
    `with stackName ${JSON.stringify(props.stackName)} gives the certificate name ${name} (${name.length} characters); ACM refuses a first domain name over ${MAX_CERTIFICATE_DOMAIN_NAME_LENGTH}`,
    `use a zone name of at most ${room} characters (a delegated subzone such as svc.<your zone> that is shorter), or a shorter stackName`,
  );
}

function checkSubnets(props: ResolvedControlPlaneProps, fail: Fail): void {
  const subnets = props.subnetIds;
  if (!isResolved(subnets)) return;
  for (const [index, subnet] of subnets.entries()) {
    if (isResolved(subnet) && !SUBNET_ID.test(subnet)) {
      fail('invalid_subnet_id', `subnetIds[${index}]`, subnet, 'is not a subnet id', 'use ids of the form subnet-0123456789abcdef0');
    }
  }
  const distinct = new Set(subnets);
  if (distinct.size < 2) {
    fail('too_few_subnets', 'subnetIds', subnets, `holds ${distinct.size} distinct subnet(s); at least 2 private subnets in different availability zones are needed`, 'add a second private subnet in another availability zone of the VPC');
  }
}

function checkDesiredCount(propName: 'analyzerDesiredCount' | 'scanTemplateServiceDesiredCount', props: ResolvedControlPlaneProps, fail: Fail): void {
  const count = props[propName];
  if (!isResolved(count)) return;
  if (!Number.isInteger(count) || count < 1) {
    fail('invalid_desired_count', propName, count, 'must be a whole number of at least 1', 'use 2 (the default) or more, so instances run in two availability zones');
  }
}

function checkPattern(
  code: ControlPlaneValidationCode,
  propName: keyof ResolvedControlPlaneProps,
  value: string,
  pattern: RegExp,
  problem: string,
  fix: string,
  fail: Fail,
): void {
  if (isResolved(value) && !pattern.test(value)) fail(code, propName, value, problem, fix);
}

function checkNotEmpty(code: ControlPlaneValidationCode, propName: keyof ResolvedControlPlaneProps, value: string, fix: string, fail: Fail): void {
  if (isResolved(value) && (typeof value !== 'string' || value.trim() === '')) fail(code, propName, value, 'is empty', fix);
}

/** The props that take true or false (or a token, e.g. a variable's booleanValue). */
const BOOLEAN_PROPS = [
  'analyzerEnableCaching',
  'analyzerEnableCompression',
  'analyzerAcceptCompressedData',
  'analyzerEnableQueueSampling',
  'analyzerEnableStdoutMetrics',
  'analyzerEnableCatalogMonitoring',
  'customerManagedEbsKeyGranted',
  'checkArchitectureRules',
  'outputs',
] as const;

function checkBooleans(props: ResolvedControlPlaneProps, fail: Fail): void {
  for (const propName of BOOLEAN_PROPS) {
    const value: unknown = props[propName];
    // checkArchitectureRules and outputs steer synth itself: they cannot wait for a token. The EBS
    // grant only enters a plan condition, which terraform evaluates (the HCL module's variable).
    const tokenAllowed = propName.startsWith('analyzer') || propName === 'customerManagedEbsKeyGranted';
    if (typeof value === 'boolean' || (tokenAllowed && Token.isUnresolved(value))) continue;
    fail('invalid_boolean', propName, value, tokenAllowed ? 'is neither true nor false nor a token' : 'is not true or false (it must be known at synth)', 'write true or false');
  }
}

/** The API key: a variable, or a token; a literal would be written into the synthesized JSON. */
function checkApiKey(apiKey: unknown, fail: Fail): void {
  if (apiKey === undefined || (typeof apiKey === 'object' && apiKey !== null) || Token.isUnresolved(apiKey)) return;
  fail(
    'api_key_literal',
    'apiKey',
    typeof apiKey === 'string' ? '(a literal string, not shown)' : apiKey,
    'is a literal value; the synthesized JSON would hold the key',
    'pass a sensitive TerraformVariable, a token from one (variable.stringValue) or from a secret data source, or leave apiKey out and set TF_VAR_api_key',
  );
}

function checkProvider(provider: unknown, fail: Fail): void {
  if (provider === undefined || isAwsProvider(provider)) return;
  const type = typeof provider === 'object' && provider !== null ? (provider as { terraformResourceType?: unknown }).terraformResourceType : undefined;
  fail('invalid_provider', 'provider', type === undefined ? provider : `a provider of type ${String(type)}`, 'is not an AWS provider', 'pass the AwsProvider (@cdktf/provider-aws/lib/provider) the resources should use, e.g. one with an alias');
}

function checkOtelGatewayUrl(value: string | undefined, fail: Fail): void {
  if (value === undefined || !isResolved(value)) return;
  const fix = 'give the https URL the vendor gave you, e.g. https://otel.vendor.example.net';
  const protocol = URL.canParse(value) ? new URL(value).protocol : undefined;
  if (protocol !== 'https:' && protocol !== 'http:') fail('invalid_otel_gateway_url', 'otelGatewayUrl', value, 'is not an http(s) URL', fix);
  else if (SHELL_ACTIVE.test(value)) fail('invalid_otel_gateway_url', 'otelGatewayUrl', value, 'holds white space, quotes, $, ` or \\, which the boot script cannot carry', fix);
}

/** True when the value is a valid CIDR (or unresolved); records the problem otherwise. */
function checkCidr(propName: string, value: string, fail: Fail): boolean {
  if (!isResolved(value)) return true;
  const result = checkAddress(value);
  if (!result.ok) fail('invalid_cidr', propName, value, result.error.reason, 'write an IPv4 or IPv6 CIDR such as 10.0.0.0/16, without host bits');
  return result.ok;
}

/**
 * Checks every prop and throws one ControlPlaneValidationError for all wrong ones: the error
 * itself for one, else an error that lists each (`.problems`) and carries the first's code.
 */
export function validateControlPlaneProps(constructPath: string, props: ResolvedControlPlaneProps): void {
  const problems: ControlPlaneValidationError[] = [];
  const fail: Fail = (code, propName, value, problem, fix) => {
    problems.push(new ControlPlaneValidationError({ code, constructPath, propName, value, problem, fix }));
  };
  collectProblems(props, fail);
  if (problems.length === 1) throw problems[0];
  if (problems.length > 1) throw ControlPlaneValidationError.combine(problems);
}

function collectProblems(props: ResolvedControlPlaneProps, fail: Fail): void {
  checkStackName(props, fail);
  checkApiKey(props.apiKey, fail);
  checkProvider(props.provider, fail);
  checkBooleans(props, fail);
  checkNotEmpty('empty_tenant_id', 'tenantId', props.tenantId, 'set tenantId (TenantId) to your tenant, the customer name', fail);
  checkPattern('invalid_vpc_id', 'vpcId', props.vpcId, VPC_ID, 'is not a VPC id', 'use an id of the form vpc-0123456789abcdef0', fail);
  checkSubnets(props, fail);
  checkPattern('invalid_hosted_zone_id', 'hostedZoneId', props.hostedZoneId, HOSTED_ZONE_ID_PATTERN, 'is not a hosted zone id', `use the zone id as Route 53 shows it, e.g. ${HOSTED_ZONE_ID_EXAMPLE}, without /hostedzone/`, fail);
  checkPattern('invalid_hosted_zone_name', 'hostedZoneName', props.hostedZoneName, HOSTED_ZONE_NAME, 'is not a DNS zone name', 'use the zone name, e.g. example.com', fail);
  checkCertificateName(props, fail);
  checkNotEmpty('empty_key_name', 'keyName', props.keyName, 'set keyName (KeyName) to an existing EC2 key pair', fail);
  checkNotEmpty('empty_analyzer_tags', 'analyzerTags', props.analyzerTags, 'set analyzerTags (AnalyzerTags) to the tag values the vendor gave you', fail);
  checkPattern('invalid_gateway_hostname', 'gatewayHostname', props.gatewayHostname, HOSTED_ZONE_NAME, 'is not a DNS hostname', 'give the hostname only, e.g. gateway.vendor.example.net, without https://', fail);
  for (const propName of ['analyzerImageTag', 'scanTemplateServiceImageTag', 'otelCollectorImageTag'] as const) {
    checkPattern('invalid_image_tag', propName, props[propName], IMAGE_TAG, 'is not a container image tag', 'use a tag such as 1.2.1: letters, digits, _ . - (up to 128 characters)', fail);
  }
  checkPattern('invalid_image_repository', 'imageRepository', props.imageRepository, IMAGE_REPOSITORY, 'is not a container image repository', 'give registry host and path without a tag, e.g. registry.example.net/svc', fail);
  for (const propName of ['analyzerImage', 'scanTemplateServiceImage', 'otelCollectorImage'] as const) {
    const image = props[propName];
    if (image !== undefined) {
      checkPattern('invalid_image_repository', propName, image, IMAGE_REPOSITORY, 'is not a container image name', 'give registry host, path and name without a tag (the tag comes from the ImageTag parameter), e.g. 123456789012.dkr.ecr.eu-west-1.amazonaws.com/svc/otel-collector', fail);
    }
  }
  if (props.instanceImageId !== undefined) {
    checkPattern('invalid_instance_image', 'instanceImageId', props.instanceImageId, /^ami-(?:[0-9a-f]{8}|[0-9a-f]{17})$/, 'is not an AMI id', 'give an id such as ami-0123456789abcdef0 (aws ssm get-parameter --name <instanceImageParameter> shows the current one)', fail);
  }
  if (isResolved(props.instanceImageTracking) && !['pinned', 'latest'].includes(props.instanceImageTracking)) {
    fail('invalid_instance_image', 'instanceImageTracking', props.instanceImageTracking, 'is neither pinned nor latest', 'write pinned (the default) or latest');
  }
  if (props.registryLoginSecretArn !== undefined) {
    checkPattern('invalid_registry_login_secret_arn', 'registryLoginSecretArn', props.registryLoginSecretArn, SECRET_ARN, 'is not a Secrets Manager secret ARN', 'give the full ARN of the secret holding {"username","password"}, e.g. arn:aws:secretsmanager:eu-west-1:123456789012:secret:svc/registry-AbCdEf', fail);
  }
  checkOtelGatewayUrl(props.otelGatewayUrl, fail);
  for (const problem of containerOverrideProblems(props.containers)) fail('invalid_container_contract', problem.field, problem.value, problem.problem, problem.fix);
  checkDesiredCount('analyzerDesiredCount', props, fail);
  checkDesiredCount('scanTemplateServiceDesiredCount', props, fail);
  if (isResolved(props.sensorCidrs)) props.sensorCidrs.forEach((cidr, index) => checkCidr(`sensorCidrs[${index}]`, cidr, fail));
  if (props.vpcCidr !== undefined) {
    if (checkCidr('vpcCidr', props.vpcCidr, fail) && isResolved(props.vpcCidr) && parseAddress(props.vpcCidr).family !== 'ipv4') {
      fail('invalid_cidr', 'vpcCidr', props.vpcCidr, "is not IPv4; a VPC's primary range is IPv4", 'give the VPC primary IPv4 range, e.g. 10.0.0.0/16');
    }
  }
}

/**
 * CIDRs as a security group wants them: always with a prefix length, split by family, each
 * once (AWS refuses a rule that lists the same range twice, e.g. a sensor range that is the
 * VPC's own).
 */
export function securityGroupCidrs(cidrs: readonly string[]): { ipv4: string[]; ipv6: string[] } {
  const ipv4 = new Set<string>();
  const ipv6 = new Set<string>();
  for (const cidr of cidrs) {
    if (!isResolved(cidr)) {
      ipv4.add(cidr);
      continue;
    }
    const parsed = parseAddress(cidr);
    const withPrefix = `${parsed.address}/${parsed.prefixLength}`;
    (parsed.family === 'ipv4' ? ipv4 : ipv6).add(withPrefix);
  }
  return { ipv4: [...ipv4], ipv6: [...ipv6] };
}
