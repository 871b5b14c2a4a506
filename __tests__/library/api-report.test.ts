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

test('an export without TSDoc is marked, so review sees it', () => {
  for (const [file, report] of reports) {
    const count = Number(/(\d+) of them without TSDoc/.exec(report)?.[1]);
    const marked = report.split('\n').filter((line) => line === '// (undocumented)').length;
    expect([file, marked]).toEqual([file, count]);
  }
});
