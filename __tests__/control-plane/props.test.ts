import 'cdktf/lib/testing/adapters/jest';
import { Testing } from 'cdktf';
import { DataAwsSsmParameter } from '@cdktf/provider-aws/lib/data-aws-ssm-parameter';
import {
  CONTROL_PLANE_PARAMETERS,
  ControlPlaneValidationError,
  DEFAULT_GATEWAY_HOSTNAME,
  DEFAULT_INSTANCE_IMAGE_PARAMETER,
  controlPlanePropsFromParameters,
} from '../../modules/control-plane';
// Internal: not exported by the package.
import { CONTROL_PLANE_DEFAULTS, resolveControlPlaneProps } from '../../modules/control-plane/props';
import { REQUIRED_PROPS, resourceNamed, resourcesOfType, synthControlPlane, userDataOf, type Synthesized } from './fixtures';

Testing.setupJest();

describe('defaults of the spec parameter table', () => {
  let built: Synthesized;
  let parameters: Map<string, { type: string; value: string }>;
  beforeAll(() => {
    built = synthControlPlane();
    parameters = new Map(resourcesOfType(built.json, 'aws_ssm_parameter').map((parameter) => [parameter.name, { type: parameter.type, value: parameter.value }]));
  });

  // Spec order: General, Analyzer, Scan Template Service, OTEL Collector.
  it.each([
    ['log level', '/SvcPrevent/common/log-level', 'info'],
    ['gateway hostname', '/SvcPrevent/common/gateway-hostname', DEFAULT_GATEWAY_HOSTNAME],
    ['instance image', '/SvcPrevent/common/instance-image-parameter', '/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-6.1-x86_64'],
    ['analyzer enable caching', '/SvcPrevent/analyzer/enable-caching', 'false'],
    ['analyzer enable compression', '/SvcPrevent/analyzer/enable-compression', 'false'],
    ['analyzer image tag', '/SvcPrevent/analyzer/image-tag', '1.2.1'],
    ['analyzer accept compressed data', '/SvcPrevent/analyzer/accept-compressed-data', 'false'],
    ['analyzer desired count', '/SvcPrevent/analyzer/desired-count', '2'],
    ['analyzer enable queue sampling', '/SvcPrevent/analyzer/enable-queue-sampling', 'false'],
    ['analyzer enable stdout metrics', '/SvcPrevent/analyzer/enable-stdout-metrics', 'false'],
    ['analyzer enable catalog monitoring', '/SvcPrevent/analyzer/enable-catalog-monitoring', 'false'],
    ['analyzer instance type', '/SvcPrevent/analyzer/instance-type', 't3.small'],
    ['scan template service image tag', '/SvcPrevent/sts/image-tag', '1.2.0'],
    ['scan template service desired count', '/SvcPrevent/sts/desired-count', '2'],
    ['scan template service instance type', '/SvcPrevent/sts/instance-type', 't3.small'],
    ['otel collector image tag', '/SvcPrevent/otel/image-tag', '1.1.0'],
    ['otel collector instance type', '/SvcPrevent/otel/instance-type', 't3.small'],
  ])('%s: %s = %s', (_name, parameterName, value) => {
    expect(parameters.get(parameterName)).toEqual({ type: 'String', value });
  });

  it('writes no parameter for the two parameters without a default (environment name, gateway URL)', () => {
    expect(parameters.has('/SvcPrevent/analyzer/environment-name')).toBe(false);
    expect(parameters.has('/SvcPrevent/otel/gateway-url')).toBe(false);
    // The collector then exports to the gateway hostname.
    expect(userDataOf(built.json, 'otel')).toContain(`endpoint: https://${DEFAULT_GATEWAY_HOSTNAME}`);
  });

  it('writes the required parameters too (not the API key), the subnets as a StringList', () => {
    expect(parameters.get('/SvcPrevent/common/tenant-id')).toEqual({ type: 'String', value: 'acme-corp' });
    expect(parameters.get('/SvcPrevent/common/subnet-ids')).toEqual({ type: 'StringList', value: REQUIRED_PROPS.subnetIds.join(',') });
    expect(parameters.get('/SvcPrevent/analyzer/tags')).toEqual({ type: 'String', value: 'env=prod' });
    expect([...parameters.keys()].some((name) => /api-?key/i.test(name))).toBe(false);
  });

  it('resolves the image through the public SSM parameter of AL2023, kernel 6.1, x86_64', () => {
    expect(DEFAULT_INSTANCE_IMAGE_PARAMETER).toBe('/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-6.1-x86_64');
    expect(built.synthesized).toHaveDataSourceWithProperties(DataAwsSsmParameter, { name: DEFAULT_INSTANCE_IMAGE_PARAMETER });
  });

  it.each([
    ['analyzer', 't3.small', 2],
    ['sts', 't3.small', 2],
    ['otel', 't3.small', 2],
  ])('%s runs %s instances, %i of them', (service, instanceType, count) => {
    expect(resourceNamed(built.json, 'aws_launch_template', `_${service}_`).instance_type).toBe(instanceType);
    expect(resourceNamed(built.json, 'aws_autoscaling_group', `_${service}_`).desired_capacity).toBe(count);
  });

  it('uses the default stack name SvcPrevent', () => {
    expect(CONTROL_PLANE_DEFAULTS.stackName).toBe('SvcPrevent');
    expect(built.controlPlane.stackName).toBe('SvcPrevent');
  });

  it('lists every parameter in the spec order, the eight required ones first', () => {
    expect(CONTROL_PLANE_PARAMETERS.filter((parameter) => parameter.required).map((parameter) => parameter.key)).toEqual([
      'ApiKey', 'TenantId', 'VPC', 'Subnets', 'HostedZoneId', 'HostedZoneName', 'KeyName', 'AnalyzerTags',
    ]);
    // 19 further parameters of the spec, then 5 of ours for the image source and 2 for the AMI.
    expect(CONTROL_PLANE_PARAMETERS).toHaveLength(8 + 19 + 5 + 2);
  });
});

