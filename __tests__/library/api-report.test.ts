/**
 * The library's public surface (scripts/api-report.ts): api/<entry>.api.md is what each entry
 * point of package.json's exports offers today, so a change of it shows in review; the
 * internals issue 32 named stay out of the curated security-policy entry point.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { entryPoints, renderApiReports, staleApiReports } from '../../scripts/api-report';

const REPOSITORY = path.resolve(__dirname, '..', '..');
let reports: Map<string, string>;

beforeAll(() => {
  reports = renderApiReports();
}, 120_000);

test('the committed reports are the public surface of the code (npm run api-report after a reviewed change)', () => {
  expect(staleApiReports()).toEqual([]);
}, 120_000);

test('every entry point of package.json (but the cdktn flavour of the same files) has a report', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(REPOSITORY, 'package.json'), 'utf8'));
  const subpaths = Object.keys(manifest.exports).filter((subpath) => subpath !== './package.json' && !subpath.startsWith('./cdktn'));
  expect(entryPoints().map((entry) => entry.specifier)).toEqual(subpaths.map((subpath) => (subpath === '.' ? 'svc-prevent' : `svc-prevent/${subpath.slice(2)}`)));
  expect([...reports.keys()].sort()).toEqual(entryPoints().map((entry) => entry.report).sort());
});

test('svc-prevent/security-policy exports neither the app\'s config parsers nor the rules\' internals', () => {
  const report = reports.get('api/svc-prevent.security-policy.api.md') ?? '';
  expect(report).toContain('export class SecurityPolicy extends Construct {');
  for (const internal of ['parseSecurityPolicyConfig', 'svcProviderSettings', 'SECURITY_POLICY_PROP_NAMES', 'checkSelfLockout', 'checkBroadRanges', 'ssoSettingsProblem', 'describeSource']) {
    expect([internal, report.includes(`export function ${internal}`) || report.includes(`export const ${internal}`)]).toEqual([internal, false]);
  }
  // The types its public signatures use can be imported too.
  expect(report).toMatch(/^export (interface|type) ParsedAddress\b/m);
  expect(report).toMatch(/^export type AddressFamily\b/m);
});

test.each([
  ['api/svc-prevent.architecture-rules.api.md', 'export class ArchitectureRules implements IAspect {', ['checkMultiAzPlacement', 'checkAutoScalingGroups', 'checkPrivatePlacement', 'checkTlsListeners', 'checkSensorConnectivity', 'checkScannerIngressGuidance', 'isTls12OrLaterPolicy', 'resolveArchitectureRulesOptions']],
  ['api/svc-prevent.deployment-policy.api.md', 'export class DeploymentPolicy extends Construct {', ['validateDeploymentPolicyValues', 'trustPrincipal', 'statementGroup', 'namedDeploymentPolicyDocument', 'SPEC_AREAS', 'TERRAFORM_READ_SID_PREFIX', 'TERRAFORM_WRITE_SID_PREFIX']],
  ['api/svc-prevent.control-plane.api.md', 'export class ControlPlane extends Construct {', ['resolveControlPlaneProps', 'ResolvedControlPlaneProps', 'CONTROL_PLANE_DEFAULTS', 'resolveServices', 'serviceImage', 'SERVICES', 'ServiceDefinition', 'validateControlPlaneProps', 'renderUserData', 'addPlanChecks']],
])('%s keeps its internals inside the package', (file, construct, internals) => {
  const report = reports.get(file) ?? '';
  expect(report).toContain(construct);
  for (const internal of internals) {
    expect([internal, new RegExp(`^export (function|const|type|interface) ${internal}\\b`, 'm').test(report)]).toEqual([internal, false]);
  }
});

test('ControlPlane keeps its resolved props to itself: no public props member', () => {
  const report = reports.get('api/svc-prevent.control-plane.api.md') ?? '';
  const controlPlane = report.slice(report.indexOf('export class ControlPlane extends Construct {'));
  expect(controlPlane.slice(0, controlPlane.indexOf('\n}'))).not.toMatch(/^\s*readonly props\b/m);
  expect(report).not.toMatch(/^\s*\/\/ \(undocumented\)$/m);
});

test('the architecture rules, the deployment policy and the client document every export and member, and every type their signatures name can be imported', () => {
  for (const file of ['api/svc-prevent.architecture-rules.api.md', 'api/svc-prevent.deployment-policy.api.md', 'api/svc-prevent.client.api.md']) {
    const report = reports.get(file) ?? '';
    expect([file, /^\s*\/\/ \(undocumented\)$/m.test(report)]).toEqual([file, false]);
    const exported = new Set([...report.matchAll(/^export (?:abstract )?(?:class|interface|type|function|const) (\w+)/gm)].map((match) => match[1]));
    // Capitalised names in the signatures are types: each is exported here, or comes from cdktf, constructs or the AWS provider, or is TypeScript's own.
    const foreign = new Set(['Construct', 'IConstruct', 'IAspect', 'TerraformStack', 'TerraformResource', 'TerraformDataSource', 'TerraformProvider', 'IamPolicy', 'IamRole', 'Error', 'Readonly', 'Record', 'Partial', 'Promise', 'Dispatcher', 'InspectOptions']);
    const named = new Set([...report.replace(/^<!--.*$|^#.*$|^\d+ exports.*$/gm, '').matchAll(/:\s*(?:readonly\s+)?([A-Z]\w*)\b|\b(?:extends|implements|Readonly<|Record<string,\s*)([A-Z]\w*)/g)].map((match) => match[1] ?? match[2]));
    const typeParameters = new Set([...report.matchAll(/<(\w+) extends /g)].map((match) => match[1]));
    const missing = [...named].filter((name) => !exported.has(name) && !foreign.has(name) && !typeParameters.has(name) && !/^[A-Z_0-9]+$/.test(name));
    expect([file, missing]).toEqual([file, []]);
  }
});

test('svc-prevent/client is the client, its options, errors and entry shapes: no transport, retry, reply-check or redaction internals', () => {
  const report = reports.get('api/svc-prevent.client.api.md') ?? '';
  expect(report).toContain('export class ManagementClient {');
  expect(report).toMatch(/^export interface ManagementClientOptions\b/m);
  for (const error of ['ManagementApiError', 'ValidationError', 'TransportError', 'NotFoundError', 'ClientClosedError']) expect(report).toMatch(new RegExp(`^export class ${error}\\b`, 'm'));
  for (const internal of ['HttpTransport', 'decideRetry', 'backoffDelay', 'parseRetryAfter', 'Session', 'SharedReads', 'SecretRegistry', 'secretRegistry', 'registerSecret', 'redact', 'parseReplyBody', 'checkListEntries', 'ReplyValueError', 'canonicalIp', 'normaliseEntry', 'splitIntoCalls', 'insecureHttpHost', 'ApiArea']) {
    expect([internal, new RegExp(`^export (abstract )?(class|function|const|type|interface) ${internal}\\b`, 'm').test(report)]).toEqual([internal, false]);
  }
  // The ManagementClient example in its TSDoc is what a reader of the .d.ts sees first.
  const source = fs.readFileSync(path.join(REPOSITORY, 'src/api/client.ts'), 'utf8');
  expect(source).toMatch(/@example[\s\S]*import \{ ManagementClient \} from 'svc-prevent\/client';[\s\S]*export class ManagementClient \{/);
});

test('every entry point documents every export and public member with TSDoc', () => {
  for (const [file, report] of reports) {
    const undocumented = report
      .split('\n\n')
      .filter((block) => /^\s*\/\/ \(undocumented\)$/m.test(block))
      .map((block) => /^export (?:abstract )?(?:class|interface|type|function|const|namespace) (\w+)/m.exec(block)?.[1] ?? block.slice(0, 80));
    expect([file, undocumented]).toEqual([file, []]);
  }
});

test('an export without TSDoc is marked, so review sees it', () => {
  for (const [file, report] of reports) {
    const count = Number(/(\d+) of them without TSDoc/.exec(report)?.[1]);
    const marked = report.split('\n').filter((line) => line === '// (undocumented)').length;
    expect([file, marked]).toEqual([file, count]);
  }
});
