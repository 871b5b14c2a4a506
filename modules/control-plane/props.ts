/**
 * Props of the ControlPlane construct: one prop per stack parameter of the vendor's template
 * (same order, same defaults), plus the few things a construct needs that a template gets
 * from its engine (the stack name) or that the architecture rules read (sensor CIDRs).
 *
 * One table, CONTROL_PLANE_PARAMETERS, ties each prop to its template parameter key and to
 * its parameter-store name, so defaults, the parameter-file mapping and the SSM parameters
 * cannot drift apart.
 */
import type { IResolvable, TerraformProvider, TerraformVariable } from 'cdktf';
import type { ContainerOverrides, ServiceName } from './container-contract';
import { DEFAULT_STACK_NAME } from '../stack-naming';
import { ControlPlaneValidationError } from './errors';

// The stack-name rules live in modules/stack-naming.ts; re-exported for users of this module.
export { DEFAULT_STACK_NAME, MAX_STACK_NAME_LENGTH } from '../stack-naming';

/**
 * Gateway hostname of the vendor platform. The spec names it only as a placeholder
 * ("<vendor gateway hostname>"); this value stands in for it. Set `gatewayHostname`
 * to the hostname the vendor gives you.
 */
export const DEFAULT_GATEWAY_HOSTNAME = 'gateway.svc.example.com';

/**
 * Public parameter-store path that always holds the latest Amazon Linux 2023 image,
 * kernel 6.1, x86_64. Resolved at plan through an `aws_ssm_parameter` data source.
 */
export const DEFAULT_INSTANCE_IMAGE_PARAMETER = '/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-6.1-x86_64';

/**
 * Container image repository of the control plane services. Not a template parameter (the
 * template hides it); the spec does not show the vendor's repository, so this is a stand-in.
 */
export const DEFAULT_IMAGE_REPOSITORY = 'registry.svc.example.com/svc';

/** Name of the Terraform variable the construct creates for the API key. */
export const API_KEY_VARIABLE_NAME = 'api_key';

/**
 * Props of ControlPlane: the vendor template's parameters (the eight required ones first, then
 * the further ones in the spec's order), our parameters for the image source and the AMI, and
 * construct-only props. See help/control-plane.md#props.
 */
export interface ControlPlaneProps {
  // ---- the eight required stack parameters (template order of the console step) ----

  /** Tenant ID (the customer name). Template key `TenantId`. */
  readonly tenantId: string;

  /**
   * The API key (template key `ApiKey`), written to Secrets Manager through the write-only
   * argument `secret_string_wo`, so it never lands in the plan or the state. Either a Terraform
   * variable, which must be `sensitive` (the construct makes it `ephemeral`), or a string token
   * from elsewhere in your stack: a variable's `.stringValue`, a secret data source's
   * `secretString`. A token is passed as it is: keeping its source out of state (an ephemeral
   * variable, an ephemeral resource) is then yours to do. A literal string is refused: it would
   * be written into the synthesized JSON.
   * @default - the construct creates the sensitive, ephemeral variable `api_key` (set it with
   * TF_VAR_api_key); for a ControlPlane below another construct, `<path>_api_key`, e.g.
   * `team_a_control_plane_api_key` (the construct's apiKeyVariable)
   */
  readonly apiKey?: TerraformVariable | string;

  /** VPC to install into, `vpc-…`. Template key `VPC`. */
  readonly vpcId: string;

  /**
   * At least two private subnets of that VPC, in different availability zones, `subnet-…`.
   * Template key `Subnets` (comma-separated in a parameter file).
   */
  readonly subnetIds: readonly string[];

  /** Hosted zone for the DNS records and certificates, `Z…`; must match hostedZoneName. Template key `HostedZoneId`. */
  readonly hostedZoneId: string;

  /** Name of that hosted zone, e.g. `example.com`; must match hostedZoneId. Template key `HostedZoneName`. */
  readonly hostedZoneName: string;

  /** Existing EC2 key pair for SSH to the instances. Template key `KeyName`. */
  readonly keyName: string;

  /** Tag values for the Runtime Analyzer. Template key `AnalyzerTags`. */
  readonly analyzerTags: string;

  // ---- further stack parameters, in the spec's order ----

