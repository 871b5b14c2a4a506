/**
 * Where the images come from (issue 31): the repository and per-service images from a
 * parameter file, the registry login from a secret or through the instance role for ECR, a
 * failed boot that an alarm reports; and the container contract, overridable per service.
 */
import { ControlPlaneValidationError, controlPlanePropsFromParameters } from '../../modules/control-plane';
import { REQUIRED_PROPS, resourceNamed, resourcesOfType, synthControlPlane, userDataOf } from './fixtures';

const LOGIN_SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:svc/registry-AbCdEf';
const ECR = '123456789012.dkr.ecr.eu-west-1.amazonaws.com';

function policyOf(json: any, service: string): any {
  return JSON.parse(resourceNamed(json, 'aws_iam_role_policy', `_${service}_`).policy);
}

describe('image source', () => {
  it('takes ImageRepository, per-service images and RegistryLoginArn from a parameter file', () => {
    const props = controlPlanePropsFromParameters({
      TenantId: 'acme', VPC: REQUIRED_PROPS.vpcId, Subnets: REQUIRED_PROPS.subnetIds.join(','), HostedZoneId: REQUIRED_PROPS.hostedZoneId,
      HostedZoneName: 'example.com', KeyName: 'ops-key', AnalyzerTags: 'env=prod',
      ImageRepository: 'registry.vendor.example.net/svc',
      OtelCollectorImage: `${ECR}/mirror/otel-collector`,
      RegistryLoginArn: LOGIN_SECRET,
    });
    expect(props).toMatchObject({ imageRepository: 'registry.vendor.example.net/svc', otelCollectorImage: `${ECR}/mirror/otel-collector`, registryLoginSecretArn: LOGIN_SECRET });
    const { json } = synthControlPlane(props);
    expect(userDataOf(json, 'analyzer')).toContain('IMAGE=registry.vendor.example.net/svc/runtime-analyzer:1.2.1');
    expect(userDataOf(json, 'otel')).toContain(`IMAGE=${ECR}/mirror/otel-collector:1.1.0`);
  });

  it('logs in with the secret: the password goes through a pipe, the role may read that secret only', () => {
    const { json, synthesized } = synthControlPlane({ registryLoginSecretArn: LOGIN_SECRET });
    for (const service of ['analyzer', 'sts', 'otel']) {
      const script = userDataOf(json, service);
      expect(script).toContain(`REGISTRY_LOGIN=$(aws secretsmanager get-secret-value --secret-id ${LOGIN_SECRET} --query SecretString --output text)`);
      expect(script).toContain(`printf '%s' "$REGISTRY_LOGIN" | jq -er .password | docker login --username`);
      expect(script).toContain('--password-stdin "$REGISTRY"');
      // Logged out after the pull, and after a pull that failed for good (before its exit).
      expect(script).toContain('\npull_image\nlogout_registry\n');
      expect(script).toContain('  logout_registry\n  exit 1\n');
      expect(script).toContain('if [ -n "$REGISTRY_LOGGED_IN" ]; then docker logout "$REGISTRY" >/dev/null; fi');
      expect(policyOf(json, service).Statement).toContainEqual({ Sid: 'ReadRegistryLogin', Effect: 'Allow', Action: ['secretsmanager:GetSecretValue'], Resource: [LOGIN_SECRET] });
    }
    expect(synthesized).not.toMatch(/password"\s*:/);
  });

  it('reaches ECR through the instance role, scoped to the repository', () => {
    const { json } = synthControlPlane({ imageRepository: `${ECR}/svc` });
    expect(userDataOf(json, 'sts')).toContain('aws ecr get-login-password');
    expect(policyOf(json, 'sts').Statement).toContainEqual({
      Sid: 'EcrPull', Effect: 'Allow',
      Action: ['ecr:BatchGetImage', 'ecr:GetDownloadUrlForLayer', 'ecr:BatchCheckLayerAvailability'],
      Resource: [expect.stringMatching(/^arn:\$\{data\.aws_partition\.[^}]+\.partition\}:ecr:eu-west-1:123456789012:repository\/svc\/scan-template-service$/)],
    });
  });

  it('grants no ECR rights for an image elsewhere', () => {
    const { json } = synthControlPlane({ imageRepository: 'registry.vendor.example.net/svc' });
    expect(policyOf(json, 'analyzer').Statement.map((statement: any) => statement.Sid)).toEqual(['ReadParameters', 'WriteLogs', 'ReadApiKey']);
  });

  it('raises an alarm per service when an instance reports a failed boot', () => {
    const { json } = synthControlPlane();
    const filter = resourceNamed(json, 'aws_cloudwatch_log_metric_filter', '_otel_');
    expect(filter).toMatchObject({ pattern: '"BOOT_FAILED"', metric_transformation: { name: 'SvcPrevent-otel-boot-failures', value: '1' } });
    const alarms = resourcesOfType(json, 'aws_cloudwatch_metric_alarm');
    expect(alarms.map((alarm) => alarm.alarm_name).sort()).toEqual(['SvcPrevent-analyzer-boot-failures', 'SvcPrevent-otel-boot-failures', 'SvcPrevent-sts-boot-failures']);
    expect(alarms[0]).toMatchObject({ threshold: 1, comparison_operator: 'GreaterThanOrEqualToThreshold', treat_missing_data: 'notBreaching' });
  });

  it.each([
    ['analyzerImage', 'registry.example.net/svc/runtime-analyzer:1.0', 'invalid_image_repository'],
    ['registryLoginSecretArn', 'svc/registry', 'invalid_registry_login_secret_arn'],
  ] as const)('refuses %s = %s', (propName, value, code) => {
    expect(() => synthControlPlane({ [propName]: value })).toThrow(expect.objectContaining({ code, propName }));
  });
});

