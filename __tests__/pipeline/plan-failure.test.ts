/**
 * Which terraform failures mean "cannot be reached" (the drift check's --skip-unreachable skips
 * those only). The outputs are real: terraform 1.11.4 with -no-color, on the app's stacks
 * (control-plane's init without network; security-policy against the emulator with a wrong key
 * and with the emulator stopped), and hashicorp/aws 5.100.0 from /opt/tf-plugins planning
 * aws_caller_identity without credentials, against a closed STS port and against a loopback
 * STS answering 403 InvalidClientTokenId.
 */
import { errorDiagnostics, unreachableStack, type UnreachableReason } from '../../src/pipeline/plan-failure';

const REGISTRY_DNS = `
Error: Failed to query available provider packages

Could not retrieve the list of available versions for provider hashicorp/aws:
could not connect to registry.terraform.io: failed to request discovery
document: Get "https://registry.terraform.io/.well-known/terraform.json":
dial tcp: lookup registry.terraform.io on 10.255.255.53:53: no such host

To see which modules are currently depending on hashicorp/aws and what
versions are specified, run the following command:
    terraform providers
`;

const NO_AWS_CREDENTIALS = `
Planning failed. Terraform encountered an error while generating this plan.


Error: No valid credential sources found

  with provider["registry.terraform.io/hashicorp/aws"],
  on main.tf line 6, in provider "aws":
   6: provider "aws" { region = "eu-west-1" }

Please see https://registry.terraform.io/providers/hashicorp/aws
for more information about providing credentials.

Error: failed to refresh cached credentials, no EC2 IMDS role found,
operation error ec2imds: GetMetadata, access disabled to EC2 IMDS via client
option, or "AWS_EC2_METADATA_DISABLED" environment variable
`;

const AWS_STS_CONNECTION_REFUSED = `
Error: Retrieving AWS account details: validating provider credentials: retrieving caller identity from STS: operation error STS: GetCallerIdentity, exceeded maximum number of attempts, 9, https response error StatusCode: 0, RequestID: , request send failed, Post "http://127.0.0.1:1/": dial tcp 127.0.0.1:1: connect: connection refused

  with provider["registry.terraform.io/hashicorp/aws"],
  on main.tf line 6, in provider "aws":
   6: provider "aws" { region = "eu-west-1" }
`;

const AWS_INVALID_TOKEN = `
Error: Retrieving AWS account details: validating provider credentials: retrieving caller identity from STS: operation error STS: GetCallerIdentity, https response error StatusCode: 403, RequestID: abc, api error InvalidClientTokenId: The security token included in the request is invalid.

  with provider["registry.terraform.io/hashicorp/aws"],
  on main.tf line 6, in provider "aws":
   6: provider "aws" { region = "eu-west-1" }
`;

const SVC_WRONG_KEY = `
Error: Login to the svc management API failed

  with svc_blacklist_entry.blacklist_203_0_113_9,
  on cdk.tf.json line 31, in resource.svc_blacklist_entry.blacklist_203_0_113_9:
  31:       }

plan svc_blacklist_entry: login refused for tenant "acme": bad API key or
inactive user. Check the key and that its user is active. The provider takes
the key from api_key in the provider block, else from SVC_API_KEY.
`;

const SVC_CLOSED_PORT = `
Error: Could not reach the svc management API

  with svc_blacklist_entry.blacklist_203_0_113_9,
  on cdk.tf.json line 31, in resource.svc_blacklist_entry.blacklist_203_0_113_9:
  31:       }

plan svc_blacklist_entry: login: POST http://127.0.0.1:38523/svc_api/v2/login
failed: ECONNREFUSED (connect ECONNREFUSED 127.0.0.1:38523). Check that the
base URL is right and the service is reachable. Gave up: ECONNREFUSED after 6
of 6 attempts. Check base_url (or SVC_BASE_URL), the network path to it, and
request_timeout_seconds.
`;

// The emulator's event loop was blocked, so it accepted the connection and never answered.
const SVC_TIMEOUT = `
Error: Could not reach the svc management API

  with svc_blacklist_entry.blacklist_203_0_113_9,
  on cdk.tf.json line 31, in resource.svc_blacklist_entry.blacklist_203_0_113_9:
  31:       }

plan svc_blacklist_entry: login: POST http://127.0.0.1:40765/svc_api/v2/login
failed: UND_ERR_HEADERS_TIMEOUT (Headers Timeout Error). Check that the base
URL is right and the service is reachable. Gave up: UND_ERR_HEADERS_TIMEOUT;
waiting 256 ms would pass the 60000 ms deadline. Check base_url (or
SVC_BASE_URL), the network path to it, and request_timeout_seconds.
`;

