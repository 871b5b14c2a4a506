/**
 * The shared SSO rule (src/sso-rules.ts ssoSettingsProblems) as structured results, and its
 * agreement with the emulator's own copy (src/emulator/sso.ts, kept as an independent oracle)
 * and the client's wording of it (assertSsoSettings) over a table of wire values.
 */
import { ValidationError } from '../../src/api/errors';
import { assertSsoSettings } from '../../src/api/validation';
import { ssoProblem } from '../../src/emulator/sso';
import {
  NOT_KNOWN_YET,
  ssoLockoutRisk,
  ssoSettingsProblems,
  type SsoLockoutRisk,
  type SsoSettingsBefore,
  type SsoSettingsProblem,
  type SsoSettingsToCheck,
} from '../../src/sso-rules';

const URL = 'https://idp.example.com/metadata';

describe('ssoSettingsProblems', () => {
  const cases: ReadonlyArray<[string, SsoSettingsToCheck, SsoSettingsProblem[]]> = [
    ['enabled with a URL', { enabled: true, required: true, metadataUrl: URL }, []],
    ['off without a URL', { enabled: false, required: false, metadataUrl: undefined }, []],
    ['off with a URL', { enabled: false, required: false, metadataUrl: URL }, []],
    ['required while off', { enabled: false, required: true, metadataUrl: URL }, [{ setting: 'required', value: true, problem: 'required-without-enabled' }]],
    ['enabled without a URL', { enabled: true, required: false, metadataUrl: undefined }, [{ setting: 'metadataUrl', value: undefined, problem: 'missing-metadata-url' }]],
    [
      'an http URL',
      { enabled: true, required: false, metadataUrl: 'http://idp.example.com/metadata' },
      [{ setting: 'metadataUrl', value: 'http://idp.example.com/metadata', problem: 'invalid-metadata-url', reason: 'is not an https:// URL (it uses http)' }],
    ],
    ['a URL given empty', { enabled: false, required: false, metadataUrl: '' }, [{ setting: 'metadataUrl', value: '', problem: 'invalid-metadata-url', reason: 'is empty' }]],
    [
      'required while off, and a bad URL: both, required first',
      { enabled: false, required: true, metadataUrl: 'idp' },
      [
        { setting: 'required', value: true, problem: 'required-without-enabled' },
        { setting: 'metadataUrl', value: 'idp', problem: 'invalid-metadata-url', reason: 'is not a URL' },
      ],
    ],
    ['enabled not known yet: nothing about required or a missing URL', { enabled: NOT_KNOWN_YET, required: true, metadataUrl: undefined }, []],
    ['required not known yet', { enabled: false, required: NOT_KNOWN_YET, metadataUrl: undefined }, []],
    ['URL not known yet', { enabled: true, required: false, metadataUrl: NOT_KNOWN_YET }, []],
    ['URL not known yet, required while off', { enabled: false, required: true, metadataUrl: NOT_KNOWN_YET }, [{ setting: 'required', value: true, problem: 'required-without-enabled' }]],
  ];

  it.each(cases)('%s', (_name, settings, expected) => {
    expect(ssoSettingsProblems(settings)).toEqual(expected);
  });

  it('never repeats the credentials of a URL in its reason', () => {
    const [problem] = ssoSettingsProblems({ enabled: true, required: false, metadataUrl: 'https://admin:hunter2@idp.example.com/metadata' });
    expect(problem).toMatchObject({ setting: 'metadataUrl', problem: 'invalid-metadata-url' });
    expect(problem?.problem === 'invalid-metadata-url' && problem.reason).not.toContain('hunter2');
  });
});

