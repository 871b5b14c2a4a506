import {
  DeploymentPolicyPropError,
  MANAGED_POLICY_MAX_CHARACTERS,
  PolicyStatement,
  TERRAFORM_ONLY_ACTIONS,
  deploymentPolicyDocument,
  splitPolicyDocument,
} from '../../modules/deployment-policy';
// How statements are grouped is internal to the package; the tests read it from its module.
import { SPEC_AREAS, SpecArea, statementGroup } from '../../modules/deployment-policy/policy-document';

const ACCOUNT = '123456789012';
const ZONE = 'Z0123456789ABCDEFGHIJ';
const document = deploymentPolicyDocument({ accountId: ACCOUNT, hostedZoneId: ZONE });
const statements = document.Statement;
const specStatements = statements.filter((statement) => !statement.Sid.startsWith('Terraform'));
const terraformStatements = statements.filter((statement) => statement.Sid.startsWith('Terraform'));

function actionsOf(list: readonly PolicyStatement[]): Set<string> {
  return new Set(list.flatMap((statement) => statement.Action));
}

function areaStatements(area: SpecArea): PolicyStatement[] {
  const prefix = SPEC_AREAS.find((candidate) => candidate.area === area)!.sidPrefix;
  return statements.filter((statement) => statementGroup(statement) === prefix);
}

