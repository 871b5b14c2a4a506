/**
 * Acceptance: replies the emulator never gives, from a scripted stand-in for the service, reach
 * the terraform user as what the service answered: a malformed list reply is not "a bug in the
 * svc provider", and a refused list read that is not about the tenant is not "Cannot use tenant".
 * What the service returns is checked like configuration before terraform shows it: a body
 * trickled a byte at a time ends the plan with the request timeout instead of hanging it,
 * terminal escapes and bidi overrides are shown escaped (and a description configuration owns is
 * planned back to the configured text), duplicates are merged with a warning, bad numbers refused.
 */
import { startFakeService, type FakeReply, type FakeService, type RecordedRequest } from '../api/fake-service';
import { useAcceptanceHarness } from './support/harness';
import { hclString, providerBlock, resourceBlock } from '../../scripts/terraform-harness/hcl';

jest.setTimeout(120_000);

const harness = useAcceptanceHarness({ tenants: ['unused', 'hostile'] });

/** What must never reach a reviewer's terminal raw: C0 (but newline and tab), DEL, C1, bidi controls. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** A description that clears the screen and prints a fake "No changes.", then a C1 CSI and a right-to-left override. */
const HOSTILE_DESCRIPTION = '\u001b[2J\u001b[H\u001b[32mNo changes.\u001b[0m\nline2 \u009b2J \u202Eevil';
const HOSTILE_SHOWN = '\\u001b[2J\\u001b[H\\u001b[32mNo changes.\\u001b[0m\\u000aline2 \\u009b2J \\u202eevil';
let service: FakeService | undefined;

afterEach(async () => {
  await service?.close();
  service = undefined;
});

/** Logs in anyone; list_blacklist answers `listReply`. */
function scripted(listReply: object): (request: RecordedRequest) => FakeReply {
  return (request) => {
    if (request.body.command === 'login') return { body: { Ok: { status: true, token: 'fake-session-token' } } };
    if (request.body.command === 'list_blacklist') return { body: listReply };
    return { body: { Error: `not scripted: ${String(request.body.command)}` } };
  };
}

async function planAgainst(listReply: object, resource: string): Promise<string> {
  service = await startFakeService(scripted(listReply));
  const workspace = harness().createWorkspace('replies');
  workspace.write(providerBlock({ baseUrl: service.url, tenant: 'acme', extra: { max_retries: '0' } }) + resource);
  await workspace.init();
  const plan = await workspace.planDetailed();
  expect(plan.code).toBe(1);
  return plan.text.replace(/\s*\n\s*/g, ' ');
}

