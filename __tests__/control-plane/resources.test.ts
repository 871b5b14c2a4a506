import 'cdktf/lib/testing/adapters/jest';
import { Testing } from 'cdktf';
import { AcmCertificate } from '@cdktf/provider-aws/lib/acm-certificate';
import { AcmCertificateValidation } from '@cdktf/provider-aws/lib/acm-certificate-validation';
import { AutoscalingGroup } from '@cdktf/provider-aws/lib/autoscaling-group';
import { CloudwatchLogGroup } from '@cdktf/provider-aws/lib/cloudwatch-log-group';
import { DataAwsRoute53Zone } from '@cdktf/provider-aws/lib/data-aws-route53-zone';
import { DataAwsSsmParameter } from '@cdktf/provider-aws/lib/data-aws-ssm-parameter';
import { DataAwsSubnet } from '@cdktf/provider-aws/lib/data-aws-subnet';
import { DataAwsVpc } from '@cdktf/provider-aws/lib/data-aws-vpc';
import { IamInstanceProfile } from '@cdktf/provider-aws/lib/iam-instance-profile';
import { IamRole } from '@cdktf/provider-aws/lib/iam-role';
import { IamRolePolicy } from '@cdktf/provider-aws/lib/iam-role-policy';
import { LaunchTemplate } from '@cdktf/provider-aws/lib/launch-template';
import { Lb } from '@cdktf/provider-aws/lib/lb';
import { LbListener } from '@cdktf/provider-aws/lib/lb-listener';
import { LbTargetGroup } from '@cdktf/provider-aws/lib/lb-target-group';
import { Route53Record } from '@cdktf/provider-aws/lib/route53-record';
import { SecretsmanagerSecret } from '@cdktf/provider-aws/lib/secretsmanager-secret';
import { SecretsmanagerSecretVersion } from '@cdktf/provider-aws/lib/secretsmanager-secret-version';
import { SecurityGroup } from '@cdktf/provider-aws/lib/security-group';
import { SsmParameter } from '@cdktf/provider-aws/lib/ssm-parameter';
import { LISTENER_TLS_POLICY, STACK_NAME_TAG_KEY, sensorCommandLine, serviceHostname } from '../../modules/control-plane';
import { REQUIRED_PROPS, annotationsOf, resourceNamed, resourcesOfType, synthControlPlane, userDataOf, type Synthesized } from './fixtures';

Testing.setupJest();

const SERVICES = ['analyzer', 'sts', 'otel'] as const;

