/**
 * The plan report's rules on hand-written `terraform show -json` documents (no terraform): the
 * shapes real plans take less often (replacements, unknown and sensitive values, data sources,
 * resources of no known type), where a finding lands, what is refused as input, and how the
 * Markdown and text renderers show each of them. plan-report.test.ts covers the common shapes
 * on plans real terraform made.
 */
import {
  DEFAULT_TENANT,
  PlanReportError,
  buildPlanReport,
  checkPlanDocument,
  parsePlanLog,
  ssoConsequences,
  type Finding,
  type JsonChange,
  type JsonPlanDocument,
  type JsonResourceChange,
} from '../../src/pipeline/plan-report';
import { renderMarkdown, renderText, summaryLine } from '../../src/pipeline/plan-report-render';

const SVC = 'registry.terraform.io/svc-prevent/svc';

function resource(address: string, change: JsonChange, extra: Partial<JsonResourceChange> = {}): JsonResourceChange {
  const type = address.split('.').slice(-2, -1)[0];
  return { address, mode: 'managed', type, provider_name: SVC, change, ...extra };
}

const plan = (changes: JsonResourceChange[], extra: Partial<JsonPlanDocument> = {}): JsonPlanDocument => ({ format_version: '1.2', resource_changes: changes, ...extra });

const warning = (summary: string, address?: string, detail = ''): Finding => ({ severity: 'warning', summary, detail, ...(address === undefined ? {} : { address }) });

describe('which changes count', () => {
  test('data sources and no-op or read actions are left out; a change without type or provider is still placed', () => {
    const report = buildPlanReport(
      plan([
        resource('data.svc_blacklist.read', { actions: ['read'], after: { tenant: 't', entries: { '192.0.2.1': 'x' } } }, { mode: 'data' }),
        resource('svc_blacklist.same', { actions: ['no-op'], before: { tenant: 't', entries: {} }, after: { tenant: 't', entries: {} } }),
        // No type: it is read from the address; no provider name: counted as an unknown provider.
        { address: 'module.m.svc_whitelist.w', provider_name: SVC, change: { actions: ['create'], after: { tenant: 't', entries: { '192.0.2.9': 'typed by its address' } } } },
        { address: 'thing.x', type: 'thing', change: { actions: ['update'] } },
        resource('svc_tenant.t', { actions: ['delete'], before: { name: 't' } }),
      ]),
    );
    expect(report.changes.lists).toEqual([{ tenant: 't', list: 'whitelist', entries: [expect.objectContaining({ kind: 'added', ip: '192.0.2.9', address: 'module.m.svc_whitelist.w' })], notes: [], findings: [] }]);
    expect(report.changes.otherResources).toEqual([
      { provider: SVC, create: 0, update: 0, delete: 1, replace: 0 },
      { provider: 'unknown provider', create: 0, update: 1, delete: 0, replace: 0 },
    ]);
    expect(report.totals).toMatchObject({ added: 1, otherResources: 2, drift: 0 });
  });

  test('the tenant left to the provider: its literal tenant, else the placeholder', () => {
    const change = resource('svc_blocklist.b', { actions: ['create'], after: { entries: { '198.51.100.1': 'bot' } }, after_unknown: { tenant: true } });
    const literal = buildPlanReport(plan([change], { configuration: { provider_config: { svc: { name: 'svc', expressions: { tenant: { constant_value: 'acme' } } } } } }));
    expect(literal.changes.lists.map((list) => list.tenant)).toEqual(['acme']);
    const computed = buildPlanReport(plan([change], { configuration: { provider_config: { svc: { name: 'svc', expressions: { tenant: { constant_value: '' } } } } } }));
    expect(computed.changes.lists.map((list) => list.tenant)).toEqual([DEFAULT_TENANT]);
  });
});

