/** The plan binding's fingerprints and refusals (src/provider/service-binding.ts), table-driven. */
import type { Setting } from '../../src/provider/context';
import { bindingMismatch, serviceBinding, type BoundSettings } from '../../src/provider/service-binding';

const set = (value: string): Setting<string> => ({ state: 'set', value });
const settings = (baseUrl: string, tenant: Setting<string> = set('acme')): BoundSettings => ({ baseUrl: set(baseUrl), tenant });
const planned = serviceBinding(settings('https://api.example.com'));

describe('serviceBinding', () => {
  test('records fingerprints, never the settings themselves', () => {
    expect(planned).toEqual({ base_url: expect.stringMatching(/^[0-9a-f]{64}$/), tenant: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(JSON.stringify(planned)).not.toMatch(/example|acme/);
  });

  test('nothing while a setting is not known yet', () => {
    expect(serviceBinding({ baseUrl: { state: 'unknown' }, tenant: set('acme') })).toBeUndefined();
  });
});

describe('bindingMismatch', () => {
  const cases: Array<{ name: string; now: BoundSettings; refused: string | undefined }> = [
    { name: 'same service', now: settings('https://api.example.com'), refused: undefined },
    { name: 'a trailing slash or host case is the same service', now: settings('https://API.example.com/'), refused: undefined },
    { name: 'another base_url', now: settings('https://other.example.com'), refused: 'base_url changed' },
    { name: 'another tenant', now: settings('https://api.example.com', set('globex')), refused: 'tenant changed' },
    { name: 'tenant unset now', now: settings('https://api.example.com', { state: 'missing' }), refused: 'tenant changed' },
    { name: 'both', now: settings('https://other.example.com', set('globex')), refused: 'base_url and tenant changed' },
  ];
  test.each(cases)('$name', ({ now, refused }) => {
    const diagnostic = bindingMismatch(now, planned!);
    if (refused === undefined) expect(diagnostic).toBeUndefined();
    else {
      expect(diagnostic?.summary).toBe(`Plan made against another svc service: ${refused}`);
      expect(diagnostic?.detail).toContain('Nothing was sent');
    }
  });

  test('a setting the plan did not record is not compared', () => {
    expect(bindingMismatch(settings('https://other.example.com'), { tenant: planned!.tenant })).toBeUndefined();
  });
});