/** The spec's table, action by action. */
const EXPECTED_ACTIONS: Record<SpecArea, string[]> = {
  // create, describe, delete, modify, create and delete versions, describe versions
  'Launch templates': [
    'ec2:CreateLaunchTemplate', 'ec2:DescribeLaunchTemplates', 'ec2:DeleteLaunchTemplate', 'ec2:ModifyLaunchTemplate',
    'ec2:CreateLaunchTemplateVersion', 'ec2:DeleteLaunchTemplateVersions', 'ec2:DescribeLaunchTemplateVersions',
  ],
  // run and terminate instances; describe instances, VPCs, subnets, key pairs, security groups; create, delete
  // security groups; create tags; revoke egress; authorize ingress and egress
  'Instances and networking': [
    'ec2:RunInstances', 'ec2:TerminateInstances', 'ec2:DescribeInstances', 'ec2:DescribeVpcs', 'ec2:DescribeSubnets',
    'ec2:DescribeKeyPairs', 'ec2:DescribeSecurityGroups', 'ec2:CreateSecurityGroup', 'ec2:DeleteSecurityGroup',
    'ec2:CreateTags', 'ec2:RevokeSecurityGroupEgress', 'ec2:AuthorizeSecurityGroupIngress', 'ec2:AuthorizeSecurityGroupEgress',
  ],
  // describe all parameters; all actions on parameters named with the stack prefix
  'Parameter store': ['ssm:DescribeParameters', 'ssm:*'],
  // create, delete, describe, tag load balancers; listeners, rules, listener certificates, SSL policies, web ACL,
  // health check and attributes; create, delete, modify target groups; register and deregister targets
  'Load balancing': [
    'elasticloadbalancing:CreateLoadBalancer', 'elasticloadbalancing:DeleteLoadBalancer',
    'elasticloadbalancing:DescribeLoadBalancers', 'elasticloadbalancing:AddTags',
    'elasticloadbalancing:CreateListener', 'elasticloadbalancing:DeleteListener', 'elasticloadbalancing:ModifyListener',
    'elasticloadbalancing:DescribeListeners', 'elasticloadbalancing:CreateRule', 'elasticloadbalancing:DeleteRule',
    'elasticloadbalancing:ModifyRule', 'elasticloadbalancing:DescribeRules',
    'elasticloadbalancing:AddListenerCertificates', 'elasticloadbalancing:RemoveListenerCertificates',
    'elasticloadbalancing:DescribeListenerCertificates', 'elasticloadbalancing:DescribeSSLPolicies',
    'elasticloadbalancing:SetWebAcl', 'elasticloadbalancing:DescribeTargetHealth',
    'elasticloadbalancing:DescribeLoadBalancerAttributes', 'elasticloadbalancing:ModifyLoadBalancerAttributes',
    'elasticloadbalancing:CreateTargetGroup', 'elasticloadbalancing:DeleteTargetGroup',
    'elasticloadbalancing:ModifyTargetGroup', 'elasticloadbalancing:ModifyTargetGroupAttributes',
    'elasticloadbalancing:RegisterTargets', 'elasticloadbalancing:DeregisterTargets',
  ],
  // create, delete, get roles, policies, instance profiles; attach, detach, put role policies; add or remove role
  // to instance profile; pass role; tag role; list policy versions
  Identity: [
    'iam:CreateRole', 'iam:DeleteRole', 'iam:GetRole', 'iam:CreatePolicy', 'iam:DeletePolicy', 'iam:GetPolicy',
    'iam:CreateInstanceProfile', 'iam:DeleteInstanceProfile', 'iam:GetInstanceProfile', 'iam:AttachRolePolicy',
    'iam:DetachRolePolicy', 'iam:PutRolePolicy', 'iam:AddRoleToInstanceProfile', 'iam:RemoveRoleFromInstanceProfile',
    'iam:PassRole', 'iam:TagRole', 'iam:ListPolicyVersions',
  ],
  // all actions on certificates of the account (requesting and listing name no certificate yet)
  Certificates: ['acm:*', 'acm:RequestCertificate', 'acm:ListCertificates'],
  // create, put value, get value, describe, list versions, tag, delete, get resource policy; list all secrets
  'Secrets store': [
    'secretsmanager:CreateSecret', 'secretsmanager:PutSecretValue', 'secretsmanager:GetSecretValue',
    'secretsmanager:DescribeSecret', 'secretsmanager:ListSecretVersionIds', 'secretsmanager:TagResource',
    'secretsmanager:DeleteSecret', 'secretsmanager:GetResourcePolicy', 'secretsmanager:ListSecrets',
  ],
  // change record sets and get the hosted zone, for the given hosted zone; get change status
  DNS: ['route53:ChangeResourceRecordSets', 'route53:GetHostedZone', 'route53:GetChange'],
  // create, update, delete groups; describe groups, policies, activities; put and delete scaling policies
  'Auto scaling': [
    'autoscaling:CreateAutoScalingGroup', 'autoscaling:UpdateAutoScalingGroup', 'autoscaling:DeleteAutoScalingGroup',
    'autoscaling:DescribeAutoScalingGroups', 'autoscaling:DescribePolicies', 'autoscaling:DescribeScalingActivities',
    'autoscaling:PutScalingPolicy', 'autoscaling:DeleteScalingPolicy',
  ],
};