describe('whole lists', () => {
  test('replaced in place: every entry removed and added again, with a note saying the list is briefly without them', () => {
    const entries = { '203.0.113.1': 'one', '203.0.113.2': 'two' };
    const report = buildPlanReport(plan([resource('svc_blacklist.b', { actions: ['delete', 'create'], before: { tenant: 't', entries }, after: { tenant: 't', entries } })]));
    const [list] = report.changes.lists;
    expect(list!.notes).toEqual(['svc_blacklist.b is replaced: its 2 entries are removed and then added again, so the list is without them for a moment']);
    expect(list!.entries.map((entry) => `${entry.kind} ${entry.ip}`)).toEqual(['removed 203.0.113.1', 'removed 203.0.113.2', 'added 203.0.113.1', 'added 203.0.113.2']);
  });

  test('destroyed: every entry removed, none added', () => {
    const report = buildPlanReport(plan([resource('svc_blocklist.b', { actions: ['delete'], before: { tenant: 't', entries: { '198.51.100.1': 'bot', '198.51.100.2': 'scanner' } }, after: null })]));
    expect(report.changes.lists[0]!.entries.map((entry) => `${entry.kind} ${entry.ip} "${entry.before}"`)).toEqual(['removed 198.51.100.1 "bot"', 'removed 198.51.100.2 "scanner"']);
    expect(report.totals).toMatchObject({ removed: 2, added: 0 });
  });

  test('moved to another tenant: removed from one, added to the other, no replacement note', () => {
    const report = buildPlanReport(plan([resource('svc_whitelist.w', { actions: ['update'], before: { tenant: 'a', entries: { '192.0.2.1': 'office' } }, after: { tenant: 'b', entries: { '192.0.2.1': 'office' } } })]));
    expect(report.changes.lists.map((list) => [list.tenant, list.notes, list.entries.map((entry) => entry.kind)])).toEqual([
      ['a', [], ['removed']],
      ['b', [], ['added']],
    ]);
  });

  test.each([
    ['the entries attribute', { entries: true }],
    ['the whole object', true],
  ])('entries unknown until apply (%s): a note, and no entry reported removed', (_name, afterUnknown) => {
    const report = buildPlanReport(plan([resource('svc_blacklist.b', { actions: ['update'], before: { tenant: 't', entries: { '203.0.113.1': 'kept?' } }, after: { tenant: 't' }, after_unknown: afterUnknown })]));
    const [list] = report.changes.lists;
    expect(list!.notes).toEqual(['svc_blacklist.b: the entries are not known until apply (they depend on other resources)']);
    expect(list!.entries).toEqual([]);
  });

  test('sensitive descriptions are shown as (sensitive): the whole map, or one address of it', () => {
    const whole = buildPlanReport(plan([resource('svc_blacklist.b', { actions: ['update'], before: { tenant: 't', entries: { '203.0.113.1': 'old' } }, after: { tenant: 't', entries: { '203.0.113.1': 'new' } }, after_sensitive: { entries: true } })]));
    expect(whole.changes.lists[0]!.entries).toEqual([expect.objectContaining({ kind: 're-described', before: '(sensitive)', after: '(sensitive)' })]);
    const one = buildPlanReport(
      plan([
        resource('svc_blacklist.b', {
          actions: ['update'],
          before: { tenant: 't', entries: { '203.0.113.1': 'old', '203.0.113.2': 'gone' } },
          after: { tenant: 't', entries: { '203.0.113.1': 'new', '203.0.113.3': 'secret' } },
          before_sensitive: { entries: { '203.0.113.2': true } },
          after_sensitive: { entries: { '203.0.113.3': true } },
        }),
      ]),
    );
    expect(one.changes.lists[0]!.entries.map((entry) => [entry.kind, entry.ip, entry.before, entry.after])).toEqual([
      ['removed', '203.0.113.2', '(sensitive)', undefined],
      ['re-described', '203.0.113.1', 'old', 'new'],
      ['added', '203.0.113.3', undefined, '(sensitive)'],
    ]);
  });

  test('addresses are canonical where they parse, kept as written where not; rows sort by kind, address, then resource', () => {
    const report = buildPlanReport(
      plan([
        resource('svc_blacklist.z', { actions: ['create'], after: { tenant: 't', entries: { '2001:DB8::0001': null, 'not-an-address': 'odd', '203.0.113.10': 'ten' } } }),
        resource('svc_blacklist_entry.a', { actions: ['create'], after: { tenant: 't', ip: '203.0.113.10', description: 'ten again' } }),
        resource('svc_blacklist_entry.c', { actions: ['create'], after: { tenant: 't', ip: '203.0.113.9', description: 'nine' } }),
      ]),
    );
    expect(report.changes.lists[0]!.entries.map((entry) => `${entry.ip} ${entry.address} "${entry.after}"`)).toEqual([
      '203.0.113.9 svc_blacklist_entry.c "nine"',
      '203.0.113.10 svc_blacklist_entry.a "ten again"',
      '203.0.113.10 svc_blacklist.z "ten"',
      '2001:db8::1 svc_blacklist.z ""',
      'not-an-address svc_blacklist.z "odd"',
    ]);
  });
});

