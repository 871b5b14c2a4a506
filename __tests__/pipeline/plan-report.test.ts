/**
 * `svc plan-report` on plans real terraform made against the provider and the emulator: whole
 * lists and per-entry resources of all three lists adding, removing and re-describing entries
 * (two tenants), SSO changes with their consequences, drift written through the raw API (with
 * escape sequences), another provider's resources counted, guardrail warnings from
 * `terraform plan -json` next to their entries, and a 10,000-entry whole list (Markdown under
 * the limit, JSON complete). The Markdown of the first plan is also what help/pipelines.md shows.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { main } from '../../src/pipeline/svc-cli';
import { buildPlanReport, ssoConsequences, type PlanReport } from '../../src/pipeline/plan-report';
import { MARKDOWN_LIMIT, renderMarkdown } from '../../src/pipeline/plan-report-render';
import { hclString, resourceBlock } from '../../scripts/terraform-harness/hcl';
import type { Workspace } from '../../scripts/terraform-harness/workspace';
import { useAcceptanceHarness } from '../provider-acceptance/support/harness';

jest.setTimeout(240_000);

const harness = useAcceptanceHarness({ tenants: ['acme', 'globex', 'huge'], channels: ['main'] });

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function svc(workspace: Workspace, argv: string[]): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: workspace.env,
    workingDirectory: workspace.dir,
  });
  return { code, stdout, stderr };
}

const map = (entries: Record<string, string>) => `{\n${Object.entries(entries).map(([ip, description]) => `    ${hclString(ip)} = ${hclString(description)}`).join('\n')}\n  }`;

/** Whole lists on tenant acme, per-entry resources on globex, SSO, and a terraform_data (another provider). */
function configuration(version: 1 | 2): string {
  const acme = version === 1
    ? {
        blacklist: { '203.0.113.1': 'A one', '203.0.113.2': 'A two', '203.0.113.3': 'A three' },
        blocklist: { '198.51.100.1': 'scanner', '198.51.100.2': 'bot' },
        whitelist: { '192.0.2.1': 'office', '192.0.2.2': 'vpn' },
      }
    : {
        blacklist: { '203.0.113.1': 'A one', '203.0.113.3': 'A three, ticket SEC-9', '203.0.113.4': 'A four | <details> @security-team', '10.0.0.0/7': 'too broad' },
        blocklist: { '198.51.100.2': 'bot', '198.51.100.3': 'crawler' },
        whitelist: { '192.0.2.1': 'office (new)', '192.0.2.3': 'partner' },
      };
  const entries = version === 1
    ? { blacklist: [['b1', '203.0.113.101', 'G one'], ['b2', '203.0.113.102', 'G two']], blocklist: [['k1', '198.51.100.101', 'G block']], whitelist: [['w1', '192.0.2.101', 'G office'], ['w2', '192.0.2.102', 'G vpn']] }
    : { blacklist: [['b1', '203.0.113.101', 'G one, changed'], ['b3', '203.0.113.103', 'G three']], blocklist: [['k2', '198.51.100.102', 'G block 2']], whitelist: [['w1', '192.0.2.101', 'G office'], ['w3', '192.0.2.103', 'G partner']] };
  return [
    harness().providerBlock('acme'),
    ...Object.entries(acme).map(([list, values]) => resourceBlock(`svc_${list}`, list, { entries: map(values) })),
    ...Object.entries(entries).flatMap(([list, items]) => items.map(([name, ip, description]) => resourceBlock(`svc_${list}_entry`, name!, { tenant: hclString('globex'), ip: hclString(ip!), description: hclString(description!) }))),
    // Version 2 requires SSO with a new metadata URL: the provider's lockout guard refuses that
    // unless the resource says the sign-in was tested elsewhere, and the report still names the risk.
    resourceBlock('svc_tenant_sso', 'acme', {
      name: hclString('acme'),
      enabled: 'true',
      required: String(version === 2),
      saml_metadata_url: hclString(version === 1 ? 'https://idp.example/acme' : 'https://idp2.example/acme'),
      ...(version === 2 ? { sign_in_tested_elsewhere: 'true' } : {}),
    }),
    ...(version === 1 ? [resourceBlock('svc_channel_sso', 'main', { name: hclString('main'), enabled: 'true', saml_metadata_url: hclString('https://idp.example/main') })] : []),
    resourceBlock('terraform_data', 'marker', { input: hclString(`v${version}`) }),
  ].join('\n');
}

