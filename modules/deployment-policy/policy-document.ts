/**
 * The custom deployment policy of the spec's Authentication section, as a pure function of
 * stack name, account and hosted zone. Two parts, kept apart on purpose:
 *
 * 1. One statement group per area of the spec's table, with exactly the table's actions.
 *    Resources are limited to the stack-name prefix (`<stack-prefix>*`) wherever the ARN
 *    carries a name; where it carries only an id (EC2), a condition on the stack tag does the
 *    limiting. Describe/List calls take no resource ARN in IAM, so they get `*`.
 * 2. What deploying the ControlPlane with Terraform needs beyond that table: read calls made
 *    on refresh that a template engine does not make, and a few writes for what ControlPlane
 *    creates that the table does not cover. Each action says why (TERRAFORM_ONLY_ACTIONS).
 */
import { DEFAULT_STACK_NAME, STACK_NAME_TAG_KEY } from '../stack-naming';
import { DEFAULT_INSTANCE_IMAGE_PARAMETER } from '../control-plane/props';
import { validateDeploymentPolicyValues, PropNaming, CONSTRUCT_PROP_LABELS } from './validation';

/** The tag ControlPlane puts on every resource it creates (value: the stack name). */
export { STACK_NAME_TAG_KEY } from '../stack-naming';

/** The values the policy document is built from: the control plane stack it lets a deployer create. */
export interface DeploymentPolicyDocumentInput {
  /** @default 'SvcPrevent' */
  readonly stackName?: string;
  /** Fills `<account-id>`: 12 digits. */
  readonly accountId: string;
  /** Fills `<hosted-zone-id>`, e.g. Z0123456789ABCDEFGHIJ. */
  readonly hostedZoneId: string;
  /** @default '*' (every region) */
  readonly region?: string;
  /** @default 'aws' */
  readonly partition?: string;
  /**
   * The SSM parameter the control plane reads its instance image from (ControlPlane's
   * instanceImageParameter): `ssm:GetParameter(s)` is granted on it. A name under
   * `/aws/service/` is a public parameter (no account in its ARN); any other is the account's.
   * @default '/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-6.1-x86_64' (ControlPlane's default)
   */
  readonly instanceImageParameter?: string;
}

/** One IAM policy statement, as IAM's JSON spells it. */
export interface PolicyStatement {
  /** Starts with the spec area's prefix (e.g. `LoadBalancing`) or `TerraformRead` / `TerraformWrite`. */
  readonly Sid: string;
  /** Only grants: the policy denies nothing explicitly. */
  readonly Effect: 'Allow';
  /** IAM actions, e.g. `ec2:CreateLaunchTemplate`. */
  readonly Action: readonly string[];
  /** ARNs, limited to the stack-name prefix where the ARN carries a name; `*` for calls IAM scopes to no resource. */
  readonly Resource: readonly string[];
  /** IAM conditions, e.g. on the stack tag where an ARN carries only an id. */
  readonly Condition?: Readonly<Record<string, Readonly<Record<string, string | readonly string[]>>>>;
}

/** An IAM policy document, as IAM's JSON spells it (`JSON.stringify` gives the policy text). */
export interface PolicyDocument {
  /** IAM's policy language version. */
  readonly Version: '2012-10-17';
  /** The statements, in order: the spec's areas, then the Terraform-only statements. */
  readonly Statement: readonly PolicyStatement[];
}

/** The areas of the spec's table, in its order, and the Sid prefix of each area's statements. */
export const SPEC_AREAS = [
  { area: 'Launch templates', sidPrefix: 'LaunchTemplates' },
  { area: 'Instances and networking', sidPrefix: 'InstancesAndNetworking' },
  { area: 'Parameter store', sidPrefix: 'ParameterStore' },
  { area: 'Load balancing', sidPrefix: 'LoadBalancing' },
  { area: 'Identity', sidPrefix: 'Identity' },
  { area: 'Certificates', sidPrefix: 'Certificates' },
  { area: 'Secrets store', sidPrefix: 'SecretsStore' },
  { area: 'DNS', sidPrefix: 'Dns' },
  { area: 'Auto scaling', sidPrefix: 'AutoScaling' },
] as const;

/** The name of an area of the spec's table. */
export type SpecArea = (typeof SPEC_AREAS)[number]['area'];

/** Sid prefixes of the Terraform-only part. */
export const TERRAFORM_READ_SID_PREFIX = 'TerraformRead';
/** Sid prefix of the Terraform-only writes. */
export const TERRAFORM_WRITE_SID_PREFIX = 'TerraformWrite';

