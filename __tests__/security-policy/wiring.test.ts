/**
 * Wiring infrastructure into policy: the control plane's NAT gateways on the whitelist, and a
 * channel's SAML service-provider URLs as outputs. Synth checks, then real Terraform on the
 * synthesized JSON: `terraform validate`, and `terraform test` planning it with mocked AWS and
 * svc providers, so the merge/zipmap/for expressions are evaluated by Terraform itself.
 *
 * Terraform needs the AWS provider's schema. Nothing is downloaded: the AWS provider comes from
 * the local mirror (SVC_TF_PLUGIN_MIRROR, default /opt/tf-plugins; without it the terraform
 * part fails under CI and is skipped, saying so, elsewhere: __tests__/support/requirements.ts),
 * the svc provider from a build into a temporary directory.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TerraformLocal, TerraformStack, Testing } from 'cdktf';
import { AwsProvider } from '@cdktf/provider-aws/lib/provider';
import { NatGateway } from '@cdktf/provider-aws/lib/nat-gateway';
import {
  ChannelServiceProviderOutputs,
  SecurityPolicy,
  SecurityPolicyPropError,
  type PolicyListProps,
} from '../../modules/security-policy';
import { ControlPlaneEgress, type ControlPlaneEgressProps } from '../../modules/security-policy/aws';
import { SvcProvider } from '../../modules/svc-provider/provider';
import { buildTestProvider, type TestProviderBuild } from '../../scripts/terraform-harness/provider-build';
import { synthJson, thrownBy, type SynthesizedStack } from './support';
import { mirroredTerraformEnvironment } from '../support/aws-terraform';
import { awsProviderMirror, commandOnPath, describeRequiring } from '../support/requirements';

const NAT_A = 'nat-0123456789abcdef0';
const NAT_B = 'nat-0bbbbbbbbbbbbbbbb';
const VPC = 'vpc-0123456789abcdef0';

function awsStack(): TerraformStack {
  const stack = new TerraformStack(Testing.app(), 'security-policy');
  new SvcProvider(stack, 'svc', { tenant: 'acme-corp', ssoBase: 'https://sso.example.com' });
  new AwsProvider(stack, 'aws', { region: 'eu-west-1' });
  return stack;
}

function synthEgress(whitelist: PolicyListProps, egress: Omit<ControlPlaneEgressProps, 'policy'>): SynthesizedStack {
  const stack = awsStack();
  const policy = new SecurityPolicy(stack, 'security-policy', { whitelist });
  new ControlPlaneEgress(stack, 'control-plane-egress', { policy, ...egress });
  return synthJson(stack);
}

const GATEWAY_A_IP = `\${data.aws_nat_gateway.control_plane_egress_nat_0123456789abcdef0.public_ip}`;

describe('ControlPlaneEgress: synth', () => {
  test('reads each NAT gateway by id, refusing a private one at plan', () => {
    const json = synthEgress({}, { natGatewayIds: [NAT_A] });
    expect(json.data?.aws_nat_gateway).toEqual({
      control_plane_egress_nat_0123456789abcdef0: {
        id: NAT_A,
        lifecycle: { postcondition: [{ condition: '${self.connectivity_type == "public" && self.public_ip != ""}', error_message: expect.stringContaining('no public IP') }] },
      },
    });
  });

  test('a per-entry whitelist gets one svc_whitelist_entry per gateway, named from its id', () => {
    const json = synthEgress({ entries: [{ ip: '192.0.2.0/28', description: 'office' }] }, { natGatewayIds: [NAT_A] });
    expect(json.resource.svc_whitelist_entry).toEqual({
      whitelist_192_0_2_0_28: { ip: '192.0.2.0/28', description: 'office' },
      whitelist_control_plane_egress_nat_0123456789abcdef0: { ip: GATEWAY_A_IP, description: `control plane egress (NAT gateway ${NAT_A})` },
    });
  });

  test('a whole-list whitelist gets the gateways in its entries map, keyed by the public_ip reference', () => {
    const json = synthEgress({ resources: 'whole-list', entries: [{ ip: '192.0.2.0/28', description: 'office' }] }, { natGatewayIds: [NAT_A], description: 'scan template service' });
    expect(json.resource.svc_whitelist_entry).toBeUndefined();
    expect(json.resource.svc_whitelist.whitelist.entries).toEqual({
      '192.0.2.0/28': 'office',
      [GATEWAY_A_IP]: `scan template service (NAT gateway ${NAT_A})`,
    });
  });

  test('by VPC, a whole-list whitelist merges a for expression over the VPC\'s gateways into its map', () => {
    const json = synthEgress({ resources: 'whole-list', mode: 'additive', entries: [{ ip: '192.0.2.0/28' }] }, { natGatewayIds: [NAT_A], vpcId: VPC });
    expect(json.data?.aws_nat_gateways?.control_plane_egress_vpc).toEqual({ vpc_id: VPC, filter: [{ name: 'state', values: ['available'] }] });
    expect(json.data?.aws_nat_gateway?.control_plane_egress_vpc_gateways).toEqual({
      // Keyed by position: known at plan whenever the number of gateways is, even if their ids are not.
      for_each: '${{ for index, id in data.aws_nat_gateways.control_plane_egress_vpc.ids : "gateway-${index + 1}" => id }}',
      id: '${each.value}',
    });
    expect(json.locals?.whitelist_entries).toEqual({ '192.0.2.0/28': '', [GATEWAY_A_IP]: `control plane egress (NAT gateway ${NAT_A})` });
    expect(json.resource.svc_whitelist.whitelist.entries).toBe(
      '${merge(local.whitelist_entries, { for key, val in data.aws_nat_gateway.control_plane_egress_vpc_gateways: val.public_ip => ' +
        'format("%s (NAT gateway %s)", "control plane egress", val.id) if val.connectivity_type == "public" && !contains(["nat-0123456789abcdef0"], val.id) })}',
    );
  });

  test('by VPC, a per-entry whitelist gets one for_each svc_whitelist_entry keyed by address', () => {
    const json = synthEgress({}, { vpcId: VPC });
    expect(json.resource.svc_whitelist_entry.whitelist_control_plane_egress_vpc).toMatchObject({ ip: '${each.key}', description: '${each.value}' });
    expect(json.resource.svc_whitelist_entry.whitelist_control_plane_egress_vpc.for_each).toContain('data.aws_nat_gateway.control_plane_egress_vpc_gateways');
  });

  test('a gateway created in the same stack (a token id) is named by its position, so its names are known at synth', () => {
    const stack = awsStack();
    const created = new NatGateway(stack, 'team-nat', { subnetId: 'subnet-0aaaaaaaaaaaaaaa1', allocationId: 'eipalloc-0123456789abcdef0' });
    const policy = new SecurityPolicy(stack, 'security-policy', {});
    new ControlPlaneEgress(stack, 'control-plane-egress', { policy, natGatewayIds: [NAT_A, created.id] });
    const json = synthJson(stack);
    expect(json.data?.aws_nat_gateway?.control_plane_egress_gateway_2).toMatchObject({ id: '${aws_nat_gateway.team-nat.id}' });
    expect(json.resource.svc_whitelist_entry.whitelist_control_plane_egress_gateway_2).toEqual({
      ip: '${data.aws_nat_gateway.control_plane_egress_gateway_2.public_ip}',
      description: 'control plane egress (NAT gateway natGatewayIds[1])',
    });
    expect(Object.keys(json.data?.aws_nat_gateway ?? {}).sort()).toEqual(['control_plane_egress_gateway_2', 'control_plane_egress_nat_0123456789abcdef0']);
  });

  describe('provider', () => {
    /** A stack whose only AWS provider has an alias, and the data sources' provider as synthesized. */
    function aliased(egress: (audit: AwsProvider, other: AwsProvider, svc: SvcProvider) => Omit<ControlPlaneEgressProps, 'policy'>): Record<string, unknown> {
      const stack = new TerraformStack(Testing.app(), 'security-policy');
      const svc = new SvcProvider(stack, 'svc', { tenant: 'acme-corp' });
      const audit = new AwsProvider(stack, 'aws-audit', { region: 'eu-west-1', alias: 'audit' });
      const other = new AwsProvider(stack, 'aws-other', { region: 'eu-central-1', alias: 'other' });
      const policy = new SecurityPolicy(stack, 'security-policy', {});
      new ControlPlaneEgress(stack, 'control-plane-egress', { policy, ...egress(audit, other, svc) });
      const json = synthJson(stack);
      return { byId: json.data?.aws_nat_gateway?.control_plane_egress_nat_0123456789abcdef0?.provider, byVpc: json.data?.aws_nat_gateways?.control_plane_egress_vpc?.provider };
    }

    test('every data source uses the AwsProvider given as provider', () => {
      expect(aliased((audit) => ({ natGatewayIds: [NAT_A], vpcId: VPC, provider: audit }))).toEqual({ byId: 'aws.audit', byVpc: 'aws.audit' });
    });

    test('the deprecated awsProvider still works, alone or naming the same provider', () => {
      expect(aliased((audit) => ({ natGatewayIds: [NAT_A], vpcId: VPC, awsProvider: audit }))).toEqual({ byId: 'aws.audit', byVpc: 'aws.audit' });
      expect(aliased((audit) => ({ natGatewayIds: [NAT_A], vpcId: VPC, provider: audit, awsProvider: audit }))).toEqual({ byId: 'aws.audit', byVpc: 'aws.audit' });
    });

    test('refuses two different providers, and one that is not AWS\'s, naming the prop', () => {
      const twice = thrownBy(() => aliased((audit, other) => ({ natGatewayIds: [NAT_A], provider: audit, awsProvider: other })));
      expect(twice).toBeInstanceOf(SecurityPolicyPropError);
      expect(twice.message).toContain('security-policy/control-plane-egress: awsProvider = "the provider security-policy/aws-other": differs from provider (security-policy/aws-audit)');
      const notAws = thrownBy(() => aliased((_audit, _other, svc) => ({ natGatewayIds: [NAT_A], provider: svc })));
      expect(notAws.message).toContain('security-policy/control-plane-egress: provider = "a provider of type svc": is not an AWS provider');
    });
  });

  test.each([
    ['no gateway at all', {}, 'natGatewayIds = []: names no NAT gateway'],
    ['an id that is not a NAT gateway\'s', { natGatewayIds: ['igw-0123456789abcdef0'] }, 'natGatewayIds[0] = "igw-0123456789abcdef0": is not a NAT gateway id'],
    ['an id named twice', { natGatewayIds: [NAT_A, NAT_A] }, `natGatewayIds[1] = "${NAT_A}": is also natGatewayIds[0]`],
    ['a bad VPC id', { vpcId: 'vpc-1' }, 'vpcId = "vpc-1": is not a VPC id'],
  ])('refuses %s', (_name, egress, message) => {
    const error = thrownBy(() => synthEgress({}, egress));
    expect(error).toBeInstanceOf(SecurityPolicyPropError);
    expect(error.message).toContain(`security-policy/control-plane-egress: ${message}`);
  });
});