describe('per-entry resources', () => {
  test('replace is a removal and an addition; update reports a new description only', () => {
    const report = buildPlanReport(
      plan([
        resource('svc_blocklist_entry.moved', { actions: ['create', 'delete'], before: { tenant: 't', ip: '198.51.100.1', description: 'old place' }, after: { tenant: 't', ip: '198.51.100.2', description: 'new place' } }),
        resource('svc_blocklist_entry.same', { actions: ['update'], before: { tenant: 't', ip: '198.51.100.3', description: 'same', expires: 1 }, after: { tenant: 't', ip: '198.51.100.3', description: 'same', expires: 2 } }),
        resource('svc_blocklist_entry.said', { actions: ['update'], before: { tenant: 't', ip: '198.51.100.4', description: 'before' }, after: { tenant: 't', ip: '198.51.100.4', description: 'after' } }),
      ]),
    );
    expect(report.changes.lists[0]!.entries.map((entry) => [entry.kind, entry.ip, entry.before, entry.after])).toEqual([
      ['removed', '198.51.100.1', 'old place', undefined],
      ['re-described', '198.51.100.4', 'before', 'after'],
      ['added', '198.51.100.2', undefined, 'new place'],
    ]);
    expect(report.totals).toMatchObject({ removed: 1, redescribed: 1, added: 1 });
  });

  test.each([
    ['an address known after apply', { tenant: 't', description: 'x' }, { ip: true }, undefined, '(known after apply)', 'x'],
    ['no address at all', { tenant: 't', description: 'x' }, {}, undefined, '(unknown)', 'x'],
    ['a description known after apply', { tenant: 't', ip: '192.0.2.1' }, { description: true }, undefined, '192.0.2.1', '(known after apply)'],
    ['a sensitive description', { tenant: 't', ip: '192.0.2.1', description: 'secret' }, {}, { description: true }, '192.0.2.1', '(sensitive)'],
    ['a description that is not text', { tenant: 't', ip: '192.0.2.1', description: 42 }, {}, undefined, '192.0.2.1', '42'],
    ['a null description', { tenant: 't', ip: '192.0.2.1', description: null }, {}, undefined, '192.0.2.1', ''],
  ])('an addition with %s', (_name, after, afterUnknown, afterSensitive, ip, description) => {
    const report = buildPlanReport(plan([resource('svc_whitelist_entry.e', { actions: ['create'], after, after_unknown: afterUnknown, after_sensitive: afterSensitive })]));
    expect(report.changes.lists[0]!.entries).toEqual([{ kind: 'added', ip, after: description, address: 'svc_whitelist_entry.e', findings: [] }]);
  });

  test("a tenant known only after apply is the provider's", () => {
    const report = buildPlanReport(plan([resource('svc_whitelist_entry.e', { actions: ['create'], after: { ip: '192.0.2.1', description: 'x' }, after_unknown: { tenant: true } })]));
    expect(report.changes.lists.map((list) => list.tenant)).toEqual([DEFAULT_TENANT]);
  });
});

