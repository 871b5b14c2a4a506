/**
 * Plan-time checks, three ways: the conditions are in the synthesized JSON; real Terraform
 * accepts the JSON (`terraform validate`); and `terraform test` with a mocked AWS provider
 * plans it, passing for good inputs and failing with our messages for bad ones.
 *
 * Terraform needs the AWS provider's schema. Nothing is downloaded: the tests use a local
 * filesystem mirror (SVC_TF_PLUGIN_MIRROR, default /opt/tf-plugins); when it or the terraform
 * binary is missing they fail under CI and are skipped, saying so, elsewhere
 * (__tests__/support/requirements.ts). The mirror holds hashicorp/aws 5.x while
 * @cdktf/provider-aws 21.9.1 pins 6.x, so the copy under test names the mirror's version;
 * every argument the construct writes exists in both.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TerraformVariable, Testing } from 'cdktf';
import { REQUIRED_PROPS, dataOfType, synthControlPlane, type Synthesized, type TerraformJson } from './fixtures';
import { mirroredTerraformEnvironment, mockedAwsAccount } from '../support/aws-terraform';
import { awsProviderMirror, commandOnPath, describeRequiring } from '../support/requirements';
import { runCommand, type CommandRun } from '../support/run-command';
import { STEP_BUDGET_MS, testTimeoutFor } from '../support/step-budgets';

const { mirror: PLUGIN_MIRROR, version: AWS_VERSION, requirement: AWS_IN_MIRROR } = awsProviderMirror();
const describeWithTerraform = describeRequiring([commandOnPath('terraform', ['version']), AWS_IN_MIRROR]);

describe('plan-time conditions in the synthesized JSON', () => {
  let built: Synthesized;
  beforeAll(() => {
    built = synthControlPlane();
  });

  it('checks each subnet: in the VPC, not public', () => {
    const [subnet] = dataOfType(built.json, 'aws_subnet');
    // Keyed by position: keys known at plan even when the ids are not.
    expect(subnet.for_each).toEqual({ 'subnet-1': REQUIRED_PROPS.subnetIds[0], 'subnet-2': REQUIRED_PROPS.subnetIds[1] });
    expect(subnet.lifecycle.postcondition).toEqual([
      { condition: '${self.vpc_id == "vpc-0123456789abcdef0"}', error_message: expect.stringContaining('not in VPC vpc-0123456789abcdef0') },
      { condition: '${self.map_public_ip_on_launch != true}', error_message: expect.stringContaining('choose private subnets') },
    ]);
  });

  it('checks that the subnets span at least 2 availability zones', () => {
    const [vpc] = dataOfType(built.json, 'aws_vpc');
    expect(vpc.lifecycle.precondition).toEqual([
      { condition: expect.stringMatching(/^\$\{length\(distinct\(\[for subnet in data\.aws_subnet\..* : subnet\.availability_zone\]\)\) >= 2\}$/), error_message: expect.stringContaining('at least 2 distinct availability zones') },
    ]);
  });

  it('checks that the hosted zone id and name belong together, and that the zone is public', () => {
    const [zone] = dataOfType(built.json, 'aws_route53_zone');
    expect(zone.zone_id).toBe('Z0123456789ABCDEFGHIJ');
    expect(zone.lifecycle.postcondition).toEqual([
      { condition: '${self.zone_id == "Z0123456789ABCDEFGHIJ" && trimsuffix(lower(self.name), ".") == "example.com"}', error_message: expect.stringContaining('do not match') },
      { condition: '${self.private_zone != true}', error_message: expect.stringContaining('public hosted zone') },
    ]);
  });

  it('checks that each subnet routes 0.0.0.0/0 to a NAT gateway, through its own or the main route table', () => {
    const [tableIds] = dataOfType(built.json, 'aws_route_tables');
    expect(tableIds.filter).toEqual([{ name: 'association.subnet-id', values: ['${each.value}'] }]);
    const tables = built.json.data.aws_route_table;
    const [main, perSubnet] = [Object.entries(tables).find(([id]) => id.includes('main-route-table'))![1], Object.entries(tables).find(([id]) => id.includes('subnet-route-table'))![1]];
    expect(main.filter).toEqual([{ name: 'association.main', values: ['true'] }]);
    expect(perSubnet.for_each).toEqual({ 'subnet-1': REQUIRED_PROPS.subnetIds[0], 'subnet-2': REQUIRED_PROPS.subnetIds[1] });
    expect(perSubnet.lifecycle.postcondition[0].error_message).toContain('which has no route from 0.0.0.0/0 to a NAT gateway');
  });

  it('checks the key pair, the default EBS key and the certificate name length', () => {
    // A missing key pair fails the read with the provider's error, before any condition: the
    // address terraform prints with it names the parameter and the fix.
    expect(Object.keys(built.json.data.aws_key_pair)).toEqual(['control_plane_key_pair_KeyName_must_name_a_key_pair_of_this_region_create_or_import_it']);
    const [keyPair] = dataOfType(built.json, 'aws_key_pair');
    expect(keyPair.key_name).toBe('ops-key');
    const [ebsKey] = dataOfType(built.json, 'aws_ebs_default_kms_key');
    expect(ebsKey.lifecycle.postcondition.map((entry: any) => entry.condition)).toEqual(['${endswith(self.key_arn, ":alias/aws/ebs") || false}']);
    // A literal certificate name is checked at synth; a precondition is written for a name from a variable.
    expect(Object.values(built.json.resource.aws_acm_certificate)[0].lifecycle.precondition).toBeUndefined();
    const fromVariable = synthControlPlane({}, (stack) => ({ hostedZoneName: new TerraformVariable(stack, 'zone', { type: 'string' }).stringValue }));
    expect(Object.values(fromVariable.json.resource.aws_acm_certificate)[0].lifecycle.precondition).toEqual([
      { condition: '${(length("analyzer.svcprevent.${var.zone}") <= 64)}', error_message: expect.stringContaining('ACM refuses') },
    ]);
  });
});

describe('the certificate name at synth', () => {
  it('refuses a zone that makes the first certificate name longer than 64, naming stack and zone', () => {
    const zone = `${'a'.repeat(30)}.${'b'.repeat(14)}.example.com`;
    expect(() => synthControlPlane({ stackName: 'Prevent-Eu1234', hostedZoneName: zone })).toThrow(
      expect.objectContaining({
        code: 'certificate_name_too_long',
        propName: 'hostedZoneName',
        message: expect.stringContaining(`with stackName "Prevent-Eu1234" gives the certificate name analyzer.prevent-eu1234.${zone} (81 characters)`),
      }),
    );
    expect(() => synthControlPlane({ stackName: 'Prevent-Eu1234', hostedZoneName: `${'b'.repeat(28)}.example.com` })).not.toThrow();
  });
});

/** A working directory holding the synthesized JSON, pointed at the local provider mirror. */
async function terraformDirectory(json: TerraformJson): Promise<{ dir: string; env: NodeJS.ProcessEnv }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'control-plane-tf-'));
  const copy = JSON.parse(JSON.stringify(json));
  copy.terraform.required_providers.aws = { source: 'hashicorp/aws', version: AWS_VERSION };
  fs.writeFileSync(path.join(dir, 'main.tf.json'), JSON.stringify(copy, null, 1));
  const env = mirroredTerraformEnvironment(dir, [{ path: PLUGIN_MIRROR, include: 'registry.terraform.io/hashicorp/*' }]);
  const init = await runCommand('terraform', ['init', '-backend=false', '-input=false', '-no-color'], { cwd: dir, env, timeoutMs: STEP_BUDGET_MS.terraformCommand });
  if (init.status !== 0) throw new Error(`terraform init ${outcome(init)}\n${init.stdout}${init.stderr}`);
  return { dir, env };
}