describe('ChannelServiceProviderOutputs', () => {
  test('outputs the channel\'s entity id, ACS URL and metadata URL under names from the construct id', () => {
    const stack = awsStack();
    const policy = new SecurityPolicy(stack, 'security-policy', { channelSso: [{ name: 'main', enabled: true, samlMetadataUrl: 'https://idp.example.com/metadata' }] });
    new ChannelServiceProviderOutputs(stack, 'saml-main', { policy, channel: 'main' });
    expect(synthJson(stack).output).toEqual({
      saml_main_entity_id: { value: '${svc_channel_sso.channel_main.sp_entity_id}', description: expect.stringContaining('entity ID of channel "main"') },
      saml_main_acs_url: { value: '${svc_channel_sso.channel_main.sp_acs_url}', description: expect.stringContaining('assertion consumer service URL') },
      saml_main_metadata_url: { value: '${svc_channel_sso.channel_main.sp_metadata_url}', description: expect.stringContaining('metadata URL') },
    });
  });
});

// ---- real terraform ------------------------------------------------------------------------------

const { mirror: PLUGIN_MIRROR, version: AWS_VERSION, requirement: AWS_IN_MIRROR } = awsProviderMirror();
const describeWithTerraform = describeRequiring([commandOnPath('terraform', ['version']), AWS_IN_MIRROR]);