describe('deploymentPolicyDocument', () => {
  test('uses policy language version 2012-10-17 and only Allow statements with unique Sids', () => {
    expect(document.Version).toBe('2012-10-17');
    expect(statements.every((statement) => statement.Effect === 'Allow')).toBe(true);
    expect(new Set(statements.map((statement) => statement.Sid)).size).toBe(statements.length);
  });

  test.each(SPEC_AREAS.map(({ area }) => [area]))('area %s grants exactly the table\'s actions', (area) => {
    const granted = actionsOf(areaStatements(area as SpecArea));
    expect([...granted].sort()).toEqual([...new Set(EXPECTED_ACTIONS[area as SpecArea])].sort());
  });

  test('has statements for every area, in the table\'s order, before the Terraform-only ones', () => {
    const order = [...new Set(statements.map(statementGroup))];
    expect(order).toEqual([...SPEC_AREAS.map((area) => area.sidPrefix), 'Terraform']);
  });

  test('fills the placeholders: no <...> left, account and zone present', () => {
    const text = JSON.stringify(document);
    expect(text).not.toMatch(/[<>]/);
    expect(text).toContain(`:${ACCOUNT}:`);
    expect(text).toContain(`hostedzone/${ZONE}`);
  });

  /**
   * Why each resource is limited as it is. A resource that matches none of these makes the
   * test fail: every ARN is scoped to the stack prefix, the given zone, or a documented reason.
   */
  function scopeOf(statement: PolicyStatement, resource: string, prefix: string): string | undefined {
    const condition = JSON.stringify(statement.Condition ?? {});
    const stackTagCondition =
      condition.includes(`"aws:ResourceTag/svc:stack-name":"${prefix}"`) ||
      condition.includes(`"aws:RequestTag/svc:stack-name":"${prefix}"`);
    if (resource === '*') {
      // IAM offers no resource-level permission for these calls.
      const unscopable = /^[a-z0-9]+:(Describe|List)[A-Za-z]*$|^acm:RequestCertificate$|^ec2:GetEbsDefaultKmsKeyId$/;
      return statement.Action.every((action) => unscopable.test(action)) ? 'no resource-level permission' : undefined;
    }
    if (resource.includes(`/${prefix}*`) || resource.includes(`:${prefix}/*`) || resource.includes(`/${prefix}/*`)) return 'stack prefix';
    if (resource.endsWith(`:hostedzone/${ZONE}`)) return 'the given hosted zone';
    if (resource.endsWith(`:alarm:${prefix}*`)) return 'stack prefix (alarm ARNs end in the name after a colon)';
    if (/^arn:[^:]+:ec2:[^:]*:\d{12}:[a-z-]+\/\*$/.test(resource)) {
      if (stackTagCondition) return 'EC2 ids: stack tag condition';
      if (condition.includes('"ec2:LaunchTemplate"') || condition.includes('"ec2:CreateAction"')) return 'EC2: launched from a template / tag on create';
      if (resource.endsWith(':vpc/*') && statement.Action.join() === 'ec2:CreateSecurityGroup') return 'the VPC a stack group is created in';
      return undefined;
    }
    if (resource.endsWith('::image/*') && condition.includes('"ec2:LaunchTemplate"')) return 'images used by stack templates';
    if (resource.endsWith(':targetgroup/*/*') && statement.Sid === 'LoadBalancingTargets') return 'spec: any target group';
    if (resource.endsWith(':certificate/*') && statement.Sid === 'CertificatesOfAccount') return 'spec: certificates of the account';
    if (resource.endsWith(':change/*')) return 'route53 change ids';
    if (resource.endsWith('::parameter/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-6.1-x86_64') && statement.Sid === 'TerraformReadImageParameter') {
      return 'the instance image parameter (ControlPlane\'s default)';
    }
    if (resource.endsWith(':log-group:*') && statement.Action.join() === 'logs:DescribeLogGroups') return 'DescribeLogGroups lists the account';
    if (resource.endsWith(':role/aws-service-role/*') && condition.includes('iam:AWSServiceName')) return 'service-linked roles of two services';
    return undefined;
  }

  test.each([
    ['the default stack name', 'SvcPrevent'],
    ['a custom stack name', 'Team-A'],
  ])('limits every resource to the stack prefix or a documented scope (%s)', (_label, stackName) => {
    const custom = deploymentPolicyDocument({ stackName, accountId: ACCOUNT, hostedZoneId: ZONE });
    const unscoped = custom.Statement.flatMap((statement) =>
      statement.Resource.filter((resource) => scopeOf(statement, resource, stackName) === undefined).map(
        (resource) => `${statement.Sid}: ${resource}`,
      ),
    );
    expect(unscoped).toEqual([]);
    // Every named ARN carries the account, except the account-less kinds (Route53, public images).
    const arns = custom.Statement.flatMap((statement) => statement.Resource).filter((resource) => resource !== '*');
    const withoutAccount = arns.filter(
      (arn) => !arn.includes(`:${ACCOUNT}:`) && !/:route53:::|::image\/|::parameter\/aws\/service\//.test(arn),
    );
    expect(withoutAccount).toEqual([]);
    if (stackName !== 'SvcPrevent') expect(JSON.stringify(custom)).not.toContain('SvcPrevent');
  });

  test('conditions security-group ingress and egress on groups tagged with the stack name', () => {
    const authorize = statements.filter((statement) => statement.Action.includes('ec2:AuthorizeSecurityGroupIngress'));
    expect(authorize).toHaveLength(1);
    expect(authorize[0].Action).toEqual(expect.arrayContaining(['ec2:AuthorizeSecurityGroupEgress', 'ec2:RevokeSecurityGroupEgress']));
    expect(authorize[0].Condition).toEqual({ StringEquals: { 'aws:ResourceTag/svc:stack-name': 'SvcPrevent' } });
  });

  test('tightens PassRole to EC2 and AttachRolePolicy to prefix-named policies (as the help page says)', () => {
    const byAction = (action: string) => statements.filter((statement) => statement.Action.includes(action));
    expect(byAction('iam:PassRole')).toEqual([
      expect.objectContaining({ Resource: [`arn:aws:iam::${ACCOUNT}:role/SvcPrevent*`], Condition: { StringEquals: { 'iam:PassedToService': 'ec2.amazonaws.com' } } }),
    ]);
    expect(byAction('iam:AttachRolePolicy')).toEqual([
      expect.objectContaining({ Resource: [`arn:aws:iam::${ACCOUNT}:role/SvcPrevent*`], Condition: { ArnLike: { 'iam:PolicyARN': `arn:aws:iam::${ACCOUNT}:policy/SvcPrevent*` } } }),
    ]);
    // The table's own PutRolePolicy on prefix roles has no condition: the help page warns about it.
    expect(byAction('iam:PutRolePolicy').map((statement) => statement.Condition)).toEqual([undefined]);
  });

  test.each([
    ['eu-west-1', 'aws'],
    ['us-gov-west-1', 'aws-us-gov'],
    ['cn-northwest-1', 'aws-cn'],
    ['eusc-de-east-1', 'aws-eusc'],
  ])('accepts region %s in partition %s', (region, partition) => {
    const arns = deploymentPolicyDocument({ accountId: ACCOUNT, hostedZoneId: ZONE, region, partition }).Statement.flatMap((statement) => statement.Resource);
    expect(arns.filter((arn) => arn.includes(':ec2:')).every((arn) => arn.startsWith(`arn:${partition}:ec2:${region}:`))).toBe(true);
  });

  test('region and partition, when given, appear in the ARNs', () => {
    const regional = deploymentPolicyDocument({ accountId: ACCOUNT, hostedZoneId: ZONE, region: 'eu-west-1', partition: 'aws-us-gov' });
    const arns = regional.Statement.flatMap((statement) => statement.Resource).filter((resource) => resource !== '*');
    expect(arns.every((arn) => arn.startsWith('arn:aws-us-gov:'))).toBe(true);
    expect(arns.filter((arn) => arn.includes(':ec2:')).every((arn) => arn.includes(':ec2:eu-west-1:'))).toBe(true);
  });
});

