/** Reading terraform's JSON plan: actions, the attributes that differ, sensitive values masked. */
import { attributeChanges, changeAction, formatPlanChanges, planChanges, type JsonPlan } from '../../src/pipeline/plan-changes';

describe('changeAction', () => {
  const cases: Array<[actions: string[], expected: ReturnType<typeof changeAction>]> = [
    [['no-op'], null],
    [['create'], 'create'],
    [['update'], 'update'],
    [['delete'], 'delete'],
    [['delete', 'create'], 'replace'],
    [['create', 'delete'], 'replace'],
    [['read'], 'read'],
    [['forget'], 'forget'],
  ];
  test.each(cases)('%j -> %s', (actions, expected) => expect(changeAction(actions)).toBe(expected));
});

describe('attributeChanges', () => {
  const cases: Array<[name: string, change: Parameters<typeof attributeChanges>[0], expected: ReturnType<typeof attributeChanges>]> = [
    ['a scalar', { actions: ['update'], before: { enabled: true, name: 'main' }, after: { enabled: false, name: 'main' } }, [{ path: 'enabled', before: 'true', after: 'false' }]],
    [
      'a map key added and one removed, keys quoted',
      { actions: ['update'], before: { entries: { '192.0.2.1': 'a', '192.0.2.2': 'b' } }, after: { entries: { '192.0.2.1': 'a', '2001:db8::1': 'c' } } },
      [
        { path: 'entries["192.0.2.2"]', before: '"b"', after: '(absent)' },
        { path: 'entries["2001:db8::1"]', before: '(absent)', after: '"c"' },
      ],
    ],
    ['a nested name', { actions: ['update'], before: { tags: { env: 'prod' } }, after: { tags: { env: 'dev' } } }, [{ path: 'tags.env', before: '"prod"', after: '"dev"' }]],
    [
      'a sensitive value, before and after',
      { actions: ['update'], before: { token: 'old-secret' }, after: { token: 'new-secret' }, before_sensitive: { token: true }, after_sensitive: { token: true } },
      [{ path: 'token', before: '(sensitive)', after: '(sensitive)' }],
    ],
    [
      'a list that grows by a sensitive item is masked whole',
      { actions: ['update'], before: { list: ['a'] }, after: { list: ['a', 'secret'] }, after_sensitive: { list: [false, true] } },
      [{ path: 'list', before: '["a"]', after: '(sensitive)' }],
    ],
    ['a value known only after apply', { actions: ['update'], before: { uuid: 'u1' }, after: { uuid: null }, after_unknown: { uuid: true } }, [{ path: 'uuid', before: '"u1"', after: '(known after apply)' }]],
    [
      'a map with a sensitive key that becomes unknown is masked whole',
      { actions: ['update'], before: { tags: { token: 'hunter2', env: 'prod' } }, after: { tags: null }, before_sensitive: { tags: { token: true } }, after_unknown: { tags: true } },
      [{ path: 'tags', before: '(sensitive)', after: '(known after apply)' }],
    ],
    ['lists of one length compare by index', { actions: ['update'], before: { ports: [80, 443] }, after: { ports: [80, 8443] } }, [{ path: 'ports[1]', before: '443', after: '8443' }]],
    ['nothing differs', { actions: ['update'], before: { a: 1 }, after: { a: 1 } }, []],
    [
      'ESC, a C1 CSI (U+009B) and a right-to-left override (U+202E) are escaped, in values and keys',
      { actions: ['update'], before: { entries: { 'k\u202e': '\u001b[2Ja' } }, after: { entries: { 'k\u202e': 'b\u009b2J\u202etxt' } } },
      [{ path: 'entries["k\\u202e"]', before: '"\\u001b[2Ja"', after: '"b\\u009b2J\\u202etxt"' }],
    ],
    [
      'a long value is cut',
      { actions: ['update'], before: { description: 'x' }, after: { description: 'y'.repeat(200) } },
      [{ path: 'description', before: '"x"', after: `"${'y'.repeat(76)}...` }],
    ],
  ];
  test.each(cases)('%s', (_name, change, expected) => expect(attributeChanges(change)).toEqual(expected));

  test('a secret never appears in the rendered lines', () => {
    const plan: JsonPlan = {
      resource_drift: [
        { address: 'x.y', mode: 'managed', change: { actions: ['update'], before: { key: 'hunter2' }, after: { key: 'hunter3' }, before_sensitive: { key: true }, after_sensitive: { key: true } } },
      ],
    };
    const text = formatPlanChanges(planChanges(plan)).join('\n');
    expect(text).toContain('key: (sensitive) -> (sensitive)');
    expect(text).not.toMatch(/hunter/);
  });
});