/** An action the policy grants beyond the spec's table, with the reason (for a security review). */
export interface TerraformOnlyAction {
  /** The IAM action, e.g. `logs:CreateLogGroup`. */
  readonly action: string;
  /** read: refresh/plan/wait calls; write: calls for resources the spec's table does not cover. */
  readonly kind: 'read' | 'write';
  /** Why deploying with Terraform needs it. */
  readonly why: string;
}

/**
 * Every action the Terraform-only statements grant, with the reason. Nothing else is added:
 * calls the provider tolerates being denied (elasticloadbalancing:DescribeCapacityReservation),
 * tags already returned by Describe/Get calls (ec2:DescribeTags, iam:ListRoleTags), and calls
 * the table covers (secretsmanager:GetResourcePolicy, acm:ListTagsForCertificate via acm:*,
 * ssm:ListTagsForResource via ssm:* on the prefix) are left out; sts:GetCallerIdentity needs
 * no permission.
 */
export const TERRAFORM_ONLY_ACTIONS: readonly TerraformOnlyAction[] = [
  // ---- reads on refresh, plan and while waiting ----
  { action: 'elasticloadbalancing:DescribeTags', kind: 'read', why: 'refresh reads the tags of the load balancer, listeners and target groups' },
  { action: 'elasticloadbalancing:DescribeTargetGroups', kind: 'read', why: 'refresh of aws_lb_target_group (the table grants create/delete/modify only)' },
  { action: 'elasticloadbalancing:DescribeTargetGroupAttributes', kind: 'read', why: 'refresh of aws_lb_target_group attributes (deregistration delay, stickiness)' },
  { action: 'elasticloadbalancing:DescribeListenerAttributes', kind: 'read', why: 'refresh of HTTPS aws_lb_listener attributes' },
  { action: 'autoscaling:DescribeInstanceRefreshes', kind: 'read', why: 'Terraform waits for the rolling instance refresh it starts when a launch template changes' },
  { action: 'ec2:DescribeVpcAttribute', kind: 'read', why: 'the plan-time VPC check (data aws_vpc) reads the DNS attributes' },
  { action: 'ec2:DescribeRouteTables', kind: 'read', why: 'the plan-time VPC check (data aws_vpc) reads the main route table' },
  { action: 'ec2:DescribeNetworkInterfaces', kind: 'read', why: 'after deleting the load balancer, Terraform waits for its network interfaces to go before deleting security groups' },
  { action: 'logs:DescribeLogGroups', kind: 'read', why: 'refresh of aws_cloudwatch_log_group (log groups are not in the table)' },
  { action: 'logs:ListTagsForResource', kind: 'read', why: 'refresh reads the tags of the log groups' },
  { action: 'iam:ListRolePolicies', kind: 'read', why: 'refresh of aws_iam_role lists its inline policies' },
  { action: 'iam:GetRolePolicy', kind: 'read', why: 'refresh of aws_iam_role and aws_iam_role_policy reads the inline policy documents' },
  { action: 'iam:ListAttachedRolePolicies', kind: 'read', why: 'refresh of aws_iam_role lists its managed policies' },
  { action: 'iam:ListInstanceProfilesForRole', kind: 'read', why: 'deleting a role first removes it from its instance profiles, which Terraform lists' },
  { action: 'route53:ListResourceRecordSets', kind: 'read', why: 'refresh of aws_route53_record (service names and certificate validation records)' },
  { action: 'route53:ListTagsForResource', kind: 'read', why: 'the plan-time hosted zone check (data aws_route53_zone) reads the zone tags' },
  { action: 'ssm:GetParameter', kind: 'read', why: 'data aws_ssm_parameter resolves the instance image parameter (instanceImageParameter)' },
  { action: 'ssm:GetParameters', kind: 'read', why: 'the image parameter may be read in a batch call' },
  // ---- writes for what ControlPlane creates that the table does not cover ----
  { action: 'logs:CreateLogGroup', kind: 'write', why: 'ControlPlane creates one log group per service (not in the table)' },
  { action: 'logs:PutRetentionPolicy', kind: 'write', why: 'the log groups get a retention period' },
  { action: 'logs:TagResource', kind: 'write', why: 'the log groups are created with the stack tags' },
  { action: 'logs:DeleteLogGroup', kind: 'write', why: 'destroy removes the log groups' },
  { action: 'elasticloadbalancing:AddTags', kind: 'write', why: 'listeners and target groups are created with tags, which needs AddTags on them (the table grants it on load balancers only)' },
  { action: 'iam:TagInstanceProfile', kind: 'write', why: 'instance profiles are created with the stack tags' },
  { action: 'autoscaling:CreateOrUpdateTags', kind: 'write', why: 'auto scaling groups are created with the stack tags' },
  { action: 'autoscaling:StartInstanceRefresh', kind: 'write', why: 'a new launch template version replaces instances through a rolling instance refresh' },
  { action: 'ec2:RevokeSecurityGroupIngress', kind: 'write', why: 'changing the sensor ranges removes old ingress rules (the table grants revoke egress only)' },
  { action: 'iam:DeleteRolePolicy', kind: 'write', why: 'destroy or replacement of aws_iam_role_policy deletes the inline policy' },
  { action: 'ec2:GetEbsDefaultKmsKeyId', kind: 'read', why: 'the plan-time EBS check (data aws_ebs_default_kms_key) reads the default EBS key' },
  { action: 'logs:PutMetricFilter', kind: 'write', why: 'each service log group gets a metric filter counting boot failures' },
  { action: 'logs:DeleteMetricFilter', kind: 'write', why: 'destroy removes the boot-failure metric filters' },
  { action: 'logs:DescribeMetricFilters', kind: 'read', why: 'refresh of aws_cloudwatch_log_metric_filter' },
  { action: 'cloudwatch:PutMetricAlarm', kind: 'write', why: 'one boot-failure alarm per service (create and update)' },
  { action: 'cloudwatch:DeleteAlarms', kind: 'write', why: 'destroy removes the boot-failure alarms' },
  { action: 'cloudwatch:TagResource', kind: 'write', why: 'the alarms are created with the stack tags' },
  { action: 'cloudwatch:UntagResource', kind: 'write', why: 'a tag removed from the alarms' },
  { action: 'cloudwatch:DescribeAlarms', kind: 'read', why: 'refresh of aws_cloudwatch_metric_alarm' },
  { action: 'cloudwatch:ListTagsForResource', kind: 'read', why: 'refresh reads the tags of the alarms' },
  // ---- the rest of the lifecycle: update in place, untag, a second refresh (issue 31)
  { action: 'autoscaling:CancelInstanceRefresh', kind: 'write', why: 'a launch template change while a refresh runs cancels it before starting the next' },
  { action: 'autoscaling:DeleteTags', kind: 'write', why: 'a tag removed from the auto scaling groups' },
  { action: 'ec2:DeleteTags', kind: 'write', why: 'a tag removed from stack-tagged launch templates, security groups and instances' },
  { action: 'elasticloadbalancing:RemoveTags', kind: 'write', why: 'a tag removed from the load balancers, listeners and target groups' },
  { action: 'elasticloadbalancing:SetSecurityGroups', kind: 'write', why: 'changing the security groups of a load balancer in place' },
  { action: 'elasticloadbalancing:SetSubnets', kind: 'write', why: 'changing the subnets of a load balancer in place' },
  { action: 'elasticloadbalancing:ModifyListenerAttributes', kind: 'write', why: 'changing HTTPS listener attributes in place' },
  { action: 'iam:UntagRole', kind: 'write', why: 'a tag removed from the stack roles' },
  { action: 'iam:UntagInstanceProfile', kind: 'write', why: 'a tag removed from the instance profiles' },
  { action: 'iam:UpdateRole', kind: 'write', why: 'changing a role description or maximum session duration in place' },
  { action: 'iam:UpdateAssumeRolePolicy', kind: 'write', why: 'changing a role trust policy in place' },
  { action: 'logs:UntagResource', kind: 'write', why: 'a tag removed from the log groups' },
  { action: 'secretsmanager:UpdateSecret', kind: 'write', why: 'changing a secret description or key in place' },
  { action: 'secretsmanager:UntagResource', kind: 'write', why: 'a tag removed from the stack secrets' },
  { action: 'iam:CreateServiceLinkedRole', kind: 'write', why: 'the first auto scaling group or load balancer in an account creates its service-linked role' },
];

