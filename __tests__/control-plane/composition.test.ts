/**
 * ControlPlane and DeploymentPolicy inside a team's own stack: an aliased AWS provider only,
 * several control planes under different parents, values from the team's own variables and
 * resources. Synth-level; the consumer program of __tests__/library/composition.test.ts does the
 * same through the packed package and terraform.
 */
import { TerraformOutput, TerraformStack, TerraformVariable, Testing } from 'cdktf';
import { Construct } from 'constructs';
import { AwsProvider } from '@cdktf/provider-aws/lib/provider';
import { Subnet } from '@cdktf/provider-aws/lib/subnet';
import { ControlPlane, ControlPlaneValidationError, type ControlPlaneProps } from '../../modules/control-plane';
import { DeploymentPolicy, DeploymentPolicyPropError } from '../../modules/deployment-policy';
import { SvcProvider } from '../../modules/provider';
import { REQUIRED_PROPS, type TerraformJson } from './fixtures';

const NO_RULES = { checkArchitectureRules: false } as const;

function stackWithAliasedProvider(): { stack: TerraformStack; provider: AwsProvider } {
  const stack = new TerraformStack(Testing.app(), 'team');
  const provider = new AwsProvider(stack, 'aws-audit', { region: 'eu-central-1', alias: 'audit' });
  return { stack, provider };
}

/** Every `aws_*` resource and data source of the JSON with the provider it names (undefined: the default). */
function awsBlocksAndProviders(json: TerraformJson): Array<{ address: string; provider: unknown }> {
  const blocks: Array<{ address: string; provider: unknown }> = [];
  for (const [kind, byType] of [['resource', json.resource], ['data', json.data]] as const) {
    for (const [type, byName] of Object.entries(byType ?? {})) {
      if (!type.startsWith('aws_')) continue;
      for (const [name, block] of Object.entries(byName)) blocks.push({ address: `${kind}.${type}.${name}`, provider: block.provider });
    }
  }
  return blocks;
}