const MISSING_VARIABLE_AND_LOCK = `
Error: Inconsistent dependency lock file

The following dependency selections recorded in the lock file are
inconsistent with the current configuration:
  - provider registry.terraform.io/hashicorp/aws: required by this configuration but no version is selected

To make the initial dependency selections that will initialize the dependency
lock file, run:
  terraform init

Error: No value for required variable

  on cdk.tf.json line 1735, in variable:
1735:     "api_key": {

The root module input variable "api_key" is not set, and has no default
value. Use a -var or -var-file command line argument to provide a value for
this variable.
`;

const MIRROR_WITHOUT_VERSION = `
Error: Failed to query available provider packages

Could not retrieve the list of available versions for provider hashicorp/aws:
no available releases match the given constraints 6.11.0
`;

// The security-policy stack with a user CLI config whose provider_installation has only direct {}.
const SVC_FROM_REGISTRY = `
Error: Failed to query available provider packages

Could not retrieve the list of available versions for provider
svc-prevent/svc: could not connect to registry.terraform.io: failed to
request discovery document: Get
"https://registry.terraform.io/.well-known/terraform.json": dial tcp: lookup
registry.terraform.io on 10.255.255.53:53: no such host

To see which modules are currently depending on svc-prevent/svc and what
versions are specified, run the following command:
    terraform providers
`;

describe('unreachableStack: skip only what cannot be reached', () => {
  const cases: Array<[name: string, output: string, expected: UnreachableReason | null]> = [
    ['terraform init: the provider registry has no DNS answer', REGISTRY_DNS, 'provider registry not reachable'],
    ['the same, boxed (without -no-color)', REGISTRY_DNS.split('\n').map((line) => `│ ${line}`).join('\n'), 'provider registry not reachable'],
    ['AWS: no credentials at all (two diagnostics, both about it)', NO_AWS_CREDENTIALS, 'no AWS credentials'],
    ['AWS: STS connection refused', AWS_STS_CONNECTION_REFUSED, 'endpoint not reachable'],
    ['svc: the API port is closed', SVC_CLOSED_PORT, 'endpoint not reachable'],
    ['svc: the API never answers (timeout)', SVC_TIMEOUT, 'endpoint not reachable'],
    ['svc: a wrong API key is a refusal, never skipped', SVC_WRONG_KEY, null],
    ['AWS: an invalid access key (403 InvalidClientTokenId) is a refusal', AWS_INVALID_TOKEN, null],
    ['configuration errors: a variable not set, an inconsistent lock file', MISSING_VARIABLE_AND_LOCK, null],
    ['a mirror without the version asked for is a setup error, not the network', MIRROR_WITHOUT_VERSION, null],
    ['svc-prevent/svc looked up on the registry (its mirror hidden by the CLI config) is a setup error', SVC_FROM_REGISTRY, null],
    ['unreachable and a refusal together: the refusal wins', `${SVC_CLOSED_PORT}\n${SVC_WRONG_KEY}`, null],
    ['unreachable and a configuration error together: not skipped', `${REGISTRY_DNS}\n${MISSING_VARIABLE_AND_LOCK}`, null],
    ['no diagnostic at all (a crash): not skipped', 'panic: runtime error\n', null],
    [
      'svc closed port, and the provider\'s follow-on notes for the other resources: still unreachable',
      `Error: Skipped: the svc provider could not log in\n\nread svc_blacklist_entry: not sent.\n\n${SVC_CLOSED_PORT}\nError: Skipped: the svc provider could not log in\n\nread svc_whitelist: not sent.\n`,
      'endpoint not reachable',
    ],
  ];
  test.each(cases)('%s', (_name, output, expected) => expect(unreachableStack(output)).toBe(expected));
});

test('errorDiagnostics splits terraform output into summaries and one-line details, warnings left out', () => {
  const output = `${SVC_WRONG_KEY}\nWarning: Deprecated\n\nsomething old\n${NO_AWS_CREDENTIALS}`;
  expect(errorDiagnostics(output).map((diagnostic) => diagnostic.summary)).toEqual([
    'Login to the svc management API failed',
    'No valid credential sources found',
    'failed to refresh cached credentials, no EC2 IMDS role found,',
  ]);
  expect(errorDiagnostics(SVC_WRONG_KEY)[0].detail).toContain('login refused for tenant "acme": bad API key or inactive user.');
});