describe('a default ControlPlane', () => {
  let built: Synthesized;
  beforeAll(() => {
    built = synthControlPlane();
  });

  it.each([
    ['aws_launch_template', LaunchTemplate, 3],
    ['aws_iam_role', IamRole, 3],
    ['aws_iam_role_policy', IamRolePolicy, 3],
    ['aws_iam_instance_profile', IamInstanceProfile, 3],
    ['aws_security_group', SecurityGroup, 4],
    ['aws_autoscaling_group', AutoscalingGroup, 3],
    ['aws_lb', Lb, 1],
    ['aws_lb_listener', LbListener, 3],
    ['aws_lb_target_group', LbTargetGroup, 3],
    ['aws_acm_certificate', AcmCertificate, 1],
    ['aws_acm_certificate_validation', AcmCertificateValidation, 1],
    ['aws_route53_record', Route53Record, 4],
    ['aws_ssm_parameter', SsmParameter, 24],
    ['aws_secretsmanager_secret', SecretsmanagerSecret, 1],
    ['aws_secretsmanager_secret_version', SecretsmanagerSecretVersion, 1],
    ['aws_cloudwatch_log_group', CloudwatchLogGroup, 3],
  ])('has %s', (type, construct, count) => {
    expect(built.synthesized).toHaveResource(construct);
    expect(resourcesOfType(built.json, type)).toHaveLength(count);
  });

  it.each([
    ['aws_subnet', DataAwsSubnet],
    ['aws_vpc', DataAwsVpc],
    ['aws_route53_zone', DataAwsRoute53Zone],
    ['aws_ssm_parameter', DataAwsSsmParameter],
  ])('reads data source %s', (_type, construct) => {
    expect(built.synthesized).toHaveDataSource(construct);
  });

  it('keeps its construct IDs, which are Terraform addresses (renaming one replaces the resource)', () => {
    const ids = built.controlPlane.node.findAll().map((node) => node.node.path.replace(/^test\/control-plane\/?/, '')).filter((id) => id !== '');
    const perService = ['log-group', 'role', 'policy', 'instance-profile', 'security-group', 'launch-template', 'target-group', 'listener', 'auto-scaling-group', 'dns-record', 'boot-failure-filter', 'boot-failure-alarm'];
    const egressPorts: Record<string, number[]> = { analyzer: [50051], sts: [443], otel: [4318, 13133] };
    expect(ids.filter((id) => !id.startsWith('parameter-')).sort()).toEqual(
      [
        'subnet', 'vpc', 'hosted-zone', 'partition', 'caller-identity', 'instance-image',
        'key-pair', 'subnet-route-table-ids', 'main-route-table', 'subnet-route-table', 'ebs-default-key-id',
        'api-key', 'api-key-secret', 'api-key-secret-version',
        'load-balancer-security-group', 'load-balancer', 'certificate', 'certificate-validation-record', 'certificate-validation',
        ...SERVICES.flatMap((service) => [service, ...perService.map((id) => `${service}/${id}`), ...egressPorts[service].map((port) => `${service}/load-balancer-egress-${port}`)]),
        'instance-image-pin',
        'analyzer-address', 'sts-address', 'otel-address', 'load-balancer-dns-name', 'sts-security-group-id', 'sensor-command',
      ].sort(),
    );
    expect(ids.filter((id) => id.startsWith('parameter-'))).toContain('parameter-analyzer-image-tag');
  });

  it('names every resource with the stack-name prefix', () => {
    const named: [string, string][] = [
      ['aws_launch_template', 'name'],
      ['aws_iam_role', 'name'],
      ['aws_iam_role_policy', 'name'],
      ['aws_iam_instance_profile', 'name'],
      ['aws_security_group', 'name'],
      ['aws_autoscaling_group', 'name'],
      ['aws_lb', 'name'],
      ['aws_lb_target_group', 'name'],
      ['aws_secretsmanager_secret', 'name'],
    ];
    for (const [type, attribute] of named) {
      for (const block of resourcesOfType(built.json, type)) expect(block[attribute]).toMatch(/^SvcPrevent[-/]/);
    }
    for (const block of [...resourcesOfType(built.json, 'aws_ssm_parameter'), ...resourcesOfType(built.json, 'aws_cloudwatch_log_group')]) {
      expect(block.name).toMatch(/^\/SvcPrevent\//);
    }
  });

  it('tags every taggable resource with the stack name', () => {
    const untaggable = new Set(['aws_iam_role_policy', 'aws_route53_record', 'aws_acm_certificate_validation', 'aws_secretsmanager_secret_version', 'aws_autoscaling_group', 'aws_cloudwatch_log_metric_filter', 'aws_security_group_rule', 'terraform_data']);
    for (const [type, blocks] of Object.entries(built.json.resource)) {
      if (untaggable.has(type)) continue;
      for (const block of Object.values(blocks)) expect(block.tags).toMatchObject({ [STACK_NAME_TAG_KEY]: 'SvcPrevent' });
    }
    for (const group of resourcesOfType(built.json, 'aws_autoscaling_group')) {
      expect(group.tag).toContainEqual({ key: STACK_NAME_TAG_KEY, value: 'SvcPrevent', propagate_at_launch: true });
    }
  });

  describe('placement: multi-AZ and private', () => {
    it('runs one auto scaling group per service over every given subnet, health-checked by the load balancer', () => {
      for (const service of SERVICES) {
        const group = resourceNamed(built.json, 'aws_autoscaling_group', `_${service}_`);
        expect(group.vpc_zone_identifier).toEqual(REQUIRED_PROPS.subnetIds);
        expect(group.health_check_type).toBe('ELB');
        expect(group.min_size).toBe(2);
        expect(group.desired_capacity).toBe(2);
        expect(group.max_size).toBe(4);
        expect(group.target_group_arns).toEqual([expect.stringMatching(new RegExp(`^\\$\\{aws_lb_target_group\\.control-plane_${service}_target-group_.*\\.arn\\}$`))]);
        expect(group.instance_refresh).toEqual({ strategy: 'Rolling', preferences: { min_healthy_percentage: 50, instance_warmup: '300' } });
        expect(group.launch_template.version).toMatch(/\.latest_version\}$/);
      }
    });

    it('has an internal application load balancer in the given subnets', () => {
      expect(built.synthesized).toHaveResourceWithProperties(Lb, {
        internal: true,
        load_balancer_type: 'application',
        subnets: REQUIRED_PROPS.subnetIds,
        name: 'SvcPrevent-lb',
      });
    });

    it('gives no instance a public address and admits nothing from the internet', () => {
      for (const template of resourcesOfType(built.json, 'aws_launch_template')) expect(template.network_interfaces).toBeUndefined();
      for (const group of resourcesOfType(built.json, 'aws_security_group')) {
        for (const rule of group.ingress) expect(rule.cidr_blocks ?? []).not.toContain('0.0.0.0/0');
      }
    });

    it('lets only the load balancer reach the service ports', () => {
      const analyzer = resourceNamed(built.json, 'aws_security_group', '_analyzer_');
      const fromLoadBalancer = analyzer.ingress.find((rule: any) => rule.from_port === 50051);
      expect(fromLoadBalancer.security_groups).toEqual([expect.stringContaining('aws_security_group.control-plane_load-balancer-security-group_')]);
      expect(fromLoadBalancer.cidr_blocks ?? []).toEqual([]);
    });

    it('lets the load balancer send only to the service and health ports, of the services\' security groups (not a range)', () => {
      const group = resourceNamed(built.json, 'aws_security_group', 'load-balancer-security-group');
      expect(group.egress).toBeUndefined();
      const rules = resourcesOfType(built.json, 'aws_security_group_rule');
      expect(rules.map((rule) => [rule.type, rule.protocol, rule.from_port, rule.to_port, rule.source_security_group_id.replace(/^\$\{aws_security_group\.control-plane_(\w+)_security-group_\w+\.id\}$/, '$1')]).sort((a, b) => a[2] - b[2])).toEqual([
        ['egress', 'tcp', 443, 443, 'sts'],
        ['egress', 'tcp', 4318, 4318, 'otel'],
        ['egress', 'tcp', 13133, 13133, 'otel'],
        ['egress', 'tcp', 50051, 50051, 'analyzer'],
      ]);
      for (const rule of rules) expect(rule.security_group_id).toMatch(/^\$\{aws_security_group\.control-plane_load-balancer-security-group_\w+\.id\}$/);
      for (const rule of rules) expect(rule.cidr_blocks).toBeUndefined();
    });
  });

  describe('TLS: HTTPS listeners only', () => {
    it.each([
      ['analyzer', 50051, 'GRPC', '0'],
      ['sts', 443, 'HTTP1', '200'],
      ['otel', 4318, 'HTTP1', '200'],
    ])('%s: HTTPS listener on %i with the TLS 1.2+ policy and the validated certificate', (service, port, protocolVersion, matcher) => {
      const listener = resourceNamed(built.json, 'aws_lb_listener', `_${service}_`);
      expect(listener).toMatchObject({ port, protocol: 'HTTPS', ssl_policy: LISTENER_TLS_POLICY });
      expect(listener.certificate_arn).toMatch(/^\$\{aws_acm_certificate_validation\..*\.certificate_arn\}$/);
      const targetGroup = resourceNamed(built.json, 'aws_lb_target_group', `_${service}_`);
      expect(targetGroup).toMatchObject({ port, protocol: 'HTTPS', protocol_version: protocolVersion, name: `SvcPrevent-${service}` });
      expect(targetGroup.health_check).toMatchObject({ protocol: 'HTTPS', matcher });
    });

    it('has no listener that is not HTTPS', () => {
      const protocols = resourcesOfType(built.json, 'aws_lb_listener').map((listener) => listener.protocol);
      expect(new Set(protocols)).toEqual(new Set(['HTTPS']));
      expect(LISTENER_TLS_POLICY).toBe('ELBSecurityPolicy-TLS13-1-2-2021-06');
    });

    it('validates one certificate for the three names through DNS records in the hosted zone', () => {
      expect(built.synthesized).toHaveResourceWithProperties(AcmCertificate, {
        domain_name: 'analyzer.svcprevent.example.com',
        subject_alternative_names: ['sts.svcprevent.example.com', 'otel.svcprevent.example.com'],
        validation_method: 'DNS',
      });
      const record = resourceNamed(built.json, 'aws_route53_record', 'certificate-validation-record');
      // Keyed by the names known at synth, so the plan knows the records before the certificate exists.
      expect(record.for_each).toBe('${toset(["analyzer.svcprevent.example.com", "sts.svcprevent.example.com", "otel.svcprevent.example.com"])}');
      expect(record.name).toMatch(/domain_validation_options : option\.domain_name => option \}\[each\.value\]\.resource_record_name\}$/);
      expect(record.zone_id).toMatch(/^\$\{data\.aws_route53_zone\..*\.zone_id\}$/);
      const validation = resourcesOfType(built.json, 'aws_acm_certificate_validation')[0];
      expect(validation.validation_record_fqdns).toContain('.fqdn');
    });
  });

  it.each(SERVICES)('%s: alias record <service>.<stack lower>.<zone> to the load balancer', (service) => {
    const record = resourceNamed(built.json, 'aws_route53_record', `_${service}_dns-record`);
    expect(record.name).toBe(`${service}.svcprevent.example.com`);
    expect(record.type).toBe('A');
    expect(record.alias.name).toMatch(/^\$\{aws_lb\..*\.dns_name\}$/);
    expect(record.alias.evaluate_target_health).toBe(true);
  });

  describe('least privilege', () => {
    it.each([
      ['analyzer', true],
      ['sts', false],
      ['otel', true],
    ])('%s may read its parameters, write its logs, and read the secret: %s', (service, readsSecret) => {
      const policy = JSON.parse(resourceNamed(built.json, 'aws_iam_role_policy', `_${service}_`).policy);
      const sids = policy.Statement.map((statement: any) => statement.Sid);
      expect(sids).toEqual(readsSecret ? ['ReadParameters', 'WriteLogs', 'ReadApiKey'] : ['ReadParameters', 'WriteLogs']);
      const parameters = policy.Statement[0].Resource as string[];
      expect(parameters).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`:parameter/SvcPrevent/${service}/\\*$`)), expect.stringMatching(/:parameter\/SvcPrevent\/common\/\*$/)]));
      for (const statement of policy.Statement) {
        expect(statement.Resource).not.toContain('*');
        for (const action of statement.Action) expect(action).not.toMatch(/\*/);
      }
    });

    it('lets EC2 assume the roles', () => {
      for (const role of resourcesOfType(built.json, 'aws_iam_role')) {
        expect(JSON.parse(role.assume_role_policy).Statement[0].Principal).toEqual({ Service: 'ec2.amazonaws.com' });
      }
    });
  });

  describe('launch templates and boot scripts', () => {
    it.each([
      ['analyzer', 'runtime-analyzer:1.2.1', true],
      ['sts', 'scan-template-service:1.2.0', false],
      ['otel', 'otel-collector:1.1.0', true],
    ])('%s installs docker, reads its parameters, and runs %s', (service, image, readsSecret) => {
      const script = userDataOf(built.json, service);
      expect(script).toMatch(/^#!\/bin\/bash\n/);
      expect(script).toContain('dnf install -y docker');
      expect(script).toContain(`IMAGE=registry.svc.example.com/svc/${image}`);
      expect(script).toContain('PARAMETER_PATH=/SvcPrevent/');
      expect(script).toContain('aws ssm get-parameters-by-path');
      expect(script).toContain(`LOG_GROUP=/SvcPrevent/${service}`);
      expect(script.includes('aws secretsmanager get-secret-value --secret-id SvcPrevent/api-key')).toBe(readsSecret);
      expect(script).toContain('docker run -d');
      // Terraform would read these as template sequences.
      expect(script).not.toMatch(/[$%]\{/);
    });

    it('configures the collector for TLS on its OTLP and health ports, matching its target group', () => {
      const script = userDataOf(built.json, 'otel');
      expect(script).toMatch(/health_check:\n {4}endpoint: 0\.0\.0\.0:13133\n {4}path: \/\n {4}tls:\n {6}cert_file: \/etc\/svc\/tls\/tls\.crt/);
      expect(script).toMatch(/http:\n {8}endpoint: 0\.0\.0\.0:4318\n {8}tls:/);
      expect(script).toContain('-p 4318:4318 -p 13133:13133');
      expect(script).toContain('authorization: Bearer $API_KEY');
      const targetGroup = resourceNamed(built.json, 'aws_lb_target_group', '_otel_');
      expect(targetGroup.health_check).toMatchObject({ protocol: 'HTTPS', port: '13133', path: '/' });
      const group = resourceNamed(built.json, 'aws_security_group', '_otel_');
      expect(group.ingress.map((rule: any) => rule.from_port)).toEqual([4318, 13133, 22]);
    });

    it('uses IMDSv2, the image from the public parameter, and the key pair', () => {
      for (const template of resourcesOfType(built.json, 'aws_launch_template')) {
        expect(template.metadata_options.http_tokens).toBe('required');
        // Pinned: the parameter's value as resolved at the first apply, kept by terraform_data.
        expect(template.image_id).toMatch(/^\$\{terraform_data\.control-plane_instance-image-pin_\w+\.output\.id\}$/);
        expect(template.key_name).toBe('ops-key');
        expect(template.update_default_version).toBe(true);
      }
    });

    it('starts instances only after the secret and the parameters exist', () => {
      const group = resourceNamed(built.json, 'aws_autoscaling_group', '_analyzer_');
      expect(group.depends_on).toEqual(expect.arrayContaining([expect.stringContaining('aws_secretsmanager_secret_version.'), expect.stringContaining('aws_ssm_parameter.')]));
    });
  });

  it('writes a log group per service', () => {
    const names = resourcesOfType(built.json, 'aws_cloudwatch_log_group').map((group) => group.name).sort();
    expect(names).toEqual(['/SvcPrevent/analyzer', '/SvcPrevent/otel', '/SvcPrevent/sts']);
  });

  it('outputs the addresses, the load balancer, the scanner security group and the sensor command', () => {
    const output = built.json.output!;
    expect(output.control_plane_analyzer_address.value).toBe('analyzer.svcprevent.example.com:50051');
    expect(output.control_plane_sts_address.value).toBe('sts.svcprevent.example.com:443');
    expect(output.control_plane_otel_address.value).toBe('otel.svcprevent.example.com:4318');
    expect(output.control_plane_load_balancer_dns_name.value).toMatch(/^\$\{aws_lb\..*\.dns_name\}$/);
    expect(output.control_plane_sts_security_group_id.value).toMatch(/^\$\{aws_security_group\.control-plane_sts_security-group_.*\.id\}$/);
    expect(output.control_plane_sensor_command.value).toBe('run-svc-sensor.sh -n acme-corp -d example.com -a <APP>');
  });

  it('passes every architecture rule (only the scanner-ingress guidance is reported, as info)', () => {
    const findings = annotationsOf(built.stack);
    expect(findings.filter((finding) => finding.type !== '@cdktf/info')).toEqual([]);
    expect(findings.map((finding) => finding.path)).toEqual(['test/control-plane/sts/security-group']);
  });
});