describe('the Terraform-only statements', () => {
  test('are separate: Terraform Sids, after every spec statement', () => {
    expect(terraformStatements.length).toBeGreaterThan(0);
    const firstTerraform = statements.findIndex((statement) => statement.Sid.startsWith('Terraform'));
    expect(statements.slice(firstTerraform).every((statement) => statement.Sid.startsWith('Terraform'))).toBe(true);
    expect(specStatements).toHaveLength(firstTerraform);
  });

  test('grant exactly the listed actions, each with a reason, reads and writes apart', () => {
    const granted = actionsOf(terraformStatements);
    expect([...granted].sort()).toEqual(TERRAFORM_ONLY_ACTIONS.map((entry) => entry.action).sort());
    expect(TERRAFORM_ONLY_ACTIONS.every((entry) => entry.why.length > 20)).toBe(true);
    for (const statement of terraformStatements) {
      const kind = statement.Sid.startsWith('TerraformRead') ? 'read' : 'write';
      for (const action of statement.Action) {
        expect({ action, kind: TERRAFORM_ONLY_ACTIONS.find((entry) => entry.action === action)?.kind }).toEqual({ action, kind });
      }
    }
  });

  test('include the refresh reads a template engine does not make', () => {
    const reads = actionsOf(terraformStatements.filter((statement) => statement.Sid.startsWith('TerraformRead')));
    for (const action of [
      'elasticloadbalancing:DescribeTags',
      'iam:ListRolePolicies',
      'iam:ListAttachedRolePolicies',
      'iam:ListInstanceProfilesForRole',
      'route53:ListResourceRecordSets',
      'logs:DescribeLogGroups',
      'logs:ListTagsForResource',
      'ssm:GetParameter',
    ]) {
      expect(reads).toContain(action);
    }
  });

  test('repeat nothing the spec statements already grant on the same resources', () => {
    const specGrants = new Set(
      specStatements.flatMap((statement) => statement.Action.flatMap((action) => statement.Resource.map((resource) => `${action} ${resource}`))),
    );
    const repeated = terraformStatements.flatMap((statement) =>
      statement.Action.flatMap((action) => statement.Resource.map((resource) => `${action} ${resource}`)),
    ).filter((grant) => specGrants.has(grant));
    expect(repeated).toEqual([]);
  });
});