  /**
   * Logging level of all services.
   * @default 'info'
   */
  readonly logLevel?: string;

  /**
   * Hostname of the vendor gateway.
   * @default DEFAULT_GATEWAY_HOSTNAME
   */
  readonly gatewayHostname?: string;

  /**
   * Parameter-store path of the image used for the service instances.
   * @default DEFAULT_INSTANCE_IMAGE_PARAMETER (latest Amazon Linux 2023, kernel 6.1, x86_64)
   */
  readonly instanceImageParameter?: string;

  /**
   * AMI of the service instances, `ami-…`, when you pin it yourself (it then wins over
   * instanceImageParameter). Changing it replaces every instance through a rolling refresh.
   * Template key `InstanceImageId` (ours).
   * @default - the value of instanceImageParameter, resolved once (see instanceImageTracking)
   */
  readonly instanceImageId?: string;

  /**
   * How the AMI follows instanceImageParameter when instanceImageId is not given: `pinned`
   * resolves it at the first apply and keeps it (a plan never replaces instances because AWS
   * published a new AMI; a changed instanceImageParameter resolves it again); `latest` reads it
   * at every plan, so a new AMI release turns the next apply into a rolling refresh of all
   * instances. Template key `InstanceImageTracking` (ours).
   * @default 'pinned'
   */
  readonly instanceImageTracking?: 'pinned' | 'latest';

  /**
   * Runtime Analyzer environment name.
   * @default - none (no parameter is written; the analyzer uses its own default)
   */
  readonly analyzerEnvironmentName?: string;

  /** Runtime Analyzer: enable caching. @default false */
  readonly analyzerEnableCaching?: boolean | IResolvable;

  /** Runtime Analyzer: enable compression. @default false */
  readonly analyzerEnableCompression?: boolean | IResolvable;

  /** Runtime Analyzer container image tag. @default '1.2.1' */
  readonly analyzerImageTag?: string;

  /** Runtime Analyzer: accept compressed data. @default false */
  readonly analyzerAcceptCompressedData?: boolean | IResolvable;

  /** Runtime Analyzer desired (and minimum) instance count. @default 2 */
  readonly analyzerDesiredCount?: number;

  /** Runtime Analyzer: enable queue sampling. @default false */
  readonly analyzerEnableQueueSampling?: boolean | IResolvable;

  /** Runtime Analyzer: enable stdout metrics. @default false */
  readonly analyzerEnableStdoutMetrics?: boolean | IResolvable;

  /** Runtime Analyzer: enable catalog monitoring. @default false */
  readonly analyzerEnableCatalogMonitoring?: boolean | IResolvable;

  /** Runtime Analyzer instance type. @default 't3.small' */
  readonly analyzerInstanceType?: string;

  /** Scan Template Service container image tag. @default '1.2.0' */
  readonly scanTemplateServiceImageTag?: string;

  /** Scan Template Service desired (and minimum) instance count. @default 2 */
  readonly scanTemplateServiceDesiredCount?: number;

  /** Scan Template Service instance type. @default 't3.small' */
  readonly scanTemplateServiceInstanceType?: string;

  /** OTEL Collector container image tag. @default '1.1.0' */
  readonly otelCollectorImageTag?: string;

  /** OTEL Collector instance type. @default 't3.small' */
  readonly otelCollectorInstanceType?: string;

  /**
   * URL of the OTEL gateway the collector exports to.
   * @default - none (no parameter is written; the collector exports to https://<gatewayHostname>)
   */
  readonly otelGatewayUrl?: string;

  // ---- image source (parameters of ours: the spec does not show the vendor's registry) ----

  /**
   * Container image repository of the services: registry host and path, without a tag.
   * Template key `ImageRepository` (ours).
   * @default DEFAULT_IMAGE_REPOSITORY (a stand-in: ask the vendor for theirs)
   */
  readonly imageRepository?: string;

  /**
   * Runtime Analyzer image without its tag, when it is not `<imageRepository>/runtime-analyzer`
   * (a mirror in your own registry, say). The tag still comes from analyzerImageTag.
   * Template key `AnalyzerImage` (ours).
   * @default - `<imageRepository>/runtime-analyzer`
   */
  readonly analyzerImage?: string;