test.each([
  ['svc_blacklist_entry', resourceBlock('svc_blacklist_entry', 'one', { ip: hclString('192.0.2.1') })],
  ['svc_blacklist', resourceBlock('svc_blacklist', 'all', { entries: '{ "192.0.2.1" = "x" }' })],
])('%s: a malformed list reply names what the service answered, not a provider bug', async (_type, resource) => {
  const text = await planAgainst({ Ok: [{ ip: 42, description: 'x' }] }, resource);
  expect(text).toContain('Error: Unexpected reply from the svc management API');
  expect(text).toMatch(/list_blacklist: the reply's Ok\[0\] has no text "ip" \(HTTP 200, X-Request-ID fake-\d+\); the service answered \{"ip":42,"description":"x"\}/);
  expect(text).not.toContain('Internal error in the svc provider');
});

test('a refused list read that is not about the tenant says what the service answered', async () => {
  const text = await planAgainst({ Error: 'Internal database error, try later' }, resourceBlock('svc_blacklist', 'all', { entries: '{ "192.0.2.1" = "x" }' }));
  expect(text).toContain('Error: Reading the blacklist of tenant "acme" was refused');
  expect(text).toContain('The service refused list_blacklist: "Internal database error, try later". This is the service\'s answer, not a problem with the tenant name');
  expect(text).not.toContain('Cannot use tenant');
});

test('a reply body trickled a byte a second ends the plan with the request timeout, not a hang', async () => {
  // Valid JSON that would take an hour to arrive.
  const slowBody = JSON.stringify({ Ok: [{ ip: '192.0.2.1', description: 'x'.repeat(3600), created: 1 }] });
  service = await startFakeService((request) =>
    request.body.command === 'login' ? { body: { Ok: { status: true, token: 'fake-session-token' } } } : { trickle: slowBody, everyMs: 1000 },
  );
  const workspace = harness().createWorkspace('trickle');
  workspace.write(
    providerBlock({ baseUrl: service.url, tenant: 'acme', extra: { max_retries: '1', request_timeout_seconds: '2' } }) +
      resourceBlock('svc_blacklist', 'all', { entries: '{ "192.0.2.1" = "x" }' }),
  );
  await workspace.init();
  const plan = await workspace.planDetailed();
  expect(plan.code).toBe(1);
  const text = plan.text.replace(/\s*\n\s*/g, ' ');
  expect(text).toContain('Error: Could not reach the svc management API');
  expect(text).toMatch(/list_blacklist: POST http:\/\/127\.0\.0\.1:\d+\/svc_api\/v2\/lists failed: SVC_REQUEST_TIMEOUT \(HTTP 200 headers but no complete body within 2 s; a request, headers and body together, may take at most 2 s\)/);
  expect(text).toContain('request_timeout_seconds');
  // One retry, as configured: two reads, both cut off part-way.
  expect(service.commands('list_blacklist')).toHaveLength(2);
  expect(service.trickles().sent).toBeLessThan(slowBody.length);
});

/** Logs in to the harness's emulator and sends one command, as another user of the API would. */
async function callEmulator(area: string, body: Record<string, unknown>): Promise<unknown> {
  const { url, apiKey } = harness().emulator;
  const post = async (path: string, payload: object) => {
    const response = await fetch(`${url}/svc_api/v2/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
    return (await response.json()) as { Ok?: { token?: string }; Error?: string };
  };
  const login = await post('login', { command: 'login', api_token: apiKey });
  const reply = await post(area, { ...body, token: login.Ok?.token });
  if (reply.Error !== undefined) throw new Error(`the emulator refused ${String(body.command)}: ${reply.Error}`);
  return reply.Ok;
}

test('a description with terminal escapes, written through the API, is shown escaped and planned back to the configured text', async () => {
  const workspace = harness().createWorkspace('escapes');
  workspace.write(harness().providerBlock('hostile') + resourceBlock('svc_blacklist_entry', 'owned', { ip: hclString('203.0.113.5'), description: hclString('configured') }));
  await workspace.init();
  await workspace.apply();
  await callEmulator('lists', { command: 'new_blacklist', customer_name: 'hostile', entry: { ip: '203.0.113.5', description: HOSTILE_DESCRIPTION, created: 1_700_000_000 } });

  const plan = await workspace.planDetailed();
  expect(plan.code).toBe(2);
  expect(plan.text).not.toMatch(RAW_CONTROL);
  expect(plan.text).not.toMatch(/^\s*No changes\./m);
  // The change back: from the escaped text state now holds (terraform doubles its backslashes), to the configured one.
  expect(plan.text).toContain(`~ description = "${HOSTILE_SHOWN.split('\\').join('\\\\')}" -> "configured"`);
  expect(plan.text.replace(/\s*\n\s*(│\s*)?/g, ' ')).toContain('Warning: The svc management API returned text with control characters, shown escaped (list_blacklist, tenant "hostile")');
  expect(plan.actions['svc_blacklist_entry.owned']).toBe('update');

  // Apply writes the configured text back; the next plan is clean.
  await workspace.apply();
  const after = await workspace.planDetailed();
  expect(after.code).toBe(0);
  expect(workspace.stateAttributes('svc_blacklist_entry.owned').description).toBe('configured');
});

test('a whole-list import of non-canonical, duplicate and hostile entries: canonical keys, the first of duplicates kept, with warnings', async () => {
  service = await startFakeService(
    scripted({
      Ok: [
        { ip: '10.0.0.1', description: 'first', created: 1 },
        { ip: '10.0.0.1/32', description: 'second', created: 2 },
        { ip: '10.0.0.1', description: 'third', created: 3 },
        { ip: '2001:DB8::1', description: 'upper', created: 4 },
        { ip: '2001:db8::1', description: 'lower', created: 5 },
        { ip: '192.0.2.9', description: HOSTILE_DESCRIPTION, created: 6 },
        { ip: '192.0.2.10', description: 'h'.repeat(5 * 1024 * 1024), created: 7 },
      ],
    }),
  );
  const workspace = harness().createWorkspace('import-hostile');
  workspace.write(
    providerBlock({ baseUrl: service.url, tenant: 'acme', extra: { max_retries: '0' } }) +
      'import {\n  to = svc_blacklist.all\n  id = "acme"\n}\n' +
      resourceBlock('svc_blacklist', 'all', { entries: '{ "10.0.0.1" = "first", "2001:db8::1" = "upper", "192.0.2.9" = "configured", "192.0.2.10" = "short" }' }),
  );
  await workspace.init();
  const plan = await workspace.planDetailed();
  expect(plan.code).toBe(2);
  expect(plan.text).not.toMatch(RAW_CONTROL);
  const text = plan.text.replace(/\s*\n\s*(│\s*)?/g, ' ');
  expect(text).toContain('the service lists 10.0.0.1 3 times (as "10.0.0.1", "10.0.0.1/32", "10.0.0.1"), one address once canonical: merged into one entry, kept the first, description "first"; ignored "second", "third"');
  expect(text).toContain('the service lists 2001:db8::1 2 times (as "2001:DB8::1", "2001:db8::1")');
  expect(text).toContain("the entry 192.0.2.10's description is 5242880 characters long; cut to its first 1024 (Ok[6].description)");
  expect(text).toContain("the entry 192.0.2.9's description holds control or bidirectional-override characters; they are shown escaped");
  // The imported object, as the plan read it: canonical keys, the first of duplicates, escaped and cut texts.
  const imported = plan.plan!.resource_changes!.find((change) => change.address === 'svc_blacklist.all')!;
  const before = (imported.change as { before: { entries: Record<string, string> } }).before.entries;
  expect(Object.keys(before).sort()).toEqual(['10.0.0.1', '192.0.2.10', '192.0.2.9', '2001:db8::1']);
  expect(before['10.0.0.1']).toBe('first');
  expect(before['2001:db8::1']).toBe('upper');
  expect(before['192.0.2.9']).toBe(HOSTILE_SHOWN);
  expect(before['192.0.2.10']).toBe(`${'h'.repeat(1024)}...`);
  // The plan is at most a few kB of text, not 5 MB.
  expect(plan.text.length).toBeLessThan(20_000);
});

test.each([
  ['created: null', { ip: '192.0.2.1', description: 'x', created: null }, /Ok\[0\]\.created is null; expected whole epoch seconds/],
  ['created: 1e308', { ip: '192.0.2.1', description: 'x', created: 1e308 }, /Ok\[0\]\.created is 1e\+308; expected whole epoch seconds/],
  ['created: 1.5', { ip: '192.0.2.1', description: 'x', created: 1.5 }, /Ok\[0\]\.created is 1\.5; expected whole epoch seconds/],
])('a list entry with %s is refused at plan, naming the field', async (_name, entry, says) => {
  const text = await planAgainst({ Ok: [entry] }, resourceBlock('svc_blacklist', 'all', { entries: '{ "192.0.2.1" = "x" }' }));
  expect(text).toContain('Error: Unexpected reply from the svc management API');
  expect(text).toMatch(says);
  expect(text).toMatch(/\(HTTP 200, X-Request-ID fake-\d+\)/);
});
