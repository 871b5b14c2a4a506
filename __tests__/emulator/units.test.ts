/** Small pure parts: clock, tokens, audit log capacity, the sso rule. */
import { AUDIT_LOG_CAPACITY, AuditLog } from '../../src/emulator/audit';
import { EmulatorClock } from '../../src/emulator/clock';
import { ssoProblem } from '../../src/emulator/sso';
import { TokenStore } from '../../src/emulator/tokens';

describe('EmulatorClock', () => {
  test('starts at startTime and moves with real time plus advances', () => {
    let real = 1000.4;
    const clock = new EmulatorClock(5000, () => real);
    expect(clock.now()).toBe(5000);
    real += 2;
    expect(clock.now()).toBe(5002);
    expect(clock.advance(60)).toBe(5062);
    const restored = new EmulatorClock(undefined, () => real);
    restored.restoreOffset(clock.offset);
    expect(restored.now()).toBe(5062);
  });
});

describe('TokenStore', () => {
  test('valid before the TTL, expired from it, invalid when unknown', () => {
    const tokens = new TokenStore(100);
    const token = tokens.issue('a@x', 1000);
    expect(tokens.check(token, 1099)).toEqual({ kind: 'valid', email: 'a@x' });
    expect(tokens.check(token, 1100)).toEqual({ kind: 'expired' });
    expect(tokens.check(`${token}x`, 1000)).toEqual({ kind: 'invalid' });
  });

  test('keeps only hashes, and forgets tokens a day after they expired', () => {
    const tokens = new TokenStore(100);
    const old = tokens.issue('a@x', 0);
    expect(JSON.stringify(tokens.snapshot())).not.toContain(old);
    tokens.issue('a@x', 100 + 86_400);
    expect(tokens.check(old, 100 + 86_400)).toEqual({ kind: 'invalid' });
    expect(tokens.size).toBe(1);
  });

  test('tokens are unique', () => {
    const tokens = new TokenStore(100);
    const issued = new Set(Array.from({ length: 200 }, () => tokens.issue('a@x', 0)));
    expect(issued.size).toBe(200);
  });
});

test('AuditLog keeps the newest events up to its capacity', () => {
  const log = new AuditLog();
  for (let index = 0; index < AUDIT_LOG_CAPACITY + 5; index += 1) {
    log.record({ timestamp: index, user: 'u', category: 'Lists', action: 'new_entry', description: String(index) });
  }
  expect(log.all()).toHaveLength(AUDIT_LOG_CAPACITY);
  expect(log.recent(2).map((event) => event.timestamp)).toEqual([AUDIT_LOG_CAPACITY + 4, AUDIT_LOG_CAPACITY + 3]);
  expect(log.all()[0].timestamp).toBe(5);
});

describe('ssoProblem', () => {
  const cases: Array<[name: string, value: unknown, problem: RegExp | undefined]> = [
    ['null is valid', null, undefined],
    ['disabled with an empty URL is valid', { enabled: false, required: false, saml_metadata_url: '' }, undefined],
    ['enabled with https is valid', { enabled: true, required: true, saml_metadata_url: 'https://idp.example/md' }, undefined],
    ['enabled with http', { enabled: true, required: false, saml_metadata_url: 'http://idp.example/md' }, /not an https:\/\/ URL \(it uses http\)/],
    ['enabled with a non-URL', { enabled: true, required: false, saml_metadata_url: 'idp.example' }, /"idp\.example" is not a URL/],
    ['a URL with a password in it, never echoed', { enabled: true, required: false, saml_metadata_url: 'https://admin:S3cret@idp.example/md' }, /"https:\/\/\[REDACTED\]@idp\.example\/md" holds a user name or password(?!.*S3cret)/],
    ['a newline the URL parser would drop', { enabled: true, required: false, saml_metadata_url: 'https://idp.example/meta\ndata' }, /U\+000A at position 25/],
    ['disabled, but with credentials in the URL', { enabled: false, required: false, saml_metadata_url: 'https://u@idp.example/md' }, /holds a user name or password/],
    ['required without enabled', { enabled: false, required: true, saml_metadata_url: '' }, /enable SSO before requiring it/],
    ['missing required', { enabled: false, saml_metadata_url: '' }, /sso\.required must be true or false/],
    ['URL not a string', { enabled: false, required: false, saml_metadata_url: 5 }, /saml_metadata_url must be a string/],
    ['extra field', { enabled: false, required: false, saml_metadata_url: '', force: true }, /unknown field "force"/],
    ['an array', [], /must be null or an object/],
  ];
  test.each(cases)('%s', (_name, value, problem) => {
    const found = ssoProblem(value, 'sso');
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toMatch(problem);
  });
});