/** A terraform command in its own process group, killed whole at its budget (run-command.ts). */
async function terraform(dir: string, env: NodeJS.ProcessEnv, args: string[]): Promise<{ status: number | null; output: string }> {
  const result = await runCommand('terraform', [...args, '-no-color'], { cwd: dir, env, timeoutMs: STEP_BUDGET_MS.terraformCommand });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

function outcome(run: CommandRun): string {
  return run.timedOut ? 'ran past its budget and was killed' : `exited ${run.status ?? run.signal}`;
}

describeWithTerraform('terraform validate on the synthesized JSON', () => {
  it.each([
    ['the default control plane', {}],
    ['a custom stack name, sensor ranges and optional parameters', { stackName: 'Prevent-Eu1', sensorCidrs: ['10.20.0.0/16', '2001:db8::/32'], analyzerEnvironmentName: 'staging', otelGatewayUrl: 'https://otel.vendor.example.net' }],
  ])('accepts %s, including the ephemeral variable and the write-only argument', async (_name, props) => {
    const built = synthControlPlane(props);
    // fullSynth writes what `cdktf synth` writes; validate that file.
    const outdir = Testing.fullSynth(built.stack);
    const json = JSON.parse(fs.readFileSync(path.join(outdir, 'stacks', 'test', 'cdk.tf.json'), 'utf8')) as TerraformJson;
    expect(json.variable?.api_key).toMatchObject({ ephemeral: true, sensitive: true });
    const { dir, env } = await terraformDirectory(json);
    try {
      const result = await terraform(dir, env, ['validate']);
      expect(result.output).toContain('The configuration is valid');
      expect(result.status).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, testTimeoutFor(STEP_BUDGET_MS.terraformCommand, STEP_BUDGET_MS.terraformCommand));
});

/** A mocked AWS that answers the lookups the way a good account would; each case overrides one. */
const MOCK_PROVIDER = `${mockedAwsAccount({ region: 'eu-west-1' })}variables {
  api_key = "plan-test-api-key"
}
`;

describeWithTerraform('terraform test: the plan with a mocked AWS provider', () => {
  const secondSubnet = REQUIRED_PROPS.subnetIds[1];
  let results: Map<string, { passed: boolean; output: string }>;
  let synthesized: string;

  // Each case overrides what one lookup returns; only `good` describes a valid account.
  // (The private-zone condition is not among them: the mocked provider leaves private_zone,
  // an optional argument, null, where the real one reports the zone's setting.)
  const CASES: Record<string, { subnet?: Record<string, unknown>; zone?: Record<string, unknown>; routeTable?: string; ebsKey?: string }> = {
    good: { subnet: { availability_zone: 'eu-west-1b' } },
    subnet_in_another_vpc: { subnet: { availability_zone: 'eu-west-1b', vpc_id: 'vpc-0fffffffffffffff0' } },
    public_subnet: { subnet: { availability_zone: 'eu-west-1b', map_public_ip_on_launch: true } },
    single_availability_zone: { subnet: { availability_zone: 'eu-west-1a' } },
    zone_name_mismatch: { subnet: { availability_zone: 'eu-west-1b' }, zone: { name: 'other.example.org' } },
    no_nat_route: { subnet: { availability_zone: 'eu-west-1b' }, routeTable: '{ id = "rtb-0123456789abcdef0", routes = [{ cidr_block = "10.0.0.0/16", gateway_id = "local" }] }' },
    customer_managed_ebs_key: { subnet: { availability_zone: 'eu-west-1b' }, ebsKey: '"arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"' },
  };

  function hclObject(values: Record<string, unknown>): string {
    return `{ ${Object.entries(values).map(([key, value]) => `${key} = ${JSON.stringify(value)}`).join(', ')} }`;
  }

  beforeAll(async () => {
    const built = synthControlPlane();
    synthesized = built.synthesized;
    const subnetName = Object.keys(built.json.data.aws_subnet)[0];
    const zoneName = Object.keys(built.json.data.aws_route53_zone)[0];
    const routeTableName = Object.keys(built.json.data.aws_route_table).find((id) => id.includes('subnet-route-table'))!;
    const defaultKeyName = Object.keys(built.json.data.aws_ebs_default_kms_key)[0];
    const { dir, env } = await terraformDirectory(built.json);
    try {
      fs.mkdirSync(path.join(dir, 'tests'));
      for (const [name, overrides] of Object.entries(CASES)) {
        const subnet = { vpc_id: 'vpc-0123456789abcdef0', map_public_ip_on_launch: false, ...overrides.subnet };
        const zone = { zone_id: 'Z0123456789ABCDEFGHIJ', name: 'example.com', private_zone: false, ...overrides.zone };
        fs.writeFileSync(
          path.join(dir, 'tests', `${name}.tftest.hcl`),
          `${MOCK_PROVIDER}
override_data {
  target = data.aws_ebs_default_kms_key.${defaultKeyName}
  values = { key_arn = ${overrides.ebsKey ?? '"arn:aws:kms:eu-west-1:123456789012:alias/aws/ebs"'} }
}
override_data {
  target = data.aws_subnet.${subnetName}["subnet-2"]
  values = ${hclObject(subnet)}
}
${overrides.routeTable ? `override_data {\n  target = data.aws_route_table.${routeTableName}["subnet-2"]\n  values = ${overrides.routeTable}\n}` : ''}

override_data {
  target = data.aws_route53_zone.${zoneName}
  values = ${hclObject(zone)}
}
run "plan" {
  command = plan
}
`,
        );
      }
      // -json: one event per line, diagnostics tagged with their test file.
      const run = await runCommand('terraform', ['test', '-json'], { cwd: dir, env, timeoutMs: STEP_BUDGET_MS.terraformTestMockedAws });
      if (run.timedOut) throw new Error(`terraform test ${outcome(run)}\n${run.stdout}${run.stderr}`);
      const events = run.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
      results = new Map();
      for (const name of Object.keys(CASES)) {
        const file = `tests/${name}.tftest.hcl`;
        const done = events.find((event) => event.type === 'test_file' && event.test_file?.path === file && event.test_file?.progress === 'complete');
        if (!done) throw new Error(`no result for ${file} in terraform test output:\n${run.stdout}${run.stderr}`);
        const details = events
          .filter((event) => event.type === 'diagnostic' && event['@testfile'] === file)
          .map((event) => `${event.diagnostic.summary}: ${event.diagnostic.detail}`.replace(/\s+/g, ' '));
        results.set(name, { passed: done.test_file.status === 'pass', output: details.join('\n') });
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, testTimeoutFor(STEP_BUDGET_MS.terraformCommand, STEP_BUDGET_MS.terraformTestMockedAws));

  it('plans a control plane for private subnets in two zones and a matching public zone', () => {
    expect(results.get('good')).toMatchObject({ passed: true });
  });

  it.each([
    ['subnet_in_another_vpc', `Subnets: subnet ${secondSubnet} is in VPC vpc-0fffffffffffffff0, not in VPC vpc-0123456789abcdef0.`],
    ['public_subnet', `Subnets: subnet ${secondSubnet} assigns public IP addresses on launch, so it is a public subnet.`],
    ['single_availability_zone', 'Subnets: all given subnets are in the availability zone(s) eu-west-1a; at least 2 distinct availability zones are needed.'],
    ['zone_name_mismatch', 'HostedZoneId and HostedZoneName do not match: zone Z0123456789ABCDEFGHIJ is named other.example.org, not example.com.'],
    ['no_nat_route', `Subnets: subnet ${secondSubnet} uses route table rtb-0123456789abcdef0, which has no route from 0.0.0.0/0 to a NAT gateway.`],
    ['customer_managed_ebs_key', 'EBS: the default EBS encryption key of the account in this region is arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab, not aws/ebs'],
  ])('fails the plan for %s, saying so', (name, message) => {
    const result = results.get(name)!;
    expect(result.passed).toBe(false);
    expect(result.output).toContain(message);
  });

  it('never had the API key in the configuration it planned', () => {
    expect(synthesized).not.toContain('plan-test-api-key');
  });
});
