/**
 * Drift attribution's rules on terraform's resource_drift shape and the audit events the
 * emulator writes (the end-to-end test runs them against the real emulator and terraform).
 */
import type { AuditEvent } from '../../src/api/types';
import { AUDIT_EVENTS_SEARCHED, MAX_AUDIT_EVENTS_SEARCHED, attributeDriftDetailed, describeAttribution, driftSubjects, matchAuditEvent, type DriftSubject } from '../../src/pipeline/drift-attribution';

const event = (timestamp: number, user: string, category: string, action: string, description: string): AuditEvent => ({ timestamp, user, category, action, description });

describe('driftSubjects', () => {
  test('per-entry deletes, whole-list differences and SSO changes, with the tenant', () => {
    const subjects = driftSubjects([
      { address: 'svc_blocklist_entry.b', type: 'svc_blocklist_entry', mode: 'managed', change: { actions: ['delete'], before: { ip: '198.51.100.23', tenant: 'acme' }, after: null } },
      { address: 'svc_blacklist_entry.c', type: 'svc_blacklist_entry', mode: 'managed', change: { actions: ['update'], before: { ip: '2001:DB8::1', tenant: 'acme', description: 'a' }, after: { ip: '2001:DB8::1', tenant: 'acme', description: 'b' } } },
      {
        address: 'svc_whitelist.w',
        type: 'svc_whitelist',
        change: { actions: ['update'], before: { tenant: 'acme', entries: { '192.0.2.0/28': 'office', '192.0.2.7': 'old' } }, after: { tenant: 'acme', entries: { '192.0.2.0/28': 'office', '192.0.2.200': 'console', '192.0.2.7': 'new' } } },
      },
      { address: 'svc_channel_sso.main', type: 'svc_channel_sso', change: { actions: ['update'], before: { name: 'main', enabled: true }, after: { name: 'main', enabled: false } } },
      { address: 'svc_tenant_sso.t', type: 'svc_tenant_sso', change: { actions: ['update'], before: { name: 'acme' }, after: { name: 'acme' } } },
      { address: 'aws_vpc.main', type: 'aws_vpc', change: { actions: ['update'], before: {}, after: {} } },
      { address: 'data.svc_list.x', type: 'svc_blacklist', mode: 'data', change: { actions: ['read'] } },
    ]);
    expect(subjects).toEqual([
      { address: 'svc_blocklist_entry.b', kind: 'entry removed', tenant: 'acme', list: 'blocklist', ip: '198.51.100.23' },
      { address: 'svc_blacklist_entry.c', kind: 'entry changed', tenant: 'acme', list: 'blacklist', ip: '2001:db8::1' },
      { address: 'svc_whitelist.w', kind: 'entry added', tenant: 'acme', list: 'whitelist', ip: '192.0.2.200' },
      { address: 'svc_whitelist.w', kind: 'entry changed', tenant: 'acme', list: 'whitelist', ip: '192.0.2.7' },
      { address: 'svc_channel_sso.main', kind: 'sso changed', tenant: undefined, ssoOwner: { kind: 'channel', name: 'main' } },
      { address: 'svc_tenant_sso.t', kind: 'sso changed', tenant: 'acme', ssoOwner: { kind: 'tenant', name: 'acme' } },
    ]);
  });
});

