import { TerraformStack, TerraformVariable, Testing } from 'cdktf';
import { ControlPlane, ControlPlaneValidationError, type ControlPlaneProps } from '../../modules/control-plane';
import { REQUIRED_PROPS, resourceNamed, synthControlPlane } from './fixtures';

/** Builds a ControlPlane (no synth: validation runs in the constructor) and returns what it threw. */
function errorFrom(props: Partial<ControlPlaneProps>, build?: (stack: TerraformStack) => Partial<ControlPlaneProps>): ControlPlaneValidationError {
  const stack = new TerraformStack(Testing.app(), 'test');
  const extra = build ? build(stack) : {};
  try {
    new ControlPlane(stack, 'control-plane', { ...REQUIRED_PROPS, ...props, ...extra });
  } catch (error) {
    if (error instanceof ControlPlaneValidationError) return error;
    throw error;
  }
  throw new Error('expected a ControlPlaneValidationError, nothing was thrown');
}

describe('synth-time validation', () => {
  it.each<[string, Partial<ControlPlaneProps>, string, string, unknown]>([
    ['stack name over 14 characters', { stackName: 'SvcPreventEurope1' }, 'stack_name_too_long', 'stackName', 'SvcPreventEurope1'],
    ['stack name with characters a resource name refuses', { stackName: 'svc_prevent' }, 'stack_name_invalid', 'stackName', 'svc_prevent'],
    ['fewer than 2 subnets', { subnetIds: ['subnet-0aaaaaaaaaaaaaaa1'] }, 'too_few_subnets', 'subnetIds', ['subnet-0aaaaaaaaaaaaaaa1']],
    ['the same subnet twice', { subnetIds: ['subnet-0aaaaaaaaaaaaaaa1', 'subnet-0aaaaaaaaaaaaaaa1'] }, 'too_few_subnets', 'subnetIds', ['subnet-0aaaaaaaaaaaaaaa1', 'subnet-0aaaaaaaaaaaaaaa1']],
    ['analyzer desired count below 1', { analyzerDesiredCount: 0 }, 'invalid_desired_count', 'analyzerDesiredCount', 0],
    ['scan template service desired count below 1', { scanTemplateServiceDesiredCount: -1 }, 'invalid_desired_count', 'scanTemplateServiceDesiredCount', -1],
    ['desired count not a whole number', { analyzerDesiredCount: 1.5 }, 'invalid_desired_count', 'analyzerDesiredCount', 1.5],
    ['malformed VPC id', { vpcId: 'vpc-xyz' }, 'invalid_vpc_id', 'vpcId', 'vpc-xyz'],
    ['subnet id of another kind', { subnetIds: ['subnet-0aaaaaaaaaaaaaaa1', 'sg-0bbbbbbbbbbbbbbb2'] }, 'invalid_subnet_id', 'subnetIds[1]', 'sg-0bbbbbbbbbbbbbbb2'],
    ['hosted zone id not starting with Z', { hostedZoneId: 'example.com' }, 'invalid_hosted_zone_id', 'hostedZoneId', 'example.com'],
    ['hosted zone id with the /hostedzone/ prefix', { hostedZoneId: '/hostedzone/Z0123456789ABCDEFGHIJ' }, 'invalid_hosted_zone_id', 'hostedZoneId', '/hostedzone/Z0123456789ABCDEFGHIJ'],
    ['hosted zone name that is not a DNS name', { hostedZoneName: 'not a zone' }, 'invalid_hosted_zone_name', 'hostedZoneName', 'not a zone'],
    ['empty tenant id', { tenantId: '' }, 'empty_tenant_id', 'tenantId', ''],
    ['blank tenant id', { tenantId: '   ' }, 'empty_tenant_id', 'tenantId', '   '],
    ['empty analyzer tags', { analyzerTags: '' }, 'empty_analyzer_tags', 'analyzerTags', ''],
    ['empty key name', { keyName: '' }, 'empty_key_name', 'keyName', ''],
    ['sensor range that is not a CIDR', { sensorCidrs: ['10.0.0.0/33'] }, 'invalid_cidr', 'sensorCidrs[0]', '10.0.0.0/33'],
    ['VPC range with host bits', { vpcCidr: '10.0.0.1/16' }, 'invalid_cidr', 'vpcCidr', '10.0.0.1/16'],
    ['VPC range that is IPv6', { vpcCidr: '2001:db8::/56' }, 'invalid_cidr', 'vpcCidr', '2001:db8::/56'],
    // These land in the boot script: a bad literal would break it or run as a command there.
    ['gateway hostname given as a URL', { gatewayHostname: 'https://gateway.vendor.example.net' }, 'invalid_gateway_hostname', 'gatewayHostname', 'https://gateway.vendor.example.net'],
    ['image tag with a space and a command', { analyzerImageTag: '1.2.1; reboot' }, 'invalid_image_tag', 'analyzerImageTag', '1.2.1; reboot'],
    ['image tag with a colon', { scanTemplateServiceImageTag: 'v:1' }, 'invalid_image_tag', 'scanTemplateServiceImageTag', 'v:1'],
    ['empty image tag', { otelCollectorImageTag: '' }, 'invalid_image_tag', 'otelCollectorImageTag', ''],
    ['image repository with a tag', { imageRepository: 'registry.example.net/svc:1.0' }, 'invalid_image_repository', 'imageRepository', 'registry.example.net/svc:1.0'],
    ['image repository with a trailing slash', { imageRepository: 'registry.example.net/svc/' }, 'invalid_image_repository', 'imageRepository', 'registry.example.net/svc/'],
    ['OTEL gateway URL without a scheme', { otelGatewayUrl: 'otel.vendor.example.net' }, 'invalid_otel_gateway_url', 'otelGatewayUrl', 'otel.vendor.example.net'],
    ['OTEL gateway URL with a shell expansion', { otelGatewayUrl: 'https://otel.example.net/$(id)' }, 'invalid_otel_gateway_url', 'otelGatewayUrl', 'https://otel.example.net/$(id)'],
    // The container contract: ports and health checks reach the target groups, paths and the prefix the boot script.
    ['container port out of range', { containers: { analyzer: { port: 70000 } } }, 'invalid_container_contract', 'containers.analyzer.port', 70000],
    ['container overrides of an unknown service', { containers: { web: { port: 80 } } as never }, 'invalid_container_contract', 'containers.web', { port: 80 }],
    ['an unknown container field', { containers: { otel: { uid: 1 } as never } }, 'invalid_container_contract', 'containers.otel.uid', 1],
    ['a health check path with a shell expansion', { containers: { otel: { healthCheck: { path: '/$(reboot)' } } } }, 'invalid_container_contract', 'containers.otel.healthCheck.path', '/$(reboot)'],
    ['a health check path without a leading slash', { containers: { sts: { healthCheck: { path: 'health' } } } }, 'invalid_container_contract', 'containers.sts.healthCheck.path', 'health'],
    ['an HTTP matcher for the gRPC analyzer', { containers: { analyzer: { healthCheck: { matcher: '200' } } } }, 'invalid_container_contract', 'containers.analyzer.healthCheck.matcher', '200'],
    ['a gRPC matcher once the analyzer is HTTP1', { containers: { analyzer: { protocolVersion: 'HTTP1', healthCheck: { matcher: '0' } } } }, 'invalid_container_contract', 'containers.analyzer.healthCheck.matcher', '0'],
    ['a matcher that is not codes', { containers: { sts: { healthCheck: { matcher: 'ok' } } } }, 'invalid_container_contract', 'containers.sts.healthCheck.matcher', 'ok'],
    ['a health check port given as a number', { containers: { otel: { healthCheck: { port: 13133 as never } } } }, 'invalid_container_contract', 'containers.otel.healthCheck.port', 13133],
    ['a health check protocol in lower case', { containers: { otel: { healthCheck: { protocol: 'https' as never } } } }, 'invalid_container_contract', 'containers.otel.healthCheck.protocol', 'https'],
    ['a protocol version in lower case', { containers: { sts: { protocolVersion: 'http1' as never } } }, 'invalid_container_contract', 'containers.sts.protocolVersion', 'http1'],
    ['an extra port given as a string', { containers: { otel: { extraPorts: ['13133'] as never } } }, 'invalid_container_contract', 'containers.otel.extraPorts[0]', '13133'],
    ['a negative UID', { containers: { sts: { runAsUid: -1 } } }, 'invalid_container_contract', 'containers.sts.runAsUid', -1],
    ['a TLS directory with a .. component', { containers: { sts: { tlsDirectory: '/etc/../root' } } }, 'invalid_container_contract', 'containers.sts.tlsDirectory', '/etc/../root'],
    ['a relative API key file', { containers: { otel: { apiKeyFile: 'run/key' } } }, 'invalid_container_contract', 'containers.otel.apiKeyFile', 'run/key'],
    ['an API key file with a mount separator', { containers: { otel: { apiKeyFile: '/run/key:rw' } } }, 'invalid_container_contract', 'containers.otel.apiKeyFile', '/run/key:rw'],
    ['an environment prefix with a quote', { containers: { analyzer: { environmentPrefix: 'SVC"_' } } }, 'invalid_container_contract', 'containers.analyzer.environmentPrefix', 'SVC"_'],
  ])('%s', (_name, props, code, propName, value) => {
    const error = errorFrom(props);
    expect(error).toMatchObject({ name: 'ControlPlaneValidationError', code, prop: propName, propName, value, constructPath: 'test/control-plane' });
    // The message names the path, the prop and the value, and says how to fix it.
    expect(error.message).toContain('test/control-plane');
    expect(error.message).toContain(propName);
    expect(error.message).toContain(JSON.stringify(value));
    expect(error.message).toContain('Fix:');
    expect(error.fix?.length).toBeGreaterThan(10);
  });

  it('reports every wrong container field at once, each with its path', () => {
    const error = errorFrom({ containers: { analyzer: { port: 0, runAsUid: 1.5 }, otel: { healthCheck: { path: '' } } } });
    expect(error.problems.map((problem) => [problem.code, problem.prop, problem.value])).toEqual([
      ['invalid_container_contract', 'containers.analyzer.port', 0],
      ['invalid_container_contract', 'containers.analyzer.runAsUid', 1.5],
      ['invalid_container_contract', 'containers.otel.healthCheck.path', ''],
    ]);
  });

  it('an API key variable that is not sensitive', () => {
    const error = errorFrom({}, (stack) => ({ apiKey: new TerraformVariable(stack, 'plain_key', { type: 'string' }) }));
    expect(error).toMatchObject({ code: 'api_key_not_sensitive', propName: 'apiKey', value: 'test/plain_key' });
  });

  it.each<[string, Partial<ControlPlaneProps>]>([
    ['the default stack name', { stackName: 'SvcPrevent' }],
    ['a stack name of exactly 14 characters', { stackName: 'Prevent-Europe' }],
    ['three subnets', { subnetIds: ['subnet-0aaaaaaaaaaaaaaa1', 'subnet-0bbbbbbbbbbbbbbb2', 'subnet-0ccccccc'] }],
    ['desired count 1', { analyzerDesiredCount: 1, scanTemplateServiceDesiredCount: 1 }],
    ['a hosted zone name with a trailing dot', { hostedZoneName: 'example.com.' }],
    ['IPv6 sensor ranges', { sensorCidrs: ['2001:db8::/32'] }],
    ['an image repository with a port and nested path', { imageRepository: 'registry.example.net:5000/team/svc-images' }],
    ['a Docker Hub style repository', { imageRepository: 'vendor' }],
    ['image tags with dots, dashes and underscores', { analyzerImageTag: '1.3.0-rc_1', otelCollectorImageTag: 'latest' }],
    ['an OTEL gateway URL with a path and query', { otelGatewayUrl: 'https://otel.vendor.example.net:4318/v1?tenant=acme&x=1' }],
    [
      'container overrides within the rules',
      {
        containers: {
          analyzer: { healthCheck: { matcher: '0-2' } },
          sts: { port: 8443, environmentPrefix: '', healthCheck: { path: '/healthz?full=1', matcher: '200,202' } },
          otel: { runAsUid: 0, extraPorts: [], protocolVersion: 'GRPC', healthCheck: { port: 'traffic-port', matcher: '0' }, tlsDirectory: '/var/run/tls', apiKeyFile: '/run/secrets/key.txt' },
        },
      },
    ],
  ])('accepts %s', (_name, props) => {
    expect(() => synthControlPlane(props)).not.toThrow();
  });

  it('refuses a stack name only known at deploy time, which names and hostnames cannot wait for', () => {
    const error = errorFrom({}, (stack) => ({ stackName: new TerraformVariable(stack, 'stack_name', { type: 'string' }).stringValue }));
    expect(error).toMatchObject({ code: 'stack_name_unresolved', propName: 'stackName', constructPath: 'test/control-plane' });
    expect(error.message).toContain('must be known at synth');
    expect(error.fix).toContain('literal');
  });

  it('skips values that are unresolved tokens and leaves them to the plan-time checks', () => {
    const built = synthControlPlane({}, (stack) => ({
      vpcId: new TerraformVariable(stack, 'vpc_id', { type: 'string' }).stringValue,
      subnetIds: new TerraformVariable(stack, 'subnet_ids', { type: 'list(string)' }).listValue,
      hostedZoneId: new TerraformVariable(stack, 'zone_id', { type: 'string' }).stringValue,
      tenantId: new TerraformVariable(stack, 'tenant', { type: 'string' }).stringValue,
      analyzerDesiredCount: new TerraformVariable(stack, 'analyzer_count', { type: 'number' }).numberValue,
    }));
    expect(resourceNamed(built.json, 'aws_lb', 'load-balancer').subnets).toBe('${var.subnet_ids}');
    expect(resourceNamed(built.json, 'aws_autoscaling_group', '_analyzer_')).toMatchObject({ desired_capacity: '${var.analyzer_count}', max_size: '${(var.analyzer_count * 2)}' });
    // Keyed by position, so the keys are known at plan even for subnets created in the same apply.
    expect(Object.values(built.json.data.aws_subnet)[0].for_each).toBe('${{ for index, id in var.subnet_ids : "subnet-${index + 1}" => id }}');
  });

  it('admits sensor ranges from a list variable to the load balancer at plan, after the VPC range', () => {
    const built = synthControlPlane({}, (stack) => ({
      sensorCidrs: new TerraformVariable(stack, 'sensor_cidrs', { type: 'list(string)' }).listValue,
      vpcCidr: new TerraformVariable(stack, 'vpc_cidr', { type: 'string' }).stringValue,
    }));
    const group = resourceNamed(built.json, 'aws_security_group', 'load-balancer-security-group');
    for (const rule of group.ingress) {
      expect(rule.cidr_blocks).toBe('${concat([var.vpc_cidr], var.sensor_cidrs)}');
      expect(rule.ipv6_cidr_blocks).toEqual([]);
    }
  });
});
