/**
 * One control plane service: its log group, role and least-privilege policy, instance
 * profile, security group, launch template, target group, HTTPS listener, auto scaling group
 * and DNS record. The ControlPlane creates three, with the IDs analyzer, sts and otel.
 */
import { Construct } from 'constructs';
import { Fn, Op, Token, type ITerraformDependable } from 'cdktf';
import { AutoscalingGroup } from '@cdktf/provider-aws/lib/autoscaling-group';
import { CloudwatchLogGroup } from '@cdktf/provider-aws/lib/cloudwatch-log-group';
import { CloudwatchLogMetricFilter } from '@cdktf/provider-aws/lib/cloudwatch-log-metric-filter';
import { CloudwatchMetricAlarm } from '@cdktf/provider-aws/lib/cloudwatch-metric-alarm';
import { IamInstanceProfile } from '@cdktf/provider-aws/lib/iam-instance-profile';
import { IamRole } from '@cdktf/provider-aws/lib/iam-role';
import { IamRolePolicy } from '@cdktf/provider-aws/lib/iam-role-policy';
import { LaunchTemplate } from '@cdktf/provider-aws/lib/launch-template';
import type { Lb } from '@cdktf/provider-aws/lib/lb';
import { LbListener } from '@cdktf/provider-aws/lib/lb-listener';
import { LbTargetGroup } from '@cdktf/provider-aws/lib/lb-target-group';
import { Route53Record } from '@cdktf/provider-aws/lib/route53-record';
import type { SecretsmanagerSecret } from '@cdktf/provider-aws/lib/secretsmanager-secret';
import { SecurityGroup } from '@cdktf/provider-aws/lib/security-group';
import { SecurityGroupRule } from '@cdktf/provider-aws/lib/security-group-rule';
import type { ResolvedControlPlaneProps } from './props';
import { LISTENER_TLS_POLICY, serviceImage, type ContainerContract, type ServiceDefinition, type ServiceName } from './services';
import { BOOT_FAILURE_MARKER, encodeUserData, renderUserData } from './user-data';

/** What the ControlPlane hands each of its services; built by ControlPlane only (not exported by the package). */
export interface ControlPlaneServiceProps {
  readonly service: ServiceDefinition;
  readonly props: ResolvedControlPlaneProps;
  readonly stackName: string;
  readonly hostname: string;
  readonly loadBalancer: Lb;
  readonly loadBalancerSecurityGroupId: string;
  /** The validated certificate (listeners wait for validation). */
  readonly certificateArn: string;
  readonly hostedZoneId: string;
  readonly vpcCidr: string;
  readonly imageId: string;
  readonly apiKeySecret: SecretsmanagerSecret;
  /** Literal secret name, so the boot script stays free of Terraform references. */
  readonly apiKeySecretName: string;
  /** What must exist before instances boot: the secret's value and the parameters. */
  readonly bootDependencies: ITerraformDependable[];
  readonly partition: string;
  readonly accountId: string;
  readonly tags: (name: string) => Record<string, string>;
}

/** Time for docker install, image pull and start before the load balancer's verdict counts. */
const HEALTH_CHECK_GRACE_SECONDS = 300;

/** Namespace of the boot-failure metrics: one metric per stack and service. */
export const BOOT_FAILURE_METRIC_NAMESPACE = 'svc/ControlPlane';

/** `<account>.dkr.ecr.<region>.amazonaws.com[.cn]/<path>`: an Amazon ECR repository. */
const ECR_IMAGE = /^(\d{12})\.dkr\.ecr\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?\/([^:@]+)/;

/**
 * One service of a ControlPlane (`controlPlane.services.analyzer`, `.sts`, `.otel`): its
 * resources, for wiring them into the rest of your stack (an alarm action, a security group
 * rule). Created by ControlPlane only; the package exports it as a type.
 */