describe('a plan that changes every kind of thing', () => {
  let workspace: Workspace;
  let report: PlanReport;
  let markdown: string;

  beforeAll(async () => {
    workspace = harness().createWorkspace('plan-report');
    workspace.write(configuration(1));
    await workspace.init();
    await workspace.apply();
    // Someone in the console: removes one entry and re-describes another with escape sequences and a bidi override.
    const console = harness().emulator.consoleClient('acme');
    await console.deleteEntry('whitelist', '192.0.2.2');
    const post = async (area: string, body: unknown) => (await fetch(`${harness().emulator.url}/svc_api/v2/${area}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<Record<string, any>>;
    const login = await post('login', { command: 'login', api_token: harness().emulator.apiKey });
    await post('lists', { command: 'new_blocklist', token: login.Ok.token, customer_name: 'acme', entry: { ip: '198.51.100.2', description: '\u001b[2J\u001b[32mNo changes.\u001b[0m \u202egro.live', created: 1_800_000_000 } });
    workspace.write(configuration(2));
    const plan = await workspace.terraform(['plan', '-json', '-input=false', '-out=plan.bin']);
    expect(plan.code).toBe(0);
    fs.writeFileSync(path.join(workspace.dir, 'plan.log'), plan.stdout);
    const json = await svc(workspace, ['plan-report', 'plan.bin', '--diagnostics', 'plan.log', '--format', 'json']);
    expect(json).toMatchObject({ code: 0, stderr: '' });
    report = JSON.parse(json.stdout) as PlanReport;
    const rendered = await svc(workspace, ['plan-report', 'plan.bin', '--diagnostics', 'plan.log']);
    expect(rendered.code).toBe(0);
    markdown = rendered.stdout;
  });

  const entriesOf = (tenant: string, list: string) =>
    report.changes.lists.find((changes) => changes.tenant === tenant && changes.list === list)!.entries.map(({ kind, ip, before, after, address }) => ({ kind, ip, before, after, address }));

  test('whole lists: added, removed and re-described entry by entry, in all three lists', () => {
    expect(entriesOf('acme', 'blacklist')).toEqual([
      { kind: 'removed', ip: '203.0.113.2', before: 'A two', address: 'svc_blacklist.blacklist' },
      { kind: 're-described', ip: '203.0.113.3', before: 'A three', after: 'A three, ticket SEC-9', address: 'svc_blacklist.blacklist' },
      { kind: 'added', ip: '10.0.0.0/7', after: 'too broad', address: 'svc_blacklist.blacklist' },
      { kind: 'added', ip: '203.0.113.4', after: 'A four | <details> @security-team', address: 'svc_blacklist.blacklist' },
    ]);
    expect(entriesOf('acme', 'blocklist')).toEqual([
      { kind: 'removed', ip: '198.51.100.1', before: 'scanner', address: 'svc_blocklist.blocklist' },
      // The client shows the console's control characters escaped before they reach state (src/api/reply-checks.ts).
      // The console's re-description (drift below), which the plan puts back.
      { kind: 're-described', ip: '198.51.100.2', before: '\\u001b[2J\\u001b[32mNo changes.\\u001b[0m \\u202egro.live', after: 'bot', address: 'svc_blocklist.blocklist' },
      { kind: 'added', ip: '198.51.100.3', after: 'crawler', address: 'svc_blocklist.blocklist' },
    ]);
    expect(entriesOf('acme', 'whitelist')).toEqual([
      { kind: 're-described', ip: '192.0.2.1', before: 'office', after: 'office (new)', address: 'svc_whitelist.whitelist' },
      { kind: 'added', ip: '192.0.2.3', after: 'partner', address: 'svc_whitelist.whitelist' },
    ]);
  });

  test('per-entry resources: added, removed and re-described, in all three lists of the other tenant', () => {
    expect(entriesOf('globex', 'blacklist')).toEqual([
      { kind: 'removed', ip: '203.0.113.102', before: 'G two', address: 'svc_blacklist_entry.b2' },
      { kind: 're-described', ip: '203.0.113.101', before: 'G one', after: 'G one, changed', address: 'svc_blacklist_entry.b1' },
      { kind: 'added', ip: '203.0.113.103', after: 'G three', address: 'svc_blacklist_entry.b3' },
    ]);
    expect(entriesOf('globex', 'blocklist')).toEqual([
      { kind: 'removed', ip: '198.51.100.101', before: 'G block', address: 'svc_blocklist_entry.k1' },
      { kind: 'added', ip: '198.51.100.102', after: 'G block 2', address: 'svc_blocklist_entry.k2' },
    ]);
    expect(entriesOf('globex', 'whitelist')).toEqual([
      { kind: 'removed', ip: '192.0.2.102', before: 'G vpn', address: 'svc_whitelist_entry.w2' },
      { kind: 'added', ip: '192.0.2.103', after: 'G partner', address: 'svc_whitelist_entry.w3' },
    ]);
  });

  test('SSO: required with a new metadata URL, and SSO turned off, each consequence named', () => {
    const tenant = report.changes.sso.find((change) => change.owner.kind === 'tenant')!;
    expect(tenant.consequences).toEqual([
      expect.stringMatching(/^SSO becomes required: password sign-in to the dashboard is refused.*changes the metadata URL: nobody can have signed in through it yet, a lockout risk; the configuration sets sign_in_tested_elsewhere = true/),
      'a new identity provider: sign-in trusts the metadata at https://idp2.example/acme; check it is yours',
    ]);
    const channel = report.changes.sso.find((change) => change.owner.kind === 'channel')!;
    expect(channel).toMatchObject({ action: 'delete', owner: { name: 'main' } });
    expect(channel.consequences).toEqual([expect.stringMatching(/^SSO is turned off: everyone signs in with a password/)]);
  });

  test('other providers: counted only', () => {
    expect(report.changes.otherResources).toEqual([{ provider: 'terraform.io/builtin/terraform', create: 0, update: 1, delete: 0, replace: 0 }]);
  });

  test('drift apart: the console removal and the re-description (escaped in the report)', () => {
    const drift = report.drift.lists.flatMap((list) => list.entries.map(({ kind, ip, before, after }) => ({ list: list.list, kind, ip, before, after })));
    expect(drift).toEqual([
      { list: 'blocklist', kind: 're-described', ip: '198.51.100.2', before: 'bot', after: '\\u001b[2J\\u001b[32mNo changes.\\u001b[0m \\u202egro.live' },
      { list: 'whitelist', kind: 'removed', ip: '192.0.2.2', before: 'vpn', after: undefined },
    ]);
    expect(markdown).toContain('### Drift: acme · blocklist: 1 re-described');
    expect(markdown).not.toMatch(/[\u001b\u202e]/);
    // Escaped once at the client, as visible text; Markdown then escapes its backslash and bracket.
    expect(markdown).toContain('\\\\u001b\\[2J');
  });

  test('guardrail warnings from terraform plan -json sit next to the entries they name', () => {
    const broad = report.changes.lists.find((list) => list.tenant === 'acme' && list.list === 'blacklist')!.entries.find((entry) => entry.ip === '10.0.0.0/7')!;
    expect(broad.findings).toEqual([expect.objectContaining({ severity: 'warning', summary: 'Very broad range on the blacklist', address: 'svc_blacklist.blacklist' })]);
    expect(report.totals.warnings).toBeGreaterThanOrEqual(1);
    expect(markdown).toMatch(/\| ➕ added \| 10\.0\.0\.0\/7 \| too broad \| svc\\_blacklist\.blacklist \| ⚠️ warning: Very broad range on the blacklist/);
  });

  test('Markdown: the summary line first, the SSO consequences next, tables, hostile text escaped', () => {
    const lines = markdown.split('\n');
    expect(lines[0]).toBe(`**svc plan:** 7 addresses added, 5 removed, 4 re-described, 2 SSO changes · ${report.totals.warnings} warning${report.totals.warnings === 1 ? '' : 's'} · drift: 2 changes outside terraform · 1 other resource changed`);
    expect(lines.slice(2, 6)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^> ⚠️ \*\*tenant acme:\*\* SSO becomes required/), expect.stringMatching(/^> ⚠️ \*\*channel main:\*\* SSO is turned off/)]),
    );
    expect(markdown).toContain('| ➕ added | 203.0.113.4 | A four &#124; &lt;details&gt; &#64;security-team | svc\\_blacklist.blacklist |  |');
    expect(markdown).not.toContain('<details> @security-team');
    expect(markdown.length).toBeLessThan(MARKDOWN_LIMIT);
  });

  test('help/pipelines.md shows this very report', () => {
    const page = path.join(__dirname, '..', '..', 'help', 'pipelines.md');
    const text = fs.readFileSync(page, 'utf8');
    const start = text.indexOf('-->', text.indexOf('<!-- plan-report example: start')) + '-->\n'.length;
    const end = text.indexOf('<!-- plan-report example: end -->');
    const example = `\n---\n\n${markdown}\n---\n\n`;
    if (process.env.SVC_UPDATE_HELP === '1') fs.writeFileSync(page, text.slice(0, start) + example + text.slice(end));
    else expect(text.slice(start, end)).toBe(example);
  });

  test('text for a terminal, and --fail-on warning exits 2 with the report written', async () => {
    const text = await svc(workspace, ['plan-report', 'plan.bin', '--diagnostics', 'plan.log', '--format', 'text', '--fail-on', 'warning']);
    expect(text.code).toBe(2);
    expect(text.stdout).toMatch(/^svc plan: 7 addresses added, 5 removed, 4 re-described, 2 SSO changes/);
    expect(text.stdout).toContain('  acme · blacklist: 1 removed, 1 re-described, 2 added\n    - 203.0.113.2  was "A two"  (svc_blacklist.blacklist)');
    expect(text.stdout).not.toMatch(/[\u001b\u202e]/);
    expect((await svc(workspace, ['plan-report', 'plan.bin', '--diagnostics', 'plan.log', '--fail-on', 'never'])).code).toBe(0);
  });

  test('--show-json reads terraform show -json output; bad input is named', async () => {
    const shown = await workspace.terraform(['show', '-json', 'plan.bin']);
    fs.writeFileSync(path.join(workspace.dir, 'plan.json'), shown.stdout);
    const fromJson = await svc(workspace, ['plan-report', '--show-json', 'plan.json', '--format', 'json']);
    expect(JSON.parse(fromJson.stdout).totals).toEqual(expect.objectContaining({ added: 7, removed: 5, redescribed: 4, sso: 2, drift: 2, otherResources: 1 }));
    fs.writeFileSync(path.join(workspace.dir, 'state.json'), (await workspace.terraform(['show', '-json'])).stdout);
    const cases: Array<[string[], RegExp]> = [
      [['plan-report'], /PLANFILE is missing/],
      [['plan-report', 'missing.bin'], /PLANFILE "missing.bin" does not exist/],
      [['plan-report', 'main.tf'], /terraform show -json .*main\.tf in .* failed: Error: /],
      [['plan-report', '--show-json', 'main.tf'], /--show-json "main.tf" is not JSON/],
      [['plan-report', '--show-json', 'state.json'], /is a state, not a plan/],
      [['plan-report', 'plan.bin', '--diagnostics', 'main.tf'], /--diagnostics "main.tf": line 1 of the diagnostics is not JSON/],
      [['plan-report', 'plan.bin', '--format', 'html'], /--format "html": expected markdown, text, json/],
      [['plan-report', 'plan.bin', '--fail-on', 'info'], /--fail-on "info": expected error, warning, never/],
      [['plan-report', 'plan.bin', '--dir', 'nowhere'], /--dir ".*nowhere" is not a directory/],
    ];
    for (const [argv, message] of cases) {
      const run = await svc(workspace, argv);
      expect({ argv, code: run.code }).toEqual({ argv, code: 1 });
      expect(run.stderr).toMatch(message);
    }
  });
});

describe('a 10,000-entry whole list', () => {
  test('the Markdown stays under the limit and counts what it leaves out; the JSON has every entry', async () => {
    const workspace = harness().createWorkspace('plan-report-huge');
    const entries: Record<string, string> = {};
    for (let index = 0; index < 10_000; index += 1) entries[`10.${Math.floor(index / 256)}.${index % 256}.1`] = `host ${index} of the scan`;
    workspace.write(harness().providerBlock('huge') + resourceBlock('svc_blacklist', 'all', { entries: map(entries) }));
    await workspace.init();
    expect((await workspace.terraform(['plan', '-input=false', '-out=plan.bin'])).code).toBe(0);
    const markdown = await svc(workspace, ['plan-report', 'plan.bin']);
    expect(markdown.code).toBe(0);
    expect(markdown.stdout.length).toBeLessThanOrEqual(MARKDOWN_LIMIT);
    expect(markdown.stdout.split('\n')[0]).toBe('**svc plan:** 10000 addresses added');
    expect(markdown.stdout).toMatch(/<details><summary>➕ added: 10000 in huge · blacklist<\/summary>/);
    const shown = markdown.stdout.split('\n').filter((line) => line.startsWith('| ➕ added |')).length;
    expect(shown).toBeGreaterThan(100);
    expect(markdown.stdout).toContain(`_${10_000 - shown} more not shown here (the comment's size limit); \`svc plan-report --format json\` lists every one._`);
    const json = JSON.parse((await svc(workspace, ['plan-report', 'plan.bin', '--format', 'json'])).stdout) as PlanReport;
    expect(json.changes.lists[0]!.entries).toHaveLength(10_000);
    expect(new Set(json.changes.lists[0]!.entries.map((entry) => entry.ip)).size).toBe(10_000);
  });
});

describe('rules without terraform', () => {
  test('removals are the last rows left out: with a small limit every removal is still shown', () => {
    const before = Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`192.0.2.${index}`, `old ${index}`]));
    const after = Object.fromEntries(Array.from({ length: 400 }, (_, index) => [`198.51.100.${index % 250}/32`.replace(/\/32$/, '') + (index >= 250 ? '' : ''), `new ${index}`]));
    const plan = {
      format_version: '1.2',
      resource_changes: [
        { address: 'svc_blacklist.b', type: 'svc_blacklist', mode: 'managed', provider_name: 'registry.terraform.io/svc-prevent/svc', change: { actions: ['update'], before: { tenant: 't', entries: before }, after: { tenant: 't', entries: after } } },
      ],
    };
    const report = buildPlanReport(plan);
    expect(report.totals).toMatchObject({ removed: 30, added: 250 });
    const markdown = renderMarkdown(report, 6_000);
    expect(markdown.length).toBeLessThanOrEqual(6_000);
    expect(markdown.split('\n').filter((line) => line.startsWith('| ➖ removed |'))).toHaveLength(30);
    expect(markdown).toMatch(/_\d+ more not shown here/);
  });

  test.each([
    ['enabled and required in one change', null, { enabled: true, required: true, saml_metadata_url: 'https://idp.example/x' }, [/^SSO becomes required.*turns SSO on: nobody can have signed in/, /^SSO is turned on$/, /^a new identity provider/]],
    ['enabled and required in one change, tested elsewhere', null, { enabled: true, required: true, saml_metadata_url: 'https://idp.example/x', sign_in_tested_elsewhere: true }, [/turns SSO on: nobody can have signed in through it yet, a lockout risk; the configuration sets sign_in_tested_elsewhere = true/, /^SSO is turned on$/, /^a new identity provider/]],
    ['required after testing (same URL)', { enabled: true, required: false, saml_metadata_url: 'https://idp.example/x' }, { enabled: true, required: true, saml_metadata_url: 'https://idp.example/x' }, [/^SSO becomes required: password sign-in to the dashboard is refused; everyone must sign in through the identity provider$/]],
    ['no longer required', { enabled: true, required: true, saml_metadata_url: 'https://idp.example/x' }, { enabled: true, required: false, saml_metadata_url: 'https://idp.example/x' }, [/^SSO is no longer required/]],
    ['turned off by enabled = false', { enabled: true, required: false, saml_metadata_url: 'https://idp.example/x' }, { enabled: false, required: false, saml_metadata_url: null }, [/^SSO is turned off/]],
  ] as const)('SSO consequence: %s', (_name, before, after, expected) => {
    const consequences = ssoConsequences(before, after);
    expect(consequences).toHaveLength(expected.length);
    expected.forEach((pattern, index) => expect(consequences[index]).toMatch(pattern));
  });
});