describe('props that differ from the defaults', () => {
  let built: Synthesized;
  beforeAll(() => {
    built = synthControlPlane({
      logLevel: 'debug',
      analyzerEnvironmentName: 'staging',
      analyzerEnableCaching: true,
      analyzerImageTag: '1.3.0',
      analyzerDesiredCount: 3,
      analyzerInstanceType: 'm5.large',
      scanTemplateServiceDesiredCount: 4,
      otelGatewayUrl: 'https://otel.vendor.example.net',
      imageRepository: 'registry.example.net/svc',
    });
  });

  it('writes them to the parameter store and uses them in the services', () => {
    const byName = new Map(resourcesOfType(built.json, 'aws_ssm_parameter').map((parameter) => [parameter.name, parameter.value]));
    expect(byName.get('/SvcPrevent/common/log-level')).toBe('debug');
    expect(byName.get('/SvcPrevent/analyzer/environment-name')).toBe('staging');
    expect(byName.get('/SvcPrevent/analyzer/enable-caching')).toBe('true');
    expect(byName.get('/SvcPrevent/otel/gateway-url')).toBe('https://otel.vendor.example.net');
    expect(resourceNamed(built.json, 'aws_autoscaling_group', '_analyzer_')).toMatchObject({ min_size: 3, desired_capacity: 3, max_size: 6 });
    expect(resourceNamed(built.json, 'aws_autoscaling_group', '_sts_')).toMatchObject({ min_size: 4, desired_capacity: 4 });
    expect(resourceNamed(built.json, 'aws_launch_template', '_analyzer_').instance_type).toBe('m5.large');
    expect(userDataOf(built.json, 'analyzer')).toContain('IMAGE=registry.example.net/svc/runtime-analyzer:1.3.0');
    expect(userDataOf(built.json, 'otel')).toContain('endpoint: https://otel.vendor.example.net');
  });
});

describe('resolveControlPlaneProps', () => {
  it('keeps given values, fills the rest, and ignores explicit undefined', () => {
    const resolved = resolveControlPlaneProps({ ...REQUIRED_PROPS, logLevel: undefined, analyzerImageTag: '9.9.9' });
    expect(resolved.logLevel).toBe('info');
    expect(resolved.analyzerImageTag).toBe('9.9.9');
    expect(resolved.sensorCidrs).toEqual([]);
    expect(resolved.analyzerEnvironmentName).toBeUndefined();
  });
});