export class ControlPlaneService extends Construct {
  /** The service: `analyzer`, `sts` or `otel` (also its construct ID and DNS label). */
  readonly serviceName: ServiceName;
  /** How its container is run (port, health check, UID, files), defaults and overrides applied. */
  readonly contract: ContainerContract;
  /** Its DNS name, `<service>.<stack lower>.<zone>`. */
  readonly hostname: string;
  /** The name of its IAM role, instance profile, security group, launch template, target group and auto scaling group: `<stackName>-<service>`. */
  readonly resourceName: string;
  /** Its log group, `/<stackName>/<service>`. */
  readonly logGroup: CloudwatchLogGroup;
  /** The instances' role. */
  readonly role: IamRole;
  /** The instances' instance profile. */
  readonly instanceProfile: IamInstanceProfile;
  /** The instances' security group (the Scan Template Service's: allow it into what it scans). */
  readonly securityGroup: SecurityGroup;
  /** The instances' launch template (image, user data, key pair). */
  readonly launchTemplate: LaunchTemplate;
  /** The load balancer's target group of the instances. */
  readonly targetGroup: LbTargetGroup;
  /** The HTTPS listener of the service's port. */
  readonly listener: LbListener;
  /** The instances' auto scaling group. */
  readonly autoScalingGroup: AutoscalingGroup;
  /** The alias record of hostname to the load balancer. */
  readonly dnsRecord: Route53Record;
  /** The image the instances run, `<repository>/<name>:<tag>`. */
  readonly image: string;
  /**
   * Goes off when an instance reports a failed boot (an image pull that failed after its
   * retries, a parameter it could not read), with the reason in the log stream `<instance>/boot`.
   * The auto scaling group keeps replacing such instances: this alarm is the signal to act.
   */
  readonly bootFailureAlarm: CloudwatchMetricAlarm;