describe('SSO', () => {
  test('creation, destruction and values not known until apply', () => {
    const report = buildPlanReport(
      plan([
        resource('svc_channel_sso.c', { actions: ['create'], after: { enabled: true, required: false, saml_metadata_url: 'https://idp.example/c' }, after_unknown: { name: true } }),
        resource('svc_tenant_sso.t', { actions: ['delete'], before: { name: 'acme', enabled: true, required: true, saml_metadata_url: 'https://idp.example/t' } }),
        resource('svc_tenant_sso.u', { actions: ['update'], before: { name: 'globex', enabled: true, required: false, saml_metadata_url: 'https://idp.example/g' }, after: { name: 'globex', enabled: true, saml_metadata_url: 42 }, after_unknown: { required: true, saml_metadata_url: true } }),
      ]),
    );
    const [channel, deleted, unknown] = report.changes.sso;
    expect(channel).toMatchObject({ owner: { kind: 'channel', name: '(unknown)' }, action: 'create', before: null, consequences: ['SSO is turned on', 'a new identity provider: sign-in trusts the metadata at https://idp.example/c; check it is yours'] });
    expect(deleted).toMatchObject({ owner: { kind: 'tenant', name: 'acme' }, after: null, consequences: [expect.stringMatching(/^SSO is turned off/)] });
    expect(unknown!.after).toEqual({ enabled: true, required: 'unknown', saml_metadata_url: 'unknown', sign_in_tested_elsewhere: false });
    expect(unknown!.consequences).toEqual(['whether SSO is required is not known until apply', 'the identity provider metadata URL is not known until apply']);
    expect(report.totals.sso).toBe(3);
    const enabling = buildPlanReport(plan([resource('svc_tenant_sso.e', { actions: ['update'], before: { name: 'e', enabled: false }, after: { name: 'e' }, after_unknown: { enabled: true } })]));
    expect(enabling.changes.sso[0]!.after).toMatchObject({ enabled: 'unknown' });
  });

  test('a metadata URL that is not text is no URL, and required with a new URL names the URL change as the risk', () => {
    const report = buildPlanReport(plan([resource('svc_tenant_sso.t', { actions: ['update'], before: { name: 't', enabled: true, required: false, saml_metadata_url: 7 }, after: { name: 't', enabled: true, required: false, saml_metadata_url: 7 } })]));
    expect(report.changes.sso[0]!.before!.saml_metadata_url).toBeNull();
    expect(report.changes.sso[0]!.consequences).toEqual([]);
    const consequences = ssoConsequences({ enabled: true, required: false, saml_metadata_url: 'https://a.example' }, { enabled: true, required: true, saml_metadata_url: 'https://b.example' });
    expect(consequences[0]).toMatch(/in the same apply that changes the metadata URL: nobody can have signed in through it yet, a lockout risk; enable and test first/);
  });
});

describe('where a finding lands', () => {
  const lists = () =>
    plan([
      resource('svc_blacklist.many', { actions: ['create'], after: { tenant: 't', entries: { '203.0.113.1': 'one', '203.0.113.2': 'two' } } }),
      resource('svc_blocklist_entry.single', { actions: ['create'], after: { tenant: 't', ip: '198.51.100.7', description: 'bot' } }),
      resource('svc_whitelist.other', { actions: ['create'], after: { tenant: 't', entries: { '2001:db8::5': 'v6', '2001:db8:5::': 'v6 network' } } }),
      resource('svc_tenant_sso.t', { actions: ['update'], before: { name: 't', enabled: false }, after: { name: 't', enabled: true } }),
    ]);

  const withFindings = (findings: Finding[]) =>
    buildPlanReport(lists(), findings)
      .changes.lists.flatMap((list) => list.entries)
      .filter((entry) => entry.findings.length > 0)
      .map((entry) => entry.ip);

  test('next to the entries of its resource it names, else next to those of other resources; words ending in . or : still name an address', () => {
    expect(withFindings([warning('duplicate entry', 'svc_blacklist.many', 'the list read has 2001:DB8::5: twice, and "203.0.113.2."')])).toEqual(['203.0.113.2']);
    // A list read warns on whichever resource refreshed first: the entry it names is another resource's.
    expect(withFindings([warning('duplicate entry', 'svc_blacklist.many', 'the list read has 2001:DB8::5: twice')])).toEqual(['2001:db8::5']);
    // An address ending in :: keeps its colons.
    expect(withFindings([warning('duplicate entry', 'svc_blacklist.many', 'also 2001:DB8:5:: twice')])).toEqual(['2001:db8:5::']);
  });

  test('on the only changed entry of its resource, on the list when its resource has several, on the SSO change, else apart', () => {
    const single = warning('check the expiry', 'svc_blocklist_entry.single');
    const many = warning('large list', 'svc_blacklist.many');
    const sso = warning('test the sign-in', 'svc_tenant_sso.t');
    const elsewhere = warning('no such resource here', 'svc_other.x');
    const general: Finding = { severity: 'error', summary: 'no address', detail: '' };
    const report = buildPlanReport(lists(), [single, many, sso, elsewhere, general]);
    const blocklist = report.changes.lists.find((list) => list.list === 'blocklist')!;
    const blacklist = report.changes.lists.find((list) => list.list === 'blacklist')!;
    expect(blocklist.entries[0]!.findings).toEqual([single]);
    expect(blacklist.findings).toEqual([many]);
    expect(blacklist.entries.every((entry) => entry.findings.length === 0)).toBe(true);
    expect(report.changes.sso[0]!.findings).toEqual([sso]);
    expect(report.findings).toEqual([elsewhere, general]);
    expect(report.totals).toMatchObject({ errors: 1, warnings: 4 });
  });
});

