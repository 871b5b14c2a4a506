/**
 * `npm run demo:client`, offline: starts the management-API emulator (the real `svc-emulator`
 * executable, on a free loopback port) and walks the management-API client through the
 * service's rules, step by step. `npm run demo` (scripts/demo.ts) shows the same service
 * through cdktf and terraform.
 */
import { randomBytes } from 'node:crypto';
import { LIST_NAMES, type ListName } from '../src/api/types';
import { ManagementApiError } from '../src/api/errors';
import { ManagementClient } from '../src/api/client';
import { startEmulatorProcess } from '../src/emulator/child-process';
import { detail, step } from './demo-output';

const USAGE = `Usage: npm run demo:client [-- --help]

Starts svc-emulator on a free port of 127.0.0.1 and runs the management-API client against it:
list entries in all three lists, a bulk add of 2,500 entries in chunks, blocklist expiry and
risk-based promotion on a moved clock, SSO for the tenant and a channel, a client-side
validation error, the audit log, and a clean-up. Nothing leaves this machine.`;

const TENANT = 'acme';
const CHANNEL = 'main';

async function admin(url: string, route: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}/_emulator/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`admin route ${route} answered HTTP ${response.status}`);
  return (await response.json()) as Record<string, unknown>;
}

async function showList(client: ManagementClient, list: ListName): Promise<void> {
  const entries = await client.listEntries(list);
  detail(`${list}: ${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}`);
  for (const entry of entries.slice(0, 5)) {
    const expires = entry.expires ? `, block ends ${new Date(entry.expires * 1000).toISOString()}` : '';
    detail(`  ${entry.ip.padEnd(22)} ${entry.description}${expires}`);
  }
  if (entries.length > 5) detail(`  ... and ${entries.length - 5} more`);
}

async function run(): Promise<void> {
  // A throwaway key: the emulator and the client know it, the output never shows it.
  const apiKey = randomBytes(18).toString('base64url');

  step('Start the management-API emulator');
  const emulator = await startEmulatorProcess({
    args: ['--tenant', TENANT, '--quiet'],
    apiKey,
    onStderr: (text) => process.stderr.write(text),
  });
  detail(`svc-emulator listening on ${emulator.url} (tenant "${TENANT}", channel "${CHANNEL}")`);
  const client = new ManagementClient({ baseUrl: emulator.url, apiKey, tenant: TENANT });

  try {
    step('Add one entry to each list (login happens on first use and the token is reused)');
    await client.addEntry('blacklist', { ip: '198.51.100.7', description: 'credential stuffing source' });
    await client.addEntry('blocklist', { ip: '203.0.113.0/24', description: 'scanner range, 30-minute block' });
    await client.addEntry('whitelist', { ip: '2001:DB8::10/128', description: 'office egress (IPv6)' });
    for (const list of LIST_NAMES) await showList(client, list);
    detail('2001:DB8::10/128 was stored in canonical form as 2001:db8::10');

    step('Bulk-add 2,500 blacklist entries (the API takes at most 1,000 per call)');
    const bulk = Array.from({ length: 2500 }, (_, index) => ({
      ip: `10.${Math.floor(index / 250)}.${index % 250}.1`,
      description: `demo bulk entry ${index + 1}`,
    }));
    await client.bulkAddEntries('blacklist', bulk, {
      onProgress: (progress) => detail(`chunk ${progress.chunk}/${progress.chunks}: ${progress.done}/${progress.total} entries`),
    });
    await showList(client, 'blacklist');

    step('Bad input is refused before anything is sent');
    try {
      await client.addEntry('blacklist', { ip: '10.0.0.1/24', description: 'host bits set' });
      throw new Error('the client accepted a CIDR with host bits set');
    } catch (error) {
      if (!(error instanceof ManagementApiError)) throw error;
      detail(`${error.code}: ${error.message}`);
    }

    step('Blocklist entries end 30 minutes after they were added (the emulator clock moves 31 minutes)');
    await admin(emulator.url, 'clock', { advanceSeconds: 31 * 60 });
    await showList(client, 'blocklist');

    step('Risk-based blocking: the third block of an address moves it to the blacklist');
    for (let block = 1; block <= 3; block += 1) {
      const outcome = await admin(emulator.url, 'risk-block', { tenant: TENANT, ip: '192.0.2.66' });
      detail(`block ${block}: 192.0.2.66 is now on the ${outcome.list} (blocks: ${outcome.blocks})`);
      await admin(emulator.url, 'clock', { advanceSeconds: 31 * 60 });
    }
    const whitelisted = await admin(emulator.url, 'risk-block', { tenant: TENANT, ip: '2001:db8::10' });
    detail(`a whitelisted address is never blocked: 2001:db8::10 -> ${whitelisted.list}`);

    step('Single sign-on for the tenant and the channel (list, copy without uuid, update)');
    const metadataUrl = 'https://idp.example.com/app/svc/sso/saml/metadata';
    detail(await client.setTenantSso(TENANT, { enabled: true, required: false, saml_metadata_url: metadataUrl }));
    detail(await client.setChannelSso(CHANNEL, { enabled: true, required: true, saml_metadata_url: metadataUrl }));
    const [tenant] = (await client.listCustomers()).filter((customer) => customer.name === TENANT);
    detail(`tenant sso now: ${JSON.stringify(tenant?.sso)}`);

    step('The audit log, newest first');
    for (const event of await client.auditEvents(8)) {
      detail(`${new Date(event.timestamp * 1000).toISOString()}  ${event.category}/${event.action}  ${event.description}`);
    }

    step('Clean up: remove every entry and turn SSO off');
    for (const list of LIST_NAMES) {
      const ips = (await client.listEntries(list)).map((entry) => entry.ip);
      await client.bulkDeleteEntries(list, ips);
      detail(`${list}: removed ${ips.length}`);
    }
    await client.setTenantSso(TENANT, null);
    await client.setChannelSso(CHANNEL, null);
    const calls = client.stats();
    detail(
      `the client sent ${calls.requests} requests: ${calls.logins} logins (the moved clock outlived ` +
        `the 30-minute token ${calls.reauthentications} times), ${calls.retries} retries`,
    );
  } finally {
    await client.close();
    await emulator.stop();
  }
  console.log('\nDone: every step ran against a real HTTP server on this machine.');
}

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(USAGE);
} else {
  run().catch((error: unknown) => {
    console.error(`\ndemo:client failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  });
}