describe('a ControlPlane with a custom stack name and sensor ranges', () => {
  let built: Synthesized;
  beforeAll(() => {
    built = synthControlPlane({ stackName: 'Prevent-Eu1', hostedZoneName: 'Corp.Example.org.', sensorCidrs: ['10.20.0.0/16', '192.168.1.7'], vpcCidr: '10.0.0.0/16' });
  });

  it('derives names, records and the sensor command from the stack name', () => {
    expect(resourceNamed(built.json, 'aws_route53_record', '_analyzer_dns-record').name).toBe('analyzer.prevent-eu1.corp.example.org');
    expect(built.json.output!.control_plane_sensor_command.value).toBe('run-svc-sensor.sh -n acme-corp -d corp.example.org -a <APP> -s Prevent-Eu1');
    expect(resourceNamed(built.json, 'aws_lb', 'load-balancer').name).toBe('Prevent-Eu1-lb');
    expect(resourcesOfType(built.json, 'aws_ssm_parameter').every((parameter) => parameter.name.startsWith('/Prevent-Eu1/'))).toBe(true);
  });

  it('admits the VPC and the sensor ranges to the load balancer', () => {
    const group = resourceNamed(built.json, 'aws_security_group', 'load-balancer-security-group');
    expect(group.ingress.map((rule: any) => rule.from_port)).toEqual([50051, 443, 4318]);
    for (const rule of group.ingress) expect(rule.cidr_blocks).toEqual(['10.0.0.0/16', '10.20.0.0/16', '192.168.1.7/32']);
  });

  it('lists each range once, even when a sensor range is the VPC range itself', () => {
    const same = synthControlPlane({ vpcCidr: '10.0.0.0/16', sensorCidrs: ['10.0.0.0/16', '10.20.0.0/16', '10.20.0.0/16', '2001:db8::/32', '2001:db8::/32'] });
    const group = resourceNamed(same.json, 'aws_security_group', 'load-balancer-security-group');
    for (const rule of group.ingress) {
      expect(rule.cidr_blocks).toEqual(['10.0.0.0/16', '10.20.0.0/16']);
      expect(rule.ipv6_cidr_blocks).toEqual(['2001:db8::/32']);
    }
  });

  it('warns through the architecture rules that a sensor range lies outside the VPC', () => {
    const warnings = annotationsOf(built.stack).filter((finding) => finding.type === '@cdktf/warn');
    expect(warnings.map((warning) => warning.message).join('\n')).toContain('192.168.1.7');
  });
});