describe('input that is refused', () => {
  test('diagnostics: a line that is not JSON is named by its number; other messages are skipped; fields default', () => {
    expect(() => parsePlanLog('{"type":"version"}\n\nnot json')).toThrow(new PlanReportError('line 3 of the diagnostics is not JSON; give the output of terraform plan -json (one JSON object per line)'));
    const log = [
      JSON.stringify({ type: 'planned_change' }),
      JSON.stringify({ type: 'diagnostic', diagnostic: { severity: 'error', summary: 'bad', detail: 'worse', address: 'svc_blacklist.b' } }),
      JSON.stringify({ type: 'diagnostic', diagnostic: { severity: 'notice', address: 7 } }),
      '   ',
    ].join('\n');
    expect(parsePlanLog(log)).toEqual([
      { severity: 'error', summary: 'bad', detail: 'worse', address: 'svc_blacklist.b' },
      { severity: 'warning', summary: '', detail: '' },
    ]);
  });

  test.each([
    ['not an object', [], 'plan.json is not the output of terraform show -json <plan>: it has no format_version'],
    ['no format_version', { resource_changes: [] }, 'plan.json is not the output of terraform show -json <plan>: it has no format_version'],
    ['resource_changes not a list', { format_version: '1.2', resource_changes: {} }, 'plan.json: resource_changes is not a list'],
    ['resource_drift not a list', { format_version: '1.2', resource_changes: [], resource_drift: 'x' }, 'plan.json: resource_drift is not a list'],
    ['a state', { format_version: '1.0', values: {} }, 'plan.json is a state, not a plan (terraform show -json of a saved plan holds planned_values)'],
  ])('a plan document that is %s', (_name, value, message) => {
    expect(() => checkPlanDocument(value, 'plan.json')).toThrow(new PlanReportError(message));
  });

  test('a plan with planned_values and no changes is accepted as it is', () => {
    const value = { format_version: '1.2', planned_values: {} };
    expect(checkPlanDocument(value, 'plan.json')).toBe(value);
    expect(summaryLine(buildPlanReport(value))).toBe('no change to the security policy');
  });
});

