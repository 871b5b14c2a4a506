import { classifyServiceError, parseReplyBody } from '../../src/api/reply';

describe('parseReplyBody branches on the key, not the status', () => {
  test.each([
    ['Ok with a list', '{"Ok":[]}', { kind: 'ok', value: [] }],
    ['lower-case ok of new_*', '{"ok":"Blacklist entry for ip 192.0.2.1 added"}', { kind: 'ok', value: 'Blacklist entry for ip 192.0.2.1 added' }],
    ['Ok null (get of an absent entry)', '{"Ok":null}', { kind: 'ok', value: null }],
    ['Error with a message', '{"Error":"Token Expired. Please re-authenticate."}', { kind: 'error', message: 'Token Expired. Please re-authenticate.' }],
    ['Error that is not a string', '{"Error":{"detail":"x"}}', { kind: 'error', message: '{"detail":"x"}' }],
    ['Error wins over Ok', '{"Ok":1,"Error":"no"}', { kind: 'error', message: 'no' }],
    ['neither key', '{"message":"Service Unavailable"}', { kind: 'unexpected', reason: 'has neither "Ok"/"ok" nor "Error"' }],
    ['not JSON', 'Internal Server Error', { kind: 'unexpected', reason: 'is not JSON' }],
    ['empty body', '', { kind: 'unexpected', reason: 'has an empty body' }],
    ['JSON array', '[1,2]', { kind: 'unexpected', reason: 'is JSON but not an object' }],
    ['JSON null', 'null', { kind: 'unexpected', reason: 'is JSON but not an object' }],
    ['truncated JSON', '{"Ok":[', { kind: 'unexpected', reason: 'is not JSON' }],
  ])('%s', (_name, body, expected) => {
    expect(parseReplyBody(body)).toEqual(expected);
  });
});

describe('classifyServiceError', () => {
  test.each([
    ['expired token', 'Token Expired. Please re-authenticate.', 'token'],
    ['unknown token', 'Invalid token. Please re-authenticate.', 'token'],
    ['read-only user', 'Permission denied: read-only user', 'permission'],
    ['entry absent', 'Whitelist entry for ip 192.0.2.1 not found', 'not-found'],
    ['absent in other words', 'IP NOT FOUND', 'not-found'],
    ['invalid address', 'Invalid IP address or CIDR: 10.0.0.1/8', 'other'],
    ['unknown tenant', 'Unknown customer: acme. Check customer_name against the customers list', 'other'],
    ['too many entries', 'Too many entries: 1001 (max 1000)', 'other'],
    ['wrong method is not a permission problem', 'Method GET is not allowed; send a POST with a JSON body', 'other'],
  ])('%s', (_name, message, expected) => {
    expect(classifyServiceError(message)).toBe(expected);
  });
});