  /**
   * Scan Template Service image without its tag, when it is not
   * `<imageRepository>/scan-template-service`. Template key `ScanTemplateServiceImage` (ours).
   * @default - `<imageRepository>/scan-template-service`
   */
  readonly scanTemplateServiceImage?: string;

  /**
   * OTEL Collector image without its tag, when it is not `<imageRepository>/otel-collector`.
   * Template key `OtelCollectorImage` (ours).
   * @default - `<imageRepository>/otel-collector`
   */
  readonly otelCollectorImage?: string;

  /**
   * ARN of a Secrets Manager secret holding the registry login as JSON,
   * `{"username": "...", "password": "..."}`. The instances read it at boot through their
   * role and pass the password to `docker login --password-stdin`: it never appears in user
   * data, the plan or the state. Not needed for Amazon ECR in this account (`<account>.dkr.ecr.
   * <region>.amazonaws.com/...`), which the instance role reaches by itself, nor for a public
   * registry. Template key `RegistryLoginArn` (ours; a key without "secret" in it, which the app's configuration refuses).
   * @default - no login (public registry, or ECR through the instance role)
   */
  readonly registryLoginSecretArn?: string;

  // ---- construct-only props (not template parameters) ----

  /**
   * Prefix of every resource name, tag and parameter path (the template's stack name).
   * A name other than the default must be 14 characters or fewer.
   * @default 'SvcPrevent'
   */
  readonly stackName?: string;

  /**
   * Version of the API key written to Secrets Manager. Terraform cannot see a write-only
   * value change, so bump this number whenever the key changes.
   * @default 1
   */
  readonly apiKeyVersion?: number;


  /**
   * CIDR ranges the sensors connect from. They may reach the load balancer; architectural
   * rule 5 warns when one lies outside the VPC (peering or transit gateway needed).
   * @default - only the VPC's own range may reach the load balancer
   */
  readonly sensorCidrs?: readonly string[];

  /**
   * The VPC's CIDR range, when known at synth (rule 5 compares sensor CIDRs with it).
   * @default - read at plan from the VPC data source
   */
  readonly vpcCidr?: string;

  /** Retention of the CloudWatch log groups, in days. @default 30 */
  readonly logRetentionDays?: number;

  /**
   * Say true once the account's default EBS key in the region is customer managed and its key
   * policy lets AWSServiceRoleForAutoScaling use it; the plan otherwise stops, since auto
   * scaling could not start an instance with that key.
   * @default false
   */
  readonly customerManagedEbsKeyGranted?: boolean;

  /**
   * How each service's container is run, per service (`analyzer`, `sts`, `otel`): port,
   * health check (protocol, port, path, matcher), target protocol version, the UID the image
   * runs as, the env-file prefix, the certificate directory and the API key file in the
   * container. The spec shows none of these; what is left out keeps our documented assumption
   * (help/control-plane.md, "The container contract").
   * @default - the assumptions of SERVICES for every service
   */
  readonly containers?: { readonly [Name in ServiceName]?: ContainerOverrides };

  /**
   * Run the architecture rules (modules/architecture-rules, spec rules 1-6) over this
   * construct at synth; errors fail synth, warnings are printed.
   * @default true
   */
  readonly checkArchitectureRules?: boolean;

  /**
   * The AWS provider of every resource and data source of the control plane (an `AwsProvider`
   * with an alias, for another account or region). Give it when the stack's AWS provider has an
   * alias: without it they use the default `aws` provider, which such a stack does not configure.
   * @default - the stack's default (unaliased) AWS provider
   */
  readonly provider?: TerraformProvider;

  /**
   * Declare the Terraform outputs (service addresses, load balancer DNS name, the scan template
   * service's security group, the sensor command). Their names are scoped to the construct's path
   * below the stack: `control_plane_sensor_command` for a ControlPlane `control-plane` directly in
   * the stack, `team_a_control_plane_sensor_command` below a construct `team-a`. Turn them off
   * when your stack declares its own from the construct's attributes.
   * @default true
   */
  readonly outputs?: boolean;
}

/** How a parameter's value is written in a template parameter file. */
export type ParameterKind = 'string' | 'boolean' | 'number' | 'list' | 'secret';