interface Names {
  readonly partition: string;
  readonly region: string;
  readonly account: string;
  readonly prefix: string;
  readonly zone: string;
  readonly imageParameter: string;
}

function resolveInput(input: DeploymentPolicyDocumentInput, naming: PropNaming): Names {
  const values = {
    stackName: input.stackName ?? DEFAULT_STACK_NAME,
    accountId: input.accountId,
    hostedZoneId: input.hostedZoneId,
    region: input.region ?? '*',
    partition: input.partition ?? 'aws',
    instanceImageParameter: input.instanceImageParameter ?? DEFAULT_INSTANCE_IMAGE_PARAMETER,
  };
  validateDeploymentPolicyValues(values, naming);
  return {
    partition: values.partition,
    region: values.region,
    account: values.accountId,
    prefix: values.stackName,
    zone: values.hostedZoneId,
    imageParameter: values.instanceImageParameter,
  };
}

function statement(
  Sid: string,
  Action: readonly string[],
  Resource: readonly string[],
  Condition?: PolicyStatement['Condition'],
): PolicyStatement {
  return Condition ? { Sid, Effect: 'Allow', Action, Resource, Condition } : { Sid, Effect: 'Allow', Action, Resource };
}

/** Actions of TERRAFORM_ONLY_ACTIONS, looked up so that each granted action has its reason. */
function terraformOnly(...actions: string[]): string[] {
  for (const action of actions) {
    if (!TERRAFORM_ONLY_ACTIONS.some((entry) => entry.action === action)) {
      throw new Error(`internal: ${action} is granted without a reason in TERRAFORM_ONLY_ACTIONS`);
    }
  }
  return actions;
}