  /** Called by ControlPlane, once per service. */
  constructor(scope: Construct, id: string, input: ControlPlaneServiceProps) {
    super(scope, id);
    const { service, props, stackName, tags } = input;
    this.serviceName = service.name;
    this.contract = {
      port: service.port,
      extraPorts: service.extraPorts,
      protocolVersion: service.protocolVersion,
      healthCheck: service.healthCheck,
      runAsUid: service.runAsUid,
      environmentPrefix: service.environmentPrefix,
      tlsDirectory: service.tlsDirectory,
      apiKeyFile: service.apiKeyFile,
    };
    this.hostname = input.hostname;
    const name = `${stackName}-${service.name}`;
    this.resourceName = name;
    this.image = serviceImage(service, props);

    this.logGroup = new CloudwatchLogGroup(this, 'log-group', {
      name: `/${stackName}/${service.name}`,
      retentionInDays: props.logRetentionDays,
      tags: tags(`/${stackName}/${service.name}`),
    });

    this.role = new IamRole(this, 'role', {
      name,
      description: `${service.title} instances of control plane ${stackName}`,
      assumeRolePolicy: JSON.stringify({
        Version: '2012-10-17',
        Statement: [{ Effect: 'Allow', Principal: { Service: 'ec2.amazonaws.com' }, Action: 'sts:AssumeRole' }],
      }),
      tags: tags(name),
    });
    new IamRolePolicy(this, 'policy', {
      name,
      role: this.role.id,
      policy: this.policyDocument(input),
    });
    this.instanceProfile = new IamInstanceProfile(this, 'instance-profile', {
      name,
      role: this.role.name,
      tags: tags(name),
    });

    // Where the load balancer reaches an instance: the service port, further ports, the health-check port.
    const healthPort = Number(service.healthCheck.port);
    const ports = [...new Set([service.port, ...service.extraPorts, ...(Number.isInteger(healthPort) ? [healthPort] : [])])];
    this.securityGroup = new SecurityGroup(this, 'security-group', {
      name,
      description: `${service.title} instances of control plane ${stackName}`,
      vpcId: props.vpcId,
      ingress: [
        ...ports.map((port) => ({
          description: `Port ${port} from the load balancer`,
          protocol: 'tcp',
          fromPort: port,
          toPort: port,
          securityGroups: [input.loadBalancerSecurityGroupId],
        })),
        {
          description: 'SSH with the key pair in KeyName, from inside the VPC',
          protocol: 'tcp',
          fromPort: 22,
          toPort: 22,
          cidrBlocks: [input.vpcCidr],
        },
      ],
      // Outbound through the NAT gateway: image pulls, the vendor platform, and for the scan
      // template service the endpoints it scans.
      egress: [{ description: 'All outbound', protocol: '-1', fromPort: 0, toPort: 0, cidrBlocks: ['0.0.0.0/0'] }],
      tags: tags(name),
    });

    const bootFailures = new CloudwatchLogMetricFilter(this, 'boot-failure-filter', {
      name: `${name}-boot-failures`,
      logGroupName: this.logGroup.name,
      pattern: `"${BOOT_FAILURE_MARKER}"`,
      metricTransformation: { name: `${name}-boot-failures`, namespace: BOOT_FAILURE_METRIC_NAMESPACE, value: '1', defaultValue: '0' },
    });
    this.bootFailureAlarm = new CloudwatchMetricAlarm(this, 'boot-failure-alarm', {
      alarmName: `${name}-boot-failures`,
      alarmDescription: `${service.title} instances of control plane ${stackName} fail to boot (image pull, registry login, parameters): read the log streams <instance>/boot in /${stackName}/${service.name}`,
      namespace: BOOT_FAILURE_METRIC_NAMESPACE,
      metricName: bootFailures.metricTransformation.name,
      statistic: 'Sum',
      period: 300,
      evaluationPeriods: 1,
      threshold: 1,
      comparisonOperator: 'GreaterThanOrEqualToThreshold',
      treatMissingData: 'notBreaching',
      tags: tags(`${name}-boot-failures`),
    });

    // The load balancer's way out: to this service's security group only, on its ports (a
    // group, not the VPC range, so instances in a secondary range of the VPC are reached too).
    for (const port of ports) {
      new SecurityGroupRule(this, `load-balancer-egress-${port}`, {
        type: 'egress',
        description: `To the ${service.title} instances, port ${port}`,
        securityGroupId: input.loadBalancerSecurityGroupId,
        sourceSecurityGroupId: this.securityGroup.id,
        protocol: 'tcp',
        fromPort: port,
        toPort: port,
      });
    }

    const script = renderUserData({
      service,
      stackName,
      parameterPath: `/${stackName}/`,
      apiKeySecretName: service.readsApiKey ? input.apiKeySecretName : undefined,
      image: this.image,
      registryLoginSecretArn: props.registryLoginSecretArn,
      logGroupName: `/${stackName}/${service.name}`,
      otelExportUrl: props.otelGatewayUrl ?? `https://${props.gatewayHostname}`,
    });
    this.launchTemplate = new LaunchTemplate(this, 'launch-template', {
      name,
      description: `${service.title} of control plane ${stackName}`,
      imageId: input.imageId,
      instanceType: service.instanceType(props),
      keyName: props.keyName,
      iamInstanceProfile: { arn: this.instanceProfile.arn },
      vpcSecurityGroupIds: [this.securityGroup.id],
      userData: encodeUserData(script),
      updateDefaultVersion: true,
      // IMDSv2 only; hop limit 2 lets the container reach the metadata service through docker's bridge.
      metadataOptions: { httpEndpoint: 'enabled', httpTokens: 'required', httpPutResponseHopLimit: 2 },
      blockDeviceMappings: [{ deviceName: '/dev/xvda', ebs: { volumeSize: 20, volumeType: 'gp3', encrypted: 'true', deleteOnTermination: 'true' } }],
      tagSpecifications: [
        { resourceType: 'instance', tags: tags(name) },
        { resourceType: 'volume', tags: tags(name) },
      ],
      tags: tags(name),
    });

    this.targetGroup = new LbTargetGroup(this, 'target-group', {
      name,
      port: service.port,
      protocol: 'HTTPS',
      protocolVersion: service.protocolVersion,
      targetType: 'instance',
      vpcId: props.vpcId,
      deregistrationDelay: '30',
      healthCheck: {
        enabled: true,
        protocol: service.healthCheck.protocol,
        port: service.healthCheck.port,
        path: service.healthCheck.path,
        matcher: service.healthCheck.matcher,
        healthyThreshold: 3,
        unhealthyThreshold: 3,
        interval: 30,
      },
      tags: tags(name),
    });
    this.listener = new LbListener(this, 'listener', {
      loadBalancerArn: input.loadBalancer.arn,
      port: service.port,
      protocol: 'HTTPS',
      sslPolicy: LISTENER_TLS_POLICY,
      certificateArn: input.certificateArn,
      defaultAction: [{ type: 'forward', targetGroupArn: this.targetGroup.arn }],
      tags: tags(name),
    });

    const desired = service.desiredCount(props);
    this.autoScalingGroup = new AutoscalingGroup(this, 'auto-scaling-group', {
      name,
      vpcZoneIdentifier: props.subnetIds as string[],
      minSize: desired,
      desiredCapacity: desired,
      // Room for a rolling refresh to start new instances before old ones go.
      maxSize: Token.isUnresolved(desired) ? Token.asNumber(Op.mul(desired, 2)) : desired * 2,
      healthCheckType: 'ELB',
      healthCheckGracePeriod: HEALTH_CHECK_GRACE_SECONDS,
      targetGroupArns: [this.targetGroup.arn],
      launchTemplate: { id: this.launchTemplate.id, version: Token.asString(this.launchTemplate.latestVersion) },
      // A new launch template version (image, tag, user data) replaces instances in batches.
      instanceRefresh: { strategy: 'Rolling', preferences: { minHealthyPercentage: 50, instanceWarmup: String(HEALTH_CHECK_GRACE_SECONDS) } },
      tag: Object.entries(tags(name)).map(([key, value]) => ({ key, value, propagateAtLaunch: true })),
      dependsOn: input.bootDependencies,
    });

    this.dnsRecord = new Route53Record(this, 'dns-record', {
      zoneId: input.hostedZoneId,
      name: input.hostname,
      type: 'A',
      alias: { name: input.loadBalancer.dnsName, zoneId: input.loadBalancer.zoneId, evaluateTargetHealth: true },
    });
  }