describe('the instance image parameter', () => {
  const imageStatement = (parameter?: string) =>
    deploymentPolicyDocument({ accountId: ACCOUNT, hostedZoneId: ZONE, instanceImageParameter: parameter }).Statement.find(
      (statement) => statement.Sid === 'TerraformReadImageParameter',
    )!;

  test.each([
    ['a public parameter (no account in the ARN)', '/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-6.1-arm64', `arn:aws:ssm:*::parameter/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-6.1-arm64`],
    ['a parameter of the account', '/golden/ami/sensor', `arn:aws:ssm:*:${ACCOUNT}:parameter/golden/ami/sensor`],
    ['a name without a leading slash', 'golden-ami', `arn:aws:ssm:*:${ACCOUNT}:parameter/golden-ami`],
  ])('grants GetParameter(s) on exactly %s', (_label, parameter, arn) => {
    expect(imageStatement(parameter)).toMatchObject({ Action: ['ssm:GetParameter', 'ssm:GetParameters'], Resource: [arn] });
  });

  test.each([
    ['a wildcard', '/golden/*'],
    ['a space', '/golden ami'],
    ['a name over 128 characters', `/${'a'.repeat(128)}`],
  ])('refuses %s, naming the prop and the value', (_label, parameter) => {
    expect(() => imageStatement(parameter)).toThrow(DeploymentPolicyPropError);
    expect(() => imageStatement(parameter)).toThrow(`instanceImageParameter = ${JSON.stringify(parameter)}`);
  });
});