function specStatements(n: Names): PolicyStatement[] {
  const ec2 = (type: string) => `arn:${n.partition}:ec2:${n.region}:${n.account}:${type}/*`;
  const image = `arn:${n.partition}:ec2:${n.region}::image/*`;
  const stackTagged = { StringEquals: { [`aws:ResourceTag/${STACK_NAME_TAG_KEY}`]: n.prefix } };
  const stackTagRequested = { StringEquals: { [`aws:RequestTag/${STACK_NAME_TAG_KEY}`]: n.prefix } };
  const elb = (resource: string) => `arn:${n.partition}:elasticloadbalancing:${n.region}:${n.account}:${resource}`;
  const iam = (resource: string) => `arn:${n.partition}:iam::${n.account}:${resource}`;
  const autoScalingGroups = `arn:${n.partition}:autoscaling:${n.region}:${n.account}:autoScalingGroup:*:autoScalingGroupName/${n.prefix}*`;
  const stackLoadBalancers = [elb(`loadbalancer/app/${n.prefix}*/*`), elb(`loadbalancer/net/${n.prefix}*/*`)];

  return [
    // ---- Launch templates: create, describe, delete, modify, create and delete versions, describe versions
    statement('LaunchTemplatesDescribe', ['ec2:DescribeLaunchTemplates', 'ec2:DescribeLaunchTemplateVersions'], ['*']),
    // Launch template ARNs carry an id, not a name: the stack tag stands in for the prefix.
    statement('LaunchTemplatesCreateTagged', ['ec2:CreateLaunchTemplate'], [ec2('launch-template')], stackTagRequested),
    statement(
      'LaunchTemplatesManageTagged',
      ['ec2:ModifyLaunchTemplate', 'ec2:DeleteLaunchTemplate', 'ec2:CreateLaunchTemplateVersion', 'ec2:DeleteLaunchTemplateVersions'],
      [ec2('launch-template')],
      stackTagged,
    ),

    // ---- Instances and networking
    statement(
      'InstancesAndNetworkingDescribe',
      ['ec2:DescribeInstances', 'ec2:DescribeVpcs', 'ec2:DescribeSubnets', 'ec2:DescribeKeyPairs', 'ec2:DescribeSecurityGroups'],
      ['*'],
    ),
    // Auto scaling checks the caller's RunInstances on the launch template: only stack templates.
    statement('InstancesAndNetworkingRunFromStackTemplate', ['ec2:RunInstances'], [ec2('launch-template')], stackTagged),
    statement(
      'InstancesAndNetworkingRunResources',
      ['ec2:RunInstances'],
      [ec2('instance'), ec2('volume'), ec2('network-interface'), ec2('subnet'), ec2('security-group'), ec2('key-pair'), image],
      { ArnLike: { 'ec2:LaunchTemplate': ec2('launch-template') } },
    ),
    statement('InstancesAndNetworkingTerminateTagged', ['ec2:TerminateInstances'], [ec2('instance')], stackTagged),
    statement('InstancesAndNetworkingCreateSecurityGroupTagged', ['ec2:CreateSecurityGroup'], [ec2('security-group')], stackTagRequested),
    statement('InstancesAndNetworkingCreateSecurityGroupInVpc', ['ec2:CreateSecurityGroup'], [ec2('vpc')]),
    statement(
      'InstancesAndNetworkingSecurityGroupRulesTagged',
      ['ec2:DeleteSecurityGroup', 'ec2:RevokeSecurityGroupEgress', 'ec2:AuthorizeSecurityGroupIngress', 'ec2:AuthorizeSecurityGroupEgress'],
      [ec2('security-group')],
      stackTagged,
    ),
    statement(
      'InstancesAndNetworkingTagOnCreate',
      ['ec2:CreateTags'],
      [ec2('instance'), ec2('volume'), ec2('network-interface'), ec2('security-group'), ec2('launch-template')],
      { StringEquals: { 'ec2:CreateAction': ['RunInstances', 'CreateSecurityGroup', 'CreateLaunchTemplate'] } },
    ),
    statement(
      'InstancesAndNetworkingRetagTagged',
      ['ec2:CreateTags'],
      [ec2('instance'), ec2('volume'), ec2('security-group'), ec2('launch-template')],
      stackTagged,
    ),

    // ---- Parameter store
    statement('ParameterStoreDescribe', ['ssm:DescribeParameters'], ['*']),
    // `/<stack>/...` parameters have ARNs `parameter/<stack>/...`: covered by the prefix.
    statement('ParameterStoreStackParameters', ['ssm:*'], [`arn:${n.partition}:ssm:${n.region}:${n.account}:parameter/${n.prefix}*`]),

    // ---- Load balancing
    statement(
      'LoadBalancingDescribe',
      [
        'elasticloadbalancing:DescribeLoadBalancers',
        'elasticloadbalancing:DescribeLoadBalancerAttributes',
        'elasticloadbalancing:DescribeListeners',
        'elasticloadbalancing:DescribeRules',
        'elasticloadbalancing:DescribeListenerCertificates',
        'elasticloadbalancing:DescribeSSLPolicies',
        'elasticloadbalancing:DescribeTargetHealth',
      ],
      ['*'],
    ),
    statement(
      'LoadBalancingLoadBalancers',
      [
        'elasticloadbalancing:CreateLoadBalancer',
        'elasticloadbalancing:DeleteLoadBalancer',
        'elasticloadbalancing:AddTags',
        'elasticloadbalancing:ModifyLoadBalancerAttributes',
        'elasticloadbalancing:SetWebAcl',
      ],
      stackLoadBalancers,
    ),
    statement(
      'LoadBalancingListenersAndRules',
      [
        'elasticloadbalancing:CreateListener',
        'elasticloadbalancing:DeleteListener',
        'elasticloadbalancing:ModifyListener',
        'elasticloadbalancing:CreateRule',
        'elasticloadbalancing:DeleteRule',
        'elasticloadbalancing:ModifyRule',
        'elasticloadbalancing:AddListenerCertificates',
        'elasticloadbalancing:RemoveListenerCertificates',
      ],
      [
        ...stackLoadBalancers,
        elb(`listener/app/${n.prefix}*/*`),
        elb(`listener/net/${n.prefix}*/*`),
        elb(`listener-rule/app/${n.prefix}*/*`),
        elb(`listener-rule/net/${n.prefix}*/*`),
      ],
    ),
    statement(
      'LoadBalancingTargetGroups',
      [
        'elasticloadbalancing:CreateTargetGroup',
        'elasticloadbalancing:DeleteTargetGroup',
        'elasticloadbalancing:ModifyTargetGroup',
        'elasticloadbalancing:ModifyTargetGroupAttributes',
      ],
      [elb(`targetgroup/${n.prefix}*/*`)],
    ),
    // The spec allows this on any target group.
    statement('LoadBalancingTargets', ['elasticloadbalancing:RegisterTargets', 'elasticloadbalancing:DeregisterTargets'], [elb('targetgroup/*/*')]),

    // ---- Identity
    statement(
      'IdentityRoles',
      ['iam:CreateRole', 'iam:DeleteRole', 'iam:GetRole', 'iam:TagRole', 'iam:PutRolePolicy', 'iam:DetachRolePolicy'],
      [iam(`role/${n.prefix}*`)],
    ),
    // Attaching only the stack's own policies keeps a stack role from being given admin rights.
    statement('IdentityAttachStackPolicies', ['iam:AttachRolePolicy'], [iam(`role/${n.prefix}*`)], {
      ArnLike: { 'iam:PolicyARN': iam(`policy/${n.prefix}*`) },
    }),
    statement(
      'IdentityPolicies',
      ['iam:CreatePolicy', 'iam:DeletePolicy', 'iam:GetPolicy', 'iam:ListPolicyVersions'],
      [iam(`policy/${n.prefix}*`)],
    ),
    statement(
      'IdentityInstanceProfiles',
      [
        'iam:CreateInstanceProfile',
        'iam:DeleteInstanceProfile',
        'iam:GetInstanceProfile',
        'iam:AddRoleToInstanceProfile',
        'iam:RemoveRoleFromInstanceProfile',
      ],
      [iam(`instance-profile/${n.prefix}*`)],
    ),
    // Stack roles go to the service instances only.
    statement('IdentityPassRoleToInstances', ['iam:PassRole'], [iam(`role/${n.prefix}*`)], {
      StringEquals: { 'iam:PassedToService': 'ec2.amazonaws.com' },
    }),

    // ---- Certificates: all actions on certificates of the account
    statement('CertificatesOfAccount', ['acm:*'], [`arn:${n.partition}:acm:${n.region}:${n.account}:certificate/*`]),
    // Requesting and listing name no certificate ARN yet.
    statement('CertificatesRequestAndList', ['acm:RequestCertificate', 'acm:ListCertificates'], ['*']),

    // ---- Secrets store
    statement(
      'SecretsStoreStackSecrets',
      [
        'secretsmanager:CreateSecret',
        'secretsmanager:PutSecretValue',
        'secretsmanager:GetSecretValue',
        'secretsmanager:DescribeSecret',
        'secretsmanager:ListSecretVersionIds',
        'secretsmanager:TagResource',
        'secretsmanager:DeleteSecret',
        'secretsmanager:GetResourcePolicy',
      ],
      [`arn:${n.partition}:secretsmanager:${n.region}:${n.account}:secret:${n.prefix}/*`],
    ),
    statement('SecretsStoreList', ['secretsmanager:ListSecrets'], ['*']),

    // ---- DNS
    statement(
      'DnsHostedZone',
      ['route53:ChangeResourceRecordSets', 'route53:GetHostedZone'],
      [`arn:${n.partition}:route53:::hostedzone/${n.zone}`],
    ),
    statement('DnsChanges', ['route53:GetChange'], [`arn:${n.partition}:route53:::change/*`]),

    // ---- Auto scaling
    statement(
      'AutoScalingGroups',
      [
        'autoscaling:CreateAutoScalingGroup',
        'autoscaling:UpdateAutoScalingGroup',
        'autoscaling:DeleteAutoScalingGroup',
        'autoscaling:PutScalingPolicy',
        'autoscaling:DeleteScalingPolicy',
      ],
      [autoScalingGroups],
    ),
    statement(
      'AutoScalingDescribe',
      ['autoscaling:DescribeAutoScalingGroups', 'autoscaling:DescribePolicies', 'autoscaling:DescribeScalingActivities'],
      ['*'],
    ),
  ];
}

