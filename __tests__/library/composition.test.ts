/**
 * The control plane in another team's TypeScript program, through the packed package: the
 * program imports svc-prevent's .d.ts as installed from the tarball and passes what such a team
 * has (readonly arrays, a variable's booleanValue, a string token as the API key, an aliased AWS
 * provider and no default one, two ControlPlanes under different parents, subnets created in the
 * same stack). tsc type-checks and compiles it, node synthesizes it, and terraform validates the
 * result and plans it with a mocked AWS provider (the subnets' ids are unknown at that plan, so
 * a loop keyed by them would stop it).
 *
 * Terraform needs the AWS provider's schema from the local mirror (SVC_TF_PLUGIN_MIRROR, default
 * /opt/tf-plugins); without it or terraform, the terraform steps are skipped (a failure under CI).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { mirroredTerraformEnvironment, mockedAwsAccount } from '../support/aws-terraform';
import { awsProviderMirror, commandOnPath, describeRequiring } from '../support/requirements';
import { REPOSITORY, createConsumerProject, described, packedLibrary, run } from './support';

const TSC = path.join(REPOSITORY, 'node_modules', 'typescript', 'bin', 'tsc');
const { mirror: PLUGIN_MIRROR, version: AWS_VERSION, requirement: AWS_IN_MIRROR } = awsProviderMirror();
const describeWithTerraform = describeRequiring([commandOnPath('terraform', ['version']), AWS_IN_MIRROR]);

const PROGRAM = `import { App, TerraformStack, TerraformVariable } from 'cdktf';
import { Construct } from 'constructs';
import { AwsProvider } from '@cdktf/provider-aws/lib/provider';
import { Subnet } from '@cdktf/provider-aws/lib/subnet';
import { ControlPlane, type ControlPlaneProps } from 'svc-prevent/control-plane';
import { DeploymentPolicy } from 'svc-prevent/deployment-policy';
import { SvcProvider } from 'svc-prevent/provider';
import { SecurityPolicy } from 'svc-prevent/security-policy';

const app = new App({ outdir: 'cdktf.out' });
const stack = new TerraformStack(app, 'platform');
// The only AWS provider: another account, under an alias.
const audit = new AwsProvider(stack, 'aws-audit', { region: 'eu-central-1', alias: 'audit' });

const caching = new TerraformVariable(stack, 'analyzer_caching', { type: 'bool', default: false });
const teamAKey = new TerraformVariable(stack, 'team_a_key', { type: 'string', sensitive: true });
teamAKey.addOverride('ephemeral', true);

const vpcId = 'vpc-0123456789abcdef0';
const privateSubnets: readonly string[] = ['subnet-0aaaaaaaaaaaaaaa1', 'subnet-0bbbbbbbbbbbbbbb2'];
const sensorCidrs: readonly string[] = ['10.20.0.0/16'];
const common = {
  tenantId: 'acme-corp',
  vpcId,
  hostedZoneId: 'Z0123456789ABCDEFGHIJ',
  hostedZoneName: 'example.com',
  keyName: 'ops-key',
  analyzerTags: 'env=prod',
  vpcCidr: '10.0.0.0/16',
  provider: audit,
} satisfies Partial<ControlPlaneProps>;

new ControlPlane(new Construct(stack, 'team-a'), 'control-plane', {
  ...common,
  stackName: 'TeamA',
  subnetIds: privateSubnets,
  sensorCidrs,
  analyzerEnableCaching: caching.booleanValue,
  apiKey: teamAKey.stringValue,
});

// Team B's subnets come from this very stack: their ids are known only after apply.
const created = ['10.0.1.0/24', '10.0.2.0/24'].map(
  (cidrBlock, index) => new Subnet(stack, 'team-b-subnet-' + (index + 1), { provider: audit, vpcId, cidrBlock, availabilityZone: 'eu-central-1' + 'ab'[index] }),
);
new ControlPlane(new Construct(stack, 'team-b'), 'control-plane', {
  ...common,
  stackName: 'TeamB',
  subnetIds: created.map((subnet) => subnet.id),
});

new DeploymentPolicy(stack, 'deployment-policy', { provider: audit, accountId: '123456789012', hostedZoneId: common.hostedZoneId, stackName: 'TeamA' });

// SSO switched by a variable of the team's.
const policyStack = new TerraformStack(app, 'policy');
const ssoOn = new TerraformVariable(policyStack, 'sso_on', { type: 'bool', default: false });
new SecurityPolicy(policyStack, 'security-policy', {
  provider: new SvcProvider(policyStack, 'svc', { tenant: 'acme-corp' }),
  tenantSso: { name: 'acme-corp', enabled: ssoOn.booleanValue, samlMetadataUrl: 'https://idp.example.com/metadata' },
});
app.synth();
`;

interface StackJson {
  terraform: { required_providers: Record<string, { source: string; version?: string }> };
  provider: Record<string, unknown>;
  variable?: Record<string, Record<string, unknown>>;
  output?: Record<string, unknown>;
  resource: Record<string, Record<string, Record<string, unknown>>>;
  data: Record<string, Record<string, Record<string, unknown>>>;
}

let scratch: string;
let project: string;
let compiled: { code: number; said: string };
let synthesized: { code: number; said: string };
let json: StackJson;

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-composition-'));
  const library = await packedLibrary();
  project = path.join(scratch, 'platform-team');
  await createConsumerProject(project, library, { linkedPeers: ['cdktf', 'constructs', '@cdktf/provider-aws'] });
  fs.writeFileSync(path.join(project, 'main.ts'), PROGRAM);
  const compilerOptions = {
    strict: true,
    skipLibCheck: true,
    target: 'ES2020',
    lib: ['es2020'],
    module: 'CommonJS',
    moduleResolution: 'node10',
    outDir: 'build',
    types: ['node'],
    typeRoots: [path.join(REPOSITORY, 'node_modules', '@types')],
  };
  fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['main.ts'] }, null, 2));
  const tsc = await run(process.execPath, [TSC, '-p', project], { cwd: project });
  compiled = { code: tsc.code, said: tsc.code === 0 ? '' : described(tsc) };
  if (tsc.code !== 0) return;
  const synth = await run(process.execPath, [path.join('build', 'main.js')], { cwd: project, env: { PATH: process.env.PATH, HOME: project, CHECKPOINT_DISABLE: '1' } });
  synthesized = { code: synth.code, said: synth.code === 0 ? '' : described(synth) };
  if (synth.code === 0) json = JSON.parse(fs.readFileSync(path.join(project, 'cdktf.out', 'stacks', 'platform', 'cdk.tf.json'), 'utf8')) as StackJson;
}, 600_000);

afterAll(() => {
  if (scratch !== undefined) fs.rmSync(scratch, { recursive: true, force: true });
});

describe("a platform team's TypeScript program with two control planes", () => {
  test('type-checks against the packed .d.ts and synthesizes', () => {
    expect(compiled).toEqual({ code: 0, said: '' });
    expect(synthesized).toEqual({ code: 0, said: '' });
  });

  test('every AWS resource and data source names the aliased provider; the stack configures no default one', () => {
    const unassigned: string[] = [];
    for (const [kind, byType] of [['resource', json.resource], ['data', json.data]] as const) {
      for (const [type, byName] of Object.entries(byType)) {
        if (!type.startsWith('aws_')) continue;
        for (const [name, block] of Object.entries(byName)) if (block.provider !== 'aws.audit') unassigned.push(`${kind}.${type}.${name}`);
      }
    }
    expect(unassigned).toEqual([]);
    expect(json.provider.aws).toEqual([expect.objectContaining({ alias: 'audit' })]);
  });

  test('each control plane has its six outputs and its own API key; the string token and the booleanValue reach terraform', () => {
    const outputs = Object.keys(json.output ?? {});
    expect(outputs.filter((name) => name.startsWith('team_a_control_plane_'))).toHaveLength(6);
    expect(outputs.filter((name) => name.startsWith('team_b_control_plane_'))).toHaveLength(6);
    expect(outputs).toContain('deployment_policy_policy_arns');
    expect(Object.keys(json.variable ?? {}).sort()).toEqual(['analyzer_caching', 'team_a_key', 'team_b_control_plane_api_key']);
    const written = Object.values(json.resource.aws_secretsmanager_secret_version).map((version) => version.secret_string_wo);
    expect(written.sort()).toEqual(['${var.team_a_key}', '${var.team_b_control_plane_api_key}']);
    const caching = Object.values(json.resource.aws_ssm_parameter).find((parameter) => parameter.name === '/TeamA/analyzer/enable-caching');
    expect(caching?.value).toBe('${var.analyzer_caching}');
  });

  test('SsoSettings.enabled takes a booleanValue', () => {
    const policy = JSON.parse(fs.readFileSync(path.join(project, 'cdktf.out', 'stacks', 'policy', 'cdk.tf.json'), 'utf8')) as StackJson;
    expect(Object.values(policy.resource.svc_tenant_sso).map((block) => block.enabled)).toEqual(['${var.sso_on}']);
  });

  test("team B's subnet lookups are keyed by position over the subnets created in the stack", () => {
    const lookups = Object.entries(json.data.aws_subnet).filter(([name]) => name.includes('team-b'));
    expect(lookups.map(([, block]) => block.for_each)).toEqual([{ 'subnet-1': '${aws_subnet.team-b-subnet-1.id}', 'subnet-2': '${aws_subnet.team-b-subnet-2.id}' }]);
  });
});

/** A mocked AWS (under the alias the stack uses) that answers the lookups as a good account would. */
const MOCKED_PLAN = `${mockedAwsAccount({ alias: 'audit', region: 'eu-central-1', defaultEbsKey: true })}variables {
  team_a_key                   = "plan-test-key-a"
  team_b_control_plane_api_key = "plan-test-key-b"
}
run "plan" {
  command = plan
}
`;