/**
 * Two policies in one stack (acme: whole-list whitelist, globex: per-entry), each whitelisting
 * NAT gateway A by id and the gateways of a VPC, plus a token IP from a local, and SAML outputs.
 */
function wiredStack(): TerraformStack {
  const stack = awsStack();
  const localIp = new TerraformLocal(stack, 'office_ip', '192.0.2.77');
  const acme = new SecurityPolicy(stack, 'acme', {
    whitelist: { resources: 'whole-list', mode: 'additive', entries: [{ ip: '192.0.2.0/28', description: 'office "hq" ${not a template}' }] },
    channelSso: [{ name: 'main', enabled: true, samlMetadataUrl: 'https://idp.example.com/metadata' }],
  });
  acme.addEntries('whitelist', [{ ip: localIp.asString, description: 'from a local' }], 'office');
  new ControlPlaneEgress(stack, 'acme-egress', { policy: acme, natGatewayIds: [NAT_A], vpcId: VPC });
  new ChannelServiceProviderOutputs(stack, 'saml-main', { policy: acme, channel: 'main' });
  const globex = new SecurityPolicy(stack, 'globex', { tenant: 'globex', namePrefix: 'globex_', whitelist: { entries: [{ ip: '198.51.100.0/24' }] } });
  new ControlPlaneEgress(stack, 'globex-egress', { policy: globex, natGatewayIds: [NAT_A], vpcId: VPC });
  // A NAT gateway the stack creates: its id is unknown at plan, which must not stop the plan.
  const created = new NatGateway(stack, 'initech-nat', { subnetId: 'subnet-0aaaaaaaaaaaaaaa1', allocationId: 'eipalloc-0123456789abcdef0' });
  for (const resources of ['per-entry', 'whole-list'] as const) {
    const initech = new SecurityPolicy(stack, `initech-${resources}`, { tenant: 'initech', namePrefix: `initech_${resources.replace('-', '_')}_`, whitelist: { resources } });
    new ControlPlaneEgress(stack, `initech-${resources}-egress`, { policy: initech, natGatewayIds: [created.id] });
  }
  return stack;
}

