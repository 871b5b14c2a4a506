/**
 * The deployment policy against the whole lifecycle of what ControlPlane synthesizes (issue 31):
 * a table of resource type x operation -> IAM actions, each row with its source. It fails when
 * the synthesized stack holds a resource or data type the table lacks, or when the policy does
 * not grant an action of the table. Keeping it: see help/deployment-policy.md.
 */
import { deploymentPolicyDocument } from '../../modules/deployment-policy';
import { synthControlPlane } from '../control-plane/fixtures';

type Operation = 'create' | 'read' | 'update' | 'tag' | 'untag' | 'replace' | 'instanceRefresh' | 'destroy';

interface Row {
  /** The AWS service authorization reference page, or the AWS provider's documented behaviour. */
  readonly source: string;
  readonly operations: Partial<Record<Operation, readonly string[]>>;
}

const SAR = 'https://docs.aws.amazon.com/service-authorization/latest/reference/';
const PROVIDER = 'https://registry.terraform.io/providers/hashicorp/aws/5.100.0/docs/';
const source = (page: string, provider: string) => `${SAR}${page}; ${PROVIDER}${provider}`;

/** Replacement is a create of the new object and a destroy of the old one. */
function withReplace(operations: Row['operations']): Row['operations'] {
  return { ...operations, replace: [...(operations.create ?? []), ...(operations.destroy ?? [])] };
}