/**
 * The ARN of the instance image parameter. Public parameters (`/aws/service/...`) live in no
 * account (empty account field); a name with no leading slash gets one in the ARN.
 */
function imageParameterArn(n: Names): string {
  const path = n.imageParameter.startsWith('/') ? n.imageParameter : `/${n.imageParameter}`;
  const account = path.startsWith('/aws/service/') ? '' : n.account;
  return `arn:${n.partition}:ssm:${n.region}:${account}:parameter${path}`;
}

function terraformStatements(n: Names): PolicyStatement[] {
  const iam = (resource: string) => `arn:${n.partition}:iam::${n.account}:${resource}`;
  const elb = (resource: string) => `arn:${n.partition}:elasticloadbalancing:${n.region}:${n.account}:${resource}`;
  const stackLogGroups = `arn:${n.partition}:logs:${n.region}:${n.account}:log-group:/${n.prefix}*`;
  const stackAlarms = `arn:${n.partition}:cloudwatch:${n.region}:${n.account}:alarm:${n.prefix}*`;
  const autoScalingGroups = `arn:${n.partition}:autoscaling:${n.region}:${n.account}:autoScalingGroup:*:autoScalingGroupName/${n.prefix}*`;
  const hostedZone = `arn:${n.partition}:route53:::hostedzone/${n.zone}`;
  return [
    statement(
      'TerraformReadDescribe',
      terraformOnly(
        'elasticloadbalancing:DescribeTags',
        'elasticloadbalancing:DescribeTargetGroups',
        'elasticloadbalancing:DescribeTargetGroupAttributes',
        'elasticloadbalancing:DescribeListenerAttributes',
        'autoscaling:DescribeInstanceRefreshes',
        'ec2:DescribeVpcAttribute',
        'ec2:DescribeRouteTables',
        'ec2:DescribeNetworkInterfaces',
      ),
      ['*'],
    ),
    statement('TerraformReadLogGroups', terraformOnly('logs:DescribeLogGroups'), [
      `arn:${n.partition}:logs:${n.region}:${n.account}:log-group:*`,
    ]),
    statement('TerraformReadStackLogGroupTags', terraformOnly('logs:ListTagsForResource'), [stackLogGroups]),
    statement(
      'TerraformReadStackRoles',
      terraformOnly('iam:ListRolePolicies', 'iam:GetRolePolicy', 'iam:ListAttachedRolePolicies', 'iam:ListInstanceProfilesForRole'),
      [iam(`role/${n.prefix}*`)],
    ),
    statement('TerraformReadHostedZone', terraformOnly('route53:ListResourceRecordSets', 'route53:ListTagsForResource'), [hostedZone]),
    statement('TerraformReadImageParameter', terraformOnly('ssm:GetParameter', 'ssm:GetParameters'), [imageParameterArn(n)]),
    // One statement per resource set: IAM's size limit leaves no room for one per concern.
    statement(
      'TerraformWriteStackLogGroups',
      terraformOnly(
        'logs:CreateLogGroup',
        'logs:PutRetentionPolicy',
        'logs:TagResource',
        'logs:UntagResource',
        'logs:DeleteLogGroup',
        'logs:PutMetricFilter',
        'logs:DeleteMetricFilter',
      ),
      [stackLogGroups],
    ),
    // DescribeMetricFilters and DescribeAlarms take no resource-level scope.
    statement('TerraformReadMetricFiltersAndAlarms', terraformOnly('logs:DescribeMetricFilters', 'cloudwatch:DescribeAlarms'), ['*']),
    // An account setting: IAM offers no resource for it.
    statement('TerraformReadEbsDefaultKey', terraformOnly('ec2:GetEbsDefaultKmsKeyId'), ['*']),
    statement(
      'TerraformWriteStackAlarms',
      terraformOnly('cloudwatch:PutMetricAlarm', 'cloudwatch:DeleteAlarms', 'cloudwatch:TagResource', 'cloudwatch:UntagResource'),
      [stackAlarms],
    ),
    statement('TerraformReadStackAlarmTags', terraformOnly('cloudwatch:ListTagsForResource'), [stackAlarms]),
    statement('TerraformWriteTagOnCreateElb', terraformOnly('elasticloadbalancing:AddTags'), [
      elb(`listener/app/${n.prefix}*/*`),
      elb(`listener/net/${n.prefix}*/*`),
      elb(`targetgroup/${n.prefix}*/*`),
    ]),
    statement(
      'TerraformWriteAutoScalingGroups',
      terraformOnly('autoscaling:CreateOrUpdateTags', 'autoscaling:DeleteTags', 'autoscaling:StartInstanceRefresh', 'autoscaling:CancelInstanceRefresh'),
      [autoScalingGroups],
    ),
    // Untagging and ingress revocation: only on resources already carrying the stack tag (IAM
    // applies each action to the resource types it has: revoke to security groups only).
    statement(
      'TerraformWriteStackTaggedEc2',
      terraformOnly('ec2:DeleteTags', 'ec2:RevokeSecurityGroupIngress'),
      ['instance', 'volume', 'security-group', 'launch-template'].map(
        (type) => `arn:${n.partition}:ec2:${n.region}:${n.account}:${type}/*`,
      ),
      { StringEquals: { [`aws:ResourceTag/${STACK_NAME_TAG_KEY}`]: n.prefix } },
    ),
    statement(
      'TerraformWriteUpdateStackElb',
      terraformOnly(
        'elasticloadbalancing:RemoveTags',
        'elasticloadbalancing:SetSecurityGroups',
        'elasticloadbalancing:SetSubnets',
        'elasticloadbalancing:ModifyListenerAttributes',
      ),
      [
        elb(`loadbalancer/app/${n.prefix}*/*`),
        elb(`loadbalancer/net/${n.prefix}*/*`),
        elb(`listener/app/${n.prefix}*/*`),
        elb(`listener/net/${n.prefix}*/*`),
        elb(`targetgroup/${n.prefix}*/*`),
      ],
    ),
    statement(
      'TerraformWriteStackIdentity',
      terraformOnly(
        'iam:UntagRole',
        'iam:UpdateRole',
        'iam:UpdateAssumeRolePolicy',
        'iam:DeleteRolePolicy',
        'iam:TagInstanceProfile',
        'iam:UntagInstanceProfile',
      ),
      [iam(`role/${n.prefix}*`), iam(`instance-profile/${n.prefix}*`)],
    ),
    statement(
      'TerraformWriteUpdateStackSecrets',
      terraformOnly('secretsmanager:UpdateSecret', 'secretsmanager:UntagResource'),
      [`arn:${n.partition}:secretsmanager:${n.region}:${n.account}:secret:${n.prefix}/*`],
    ),
    statement(
      'TerraformWriteServiceLinkedRoles',
      terraformOnly('iam:CreateServiceLinkedRole'),
      [iam('role/aws-service-role/*')],
      { StringEquals: { 'iam:AWSServiceName': ['autoscaling.amazonaws.com', 'elasticloadbalancing.amazonaws.com'] } },
    ),
  ];
}