const TERRAFORM_TEST = `
mock_provider "svc" {}
mock_provider "aws" {
  mock_data "aws_nat_gateways" {
    defaults = { ids = ["${NAT_B}", "${NAT_A}"] }
  }
  mock_data "aws_nat_gateway" {
    defaults = { public_ip = "198.51.100.99", connectivity_type = "public" }
  }
}
override_data {
  target = data.aws_nat_gateway.acme_egress_nat_0123456789abcdef0
  values = { public_ip = "203.0.113.5", connectivity_type = "public" }
}
override_data {
  target = data.aws_nat_gateway.globex_egress_nat_0123456789abcdef0
  values = { public_ip = "203.0.113.5", connectivity_type = "public" }
}

run "egress_joins_the_whitelists" {
  command = plan
  assert {
    condition = svc_whitelist.whitelist.entries == tomap({
      "192.0.2.0/28"  = "office \\"hq\\" $\${not a template}"
      "192.0.2.77"    = "from a local"
      "203.0.113.5"   = "control plane egress (NAT gateway ${NAT_A})"
      "198.51.100.99" = "control plane egress (NAT gateway ${NAT_B})"
    })
    error_message = "acme whitelist entries: \${jsonencode(svc_whitelist.whitelist.entries)}"
  }
  assert {
    condition     = svc_whitelist_entry.globex_whitelist_globex_egress_nat_0123456789abcdef0.ip == "203.0.113.5"
    error_message = "globex per-entry egress entry"
  }
  assert {
    condition     = keys(svc_whitelist_entry.globex_whitelist_globex_egress_vpc) == ["198.51.100.99"]
    error_message = "globex VPC entries: \${jsonencode(keys(svc_whitelist_entry.globex_whitelist_globex_egress_vpc))}"
  }
  # The gateway the stack creates is read after it exists: planned, with its address to come.
  assert {
    condition     = svc_whitelist_entry.initech_per_entry_whitelist_initech_per_entry_egress_gateway_1.description == "control plane egress (NAT gateway natGatewayIds[0])"
    error_message = "initech per-entry egress entry"
  }
}

run "a_private_nat_gateway_fails_the_plan" {
  command = plan
  override_data {
    target = data.aws_nat_gateway.acme_egress_nat_0123456789abcdef0
    values = { public_ip = "", connectivity_type = "private" }
  }
  expect_failures = [data.aws_nat_gateway.acme_egress_nat_0123456789abcdef0]
}
`;

describeWithTerraform('ControlPlaneEgress: real terraform on the synthesized JSON', () => {
  let build: TestProviderBuild;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const terraform = (args: string[]) => {
    const result = spawnSync('terraform', [...args, '-no-color'], { cwd: dir, env, encoding: 'utf8' });
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  };

  beforeAll(() => {
    build = buildTestProvider();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-security-policy-tf-'));
    const json = JSON.parse(Testing.synth(wiredStack()));
    json.terraform.required_providers.aws = { source: 'hashicorp/aws', version: AWS_VERSION };
    fs.writeFileSync(path.join(dir, 'main.tf.json'), JSON.stringify(json, null, 1));
    fs.mkdirSync(path.join(dir, 'tests'));
    fs.writeFileSync(path.join(dir, 'tests', 'egress.tftest.hcl'), TERRAFORM_TEST);
    env = mirroredTerraformEnvironment(dir, [
      { path: build.mirrorDir, include: 'registry.terraform.io/svc-prevent/svc' },
      { path: PLUGIN_MIRROR, include: 'registry.terraform.io/hashicorp/*' },
    ]);
    const init = terraform(['init', '-backend=false', '-input=false']);
    if (init.status !== 0) throw new Error(`terraform init failed in ${dir}:\n${init.output}`);
  }, 60_000);

  afterAll(() => {
    build?.remove();
    if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('terraform validate accepts token map keys, the merged map and the for_each entries', () => {
    const result = terraform(['validate']);
    expect(result.output).toContain('The configuration is valid');
    expect(result.status).toBe(0);
  });

  test('terraform test plans the NAT gateways\' addresses into both whitelists, and fails the plan for a private gateway', () => {
    const result = terraform(['test']);
    expect(result.output).toContain('run "egress_joins_the_whitelists"... pass');
    expect(result.output).toContain('run "a_private_nat_gateway_fails_the_plan"... pass');
    expect(result.status).toBe(0);
  });
});