const RESOURCES: Record<string, Row> = {
  aws_launch_template: {
    source: source('list_amazonec2.html', 'resources/launch_template'),
    operations: withReplace({
      create: ['ec2:CreateLaunchTemplate', 'ec2:CreateTags', 'ec2:DescribeLaunchTemplates', 'ec2:DescribeLaunchTemplateVersions'],
      read: ['ec2:DescribeLaunchTemplates', 'ec2:DescribeLaunchTemplateVersions'],
      // A change is a new version made the default.
      update: ['ec2:CreateLaunchTemplateVersion', 'ec2:ModifyLaunchTemplate', 'ec2:DeleteLaunchTemplateVersions'],
      tag: ['ec2:CreateTags'],
      untag: ['ec2:DeleteTags'],
      destroy: ['ec2:DeleteLaunchTemplate'],
    }),
  },
  aws_autoscaling_group: {
    source: source('list_amazonec2autoscaling.html', 'resources/autoscaling_group'),
    operations: withReplace({
      // Auto Scaling launches with the caller's rights on the template, instance and role.
      create: [
        'autoscaling:CreateAutoScalingGroup', 'autoscaling:CreateOrUpdateTags', 'autoscaling:DescribeAutoScalingGroups',
        'autoscaling:DescribeScalingActivities', 'ec2:RunInstances', 'iam:PassRole', 'iam:CreateServiceLinkedRole',
      ],
      read: ['autoscaling:DescribeAutoScalingGroups', 'autoscaling:DescribeScalingActivities'],
      update: ['autoscaling:UpdateAutoScalingGroup'],
      tag: ['autoscaling:CreateOrUpdateTags'],
      untag: ['autoscaling:DeleteTags'],
      // instance_refresh: a refresh still running is cancelled before the next one starts.
      instanceRefresh: ['autoscaling:StartInstanceRefresh', 'autoscaling:DescribeInstanceRefreshes', 'autoscaling:CancelInstanceRefresh', 'ec2:RunInstances', 'ec2:TerminateInstances'],
      // Draining sets the sizes to 0 before the delete.
      destroy: ['autoscaling:UpdateAutoScalingGroup', 'autoscaling:DeleteAutoScalingGroup', 'ec2:TerminateInstances'],
    }),
  },
  aws_security_group: {
    source: source('list_amazonec2.html', 'resources/security_group'),
    operations: withReplace({
      // The provider revokes the default allow-all egress rule after create.
      create: ['ec2:CreateSecurityGroup', 'ec2:CreateTags', 'ec2:DescribeSecurityGroups', 'ec2:RevokeSecurityGroupEgress'],
      read: ['ec2:DescribeSecurityGroups'],
      update: [
        'ec2:AuthorizeSecurityGroupIngress', 'ec2:AuthorizeSecurityGroupEgress',
        'ec2:RevokeSecurityGroupIngress', 'ec2:RevokeSecurityGroupEgress',
      ],
      tag: ['ec2:CreateTags'],
      untag: ['ec2:DeleteTags'],
      // Waits for the load balancer's network interfaces to go first.
      destroy: ['ec2:DeleteSecurityGroup', 'ec2:DescribeNetworkInterfaces'],
    }),
  },
  aws_security_group_rule: {
    source: source('list_amazonec2.html', 'resources/security_group_rule'),
    // Every argument forces replacement: there is no in-place update.
    operations: withReplace({
      create: ['ec2:AuthorizeSecurityGroupIngress', 'ec2:AuthorizeSecurityGroupEgress', 'ec2:DescribeSecurityGroups'],
      read: ['ec2:DescribeSecurityGroups'],
      destroy: ['ec2:RevokeSecurityGroupIngress', 'ec2:RevokeSecurityGroupEgress'],
    }),
  },
  aws_lb: {
    source: source('list_awselasticloadbalancingv2.html', 'resources/lb'),
    operations: withReplace({
      create: [
        'elasticloadbalancing:CreateLoadBalancer', 'elasticloadbalancing:AddTags', 'elasticloadbalancing:ModifyLoadBalancerAttributes',
        'elasticloadbalancing:DescribeLoadBalancers', 'elasticloadbalancing:DescribeLoadBalancerAttributes', 'iam:CreateServiceLinkedRole',
      ],
      read: ['elasticloadbalancing:DescribeLoadBalancers', 'elasticloadbalancing:DescribeLoadBalancerAttributes', 'elasticloadbalancing:DescribeTags'],
      update: ['elasticloadbalancing:ModifyLoadBalancerAttributes', 'elasticloadbalancing:SetSecurityGroups', 'elasticloadbalancing:SetSubnets'],
      tag: ['elasticloadbalancing:AddTags'],
      untag: ['elasticloadbalancing:RemoveTags'],
      destroy: ['elasticloadbalancing:DeleteLoadBalancer', 'ec2:DescribeNetworkInterfaces'],
    }),
  },
  aws_lb_listener: {
    source: source('list_awselasticloadbalancingv2.html', 'resources/lb_listener'),
    operations: withReplace({
      create: ['elasticloadbalancing:CreateListener', 'elasticloadbalancing:AddTags', 'elasticloadbalancing:DescribeListeners'],
      read: ['elasticloadbalancing:DescribeListeners', 'elasticloadbalancing:DescribeListenerAttributes', 'elasticloadbalancing:DescribeTags'],
      update: ['elasticloadbalancing:ModifyListener', 'elasticloadbalancing:ModifyListenerAttributes'],
      tag: ['elasticloadbalancing:AddTags'],
      untag: ['elasticloadbalancing:RemoveTags'],
      destroy: ['elasticloadbalancing:DeleteListener'],
    }),
  },
  aws_lb_target_group: {
    source: source('list_awselasticloadbalancingv2.html', 'resources/lb_target_group'),
    operations: withReplace({
      create: [
        'elasticloadbalancing:CreateTargetGroup', 'elasticloadbalancing:AddTags', 'elasticloadbalancing:ModifyTargetGroupAttributes',
        'elasticloadbalancing:DescribeTargetGroups',
      ],
      read: ['elasticloadbalancing:DescribeTargetGroups', 'elasticloadbalancing:DescribeTargetGroupAttributes', 'elasticloadbalancing:DescribeTags'],
      update: ['elasticloadbalancing:ModifyTargetGroup', 'elasticloadbalancing:ModifyTargetGroupAttributes'],
      tag: ['elasticloadbalancing:AddTags'],
      untag: ['elasticloadbalancing:RemoveTags'],
      destroy: ['elasticloadbalancing:DeleteTargetGroup'],
    }),
  },
  aws_iam_role: {
    source: source('list_awsidentityandaccessmanagementiam.html', 'resources/iam_role'),
    operations: withReplace({
      create: ['iam:CreateRole', 'iam:TagRole', 'iam:GetRole'],
      read: ['iam:GetRole', 'iam:ListRolePolicies', 'iam:ListAttachedRolePolicies'],
      update: ['iam:UpdateRole', 'iam:UpdateAssumeRolePolicy'],
      tag: ['iam:TagRole'],
      untag: ['iam:UntagRole'],
      // The provider detaches and removes everything the role holds before deleting it.
      destroy: [
        'iam:ListInstanceProfilesForRole', 'iam:RemoveRoleFromInstanceProfile', 'iam:ListRolePolicies', 'iam:DeleteRolePolicy',
        'iam:ListAttachedRolePolicies', 'iam:DetachRolePolicy', 'iam:DeleteRole',
      ],
    }),
  },
  aws_iam_role_policy: {
    source: source('list_awsidentityandaccessmanagementiam.html', 'resources/iam_role_policy'),
    operations: withReplace({
      create: ['iam:PutRolePolicy', 'iam:GetRolePolicy'],
      read: ['iam:GetRolePolicy'],
      update: ['iam:PutRolePolicy'],
      destroy: ['iam:DeleteRolePolicy'],
    }),
  },
  aws_iam_instance_profile: {
    source: source('list_awsidentityandaccessmanagementiam.html', 'resources/iam_instance_profile'),
    operations: withReplace({
      create: ['iam:CreateInstanceProfile', 'iam:TagInstanceProfile', 'iam:AddRoleToInstanceProfile', 'iam:GetInstanceProfile', 'iam:PassRole'],
      read: ['iam:GetInstanceProfile'],
      update: ['iam:RemoveRoleFromInstanceProfile', 'iam:AddRoleToInstanceProfile'],
      tag: ['iam:TagInstanceProfile'],
      untag: ['iam:UntagInstanceProfile'],
      destroy: ['iam:RemoveRoleFromInstanceProfile', 'iam:DeleteInstanceProfile'],
    }),
  },
  aws_cloudwatch_log_group: {
    source: source('list_amazoncloudwatchlogs.html', 'resources/cloudwatch_log_group'),
    operations: withReplace({
      create: ['logs:CreateLogGroup', 'logs:PutRetentionPolicy', 'logs:TagResource', 'logs:DescribeLogGroups'],
      read: ['logs:DescribeLogGroups', 'logs:ListTagsForResource'],
      update: ['logs:PutRetentionPolicy'],
      tag: ['logs:TagResource'],
      untag: ['logs:UntagResource'],
      destroy: ['logs:DeleteLogGroup'],
    }),
  },
  aws_cloudwatch_log_metric_filter: {
    source: source('list_amazoncloudwatchlogs.html', 'resources/cloudwatch_log_metric_filter'),
    operations: withReplace({
      create: ['logs:PutMetricFilter', 'logs:DescribeMetricFilters'],
      read: ['logs:DescribeMetricFilters'],
      update: ['logs:PutMetricFilter'],
      destroy: ['logs:DeleteMetricFilter'],
    }),
  },
  aws_cloudwatch_metric_alarm: {
    source: source('list_amazoncloudwatch.html', 'resources/cloudwatch_metric_alarm'),
    operations: withReplace({
      create: ['cloudwatch:PutMetricAlarm', 'cloudwatch:TagResource', 'cloudwatch:DescribeAlarms'],
      read: ['cloudwatch:DescribeAlarms', 'cloudwatch:ListTagsForResource'],
      update: ['cloudwatch:PutMetricAlarm'],
      tag: ['cloudwatch:TagResource'],
      untag: ['cloudwatch:UntagResource'],
      destroy: ['cloudwatch:DeleteAlarms'],
    }),
  },
  aws_acm_certificate: {
    source: source('list_awscertificatemanager.html', 'resources/acm_certificate'),
    operations: withReplace({
      create: ['acm:RequestCertificate', 'acm:AddTagsToCertificate', 'acm:DescribeCertificate'],
      read: ['acm:DescribeCertificate', 'acm:ListTagsForCertificate'],
      update: ['acm:UpdateCertificateOptions'],
      tag: ['acm:AddTagsToCertificate'],
      untag: ['acm:RemoveTagsFromCertificate'],
      destroy: ['acm:DeleteCertificate'],
    }),
  },
  aws_acm_certificate_validation: {
    source: source('list_awscertificatemanager.html', 'resources/acm_certificate_validation'),
    // Waits for the certificate to be issued; destroy only forgets it.
    operations: withReplace({ create: ['acm:DescribeCertificate'], read: ['acm:DescribeCertificate'], destroy: [] }),
  },
  aws_route53_record: {
    source: source('list_amazonroute53.html', 'resources/route53_record'),
    operations: withReplace({
      create: ['route53:ChangeResourceRecordSets', 'route53:GetChange', 'route53:ListResourceRecordSets'],
      read: ['route53:ListResourceRecordSets'],
      update: ['route53:ChangeResourceRecordSets', 'route53:GetChange'],
      destroy: ['route53:ChangeResourceRecordSets', 'route53:GetChange'],
    }),
  },
  aws_secretsmanager_secret: {
    source: source('list_awssecretsmanager.html', 'resources/secretsmanager_secret'),
    operations: withReplace({
      create: ['secretsmanager:CreateSecret', 'secretsmanager:TagResource', 'secretsmanager:DescribeSecret'],
      read: ['secretsmanager:DescribeSecret', 'secretsmanager:GetResourcePolicy'],
      update: ['secretsmanager:UpdateSecret'],
      tag: ['secretsmanager:TagResource'],
      untag: ['secretsmanager:UntagResource'],
      destroy: ['secretsmanager:DeleteSecret'],
    }),
  },
  aws_secretsmanager_secret_version: {
    source: source('list_awssecretsmanager.html', 'resources/secretsmanager_secret_version'),
    // A changed value is a new version (replacement); a version staged AWSCURRENT only is left to
    // the secret's deletion, so destroy makes no call beyond reading it.
    operations: withReplace({
      create: ['secretsmanager:PutSecretValue', 'secretsmanager:GetSecretValue'],
      read: ['secretsmanager:GetSecretValue', 'secretsmanager:ListSecretVersionIds'],
      destroy: ['secretsmanager:DescribeSecret'],
    }),
  },
  aws_ssm_parameter: {
    source: source('list_awssystemsmanager.html', 'resources/ssm_parameter'),
    operations: withReplace({
      create: ['ssm:PutParameter', 'ssm:AddTagsToResource', 'ssm:GetParameter'],
      read: ['ssm:GetParameter', 'ssm:DescribeParameters', 'ssm:ListTagsForResource'],
      update: ['ssm:PutParameter'],
      tag: ['ssm:AddTagsToResource'],
      untag: ['ssm:RemoveTagsFromResource'],
      destroy: ['ssm:DeleteParameter'],
    }),
  },
  terraform_data: {
    source: 'https://developer.hashicorp.com/terraform/language/resources/terraform-data (built into Terraform: no AWS call)',
    operations: withReplace({ create: [], update: [], destroy: [] }),
  },
};