describe('matchAuditEvent: the newest event about the subject, if it explains it', () => {
  const removed: DriftSubject = { address: 'a', kind: 'entry removed', tenant: 'acme', list: 'blocklist', ip: '198.51.100.23' };
  const added: DriftSubject = { address: 'a', kind: 'entry added', tenant: 'acme', list: 'blacklist', ip: '203.0.113.66' };
  const sso: DriftSubject = { address: 'a', kind: 'sso changed', tenant: undefined, ssoOwner: { kind: 'channel', name: 'main' } };

  test('a removal by a user', () => {
    const events = [
      event(300, 'ops@acme.example', 'Lists', 'remove_entry', '198.51.100.230 removed from blocklist'),
      event(200, 'soc@acme.example', 'Lists', 'remove_entry', '198.51.100.23 removed from blocklist'),
      event(100, 'ci@acme.example', 'Lists', 'new_entry', '198.51.100.23 added to blocklist'),
    ];
    expect(matchAuditEvent(removed, events)?.user).toBe('soc@acme.example');
  });

  test('a removal older than terraform\'s own re-add does not explain a second disappearance', () => {
    const events = [
      event(300, 'ci@acme.example', 'Lists', 'new_entry', '198.51.100.23 added to blocklist'),
      event(200, 'soc@acme.example', 'Lists', 'remove_entry', '198.51.100.23 removed from blocklist'),
    ];
    expect(matchAuditEvent(removed, events)).toBeUndefined();
  });

  test('IPv6 addresses and ranges are matched whole (":" does not split them)', () => {
    const subject: DriftSubject = { address: 'a', kind: 'entry removed', tenant: 'acme', list: 'blacklist', ip: '2001:db8::1' };
    const events = [
      event(3, 'x@y', 'Lists', 'remove_entry', '2001:db8::10 removed from blacklist'),
      event(2, 'soc@acme.example', 'Lists', 'remove_entry', '2001:db8::1 removed from blacklist'),
    ];
    expect(matchAuditEvent(subject, events)?.user).toBe('soc@acme.example');
    const range: DriftSubject = { ...subject, ip: '2001:db8::/32' };
    expect(matchAuditEvent(range, [event(1, 'ops@x', 'Lists', 'remove_entry', '2001:db8::/32 removed from blacklist')])?.user).toBe('ops@x');
  });

  test('the same address on another list is another entry', () => {
    expect(matchAuditEvent(removed, [event(1, 'x@y', 'Lists', 'remove_entry', '198.51.100.23 removed from whitelist')])).toBeUndefined();
  });

  test('risk-based blocking explains an addition to the blacklist, never a removal from the blocklist (an add to another list)', () => {
    const moved = event(5, 'risk-based blocking', 'User Actions', 'blacklist_entity', '203.0.113.66 moved to blacklist by risk-based blocking (block 3)');
    expect(matchAuditEvent(added, [moved])).toBe(moved);
    expect(matchAuditEvent({ ...removed, ip: '203.0.113.66' }, [moved])).toBeUndefined();
  });

  test('a user deletes a blocklist entry, then risk-based blocking blacklists the address: the removal is the user\'s', () => {
    const events = [
      event(6, 'risk-based-blocking', 'User Actions', 'blacklist_entity', '198.51.100.23 moved to blacklist by risk-based blocking (block 3)'),
      event(5, 'mallory@acme.example', 'Lists', 'remove_entry', '198.51.100.23 removed from blocklist'),
    ];
    expect(matchAuditEvent(removed, events)?.user).toBe('mallory@acme.example');
  });

  test('an SSO change of the channel, not of a tenant or another channel', () => {
    const events = [
      event(9, 'a@x', 'Sites', 'update_site', 'Channel mainline updated: sso enabled=false'),
      event(8, 'b@x', 'Sites', 'update_site', 'Customer main updated: sso enabled=false'),
      event(7, 'c@x', 'Sites', 'update_site', 'Channel main updated: sso enabled=false required=false saml_metadata_url=https://idp.example.com/m'),
    ];
    expect(matchAuditEvent(sso, events)?.user).toBe('c@x');
  });
});

test('describeAttribution says who and when, or that nothing matched and why a blocklist entry may go', () => {
  const subject: DriftSubject = { address: 'a', kind: 'entry removed', tenant: 'acme', list: 'blocklist', ip: '198.51.100.23' };
  expect(describeAttribution(subject, event(1_795_000_000, 'soc@acme.example', 'Lists', 'remove_entry', '...'), 10)).toBe(
    '198.51.100.23 deleted outside terraform from the blocklist: Lists/remove_entry by soc@acme.example at 2026-11-18T11:06Z',
  );
  expect(describeAttribution(subject, undefined, 10)).toBe(
    "198.51.100.23 deleted outside terraform from the blocklist: no matching audit event in the tenant's last 10 events; blocklist entries also end on their own 30 minutes after they are added",
  );
});