describe('controlPlanePropsFromParameters', () => {
  const TEMPLATE_FILE = {
    TenantId: 'acme-corp',
    ApiKey: 'file-api-key-must-not-be-copied',
    VPC: 'vpc-0123456789abcdef0',
    Subnets: 'subnet-0aaaaaaaaaaaaaaa1, subnet-0bbbbbbbbbbbbbbb2',
    HostedZoneId: 'Z0123456789ABCDEFGHIJ',
    HostedZoneName: 'example.com',
    KeyName: 'ops-key',
    AnalyzerTags: 'env=prod',
  };

  it('maps the eight template keys, splits Subnets on commas, and drops ApiKey', () => {
    const props = controlPlanePropsFromParameters(TEMPLATE_FILE);
    expect(props).toEqual(REQUIRED_PROPS);
    expect(JSON.stringify(props)).not.toContain('file-api-key-must-not-be-copied');
  });

  it('accepts the command-line form [{ParameterKey, ParameterValue}] and converts booleans and numbers', () => {
    const props = controlPlanePropsFromParameters([
      ...Object.entries(TEMPLATE_FILE).map(([ParameterKey, ParameterValue]) => ({ ParameterKey, ParameterValue })),
      { ParameterKey: 'AnalyzerEnableCaching', ParameterValue: 'True' },
      { ParameterKey: 'AnalyzerDesiredCount', ParameterValue: '3' },
      { ParameterKey: 'OtelGatewayUrl', ParameterValue: 'https://otel.vendor.example.net' },
    ]);
    expect(props).toMatchObject({ analyzerEnableCaching: true, analyzerDesiredCount: 3, otelGatewayUrl: 'https://otel.vendor.example.net' });
  });

  it('lets construct-only props be added', () => {
    expect(controlPlanePropsFromParameters(TEMPLATE_FILE, { stackName: 'Prevent2' }).stackName).toBe('Prevent2');
  });

  it('has a key for every prop of the table, and a prop for every key', () => {
    const keys = CONTROL_PLANE_PARAMETERS.map((parameter) => parameter.key);
    expect(new Set(keys).size).toBe(keys.length);
    const props = CONTROL_PLANE_PARAMETERS.map((parameter) => parameter.prop);
    expect(new Set(props).size).toBe(props.length);
  });

  it('synthesizes a stack from a parameter file', () => {
    const built = synthControlPlane(controlPlanePropsFromParameters(TEMPLATE_FILE));
    expect(built.synthesized).not.toContain('file-api-key-must-not-be-copied');
    expect(resourceNamed(built.json, 'aws_lb', 'load-balancer').subnets).toEqual(REQUIRED_PROPS.subnetIds);
  });

  it.each([
    ['an unknown key', { ...TEMPLATE_FILE, Subnet: 'subnet-0aaaaaaaaaaaaaaa1' }, 'unknown_parameter', 'Subnet'],
    ['a missing required key', { ...TEMPLATE_FILE, KeyName: undefined as unknown as string }, 'missing_parameter', 'KeyName'],
    ['a boolean that is not true or false', { ...TEMPLATE_FILE, AnalyzerEnableCompression: 'yes' }, 'invalid_parameter_value', 'AnalyzerEnableCompression'],
    ['a count that is not a whole number', { ...TEMPLATE_FILE, ScanTemplateServiceDesiredCount: 'two' }, 'invalid_parameter_value', 'ScanTemplateServiceDesiredCount'],
  ])('refuses %s', (_name, file, code, key) => {
    const cleaned = Object.fromEntries(Object.entries(file).filter(([, value]) => value !== undefined));
    let caught: unknown;
    try {
      controlPlanePropsFromParameters(cleaned);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ControlPlaneValidationError);
    expect(caught).toMatchObject({ code, propName: key, constructPath: 'parameter file' });
    expect((caught as Error).message).not.toContain('file-api-key-must-not-be-copied');
  });

  it.each([
    ['a mistyped ApiKey', 'ApiKy'],
    ['the key in another spelling', 'API_KEY'],
    ['any unknown key', 'Subnet'],
  ])('names an unknown parameter but never repeats its value (%s)', (_name, key) => {
    const value = 'sk-live-value-that-must-never-be-printed';
    let caught: unknown;
    try {
      controlPlanePropsFromParameters({ ...TEMPLATE_FILE, [key]: value });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'unknown_parameter', propName: key, value: undefined });
    expect((caught as Error).message).toMatch(new RegExp(`^parameter file: ${key}: not a parameter of the control plane template\\. Fix: use one of `));
    expect((caught as Error).message).not.toContain(value);
  });
});