/** Data sources are read on every plan. */
const DATA_SOURCES: Record<string, Row> = {
  aws_caller_identity: { source: `${SAR}list_awssecuritytokenservice.html (sts:GetCallerIdentity needs no permission)`, operations: { read: [] } },
  aws_partition: { source: `${PROVIDER}data-sources/partition (computed from the provider's region, no AWS call)`, operations: { read: [] } },
  aws_ebs_default_kms_key: { source: source('list_amazonec2.html', 'data-sources/ebs_default_kms_key'), operations: { read: ['ec2:GetEbsDefaultKmsKeyId'] } },
  aws_key_pair: { source: source('list_amazonec2.html', 'data-sources/key_pair'), operations: { read: ['ec2:DescribeKeyPairs'] } },
  aws_route_table: { source: source('list_amazonec2.html', 'data-sources/route_table'), operations: { read: ['ec2:DescribeRouteTables'] } },
  aws_route_tables: { source: source('list_amazonec2.html', 'data-sources/route_tables'), operations: { read: ['ec2:DescribeRouteTables'] } },
  aws_subnet: { source: source('list_amazonec2.html', 'data-sources/subnet'), operations: { read: ['ec2:DescribeSubnets'] } },
  aws_vpc: { source: source('list_amazonec2.html', 'data-sources/vpc'), operations: { read: ['ec2:DescribeVpcs', 'ec2:DescribeVpcAttribute'] } },
  aws_route53_zone: { source: source('list_amazonroute53.html', 'data-sources/route53_zone'), operations: { read: ['route53:GetHostedZone', 'route53:ListTagsForResource'] } },
  aws_ssm_parameter: { source: source('list_awssystemsmanager.html', 'data-sources/ssm_parameter'), operations: { read: ['ssm:GetParameter'] } },
};

