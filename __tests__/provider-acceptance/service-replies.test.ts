/**
 * Acceptance: replies the emulator never gives, from a scripted stand-in for the service, reach
 * the terraform user as what the service answered: a malformed list reply is not "a bug in the
 * svc provider", and a refused list read that is not about the tenant is not "Cannot use tenant".
 */
import { startFakeService, type FakeReply, type FakeService, type RecordedRequest } from '../api/fake-service';
import { useAcceptanceHarness } from './support/harness';
import { hclString, providerBlock, resourceBlock } from '../../scripts/terraform-harness/hcl';

jest.setTimeout(120_000);

const harness = useAcceptanceHarness({ tenants: ['unused'] });
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
  expect(text).toMatch(/list_blacklist: the entry under "Ok"\[0\] has no text "ip" \(HTTP 200, X-Request-ID fake-\d+\); the service answered \{"ip":42,"description":"x"\}/);
  expect(text).not.toContain('Internal error in the svc provider');
});

test('a refused list read that is not about the tenant says what the service answered', async () => {
  const text = await planAgainst({ Error: 'Internal database error, try later' }, resourceBlock('svc_blacklist', 'all', { entries: '{ "192.0.2.1" = "x" }' }));
  expect(text).toContain('Error: Reading the blacklist of tenant "acme" was refused');
  expect(text).toContain('The service refused list_blacklist: "Internal database error, try later". This is the service\'s answer, not a problem with the tenant name');
  expect(text).not.toContain('Cannot use tenant');
});