test('attributeDriftDetailed reads each tenant once, and a log that cannot be read says so per subject', async () => {
  const asked: Array<string | undefined> = [];
  const attributions = await attributeDriftDetailed(
    [
      { address: 'a', kind: 'entry added', tenant: 'acme', list: 'whitelist', ip: '192.0.2.1' },
      { address: 'b', kind: 'entry added', tenant: 'acme', list: 'whitelist', ip: '192.0.2.2' },
      { address: 'c', kind: 'entry added', tenant: 'globex', list: 'whitelist', ip: '192.0.2.3' },
    ],
    async (tenant) => {
      asked.push(tenant);
      if (tenant === 'globex') throw new Error('login refused for tenant globex');
      return [event(1, 'ops@acme.example', 'Lists', 'new_entry', '192.0.2.1 added to whitelist')];
    },
  );
  expect(asked).toEqual(['acme', 'globex']);
  expect(attributions.map((attribution) => attribution.certainty)).toEqual(['matched', 'no event', 'unreadable']);
  const lines = attributions.map((attribution) => attribution.text);
  expect(lines[0]).toMatch(/^192\.0\.2\.1 added outside terraform to the whitelist: Lists\/new_entry by ops@acme\.example at /);
  expect(lines[1]).toMatch(/no matching audit event in the tenant's last 1 events$/);
  expect(lines[2]).toBe('192.0.2.3 added outside terraform to the whitelist: who did it is unknown, the audit log could not be read (login refused for tenant globex)');
});

describe('how sure an attribution is: a full window is read again once, bounded, and then says unknown', () => {
  const removed: DriftSubject = { address: 'a', kind: 'entry removed', tenant: 'acme', list: 'blacklist', ip: '203.0.113.7' };
  const flood = (count: number) => Array.from({ length: count }, (_, index) => event(2_000 - index, 'mallory@acme.example', 'Lists', 'new_entry', '198.51.100.9 added to blocklist'));
  const removal = event(10, 'soc@acme.example', 'Lists', 'remove_entry', '203.0.113.7 removed from blacklist');

  test('1,000 copies of one address push the removal out of the first window: the second read finds it', async () => {
    const log = [...flood(1_000), removal];
    const limits: number[] = [];
    const [result] = await attributeDriftDetailed([removed], async (_tenant, limit) => {
      limits.push(limit);
      return log.slice(0, limit);
    });
    expect(limits).toEqual([AUDIT_EVENTS_SEARCHED, MAX_AUDIT_EVENTS_SEARCHED]);
    expect(result).toMatchObject({ certainty: 'matched', event: { user: 'soc@acme.example' } });
  });

  test('a flood that fills the largest window: unknown, nobody named', async () => {
    const log = [...flood(MAX_AUDIT_EVENTS_SEARCHED), removal];
    const [result] = await attributeDriftDetailed([removed], async (_tenant, limit) => log.slice(0, limit));
    expect(result!.certainty).toBe('window full');
    expect(result!.text).toBe(`203.0.113.7 deleted outside terraform from the blacklist: unknown: the audit window is full (the newest ${MAX_AUDIT_EVENTS_SEARCHED} events hold no event that explains it)`);
  });

  test('a log read to its start with nothing that explains it: no event, one read', async () => {
    let reads = 0;
    const [result] = await attributeDriftDetailed([removed], async () => {
      reads += 1;
      return flood(3);
    });
    expect(reads).toBe(1);
    expect(result).toMatchObject({ certainty: 'no event', searched: 3 });
  });
});

describe('the rarer drift shapes', () => {
  test('a change without type is typed by its address; entries and SSO without an address or a name are left out; the tenant may come from after', () => {
    const subjects = driftSubjects([
      { address: 'module.m.svc_blacklist_entry.e', change: { actions: ['update'], before: null, after: { ip: '203.0.113.5', tenant: 'acme', description: 'b' } } },
      { address: 'svc_blocklist_entry.noip', type: 'svc_blocklist_entry', change: { actions: ['delete'], before: { tenant: 'acme' }, after: null } },
      { address: 'svc_tenant_sso.noname', type: 'svc_tenant_sso', change: { actions: ['update'], before: {}, after: { enabled: false } } },
      { address: 'svc_channel_sso.late', type: 'svc_channel_sso', change: { actions: ['update'], before: null, after: { name: 'late' } } },
      { address: 'svc_whitelist.same', type: 'svc_whitelist', change: { actions: ['update'], before: { tenant: 'acme', entries: { 'not-an-address': 'kept' } }, after: { tenant: 'acme', entries: { 'not-an-address': 'changed' } } } },
    ]);
    expect(subjects).toEqual([
      { address: 'module.m.svc_blacklist_entry.e', kind: 'entry changed', tenant: 'acme', list: 'blacklist', ip: '203.0.113.5' },
      { address: 'svc_channel_sso.late', kind: 'sso changed', tenant: undefined, ssoOwner: { kind: 'channel', name: 'late' } },
      { address: 'svc_whitelist.same', kind: 'entry changed', tenant: 'acme', list: 'whitelist', ip: 'not-an-address' },
    ]);
  });

  test('an address ending in :: keeps its colons when matched in a description', () => {
    const subject: DriftSubject = { address: 'a', kind: 'entry removed', tenant: 'acme', list: 'blacklist', ip: '2001:db8:5::' };
    expect(matchAuditEvent(subject, [event(1, 'soc@acme.example', 'Lists', 'remove_entry', '2001:DB8:5:: removed from blacklist.')])?.user).toBe('soc@acme.example');
    expect(matchAuditEvent(subject, [event(1, 'soc@acme.example', 'Lists', 'remove_entry', '2001:db8:5 removed from blacklist')])).toBeUndefined();
  });

  test('describeAttribution for a changed entry, a changed SSO setting and an addition nobody made', () => {
    const changed: DriftSubject = { address: 'a', kind: 'entry changed', tenant: 'acme', list: 'whitelist', ip: '192.0.2.7' };
    const sso: DriftSubject = { address: 'b', kind: 'sso changed', tenant: undefined, ssoOwner: { kind: 'channel', name: 'main' } };
    const added: DriftSubject = { address: 'c', kind: 'entry added', tenant: 'acme', list: 'blocklist', ip: '198.51.100.1' };
    expect(describeAttribution(changed, event(1_795_000_000, 'ops@acme.example', 'Lists', 'new_entry', '...'), 5)).toBe('192.0.2.7 changed outside terraform on the whitelist: Lists/new_entry by ops@acme.example at 2026-11-18T11:06Z');
    expect(describeAttribution(sso, event(1_795_000_000, 'admin@acme.example', 'Sites', 'update_site', '...'), 5)).toBe('SSO of channel main changed outside terraform: Sites/update_site by admin@acme.example at 2026-11-18T11:06Z');
    // Only a removal from the blocklist may be its expiry.
    expect(describeAttribution(added, undefined, 5)).toBe("198.51.100.1 added outside terraform to the blocklist: no matching audit event in the tenant's last 5 events");
  });

  test('a channel\'s SSO is looked up in the default tenant\'s log, read once for every such subject', async () => {
    const asked: Array<string | undefined> = [];
    const subjects: DriftSubject[] = [
      { address: 'a', kind: 'sso changed', tenant: undefined, ssoOwner: { kind: 'channel', name: 'main' } },
      { address: 'b', kind: 'sso changed', tenant: undefined, ssoOwner: { kind: 'channel', name: 'other' } },
    ];
    const attributions = await attributeDriftDetailed(subjects, async (tenant) => {
      asked.push(tenant);
      return [event(5, 'admin@acme.example', 'Sites', 'unset_field', 'Channel main: saml metadata unset')];
    });
    expect(asked).toEqual([undefined]);
    expect(attributions.map((attribution) => attribution.certainty)).toEqual(['matched', 'no event']);
  });
});