/**
 * The deployment policy as a plain JSON object: what DeploymentPolicy attaches and
 * `svc-deployment-policy` prints. Throws DeploymentPolicyPropError (construct path
 * `deploymentPolicyDocument`) for a malformed value.
 */
export function deploymentPolicyDocument(input: DeploymentPolicyDocumentInput): PolicyDocument {
  return namedDeploymentPolicyDocument(input, { constructPath: 'deploymentPolicyDocument', labels: CONSTRUCT_PROP_LABELS });
}

/** deploymentPolicyDocument reporting a bad value from the caller's place: a construct path, or the command with its flags. */
export function namedDeploymentPolicyDocument(input: DeploymentPolicyDocumentInput, naming: PropNaming): PolicyDocument {
  const names = resolveInput(input, naming);
  return { Version: '2012-10-17', Statement: [...specStatements(names), ...terraformStatements(names)] };
}

/** IAM's limit for one customer managed policy, in characters without white space. */
export const MANAGED_POLICY_MAX_CHARACTERS = 6144;
/** What a part may use: a little below the limit, for safety. */
const PART_BUDGET = MANAGED_POLICY_MAX_CHARACTERS - 144;

function isTerraformOnly(statement: PolicyStatement): boolean {
  return statement.Sid.startsWith(TERRAFORM_READ_SID_PREFIX) || statement.Sid.startsWith(TERRAFORM_WRITE_SID_PREFIX);
}

