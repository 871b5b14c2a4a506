/**
 * Session tokens that live shorter than the apply: the real terraform applies per-entry
 * resources while every token expires after 1 to 2 s (a 2 s TTL on a clock of whole seconds)
 * and every API request takes at least 60 ms. The provider logs in again whenever the service
 * says the token expired; the apply succeeds and the API equals the configuration. With the
 * faults of the other tests on top, a retry backoff may outlive a fresh token too.
 */
import type { ListName } from '../../src/api/types';
import type { FaultSettings } from '../../src/emulator/server';
import { hclString, providerBlock } from '../../scripts/terraform-harness/hcl';
import { byIp, faultsInjected, printFigures, providerRetries, useFaultHarness } from './support';

jest.setTimeout(120_000);

const harness = useFaultHarness();
const TENANT = 'tokens';
const PER_LIST = 30;
const LISTS: readonly ListName[] = ['blacklist', 'blocklist', 'whitelist'];
const TOKEN_TTL_SECONDS = 2;

const cases: Array<[name: string, faults: FaultSettings]> = [
  ['latency only', { rate: 0, latencyMs: 60 }],
  ['latency and 20% faults', { rate: 0.2, kinds: ['429', '500', '503', 'reset', 'reset-after'], latencyMs: 60, retryAfterSeconds: 0, seed: 11 }],
];

test.each(cases)(`${PER_LIST * 3} entries with a ${TOKEN_TTL_SECONDS} s token lifetime, %s`, async (name, faults) => {
  const emulator = await harness().startEmulator({ tenants: [TENANT], tokenTtlSeconds: TOKEN_TTL_SECONDS });
  const workspace = harness().createWorkspace('tokens', emulator.apiKey);
  const expected = (list: ListName) =>
    Object.fromEntries(Array.from({ length: PER_LIST }, (_unused, index) => [`203.0.${LISTS.indexOf(list)}.${index + 1}`, `${list} ${index}`]));
  workspace.write(
    providerBlock({ baseUrl: emulator.url, tenant: TENANT, extra: { max_retries: '10' } }) +
      LISTS.map((list) =>
        [
          `resource "svc_${list}_entry" "e" {`,
          `  for_each    = { ${Object.entries(expected(list)).map(([ip, description]) => `${hclString(ip)} = ${hclString(description)}`).join(', ')} }`,
          '  ip          = each.key',
          '  description = each.value',
          '}',
          '',
        ].join('\n'),
      ).join('\n'),
  );
  await workspace.init();
  emulator.emulator.setFaults(faults);
  emulator.emulator.resetStats();
  const started = emulator.emulator.now();

  // Three at a time: 180 requests of >= 60 ms take >= 3.6 s, two token lifetimes at least.
  const apply = await workspace.apply(['-parallelism=3']);
  const stats = emulator.emulator.stats();
  const seconds = emulator.emulator.now() - started;
  emulator.emulator.setFaults(undefined);

  const reauthentications = (apply.providerLog.match(/svc client \[[^\]]*\] reauthenticate /g) ?? []).length;
  let lost = 0;
  for (const list of LISTS) {
    const listed = byIp(await emulator.entries(TENANT, list));
    const want = expected(list);
    lost += Object.entries(want).filter(([ip, description]) => listed[ip] !== description).length;
    expect(listed).toEqual(Object.fromEntries(Object.entries(want).sort(([left], [right]) => (left < right ? -1 : 1))));
  }
  printFigures(`token ttl ${TOKEN_TTL_SECONDS}s, ${name}`, {
    entries: PER_LIST * 3,
    apply_seconds_on_emulator_clock: seconds,
    logins: stats.logins,
    reauthentications,
    faults: faultsInjected(stats),
    retries: providerRetries(apply.providerLog),
    lost,
  });
  // The apply outlived the first token, so the service refused expired tokens and the provider logged in again.
  expect(seconds).toBeGreaterThanOrEqual(TOKEN_TTL_SECONDS);
  expect(reauthentications).toBeGreaterThan(0);
  expect(stats.logins).toBeGreaterThanOrEqual(2);
  expect(lost).toBe(0);
});