/** Which service reads a parameter; also the second part of its parameter-store name. */
export type ParameterScope = 'common' | 'analyzer' | 'sts' | 'otel';

/** One row of CONTROL_PLANE_PARAMETERS: a template parameter and the prop it fills. */
export interface ParameterDefinition {
  /** Key in the vendor template (the eight documented keys) or our documented choice. */
  readonly key: string;
  readonly prop: keyof ControlPlaneProps;
  readonly kind: ParameterKind;
  readonly required: boolean;
  /** Where the value is written in the parameter store, `/<stackName>/<scope>/<name>`; absent for the secret. */
  readonly store?: { readonly scope: ParameterScope; readonly name: string };
}

/**
 * Every template parameter, in the spec's order. The keys of the eight required parameters
 * are the template's own; the keys of the further ones are not shown by the spec, so these
 * are ours (group prefix + meaning).
 */
export const CONTROL_PLANE_PARAMETERS: readonly ParameterDefinition[] = [
  { key: 'ApiKey', prop: 'apiKey', kind: 'secret', required: true },
  { key: 'TenantId', prop: 'tenantId', kind: 'string', required: true, store: { scope: 'common', name: 'tenant-id' } },
  { key: 'VPC', prop: 'vpcId', kind: 'string', required: true, store: { scope: 'common', name: 'vpc-id' } },
  { key: 'Subnets', prop: 'subnetIds', kind: 'list', required: true, store: { scope: 'common', name: 'subnet-ids' } },
  { key: 'HostedZoneId', prop: 'hostedZoneId', kind: 'string', required: true, store: { scope: 'common', name: 'hosted-zone-id' } },
  { key: 'HostedZoneName', prop: 'hostedZoneName', kind: 'string', required: true, store: { scope: 'common', name: 'hosted-zone-name' } },
  { key: 'KeyName', prop: 'keyName', kind: 'string', required: true, store: { scope: 'common', name: 'key-name' } },
  { key: 'AnalyzerTags', prop: 'analyzerTags', kind: 'string', required: true, store: { scope: 'analyzer', name: 'tags' } },
  { key: 'LogLevel', prop: 'logLevel', kind: 'string', required: false, store: { scope: 'common', name: 'log-level' } },
  { key: 'GatewayHostname', prop: 'gatewayHostname', kind: 'string', required: false, store: { scope: 'common', name: 'gateway-hostname' } },
  { key: 'InstanceImageParameter', prop: 'instanceImageParameter', kind: 'string', required: false, store: { scope: 'common', name: 'instance-image-parameter' } },
  { key: 'AnalyzerEnvironmentName', prop: 'analyzerEnvironmentName', kind: 'string', required: false, store: { scope: 'analyzer', name: 'environment-name' } },
  { key: 'AnalyzerEnableCaching', prop: 'analyzerEnableCaching', kind: 'boolean', required: false, store: { scope: 'analyzer', name: 'enable-caching' } },
  { key: 'AnalyzerEnableCompression', prop: 'analyzerEnableCompression', kind: 'boolean', required: false, store: { scope: 'analyzer', name: 'enable-compression' } },
  { key: 'AnalyzerImageTag', prop: 'analyzerImageTag', kind: 'string', required: false, store: { scope: 'analyzer', name: 'image-tag' } },
  { key: 'AnalyzerAcceptCompressedData', prop: 'analyzerAcceptCompressedData', kind: 'boolean', required: false, store: { scope: 'analyzer', name: 'accept-compressed-data' } },
  { key: 'AnalyzerDesiredCount', prop: 'analyzerDesiredCount', kind: 'number', required: false, store: { scope: 'analyzer', name: 'desired-count' } },
  { key: 'AnalyzerEnableQueueSampling', prop: 'analyzerEnableQueueSampling', kind: 'boolean', required: false, store: { scope: 'analyzer', name: 'enable-queue-sampling' } },
  { key: 'AnalyzerEnableStdoutMetrics', prop: 'analyzerEnableStdoutMetrics', kind: 'boolean', required: false, store: { scope: 'analyzer', name: 'enable-stdout-metrics' } },
  { key: 'AnalyzerEnableCatalogMonitoring', prop: 'analyzerEnableCatalogMonitoring', kind: 'boolean', required: false, store: { scope: 'analyzer', name: 'enable-catalog-monitoring' } },
  { key: 'AnalyzerInstanceType', prop: 'analyzerInstanceType', kind: 'string', required: false, store: { scope: 'analyzer', name: 'instance-type' } },
  { key: 'ScanTemplateServiceImageTag', prop: 'scanTemplateServiceImageTag', kind: 'string', required: false, store: { scope: 'sts', name: 'image-tag' } },
  { key: 'ScanTemplateServiceDesiredCount', prop: 'scanTemplateServiceDesiredCount', kind: 'number', required: false, store: { scope: 'sts', name: 'desired-count' } },
  { key: 'ScanTemplateServiceInstanceType', prop: 'scanTemplateServiceInstanceType', kind: 'string', required: false, store: { scope: 'sts', name: 'instance-type' } },
  { key: 'OtelCollectorImageTag', prop: 'otelCollectorImageTag', kind: 'string', required: false, store: { scope: 'otel', name: 'image-tag' } },
  { key: 'OtelCollectorInstanceType', prop: 'otelCollectorInstanceType', kind: 'string', required: false, store: { scope: 'otel', name: 'instance-type' } },
  { key: 'OtelGatewayUrl', prop: 'otelGatewayUrl', kind: 'string', required: false, store: { scope: 'otel', name: 'gateway-url' } },
  // Ours, as the template's further parameters would be: where the images come from.
  { key: 'ImageRepository', prop: 'imageRepository', kind: 'string', required: false },
  { key: 'AnalyzerImage', prop: 'analyzerImage', kind: 'string', required: false },
  { key: 'ScanTemplateServiceImage', prop: 'scanTemplateServiceImage', kind: 'string', required: false },
  { key: 'OtelCollectorImage', prop: 'otelCollectorImage', kind: 'string', required: false },
  { key: 'RegistryLoginArn', prop: 'registryLoginSecretArn', kind: 'string', required: false },
  // Ours: which AMI, and whether it follows the parameter (a new AMI replaces every instance).
  { key: 'InstanceImageId', prop: 'instanceImageId', kind: 'string', required: false },
  { key: 'InstanceImageTracking', prop: 'instanceImageTracking', kind: 'string', required: false },
];