/** Operations every resource row must name (replace comes from create and destroy). */
const REQUIRED_OPERATIONS: readonly Operation[] = ['create', 'replace', 'destroy'];

const IMAGE_PARAMETER = '/golden/ami/sensor';
const { json } = synthControlPlane({ instanceImageParameter: IMAGE_PARAMETER });
const policy = deploymentPolicyDocument({ accountId: '123456789012', hostedZoneId: 'Z0123456789ABCDEFGHIJ', instanceImageParameter: IMAGE_PARAMETER });

/** Whether some statement grants the action, `service:*` included. */
function granted(action: string): boolean {
  const service = action.split(':')[0];
  return policy.Statement.some((statement) => statement.Action.includes(action) || statement.Action.includes(`${service}:*`));
}

/** Every (type, operation, action) the table holds, for one kind of block. */
function entries(table: Record<string, Row>): [string, Operation, string][] {
  return Object.entries(table).flatMap(([type, row]) =>
    Object.entries(row.operations).flatMap(([operation, actions]) => (actions ?? []).map((action) => [type, operation as Operation, action] as [string, Operation, string])),
  );
}

describe('the deployment policy over the whole lifecycle of the synthesized control plane', () => {
  test('the table has a row for every resource type the stack synthesizes', () => {
    expect(Object.keys(json.resource).filter((type) => !(type in RESOURCES))).toEqual([]);
  });

  test('the table has a row for every data source the stack reads', () => {
    expect(Object.keys(json.data).filter((type) => !(type in DATA_SOURCES))).toEqual([]);
  });

  test('every resource row names create, replace and destroy, and every row its source', () => {
    for (const [type, row] of Object.entries({ ...RESOURCES, ...DATA_SOURCES })) {
      expect({ type, source: /^https:\/\//.test(row.source) }).toEqual({ type, source: true });
    }
    for (const [type, row] of Object.entries(RESOURCES)) {
      expect({ type, missing: REQUIRED_OPERATIONS.filter((operation) => row.operations[operation] === undefined) }).toEqual({ type, missing: [] });
    }
    // Groups the stack tags on creation can have a tag added or removed later.
    for (const [type, blocks] of Object.entries(json.resource)) {
      if (Object.values(blocks).some((block) => block.tags !== undefined || block.tag !== undefined)) {
        expect({ type, tag: RESOURCES[type]?.operations.tag !== undefined, untag: RESOURCES[type]?.operations.untag !== undefined }).toEqual({ type, tag: true, untag: true });
      }
    }
    // The auto scaling group rolls instances on a launch template change.
    expect(RESOURCES.aws_autoscaling_group.operations.instanceRefresh).toBeDefined();
    expect(resourcesWithRefresh()).toEqual(['aws_autoscaling_group']);
  });

  test.each([...entries(RESOURCES), ...entries(DATA_SOURCES)])('%s %s needs %s: the policy grants it', (_type, _operation, action) => {
    expect({ action, granted: granted(action) }).toEqual({ action, granted: true });
  });

  test('the image parameter the stack is given is the one the policy lets it read', () => {
    const names = Object.values(json.data.aws_ssm_parameter ?? {}).map((block) => block.name);
    expect(names).toEqual([IMAGE_PARAMETER]);
    const reads = policy.Statement.filter((statement) => statement.Action.includes('ssm:GetParameter'));
    expect(reads.flatMap((statement) => statement.Resource)).toContain(`arn:aws:ssm:*:123456789012:parameter${IMAGE_PARAMETER}`);
  });
});

function resourcesWithRefresh(): string[] {
  return Object.entries(json.resource)
    .filter(([, blocks]) => Object.values(blocks).some((block) => block.instance_refresh !== undefined))
    .map(([type]) => type);
}
