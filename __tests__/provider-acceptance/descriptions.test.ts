/**
 * Acceptance: descriptions and the size of bulk calls, with the real terraform CLI.
 * - Long descriptions (up to the documented 1,024 characters) apply: bulk calls are split by
 *   body size as well as by count, so 1,000 of them need two calls, not one the service refuses.
 * - A description over the limit, or with a control character (an ESC sequence can rewrite
 *   terraform's plan output), is refused at validate naming the attribute; nothing is sent.
 */
import { MAX_DESCRIPTION_LENGTH } from '../../src/description';
import { useAcceptanceHarness } from './support/harness';
import { hclString, resourceBlock } from '../../scripts/terraform-harness/hcl';

jest.setTimeout(180_000);

const TENANTS = { bulk: 'long-descriptions', invalid: 'invalid-descriptions' };
const harness = useAcceptanceHarness({ tenants: Object.values(TENANTS) });

test('1,000 entries with 1,024-character descriptions apply in calls split by size', async () => {
  const description = 'd'.repeat(MAX_DESCRIPTION_LENGTH);
  const entries = Array.from({ length: 1000 }, (_, index) => `    "10.1.${Math.floor(index / 250)}.${(index % 250) + 1}" = ${hclString(description)}`);
  const workspace = harness().createWorkspace('long');
  workspace.write([harness().providerBlock(TENANTS.bulk), 'resource "svc_whitelist" "long" {', '  entries = {', ...entries, '  }', '}', ''].join('\n'));
  await workspace.init();
  harness().emulator.emulator.resetStats();
  await workspace.apply();
  // About 1.1 MB of entries: two calls under the 1 MiB bound, though 1,000 is within the count.
  expect(harness().emulator.emulator.stats().byCommand.bulk_new_whitelist).toBe(2);
  const listed = await harness().emulator.client(TENANTS.bulk).listEntries('whitelist');
  expect(listed).toHaveLength(1000);
  expect(listed.every((entry) => entry.description === description)).toBe(true);
  await workspace.planExpecting(0);
});

describe('refused at validate, naming the attribute, nothing sent', () => {
  const cases: Array<[string, string, string, RegExp]> = [
    [
      'a per-entry description over the limit',
      resourceBlock('svc_blacklist_entry', 'long', { ip: hclString('192.0.2.1'), description: hclString('x'.repeat(MAX_DESCRIPTION_LENGTH + 1)) }),
      'Error: Invalid description in description',
      /description = "x{100}"\.\.\. \(1025 characters\): is 1025 characters long; descriptions hold at most 1024/,
    ],
    [
      'an ESC sequence in a per-entry description',
      resourceBlock('svc_blacklist_entry', 'escape', { ip: hclString('192.0.2.2'), description: '"scanner\\u001b[2J"' }),
      'Error: Invalid description in description',
      /description = "scanner\\u001b\[2J": holds the control character U\+001B at position 8/,
    ],
    [
      'a newline in a whole-list description',
      resourceBlock('svc_whitelist', 'office', { entries: '{ "198.51.100.0/24" = "office\\nfake line" }' }),
      'Error: Invalid description in entries["198.51.100.0/24"]',
      /entries\["198\.51\.100\.0\/24"\] = "office\\nfake line": holds the control character U\+000A/,
    ],
  ];
  test.each(cases)('%s', async (_name, block, summary, detail) => {
    const workspace = harness().createWorkspace('invalid');
    workspace.write(harness().providerBlock(TENANTS.invalid) + block);
    await workspace.init();
    harness().emulator.emulator.resetStats();
    const validated = await workspace.validate();
    expect(validated.code).toBe(1);
    const text = `${validated.stdout}\n${validated.stderr}`;
    expect(text).toContain(summary);
    expect(text.replace(/\s*\n\s*/g, ' ')).toMatch(detail);
    const plan = await workspace.planDetailed();
    expect(plan.code).toBe(1);
    expect(harness().emulator.emulator.stats().requests).toBe(0);
  });
});