function errorOf(build: () => unknown): any {
  try {
    build();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('provider: a stack with only an aliased AWS provider', () => {
  test('every AWS resource and data source of the ControlPlane names it; terraform_data names none', () => {
    const { stack, provider } = stackWithAliasedProvider();
    new ControlPlane(stack, 'control-plane', { ...REQUIRED_PROPS, provider });
    const json = JSON.parse(Testing.synth(stack)) as TerraformJson;
    const blocks = awsBlocksAndProviders(json);
    // 66 resources and data sources today; enough to know the walk reached the services' too.
    expect(blocks.length).toBeGreaterThan(60);
    expect(blocks.filter((block) => block.provider !== 'aws.audit')).toEqual([]);
    for (const block of Object.values(json.resource.terraform_data ?? {})) expect(block.provider).toBeUndefined();
  });

  test('without the prop they fall back to the default provider (what the prop fixes)', () => {
    const { stack } = stackWithAliasedProvider();
    new ControlPlane(stack, 'control-plane', REQUIRED_PROPS);
    const json = JSON.parse(Testing.synth(stack)) as TerraformJson;
    expect(awsBlocksAndProviders(json).every((block) => block.provider === undefined)).toBe(true);
  });

  test('every resource of the DeploymentPolicy, role and attachments included, names it', () => {
    const { stack, provider } = stackWithAliasedProvider();
    new DeploymentPolicy(stack, 'deployment-policy', { accountId: '123456789012', hostedZoneId: 'Z0123456789ABCDEFGHIJ', installationRole: {}, provider });
    const json = JSON.parse(Testing.synth(stack)) as TerraformJson;
    const blocks = awsBlocksAndProviders(json);
    expect(blocks.map((block) => block.address.split('.')[1])).toEqual(expect.arrayContaining(['aws_iam_policy', 'aws_iam_role', 'aws_iam_role_policy_attachment']));
    expect(blocks.filter((block) => block.provider !== 'aws.audit')).toEqual([]);
  });

  test('a provider that is not AWS is refused, naming the prop', () => {
    const stack = new TerraformStack(Testing.app(), 'team');
    const svc = new SvcProvider(stack, 'svc', { tenant: 'acme' });
    expect(errorOf(() => new ControlPlane(stack, 'control-plane', { ...REQUIRED_PROPS, provider: svc }))).toMatchObject({
      code: 'invalid_provider',
      prop: 'provider',
      message: expect.stringContaining('a provider of type svc'),
    });
    expect(errorOf(() => new DeploymentPolicy(stack, 'deployment-policy', { accountId: '123456789012', hostedZoneId: 'Z0123456789ABCDEFGHIJ', provider: svc }))).toBeInstanceOf(DeploymentPolicyPropError);
  });
});

describe('names scoped to the construct path', () => {
  function twoUnderParents(extra: Partial<ControlPlaneProps> = {}) {
    const { stack, provider } = stackWithAliasedProvider();
    const first = new ControlPlane(new Construct(stack, 'team-a'), 'control-plane', { ...REQUIRED_PROPS, ...NO_RULES, provider, stackName: 'TeamA', ...extra });
    const second = new ControlPlane(new Construct(stack, 'team-b'), 'control-plane', { ...REQUIRED_PROPS, ...NO_RULES, provider, stackName: 'TeamB', ...extra });
    return { stack, first, second, json: JSON.parse(Testing.synth(stack)) as TerraformJson };
  }

  test('two ControlPlanes with the same id under different parents: 12 outputs and 2 variables', () => {
    const { json, first, second } = twoUnderParents();
    expect(Object.keys(json.output ?? {}).sort()).toEqual([...first.outputNames, ...second.outputNames].sort());
    expect(Object.keys(json.output ?? {})).toHaveLength(12);
    expect(first.outputNames).toContain('team_a_control_plane_sensor_command');
    expect(second.outputNames).toContain('team_b_control_plane_sensor_command');
    expect(Object.keys(json.variable ?? {}).sort()).toEqual(['team_a_control_plane_api_key', 'team_b_control_plane_api_key']);
    expect(first.apiKeyVariable?.friendlyUniqueId).toBe('team_a_control_plane_api_key');
    // Each secret version writes its own variable.
    const versions = Object.values(json.resource.aws_secretsmanager_secret_version).map((version) => version.secret_string_wo);
    expect(versions.sort()).toEqual(['${var.team_a_control_plane_api_key}', '${var.team_b_control_plane_api_key}']);
  });

  test('a ControlPlane directly in its stack keeps the names the app and help/ use', () => {
    const stack = new TerraformStack(Testing.app(), 'control-plane');
    const controlPlane = new ControlPlane(stack, 'control-plane', REQUIRED_PROPS);
    const json = JSON.parse(Testing.synth(stack)) as TerraformJson;
    expect(Object.keys(json.variable ?? {})).toEqual(['api_key']);
    expect(Object.keys(json.output ?? {}).sort()).toEqual([
      'control_plane_analyzer_address',
      'control_plane_load_balancer_dns_name',
      'control_plane_otel_address',
      'control_plane_sensor_command',
      'control_plane_sts_address',
      'control_plane_sts_security_group_id',
    ]);
    expect(controlPlane.outputNames).toHaveLength(6);
  });

  test('outputs: false declares none', () => {
    const { json, first } = twoUnderParents({ outputs: false });
    expect(json.output).toBeUndefined();
    expect(first.outputNames).toEqual([]);
  });

  test('the same stackName twice in one stack is refused at synth, naming the prop, the value and the other construct', () => {
    const { stack } = stackWithAliasedProvider();
    new ControlPlane(new Construct(stack, 'team-a'), 'control-plane', { ...REQUIRED_PROPS, ...NO_RULES });
    const error = errorOf(() => new ControlPlane(new Construct(stack, 'team-b'), 'control-plane', { ...REQUIRED_PROPS, ...NO_RULES, stackName: 'svcprevent' }));
    expect(error).toBeInstanceOf(ControlPlaneValidationError);
    expect(error).toMatchObject({ code: 'name_clash', prop: 'stackName', value: 'svcprevent', constructPath: 'team/team-b/control-plane' });
    expect(error.message).toContain('control plane svcprevent is already declared by team/team-a/control-plane in this stack');
    expect(error.message).toContain('its own stackName');
  });

  test('two ControlPlanes directly in one stack would share api_key: refused, saying to pass apiKey', () => {
    const { stack } = stackWithAliasedProvider();
    new ControlPlane(stack, 'first', { ...REQUIRED_PROPS, ...NO_RULES, stackName: 'First' });
    const error = errorOf(() => new ControlPlane(stack, 'second', { ...REQUIRED_PROPS, ...NO_RULES, stackName: 'Second' }));
    expect(error).toMatchObject({ code: 'name_clash', prop: 'apiKey', message: expect.stringContaining('the variable api_key is already declared by team/first') });
    expect(error.message).toContain('pass apiKey');
    // Given its own key, another one fits.
    const key = new TerraformVariable(stack, 'third_key', { type: 'string', sensitive: true });
    expect(() => new ControlPlane(stack, 'third', { ...REQUIRED_PROPS, ...NO_RULES, stackName: 'Third', apiKey: key })).not.toThrow();
  });

  test('ids that snake-case alike clash on outputs, refused with the fix', () => {
    const { stack } = stackWithAliasedProvider();
    const key = (id: string) => new TerraformVariable(stack, id, { type: 'string', sensitive: true });
    new ControlPlane(stack, 'control-plane', { ...REQUIRED_PROPS, ...NO_RULES, stackName: 'One', apiKey: key('one') });
    const error = errorOf(() => new ControlPlane(stack, 'control_plane', { ...REQUIRED_PROPS, ...NO_RULES, stackName: 'Two', apiKey: key('two') }));
    expect(error).toMatchObject({ code: 'name_clash', prop: 'outputs', message: expect.stringContaining('the output control_plane_analyzer_address is already declared by team/control-plane') });
    expect(error.message).toContain('outputs: false');
  });

  test('an output of the team declared later under the same name fails synth, naming both', () => {
    const stack = new TerraformStack(Testing.app(), 'team');
    new ControlPlane(stack, 'control-plane', REQUIRED_PROPS);
    const theirs = new TerraformOutput(stack, 'theirs', { value: 'x' });
    theirs.overrideLogicalId('control_plane_sensor_command');
    expect(() => Testing.synth(stack, true)).toThrow(/team\/control-plane: output control_plane_sensor_command is declared twice in this stack/);
  });

  test('two DeploymentPolicies with one stackName clash on IAM names; scoped outputs otherwise', () => {
    const stack = new TerraformStack(Testing.app(), 'team');
    const base = { accountId: '123456789012', hostedZoneId: 'Z0123456789ABCDEFGHIJ' };
    const first = new DeploymentPolicy(new Construct(stack, 'team-a'), 'deployment-policy', { ...base, stackName: 'TeamA' });
    const second = new DeploymentPolicy(new Construct(stack, 'team-b'), 'deployment-policy', { ...base, stackName: 'TeamB' });
    expect([first.outputNames, second.outputNames]).toEqual([['team_a_deployment_policy_policy_arns'], ['team_b_deployment_policy_policy_arns']]);
    const error = errorOf(() => new DeploymentPolicy(new Construct(stack, 'team-c'), 'deployment-policy', { ...base, stackName: 'teama' }));
    expect(error).toMatchObject({ code: 'deployment_policy_name_clash', prop: 'stackName', value: 'teama', message: expect.stringContaining('the name IAM teama-deployment-1 is already declared by team/team-a/deployment-policy') });
    const quiet = new DeploymentPolicy(new Construct(stack, 'team-d'), 'deployment-policy', { ...base, stackName: 'TeamD', outputs: false });
    expect(quiet.outputNames).toEqual([]);
  });
});

describe('prop types: values a team has', () => {
  test('readonly arrays, booleanValue, and a string token as apiKey synthesize; the token reaches the write-only argument', () => {
    const stack = new TerraformStack(Testing.app(), 'team');
    const provider = new AwsProvider(stack, 'aws', { region: 'eu-west-1' });
    const caching = new TerraformVariable(stack, 'caching', { type: 'bool' });
    const key = new TerraformVariable(stack, 'team_key', { type: 'string', sensitive: true });
    key.addOverride('ephemeral', true);
    const subnetIds: readonly string[] = REQUIRED_PROPS.subnetIds;
    const sensorCidrs: readonly string[] = ['10.20.0.0/16'];
    const controlPlane = new ControlPlane(stack, 'control-plane', {
      ...REQUIRED_PROPS,
      provider,
      subnetIds,
      sensorCidrs,
      analyzerEnableCaching: caching.booleanValue,
      apiKey: key.stringValue,
    });
    const json = JSON.parse(Testing.synth(stack)) as TerraformJson;
    expect(controlPlane.apiKeyVariable).toBeUndefined();
    expect(Object.keys(json.variable ?? {}).sort()).toEqual(['caching', 'team_key']);
    expect(Object.values(json.resource.aws_secretsmanager_secret_version)[0].secret_string_wo).toBe('${var.team_key}');
    const caches = Object.values(json.resource.aws_ssm_parameter).filter((parameter) => String(parameter.name).endsWith('/analyzer/enable-caching'));
    expect(caches.map((parameter) => parameter.value)).toEqual(['${var.caching}']);
  });

  test('literals are still checked: a literal apiKey, a boolean prop that is a string (never echoing the key)', () => {
    const stack = new TerraformStack(Testing.app(), 'team');
    const error = errorOf(() => new ControlPlane(stack, 'control-plane', { ...REQUIRED_PROPS, apiKey: 'sk-live-123', analyzerEnableCaching: 'yes' as never }));
    expect(error.problems.map((problem: ControlPlaneValidationError) => [problem.code, problem.prop])).toEqual([
      ['api_key_literal', 'apiKey'],
      ['invalid_boolean', 'analyzerEnableCaching'],
    ]);
    expect(error.message).not.toContain('sk-live-123');
  });

  test('subnets created in the same stack: the plan checks are keyed by position, not by the unknown ids', () => {
    const stack = new TerraformStack(Testing.app(), 'team');
    new AwsProvider(stack, 'aws', { region: 'eu-west-1' });
    const subnets = ['10.0.1.0/24', '10.0.2.0/24'].map((cidrBlock, index) => new Subnet(stack, `subnet-${index}`, { vpcId: REQUIRED_PROPS.vpcId, cidrBlock }));
    new ControlPlane(stack, 'control-plane', { ...REQUIRED_PROPS, ...NO_RULES, subnetIds: subnets.map((subnet) => subnet.id) });
    const json = JSON.parse(Testing.synth(stack)) as TerraformJson;
    const [subnetLookup] = Object.values(json.data.aws_subnet);
    expect(subnetLookup.for_each).toEqual({ 'subnet-1': '${aws_subnet.subnet-0.id}', 'subnet-2': '${aws_subnet.subnet-1.id}' });
    // A whole list from elsewhere (one token) is keyed by index inside Terraform.
    const fromList = new TerraformStack(Testing.app(), 'list');
    new AwsProvider(fromList, 'aws', { region: 'eu-west-1' });
    const ids = new TerraformVariable(fromList, 'subnet_ids', { type: 'list(string)' });
    new ControlPlane(fromList, 'control-plane', { ...REQUIRED_PROPS, ...NO_RULES, subnetIds: ids.listValue });
    const listJson = JSON.parse(Testing.synth(fromList)) as TerraformJson;
    expect(Object.values(listJson.data.aws_subnet)[0].for_each).toBe('${{ for index, id in var.subnet_ids : "subnet-${index + 1}" => id }}');
  });
});