describe('the emulator (oracle), the shared rule and the client agree on wire values', () => {
  const urls = ['', URL, 'http://idp.example.com/metadata', 'idp', 'https://admin:key@idp.example.com/m', 'https://idp.example.com/meta\ndata', ' https://idp.example.com/x'];
  const table = [true, false].flatMap((enabled) =>
    [true, false].flatMap((required) => urls.map((saml_metadata_url) => ({ enabled, required, saml_metadata_url }))),
  );

  it('covers valid and invalid values', () => {
    const valid = table.filter((sso) => ssoProblem(sso, 'sso') === undefined);
    expect(valid.length).toBeGreaterThan(0);
    expect(valid.length).toBeLessThan(table.length);
  });

  it.each(table.map((sso) => [JSON.stringify(sso), sso] as const))('%s', (_name, sso) => {
    const emulatorAccepts = ssoProblem(sso, 'sso') === undefined;
    // On the wire "" is no URL at all.
    const sharedProblems = ssoSettingsProblems({ enabled: sso.enabled, required: sso.required, metadataUrl: sso.saml_metadata_url === '' ? undefined : sso.saml_metadata_url });
    expect(sharedProblems.length === 0).toBe(emulatorAccepts);

    let clientError: unknown;
    try {
      assertSsoSettings(sso, 'sso');
    } catch (error) {
      clientError = error;
    }
    if (emulatorAccepts) {
      expect(clientError).toBeUndefined();
    } else {
      expect(clientError).toBeInstanceOf(ValidationError);
      const field = { required: 'sso.required', metadataUrl: 'sso.saml_metadata_url', enabled: 'sso.enabled' }[sharedProblems[0]!.setting];
      expect((clientError as ValidationError).field).toBe(field);
    }
  });
});

describe('ssoLockoutRisk: required turning on in the change that enables SSO or changes the metadata URL', () => {
  const OTHER = 'https://idp.example.com/metadata-v2';
  const off: SsoSettingsBefore = { enabled: false, required: false, metadataUrl: URL };
  const on: SsoSettingsBefore = { enabled: true, required: false, metadataUrl: URL };
  const requiredOn: SsoSettingsBefore = { enabled: true, required: true, metadataUrl: URL };
  const cases: ReadonlyArray<[string, SsoSettingsBefore | null, SsoSettingsToCheck, SsoLockoutRisk | undefined]> = [
    ['a new resource, required', null, { enabled: true, required: true, metadataUrl: URL }, { reason: 'enables-sso' }],
    ['a new resource, not required', null, { enabled: true, required: false, metadataUrl: URL }, undefined],
    ['SSO off before, enabled and required now', off, { enabled: true, required: true, metadataUrl: URL }, { reason: 'enables-sso' }],
    ['SSO on before with this URL, required now', on, { enabled: true, required: true, metadataUrl: URL }, undefined],
    ['SSO on before, required now with another URL', on, { enabled: true, required: true, metadataUrl: OTHER }, { reason: 'changes-metadata-url', from: URL, to: OTHER }],
    ['SSO on before without a URL, required now with one', { enabled: true, required: false, metadataUrl: undefined }, { enabled: true, required: true, metadataUrl: URL }, { reason: 'changes-metadata-url', from: undefined, to: URL }],
    ['already required, another URL: required is not turning on', requiredOn, { enabled: true, required: true, metadataUrl: OTHER }, undefined],
    ['SSO on, required now, URL not known yet: counted as a change', on, { enabled: true, required: true, metadataUrl: NOT_KNOWN_YET }, { reason: 'changes-metadata-url', from: URL, to: NOT_KNOWN_YET }],
    ['required not known yet while enabling: counted as turning on', off, { enabled: true, required: NOT_KNOWN_YET, metadataUrl: URL }, { reason: 'enables-sso' }],
    ['required not known yet, SSO on with this URL', on, { enabled: true, required: NOT_KNOWN_YET, metadataUrl: URL }, undefined],
    ['required turned off', requiredOn, { enabled: true, required: false, metadataUrl: OTHER }, undefined],
  ];

  it.each(cases)('%s', (_name, before, after, expected) => {
    expect(ssoLockoutRisk(before, after)).toEqual(expected);
  });
});