describe('rendering the rarer shapes', () => {
  const hostile = 'evil\u001b[2J | <b>@team</b>';
  const report = () =>
    buildPlanReport(
      plan(
        [
          resource('svc_blacklist.r', { actions: ['delete', 'create'], before: { tenant: 't', entries: { '203.0.113.1': 'x', '203.0.113.2': 'y' } }, after: { tenant: 't', entries: { '203.0.113.1': 'x', '203.0.113.2': 'y' } } }),
          resource('svc_whitelist.u', { actions: ['update'], before: { tenant: 't', entries: {} }, after: { tenant: 't' }, after_unknown: { entries: true } }),
          resource('svc_blocklist_entry.e', { actions: ['update'], before: { tenant: 't', ip: '198.51.100.1', description: 'old' }, after: { tenant: 't', ip: '198.51.100.1', description: hostile } }),
          resource('svc_tenant_sso.t', { actions: ['update'], before: { name: 't', enabled: true, required: false, saml_metadata_url: null }, after: { name: 't', enabled: true }, after_unknown: { required: true, saml_metadata_url: true } }),
        ],
        { resource_drift: [resource('svc_channel_sso.c', { actions: ['update'], before: { name: 'main', enabled: true, required: false, saml_metadata_url: 'https://idp.example/m' }, after: { name: 'main', enabled: false, required: false, saml_metadata_url: null } })] },
      ),
      [
        warning('several entries', 'svc_blacklist.r', 'line one\nline two'),
        { severity: 'error', summary: 'apart, with its resource', detail: '', address: 'svc_nothing.n' },
        warning('apart, without a resource'),
        warning(`hostile ${hostile}`, 'svc_blocklist_entry.e'),
        warning('about SSO', 'svc_tenant_sso.t'),
      ],
    );

  test('Markdown: findings apart, notes, list findings, unknown SSO values and drift; hostile text escaped', () => {
    const markdown = renderMarkdown(report());
    expect(markdown.split('\n')[0]).toBe('**svc plan:** 2 addresses added, 2 removed, 1 re-described, 1 SSO change · 1 error · 4 warnings · drift: 1 change outside terraform');
    expect(markdown).toContain('**Findings** (from terraform plan)\n\n- ⛔ svc\\_nothing.n: error: apart, with its resource\n- ⚠️ warning: apart, without a resource\n');
    expect(markdown).toContain('### t · whitelist: no entry changes\n\n> svc\\_whitelist.u: the entries are not known until apply (they depend on other resources)');
    expect(markdown).toContain('> svc\\_blacklist.r is replaced: its 2 entries are removed and then added again');
    expect(markdown).toContain('- ⚠️ svc\\_blacklist.r: warning: several entries (line one line two)');
    expect(markdown).toContain('| enabled true, required false, metadata none | enabled true, required (known after apply), metadata (known after apply) |');
    expect(markdown).toContain('<br>⚠️ warning: about SSO |');
    expect(markdown).toContain('| ✏️ re-described | 198.51.100.1 | old → evil\\\\u{001B}\\[2J &#124; &lt;b&gt;&#64;team&lt;/b&gt; |');
    expect(markdown).toContain('### Drift: Single sign-on\n\n_Changed outside terraform since the last apply');
    expect(markdown).not.toMatch(/\u001b|<b>|@team/);
  });

  test('Markdown over a limit too small for its own frame is cut at a line, and says so', () => {
    const markdown = renderMarkdown(report(), 1_000);
    expect(markdown.length).toBeLessThanOrEqual(1_000);
    expect(markdown).toMatch(/\n\n_The report was cut at 1000 characters; `svc plan-report --format json` has all of it\._\n$/);
    expect(markdown).toContain('**Findings** (from terraform plan)');
    expect(markdown).toContain('1 SSO change: none shown\n_1 more not shown here');
  });

  test('Markdown: a short table whose only row does not fit says so instead of showing an empty table', () => {
    const long = buildPlanReport(plan([resource('svc_blacklist.b', { actions: ['create'], after: { tenant: 't', entries: { '203.0.113.1': 'x'.repeat(300) } } })]));
    const markdown = renderMarkdown(long, 500);
    expect(markdown).toContain('### t · blacklist: 1 added\n\nentries: none shown\n_1 more not shown here');
    expect(markdown).toMatch(/_1 rows in all left out to stay under 500 characters\._\n$/);
    expect(renderMarkdown(long, 1_000)).toContain(`| ➕ added | 203.0.113.1 | ${'x'.repeat(200)}... (300 characters) |`);
  });

  test('text: every kind of line, escaped for a terminal', () => {
    const text = renderText(report());
    expect(text).toContain('\n  svc_nothing.n: error: apart, with its resource\n  warning: apart, without a resource\n');
    expect(text).toContain('  SSO of tenant t (svc_tenant_sso.t): update\n    before: enabled true, required false, metadata none\n    after:  enabled true, required (known after apply), metadata (known after apply)\n');
    expect(text).toContain('    warning: about SSO\n');
    expect(text).toContain('    note: svc_whitelist.u: the entries are not known until apply');
    expect(text).toContain('    svc_blacklist.r: warning: several entries (line one line two)\n');
    expect(text).toContain('    ~ 198.51.100.1  "old" -> "evil\\u{001B}[2J | <b>@team</b>"  (svc_blocklist_entry.e)\n        warning: hostile evil\\u{001B}[2J');
    expect(text).toContain('drift (changed outside terraform since the last apply):\n  SSO of channel main (svc_channel_sso.c): update\n');
    expect(text).not.toContain('\u001b');
  });
});