describe('a ControlPlane with the architecture rules turned off', () => {
  it('reports no findings of its own (for stacks that add ArchitectureRules themselves)', () => {
    const built = synthControlPlane({ checkArchitectureRules: false, sensorCidrs: ['192.168.1.0/24'], vpcCidr: '10.0.0.0/16' });
    expect(annotationsOf(built.stack)).toEqual([]);
  });
});

describe('sensorCommandLine and serviceHostname', () => {
  it.each([
    ['the default stack: no -s', ['acme', 'example.com', 'SvcPrevent'], 'run-svc-sensor.sh -n acme -d example.com -a <APP>'],
    ['another stack: -s', ['acme', 'example.com', 'Prevent2'], 'run-svc-sensor.sh -n acme -d example.com -a <APP> -s Prevent2'],
    ['a tenant with a space and a quote, quoted for the shell', ["Acme's Corp", 'example.com', 'SvcPrevent'], "run-svc-sensor.sh -n 'Acme'\\''s Corp' -d example.com -a <APP>"],
  ])('%s', (_name, [tenant, zone, stack], expected) => {
    expect(sensorCommandLine(tenant, zone, stack)).toBe(expected);
  });

  it('lower-cases the stack name only', () => {
    expect(serviceHostname('analyzer', 'Prevent-EU', 'example.com')).toBe('analyzer.prevent-eu.example.com');
  });
});