describe('splitPolicyDocument', () => {
  const longest = deploymentPolicyDocument({
    stackName: 'Abcdefghijklmn',
    accountId: ACCOUNT,
    hostedZoneId: `Z${'A'.repeat(31)}`,
    region: 'ap-southeast-4',
    partition: 'aws-us-gov',
    instanceImageParameter: `/${'a'.repeat(127)}`,
  });

  test.each([
    ['default values', document],
    ['the longest values', longest],
  ])('with %s, every part fits one managed policy and together they are the document', (_label, whole) => {
    const parts = splitPolicyDocument(whole);
    expect(JSON.stringify(whole).length).toBeGreaterThan(MANAGED_POLICY_MAX_CHARACTERS);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) {
      expect(part.Version).toBe('2012-10-17');
      expect(JSON.stringify(part).length).toBeLessThanOrEqual(MANAGED_POLICY_MAX_CHARACTERS);
    }
    expect(parts.flatMap((part) => part.Statement)).toEqual(whole.Statement);
  });

  // help/deployment-policy.md and the command's --help attach the parts with `for part in 1 2 3`.
  test.each([
    ['default values', document, ['LaunchTemplates', 'InstancesAndNetworking', 'ParameterStore', 'LoadBalancing']],
    ['the longest values', longest, ['LaunchTemplates', 'InstancesAndNetworking', 'ParameterStore']],
  ])('with %s, it makes 3 parts: first spec areas, the other spec areas, the Terraform-only statements', (_label, whole, firstAreas) => {
    const parts = splitPolicyDocument(whole);
    expect(parts).toHaveLength(3);
    expect([...new Set(parts[0].Statement.map(statementGroup))]).toEqual(firstAreas);
    expect(new Set(parts[2].Statement.map(statementGroup))).toEqual(new Set(['Terraform']));
  });

  test('keeps each area in one part and never mixes spec and Terraform-only statements', () => {
    const parts = splitPolicyDocument(document);
    const partOfGroup = new Map<string, Set<number>>();
    parts.forEach((part, index) =>
      part.Statement.forEach((statement) => {
        const group = statementGroup(statement);
        partOfGroup.set(group, (partOfGroup.get(group) ?? new Set()).add(index));
      }),
    );
    for (const [group, indexes] of partOfGroup) expect({ group, parts: indexes.size }).toEqual({ group, parts: 1 });
    for (const part of parts) {
      const kinds = new Set(part.Statement.map((statement) => statement.Sid.startsWith('Terraform')));
      expect(kinds.size).toBe(1);
    }
  });
});

describe('validation', () => {
  const valid = { accountId: ACCOUNT, hostedZoneId: ZONE };
  test.each([
    ['stack name over 14 characters', { ...valid, stackName: 'ControlPlane-Prod' }, 'stackName', 'ControlPlane-Prod', '14 characters or fewer'],
    ['stack name with a wildcard', { ...valid, stackName: 'Svc*' }, 'stackName', 'Svc*', 'letters, digits and hyphens'],
    ['account id of 11 digits', { ...valid, accountId: '12345678901' }, 'accountId', '12345678901', 'exactly 12 digits'],
    ['account id with letters', { ...valid, accountId: '12345678901a' }, 'accountId', '12345678901a', 'exactly 12 digits'],
    ['hosted zone id in lower case', { ...valid, hostedZoneId: 'z0123456789abc' }, 'hostedZoneId', 'z0123456789abc', 'Route53 hosted zone id'],
    ['hosted zone id with its path', { ...valid, hostedZoneId: `/hostedzone/${ZONE}` }, 'hostedZoneId', `/hostedzone/${ZONE}`, 'without /hostedzone/'],
    ['region in upper case', { ...valid, region: 'EU-WEST-1' }, 'region', 'EU-WEST-1', 'region name'],
    ['unknown partition', { ...valid, partition: 'azure' }, 'partition', 'azure', 'partition'],
  ])('%s: a typed error naming the prop and value', (_name, input, prop, value, reason) => {
    let caught: unknown;
    try {
      deploymentPolicyDocument(input);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DeploymentPolicyPropError);
    const error = caught as DeploymentPolicyPropError;
    expect({ code: error.code, prop: error.prop, value: error.value }).toEqual({ code: 'invalid_deployment_policy_prop', prop, value });
    expect(error.message).toContain(`${prop} = ${JSON.stringify(value)}`);
    expect(error.message).toContain(reason);
  });

  test.each([
    ['the default stack name', 'SvcPrevent'],
    ['a 14-character name', 'Abcdefghijklmn'],
  ])('%s is accepted', (_name, stackName) => {
    expect(() => deploymentPolicyDocument({ ...valid, stackName })).not.toThrow();
  });
});