/** Team A's second subnet in a second zone (the mock answers one zone for all). */
function secondZoneFor(subnetLookup: string): string {
  return `override_data {
  target = data.aws_subnet.${subnetLookup}["subnet-2"]
  values = { vpc_id = "vpc-0123456789abcdef0", map_public_ip_on_launch = false, availability_zone = "eu-central-1b" }
}
`;
}

describeWithTerraform('terraform on what the program synthesized', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-composition-tf-'));
    const copy = JSON.parse(JSON.stringify(json)) as StackJson;
    // The mirror holds hashicorp/aws 5.x where @cdktf/provider-aws pins 6.x; every argument used exists in both.
    copy.terraform.required_providers.aws = { source: 'hashicorp/aws', version: AWS_VERSION };
    fs.writeFileSync(path.join(dir, 'main.tf.json'), JSON.stringify(copy, null, 1));
    env = mirroredTerraformEnvironment(dir, [{ path: PLUGIN_MIRROR, include: 'registry.terraform.io/hashicorp/*' }]);
    const init = spawnSync('terraform', ['init', '-backend=false', '-input=false', '-no-color'], { cwd: dir, env, encoding: 'utf8' });
    if (init.status !== 0) throw new Error(`terraform init failed:\n${init.stdout}${init.stderr}`);
  }, 300_000);

  afterAll(() => {
    if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('terraform validate accepts it', () => {
    const result = spawnSync('terraform', ['validate', '-no-color'], { cwd: dir, env, encoding: 'utf8' });
    expect({ status: result.status, output: `${result.stdout}${result.stderr}` }).toEqual({ status: 0, output: expect.stringContaining('The configuration is valid') });
  }, 120_000);

  test('a plan with the subnets unknown until apply goes through (no for_each over unknown ids)', () => {
    fs.mkdirSync(path.join(dir, 'tests'), { recursive: true });
    const teamASubnets = Object.keys(json.data.aws_subnet).find((name) => name.startsWith('team-a_'))!;
    fs.writeFileSync(path.join(dir, 'tests', 'plan.tftest.hcl'), `${MOCKED_PLAN}${secondZoneFor(teamASubnets)}`);
    const result = spawnSync('terraform', ['test', '-no-color'], { cwd: dir, env, encoding: 'utf8' });
    const output = `${result.stdout}${result.stderr}`;
    expect(output).not.toContain('Invalid for_each argument');
    expect({ status: result.status, output }).toEqual({ status: 0, output: expect.stringContaining('1 passed, 0 failed') });
  }, 300_000);

  test('the same plan with the lookups keyed by the subnet ids stops (what the static keys avoid)', () => {
    const keyedById = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-composition-by-id-'));
    try {
      const copy = JSON.parse(fs.readFileSync(path.join(dir, 'main.tf.json'), 'utf8')) as StackJson;
      for (const type of ['aws_subnet', 'aws_route_tables', 'aws_route_table']) {
        for (const [name, block] of Object.entries(copy.data[type] ?? {})) {
          if (name.startsWith('team-b_') && block.for_each !== undefined) block.for_each = '${toset([aws_subnet.team-b-subnet-1.id, aws_subnet.team-b-subnet-2.id])}';
        }
      }
      fs.writeFileSync(path.join(keyedById, 'main.tf.json'), JSON.stringify(copy, null, 1));
      fs.cpSync(path.join(dir, 'tests'), path.join(keyedById, 'tests'), { recursive: true });
      const byIdEnv = mirroredTerraformEnvironment(keyedById, [{ path: PLUGIN_MIRROR, include: 'registry.terraform.io/hashicorp/*' }]);
      // An init that failed would fail `terraform test` too, with another message: say which step it was.
      const init = spawnSync('terraform', ['init', '-backend=false', '-input=false', '-no-color'], { cwd: keyedById, env: byIdEnv, encoding: 'utf8' });
      expect({ status: init.status, output: `${init.stdout}${init.stderr}` }).toMatchObject({ status: 0 });
      const result = spawnSync('terraform', ['test', '-no-color'], { cwd: keyedById, env: byIdEnv, encoding: 'utf8' });
      expect(`${result.stdout}${result.stderr}`).toContain('Invalid for_each argument');
      expect(result.status).not.toBe(0);
    } finally {
      fs.rmSync(keyedById, { recursive: true, force: true });
    }
  }, 300_000);
});
