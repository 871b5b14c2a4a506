/**
 * The configurations the bench's plan rows compare hold the same entries on every side, and the
 * Go peer's can reach nothing but a closed loopback port (terraform runs them in bench.test.ts).
 */
import { benchEntries, dataResources, entryResources, floorProviderBlock, floorResources, goPeerEntryResources, goPeerIpSetResource, goPeerProviderBlock, wideFloorResources } from '../../scripts/bench/configurations';

const entries = benchEntries(4);

/** Every quoted string in the configuration that looks like an address (ip, cidr or map key). */
function addresses(configuration: string): string[] {
  return [...configuration.matchAll(/"(10\.\d+\.\d+\.\d+)(?:\/32)?"/g)].map((match) => match[1]);
}

describe('bench configurations', () => {
  test.each([
    ['svc_*_entry', entryResources(entries)],
    ['floor_entry', floorResources(entries)],
    ['floor_wide_entry', wideFloorResources(entries)],
    ['terraform_data', dataResources(entries)],
    ['aws_ec2_managed_prefix_list_entry', goPeerEntryResources(entries)],
    ['aws_wafv2_ip_set', goPeerIpSetResource(entries)],
  ])('%s holds the same addresses, in order', (_name, configuration) => {
    expect(addresses(configuration)).toEqual(entries.map((entry) => entry.ip));
  });

  test.each([
    ['floor_entry', floorResources(entries)],
    ['floor_wide_entry', wideFloorResources(entries)],
    ['aws_ec2_managed_prefix_list_entry', goPeerEntryResources(entries)],
  ])('%s holds the same descriptions as the svc entries', (_name, configuration) => {
    const descriptions = [...configuration.matchAll(/description\s+= "([^"]*)"/g)].map((match) => match[1]);
    expect(descriptions).toEqual(entries.map((entry) => entry.description));
  });

  test('the floor is required from its own namespace', () => {
    expect(floorProviderBlock()).toContain('floor = { source = "svc-bench/floor" }');
    expect(floorResources(entries)).toMatch(/^resource "floor_entry" "entry_00001" \{/);
  });

  test("the floor with svc's attributes: one floor_wide_entry per entry, and like the svc entries no tenant (each takes its default)", () => {
    const configuration = wideFloorResources(entries);
    expect([...configuration.matchAll(/^resource "(\w+)" "(\w+)" \{$/gm)].map((match) => `${match[1]}.${match[2]}`)).toEqual(entries.map((entry) => `floor_wide_entry.${entry.name}`));
    expect(configuration).not.toContain('tenant');
    expect(entryResources(entries)).not.toContain('tenant');
  });

  test('the Go peer has fake keys, no account or credential checks, and every endpoint on a closed loopback port', () => {
    const block = goPeerProviderBlock();
    for (const setting of ['skip_credentials_validation = true', 'skip_requesting_account_id  = true', 'skip_metadata_api_check     = true', 'max_retries                 = 0']) expect(block).toContain(setting);
    const urls = [...block.matchAll(/"(https?:\/\/[^"]+)"/g)].map((match) => match[1]);
    expect(urls).toHaveLength(3);
    for (const url of urls) expect(new URL(url).hostname).toBe('127.0.0.1');
    expect(block).toMatch(/endpoints \{\n {4}ec2 {3}= .*\n {4}sts {3}= .*\n {4}wafv2 = .*\n {2}\}/);
  });
});