describe('resource names with the longest stack name allowed', () => {
  // AWS limits per name; load balancer and target group names are the tightest.
  const LIMITS: [type: string, limit: number][] = [
    ['aws_lb', 32],
    ['aws_lb_target_group', 32],
    ['aws_iam_role', 64],
    ['aws_iam_role_policy', 128],
    ['aws_iam_instance_profile', 128],
    ['aws_launch_template', 128],
    ['aws_autoscaling_group', 255],
    ['aws_security_group', 255],
    ['aws_secretsmanager_secret', 512],
    ['aws_cloudwatch_log_group', 512],
    ['aws_ssm_parameter', 1011],
  ];
  let built: Synthesized;
  beforeAll(() => {
    built = synthControlPlane({ stackName: 'Prevent-Europe' });
  });

  it.each(LIMITS)('%s names stay within %i characters', (type, limit) => {
    const names = resourcesOfType(built.json, type).map((block) => block.name as string);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) expect({ name, length: name.length, withinLimit: name.length <= limit }).toMatchObject({ name, withinLimit: true });
  });

  it('gives the load balancer and target groups names AWS accepts (alphanumerics and inner hyphens)', () => {
    for (const type of ['aws_lb', 'aws_lb_target_group']) {
      for (const block of resourcesOfType(built.json, type)) expect(block.name).toMatch(/^(?!internal-)[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/);
    }
  });
});