/** The group a statement belongs to: its spec area's Sid prefix, or 'Terraform'. */
export function statementGroup(statement: PolicyStatement): string {
  if (isTerraformOnly(statement)) return 'Terraform';
  const area = SPEC_AREAS.find((candidate) => statement.Sid.startsWith(candidate.sidPrefix));
  if (!area) throw new Error(`internal: statement ${statement.Sid} belongs to no area`);
  return area.sidPrefix;
}

/**
 * Splits a document into documents that each fit one managed policy (the whole policy is about
 * twice IAM's 6,144-character limit). Statements stay in order and each group (a spec area, or
 * the Terraform-only statements) stays in one part; spec areas and Terraform-only statements
 * never share a part. `sizing` is a document of the same shape used to measure (the construct
 * measures with placeholders as long as the deploy-time values of its tokens).
 */
export function splitPolicyDocument(document: PolicyDocument, sizing: PolicyDocument = document): PolicyDocument[] {
  if (sizing.Statement.length !== document.Statement.length) {
    throw new Error('internal: the sizing document must have the same statements as the document');
  }
  const emptySize = JSON.stringify({ Version: document.Version, Statement: [] }).length;
  // Consecutive statements of one group, with their measured size.
  const groups: { name: string; statements: PolicyStatement[]; size: number }[] = [];
  document.Statement.forEach((statement, index) => {
    const name = statementGroup(statement);
    const size = JSON.stringify(sizing.Statement[index]).length + 1;
    const last = groups[groups.length - 1];
    if (last && last.name === name) {
      last.statements.push(statement);
      last.size += size;
    } else {
      groups.push({ name, statements: [statement], size });
    }
  });
  const parts: PolicyStatement[][] = [];
  let current: PolicyStatement[] = [];
  let currentSize = emptySize;
  let currentIsTerraform = false;
  for (const group of groups) {
    if (emptySize + group.size > PART_BUDGET) {
      throw new Error(`internal: the ${group.name} statements alone exceed the managed policy size limit`);
    }
    const terraform = group.name === 'Terraform';
    if (current.length > 0 && (currentSize + group.size > PART_BUDGET || terraform !== currentIsTerraform)) {
      parts.push(current);
      current = [];
      currentSize = emptySize;
    }
    current.push(...group.statements);
    currentSize += group.size;
    currentIsTerraform = terraform;
  }
  if (current.length > 0) parts.push(current);
  return parts.map((Statement) => ({ Version: document.Version, Statement }));
}