/** The props without a default: they stay optional once defaults are applied. */
type PropsWithoutDefault =
  | 'apiKey'
  | 'provider'
  | 'analyzerEnvironmentName'
  | 'otelGatewayUrl'
  | 'vpcCidr'
  | 'analyzerImage'
  | 'scanTemplateServiceImage'
  | 'otelCollectorImage'
  | 'registryLoginSecretArn'
  | 'instanceImageId';

/** Props with every default applied; the props without a default stay optional. */
export type ResolvedControlPlaneProps = Required<Omit<ControlPlaneProps, PropsWithoutDefault | 'sensorCidrs'>> &
  Pick<ControlPlaneProps, PropsWithoutDefault> & {
    readonly sensorCidrs: readonly string[];
  };

/** The defaults of the spec's parameter table, and of the construct-only props. */
export const CONTROL_PLANE_DEFAULTS = {
  logLevel: 'info',
  gatewayHostname: DEFAULT_GATEWAY_HOSTNAME,
  instanceImageParameter: DEFAULT_INSTANCE_IMAGE_PARAMETER,
  instanceImageTracking: 'pinned',
  analyzerEnableCaching: false,
  analyzerEnableCompression: false,
  analyzerImageTag: '1.2.1',
  analyzerAcceptCompressedData: false,
  analyzerDesiredCount: 2,
  analyzerEnableQueueSampling: false,
  analyzerEnableStdoutMetrics: false,
  analyzerEnableCatalogMonitoring: false,
  analyzerInstanceType: 't3.small',
  scanTemplateServiceImageTag: '1.2.0',
  scanTemplateServiceDesiredCount: 2,
  scanTemplateServiceInstanceType: 't3.small',
  otelCollectorImageTag: '1.1.0',
  otelCollectorInstanceType: 't3.small',
  stackName: DEFAULT_STACK_NAME,
  apiKeyVersion: 1,
  imageRepository: DEFAULT_IMAGE_REPOSITORY,
  logRetentionDays: 30,
  containers: {},
  customerManagedEbsKeyGranted: false,
  checkArchitectureRules: true,
  outputs: true,
} as const;