  /**
   * The role's policy. A registry login ARN known only at deploy time (the HCL module's
   * variable, empty for none) makes Terraform choose between the document with and without it.
   */
  private policyDocument(input: ControlPlaneServiceProps): string {
    const loginSecret = input.props.registryLoginSecretArn;
    const document = (login: string | undefined) => ({ Version: '2012-10-17', Statement: this.policyStatements(input, login) });
    if (loginSecret === undefined || !Token.isUnresolved(loginSecret)) return JSON.stringify(document(loginSecret));
    return Token.asString(Fn.conditional(Op.lt(Fn.lengthOf(loginSecret), 1), Fn.jsonencode(document(undefined)), Fn.jsonencode(document(loginSecret))));
  }

  /** Read its own parameters and the common ones, the secret if it needs it, write its logs. */
  private policyStatements(input: ControlPlaneServiceProps, loginSecret: string | undefined): object[] {
    const { service, stackName } = input;
    const parameterArn = (path: string) => `arn:${input.partition}:ssm:*:${input.accountId}:parameter/${stackName}/${path}`;
    const statements: object[] = [
      {
        Sid: 'ReadParameters',
        Effect: 'Allow',
        Action: ['ssm:GetParametersByPath', 'ssm:GetParameters', 'ssm:GetParameter'],
        Resource: [parameterArn('common'), parameterArn('common/*'), parameterArn(service.name), parameterArn(`${service.name}/*`)],
      },
      {
        Sid: 'WriteLogs',
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents', 'logs:DescribeLogStreams'],
        Resource: [`${this.logGroup.arn}:*`],
      },
    ];
    if (service.readsApiKey) {
      statements.push({ Sid: 'ReadApiKey', Effect: 'Allow', Action: ['secretsmanager:GetSecretValue'], Resource: [input.apiKeySecret.arn] });
    }
    if (loginSecret !== undefined) {
      statements.push({ Sid: 'ReadRegistryLogin', Effect: 'Allow', Action: ['secretsmanager:GetSecretValue'], Resource: [loginSecret] });
    } else {
      statements.push(...this.ecrPullStatements(input.partition));
    }
    return statements;
  }

  /**
   * Pull rights for an image in Amazon ECR: on its repository when the image is a literal ECR
   * reference, on every repository when it is known only at deploy time, none otherwise.
   */
  private ecrPullStatements(partition: string): object[] {
    const pullActions = ['ecr:BatchGetImage', 'ecr:GetDownloadUrlForLayer', 'ecr:BatchCheckLayerAvailability'];
    const token = { Sid: 'EcrLogin', Effect: 'Allow', Action: ['ecr:GetAuthorizationToken'], Resource: ['*'] };
    if (Token.isUnresolved(this.image)) {
      return [token, { Sid: 'EcrPull', Effect: 'Allow', Action: pullActions, Resource: [`arn:${partition}:ecr:*:*:repository/*`] }];
    }
    const ecr = ECR_IMAGE.exec(this.image);
    if (!ecr) return [];
    const [, account, region, repository] = ecr;
    return [token, { Sid: 'EcrPull', Effect: 'Allow', Action: pullActions, Resource: [`arn:${partition}:ecr:${region}:${account}:repository/${repository}`] }];
  }
}
