/**
 * svc-deployment-policy: prints the deployment policy JSON for a stack name, account and hosted
 * zone, for users who attach it by hand. Exit codes: 0 printed, 2 bad usage or value.
 */
import { MANAGED_POLICY_MAX_CHARACTERS, namedDeploymentPolicyDocument, splitPolicyDocument } from './policy-document';
import { DeploymentPolicyPropError } from './errors';
import { DEFAULT_STACK_NAME, MAX_STACK_NAME_LENGTH } from '../stack-naming';
import { PropLabels } from './validation';

export interface CliStreams {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
}

const USAGE = `Usage: svc-deployment-policy --account-id <12 digits> --hosted-zone-id <Z...> [options]

Prints the IAM policy (JSON) that lets a user or role deploy the svc control plane with
Terraform: the spec's custom deployment policy plus the read calls Terraform needs.

Options:
  --stack-name <name>      stack name, the prefix of every resource name (default ${DEFAULT_STACK_NAME};
                           another name must be ${MAX_STACK_NAME_LENGTH} characters or fewer)
  --account-id <id>        AWS account id, 12 digits (required)
  --hosted-zone-id <id>    Route53 hosted zone id for the service records (required)
  --region <name>          limit the policy to one region (default *: every region)
  --partition <name>       AWS partition (default aws)
  --instance-image-parameter <name>
                           the SSM parameter the control plane reads its image from (its
                           InstanceImageParameter; default the Amazon Linux 2023 parameter)
  --part <n>               print only part n of the policy split to fit IAM's limit of
                           ${MANAGED_POLICY_MAX_CHARACTERS} characters per managed policy (the whole policy is larger)
  --help                   show this help

Attach it by hand, one managed policy per part, for example:
  for part in 1 2 3; do
    svc-deployment-policy --account-id 123456789012 --hosted-zone-id Z0123456789ABC \\
      --part "$part" > "policy-$part.json"
    aws iam create-policy --policy-name "SvcPrevent-deployment-$part" \\
      --policy-document "file://policy-$part.json" --tags Key=product,Value=svc-prevent
  done
`;

const FLAGS = {
  '--stack-name': 'stackName',
  '--account-id': 'accountId',
  '--hosted-zone-id': 'hostedZoneId',
  '--region': 'region',
  '--partition': 'partition',
  '--instance-image-parameter': 'instanceImageParameter',
  '--part': 'part',
} as const;
type Flag = keyof typeof FLAGS;
type Field = (typeof FLAGS)[Flag];

const FLAG_LABELS: PropLabels = {
  stackName: '--stack-name',
  accountId: '--account-id',
  hostedZoneId: '--hosted-zone-id',
  region: '--region',
  partition: '--partition',
  instanceImageParameter: '--instance-image-parameter',
};

class UsageError extends Error {}

function isFlag(text: string): text is Flag {
  return Object.prototype.hasOwnProperty.call(FLAGS, text);
}

function parse(argv: readonly string[]): { help: true } | { help: false; values: Partial<Record<Field, string>> } {
  const values: Partial<Record<Field, string>> = {};
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    if (argument === '--help' || argument === '-h') return { help: true };
    const equals = argument.indexOf('=');
    const name = equals === -1 ? argument : argument.slice(0, equals);
    if (!isFlag(name)) throw new UsageError(`unknown option ${JSON.stringify(argument)}; see --help`);
    let value: string | undefined;
    if (equals !== -1) {
      value = argument.slice(equals + 1);
    } else {
      value = argv[index + 1];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`${name} needs a value; see --help`);
      index += 1;
    }
    if (values[FLAGS[name]] !== undefined) throw new UsageError(`${name} is given twice`);
    values[FLAGS[name]] = value;
  }
  return { help: false, values };
}

/** Runs the command; returns the exit code. */
export function main(argv: readonly string[], streams: CliStreams = process): number {
  let parsed;
  try {
    parsed = parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    streams.stderr.write(`svc-deployment-policy: ${error.message}\n`);
    return 2;
  }
  if (parsed.help) {
    streams.stdout.write(USAGE);
    return 0;
  }
  const { values } = parsed;
  for (const field of ['accountId', 'hostedZoneId'] as const) {
    if (values[field] === undefined) {
      streams.stderr.write(`svc-deployment-policy: ${FLAG_LABELS[field]} is required; see --help\n`);
      return 2;
    }
  }
  let part: number | undefined;
  if (values.part !== undefined) {
    if (!/^[1-9]\d*$/.test(values.part)) {
      streams.stderr.write(`svc-deployment-policy: --part = ${JSON.stringify(values.part)}: not a part number. Fix: give a part number from 1\n`);
      return 2;
    }
    part = Number(values.part);
  }
  try {
    const document = namedDeploymentPolicyDocument(
      {
        stackName: values.stackName,
        accountId: values.accountId as string,
        hostedZoneId: values.hostedZoneId as string,
        region: values.region,
        partition: values.partition,
        instanceImageParameter: values.instanceImageParameter,
      },
      { constructPath: 'svc-deployment-policy', labels: FLAG_LABELS },
    );
    const parts = splitPolicyDocument(document);
    if (part !== undefined) {
      if (part > parts.length) {
        streams.stderr.write(
          `svc-deployment-policy: --part = "${part}": this policy has ${parts.length} parts. Fix: give a part number from 1 to ${parts.length}\n`,
        );
        return 2;
      }
      streams.stdout.write(`${JSON.stringify(parts[part - 1], null, 2)}\n`);
      return 0;
    }
    streams.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
    if (parts.length > 1) {
      streams.stderr.write(
        `svc-deployment-policy: note: this policy is larger than one managed policy may be ` +
          `(${MANAGED_POLICY_MAX_CHARACTERS} characters); to attach it, print it in ${parts.length} parts ` +
          `with --part 1 to --part ${parts.length}\n`,
      );
    }
    return 0;
  } catch (error) {
    if (!(error instanceof DeploymentPolicyPropError)) throw error;
    // The error names the command as its place already.
    streams.stderr.write(`${error.message}\n`);
    return 2;
  }
}