export function resolveControlPlaneProps(props: ControlPlaneProps): ResolvedControlPlaneProps {
  const defined = Object.fromEntries(Object.entries(props).filter(([, value]) => value !== undefined));
  return { ...CONTROL_PLANE_DEFAULTS, sensorCidrs: [], ...defined } as unknown as ResolvedControlPlaneProps;
}

/** A template parameter file: `{ "Key": "value" }`, or the CLI's `[{ ParameterKey, ParameterValue }]`. */
export type ParameterFile =
  | Readonly<Record<string, string>>
  | ReadonlyArray<{ readonly ParameterKey: string; readonly ParameterValue: string }>;

const PARAMETER_FILE = 'parameter file';

function parameterError(
  key: string,
  value: unknown,
  problem: string,
  fix: string,
  code: 'unknown_parameter' | 'missing_parameter' | 'invalid_parameter_value',
  showValue = true,
) {
  return new ControlPlaneValidationError({ code, constructPath: PARAMETER_FILE, propName: key, value, problem, fix, showValue });
}

function convertParameter(definition: ParameterDefinition, raw: string): unknown {
  switch (definition.kind) {
    case 'list':
      return raw.split(',').map((item) => item.trim()).filter((item) => item.length > 0);
    case 'boolean': {
      const lower = raw.trim().toLowerCase();
      if (lower === 'true') return true;
      if (lower === 'false') return false;
      throw parameterError(definition.key, raw, 'not a boolean', 'write true or false', 'invalid_parameter_value');
    }
    case 'number': {
      const number = Number(raw.trim());
      if (raw.trim() === '' || !Number.isInteger(number)) {
        throw parameterError(definition.key, raw, 'not a whole number', 'write a whole number such as 2', 'invalid_parameter_value');
      }
      return number;
    }
    default:
      return raw;
  }
}

/**
 * Turns a parameter file written for the vendor's template into ControlPlaneProps.
 *
 * `ApiKey` is accepted and deliberately dropped: a value copied into props would be written
 * into the synthesized JSON. Pass the key at plan and apply time instead (TF_VAR_api_key).
 * Unknown keys are refused, so a typo does not silently fall back to a default.
 * `extra` adds construct-only props (stackName, sensorCidrs, ...) and wins over the file.
 */
export function controlPlanePropsFromParameters(
  parameters: ParameterFile,
  extra: Partial<ControlPlaneProps> = {},
): ControlPlaneProps {
  const entries: Array<[string, string]> = Array.isArray(parameters)
    ? (parameters as ReadonlyArray<{ ParameterKey: string; ParameterValue: string }>).map((entry) => [entry.ParameterKey, entry.ParameterValue])
    : Object.entries(parameters as Record<string, string>);
  const byKey = new Map(CONTROL_PLANE_PARAMETERS.map((definition) => [definition.key, definition]));
  const props: Record<string, unknown> = {};
  for (const [key, raw] of entries) {
    const definition = byKey.get(key);
    if (!definition) {
      // Named, never quoted: an unknown key may be a mistyped secret parameter (ApiKy, Api_Key).
      throw parameterError(key, raw, 'not a parameter of the control plane template', `use one of ${[...byKey.keys()].join(', ')}`, 'unknown_parameter', false);
    }
    if (definition.kind === 'secret') continue;
    if (typeof raw !== 'string') {
      throw parameterError(key, raw, `expected a string, got ${typeof raw}`, 'write every parameter value as a string, as the template does', 'invalid_parameter_value');
    }
    props[definition.prop] = convertParameter(definition, raw);
  }
  for (const definition of CONTROL_PLANE_PARAMETERS) {
    if (definition.required && definition.kind !== 'secret' && props[definition.prop] === undefined && extra[definition.prop] === undefined) {
      throw parameterError(definition.key, undefined, 'required parameter is missing', `add ${definition.key} to the parameter file`, 'missing_parameter');
    }
  }
  return { ...props, ...extra } as unknown as ControlPlaneProps;
}