describe('container contract', () => {
  it('defaults to the documented assumptions', () => {
    const { json } = synthControlPlane();
    expect(resourceNamed(json, 'aws_lb_target_group', '_sts_').health_check).toMatchObject({ protocol: 'HTTPS', path: '/health', matcher: '200' });
    expect(userDataOf(json, 'sts')).toContain('-v /etc/svc/tls:/etc/svc/tls:ro -p 443:443');
  });

  it('takes per-service overrides: port, health check, UID, env prefix, mounts', () => {
    const { json } = synthControlPlane({
      containers: {
        sts: { port: 8443, healthCheck: { path: '/healthz', protocol: 'HTTP', port: '8080' }, extraPorts: [8080], runAsUid: 65532, environmentPrefix: 'STS_', tlsDirectory: '/certs' },
        otel: { apiKeyFile: '/var/run/key' },
      },
    });
    const targetGroup = resourceNamed(json, 'aws_lb_target_group', '_sts_');
    expect(targetGroup).toMatchObject({ port: 8443, health_check: { protocol: 'HTTP', port: '8080', path: '/healthz', matcher: '200' } });
    expect(resourceNamed(json, 'aws_lb_listener', '_sts_').port).toBe(8443);
    const sts = userDataOf(json, 'sts');
    expect(sts).toContain('CONTAINER_UID=65532');
    expect(sts).toContain('echo "STS_$KEY=$VALUE"');
    expect(sts).toContain('-v /etc/svc/tls:/certs:ro -p 8443:8443 -p 8080:8080');
    expect(userDataOf(json, 'otel')).toContain('-v /etc/svc/secrets/api-key:/var/run/key:ro');
    expect(userDataOf(json, 'otel')).toContain('echo "SVC_API_KEY_FILE=/var/run/key" >> /etc/svc/service.env');
  });
});

describe('wrong props', () => {
  it('are reported all at once, each with its name, value and fix', () => {
    let caught: unknown;
    try {
      synthControlPlane({ tenantId: ' ', vpcId: 'vpc-1', hostedZoneId: 'zone', analyzerImageTag: 'a b', analyzerDesiredCount: 0 });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ControlPlaneValidationError);
    const error = caught as ControlPlaneValidationError;
    expect(error.problems.map((problem) => problem.propName)).toEqual(['tenantId', 'vpcId', 'hostedZoneId', 'analyzerImageTag', 'analyzerDesiredCount']);
    expect(error.message).toMatch(/^5 props are wrong:\n- test\/control-plane: tenantId = " ": is empty\. Fix: /);
    expect(error.code).toBe('empty_tenant_id');
  });
});

describe('the instance image', () => {
  it('is pinned by default: resolved once from the parameter, again only when the parameter changes', () => {
    const { json } = synthControlPlane();
    const [pin] = Object.values(json.resource.terraform_data);
    expect(pin).toMatchObject({
      input: { id: expect.stringMatching(/^\$\{data\.aws_ssm_parameter\..*\.insecure_value\}$/) },
      triggers_replace: { parameter: '/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-6.1-x86_64' },
      lifecycle: { ignore_changes: ['input'] },
    });
  });

  it('follows the parameter at every plan only when asked (latest), and takes an explicit AMI', () => {
    const latest = synthControlPlane({ instanceImageTracking: 'latest' }).json;
    expect(latest.resource.terraform_data).toBeUndefined();
    expect(resourceNamed(latest, 'aws_launch_template', '_sts_').image_id).toMatch(/^\$\{data\.aws_ssm_parameter\..*\.insecure_value\}$/);
    const explicit = synthControlPlane({ instanceImageId: 'ami-0123456789abcdef0' }).json;
    expect(resourceNamed(explicit, 'aws_launch_template', '_sts_').image_id).toBe('ami-0123456789abcdef0');
    expect(explicit.data.aws_ssm_parameter).toBeUndefined();
    expect(() => synthControlPlane({ instanceImageId: 'al2023' })).toThrow(expect.objectContaining({ code: 'invalid_instance_image', propName: 'instanceImageId' }));
  });
});
