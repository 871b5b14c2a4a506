/**
 * A terraform working directory that installs providers from local filesystem mirrors only (the
 * hashicorp/aws plugin in /opt/tf-plugins, our dev build), with HOME, the data dir and the CLI
 * config inside it: what the tests that plan synthesized JSON against real AWS schemas share.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface FilesystemMirror {
  readonly path: string;
  /** Provider addresses served from this mirror, e.g. `registry.terraform.io/hashicorp/*`. */
  readonly include: string;
}

/** Writes `<dir>/cli.tfrc` installing from the mirrors only, and returns terraform's environment for `dir`. */
export function mirroredTerraformEnvironment(dir: string, mirrors: readonly FilesystemMirror[]): NodeJS.ProcessEnv {
  const cliConfig = path.join(dir, 'cli.tfrc');
  fs.writeFileSync(
    cliConfig,
    [
      'provider_installation {',
      ...mirrors.map((mirror) => `  filesystem_mirror {\n    path    = ${JSON.stringify(mirror.path)}\n    include = [${JSON.stringify(mirror.include)}]\n  }`),
      '}',
      '',
    ].join('\n'),
  );
  return {
    PATH: process.env.PATH,
    HOME: dir,
    TF_CLI_CONFIG_FILE: cliConfig,
    TF_DATA_DIR: path.join(dir, '.terraform'),
    TF_IN_AUTOMATION: '1',
    CHECKPOINT_DISABLE: '1',
  };
}

export interface MockedAwsAccount {
  /** The alias of the AWS provider the configuration uses (`audit` for `aws.audit`); the default provider when absent. */
  readonly alias?: string;
  /** The region of the answers: every subnet is in its zone `a` (a test overrides one subnet for a second zone). */
  readonly region: string;
  /** Also answer the default EBS key lookup with aws/ebs; leave it out when each test case overrides it. */
  readonly defaultEbsKey?: boolean;
}

/**
 * A `mock_provider "aws"` block for a `terraform test` file that answers the control plane's
 * lookups the way a good account would: private subnets of one VPC, the public zone
 * example.com, a NAT route. Tests override single lookups to describe a bad account.
 */
export function mockedAwsAccount(account: MockedAwsAccount): string {
  const lookups: Record<string, string> = {
    aws_subnet: `{ vpc_id = "vpc-0123456789abcdef0", map_public_ip_on_launch = false, availability_zone = "${account.region}a" }`,
    aws_route53_zone: '{ zone_id = "Z0123456789ABCDEFGHIJ", name = "example.com", private_zone = false }',
    aws_vpc: '{ cidr_block = "10.0.0.0/16" }',
    aws_caller_identity: '{ account_id = "123456789012" }',
    aws_partition: '{ partition = "aws" }',
    aws_route_table: '{ routes = [{ cidr_block = "0.0.0.0/0", nat_gateway_id = "nat-0123456789abcdef0" }] }',
    ...(account.defaultEbsKey ? { aws_ebs_default_kms_key: `{ key_arn = "arn:aws:kms:${account.region}:123456789012:alias/aws/ebs" }` } : {}),
  };
  return [
    'mock_provider "aws" {',
    ...(account.alias === undefined ? [] : [`  alias = "${account.alias}"`]),
    ...Object.entries(lookups).map(([type, defaults]) => `  mock_data "${type}" {\n    defaults = ${defaults}\n  }`),
    '}',
    '',
  ].join('\n');
}