describe('planChanges', () => {
  const plan: JsonPlan = {
    resource_drift: [
      { address: 'svc_blacklist_entry.a', mode: 'managed', change: { actions: ['delete'], before: { ip: '192.0.2.1' }, after: null } },
      { address: 'svc_channel_sso.main', mode: 'managed', change: { actions: ['update'], before: { enabled: true }, after: { enabled: false } } },
    ],
    resource_changes: [
      { address: 'svc_blacklist_entry.a', mode: 'managed', change: { actions: ['create'], before: null, after: { ip: '192.0.2.1' } } },
      { address: 'svc_channel_sso.main', mode: 'managed', change: { actions: ['update'], before: { enabled: false }, after: { enabled: true } } },
      { address: 'svc_whitelist.w', mode: 'managed', change: { actions: ['no-op'], before: {}, after: {} } },
      { address: 'data.svc_list.l', mode: 'data', change: { actions: ['read'], before: null, after: {} } },
    ],
    output_changes: { egress: { actions: ['update'], before: 'a', after: 'b' }, same: { actions: ['no-op'], before: 'x', after: 'x' } },
  };

  test('drift, planned managed changes (no no-ops, no data reads) and outputs', () => {
    expect(planChanges(plan)).toEqual({
      drift: [
        { address: 'svc_blacklist_entry.a', action: 'delete', attributes: [] },
        { address: 'svc_channel_sso.main', action: 'update', attributes: [{ path: 'enabled', before: 'true', after: 'false' }] },
      ],
      changes: [
        { address: 'svc_blacklist_entry.a', action: 'create', attributes: [] },
        { address: 'svc_channel_sso.main', action: 'update', attributes: [{ path: 'enabled', before: 'false', after: 'true' }] },
      ],
      outputs: [{ address: 'output.egress', action: 'update', attributes: [{ path: '(value)', before: '"a"', after: '"b"' }] }],
    });
  });

  test('formatted for people', () => {
    expect(formatPlanChanges(planChanges(plan))).toEqual([
      '  changed outside terraform (2):',
      '    svc_blacklist_entry.a  deleted outside terraform',
      '    svc_channel_sso.main  changed outside terraform',
      '        enabled: true -> false',
      '  the plan would (3):',
      '    create          svc_blacklist_entry.a',
      '    update in place svc_channel_sso.main',
      '        enabled: false -> true',
      '    update in place output.egress',
      '        (value): "a" -> "b"',
    ]);
  });

  test('a plan that only forgets, imports or moves objects (exit 2 from terraform) names each', () => {
    const bookkeeping: JsonPlan = {
      resource_changes: [
        { address: 'svc_blacklist_entry.old', mode: 'managed', change: { actions: ['forget'], before: { ip: '192.0.2.1' }, after: null } },
        { address: 'svc_blacklist_entry.b', mode: 'managed', change: { actions: ['no-op'], before: { ip: '192.0.2.2' }, after: { ip: '192.0.2.2' }, importing: { id: 'acme/192.0.2.2' } } },
        { address: 'svc_blacklist_entry.c', previous_address: 'svc_blacklist_entry.old_c', mode: 'managed', change: { actions: ['no-op'], before: {}, after: {} } },
        { address: 'svc_blacklist_entry.d', previous_address: 'svc_blacklist_entry.d', mode: 'managed', change: { actions: ['no-op'], before: {}, after: {} } },
      ],
    };
    expect(formatPlanChanges(planChanges(bookkeeping))).toEqual([
      '  the plan would (3):',
      '    forget (keep it) svc_blacklist_entry.old',
      '    import          svc_blacklist_entry.b',
      '    move            svc_blacklist_entry.c (from svc_blacklist_entry.old_c)',
    ]);
  });

  test('an empty plan says nothing', () => {
    expect(formatPlanChanges(planChanges({}))).toEqual([]);
  });
});
