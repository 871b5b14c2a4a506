/**
 * Entries written inline in the app config's securityPolicy section are named by the config
 * file and their field path there (`svc.config.json: securityPolicy.blocklist.entries[1]`), not
 * by the construct path and prop the app passes them through.
 */
import { PolicyFileError, SecurityPolicy } from '../../modules/security-policy';
import { parseSecurityPolicyConfig, securityPolicyPropsFromConfig } from '../../modules/security-policy/config';
import { svcStack, synthJson, thrownBy, useTemporaryWorkingDirectory } from './support';

const workingDirectory = useTemporaryWorkingDirectory();

function synthFromConfig(section: unknown): void {
  const stack = svcStack();
  new SecurityPolicy(stack, 'security-policy', securityPolicyPropsFromConfig(parseSecurityPolicyConfig('svc.config.json', section)));
  synthJson(stack);
}

const cases: Array<[name: string, section: unknown, files: Record<string, string>, message: string]> = [
  [
    'two inline entries of the config file: both places in the config file',
    { blocklist: { entries: [{ ip: '2001:db8::1' }, { ip: '198.51.100.7' }, { ip: '2001:DB8::1' }] } },
    {},
    'svc.config.json: securityPolicy.blocklist.entries[2].ip: "2001:DB8::1" is the same address as "2001:db8::1" at svc.config.json: securityPolicy.blocklist.entries[0] (both are 2001:db8::1 on the blocklist); keep one of the two entries',
  ],
  [
    'an inline entry of the config file and an entry file: the file line and the config field',
    { blacklist: { entries: [{ ip: '203.0.113.9/32' }], files: ['policy/blacklist.yaml'] } },
    { 'policy/blacklist.yaml': '- ip: 198.51.100.1\n- ip: 203.0.113.9\n' },
    'policy/blacklist.yaml:2: [1].ip: "203.0.113.9" is the same address as "203.0.113.9/32" at svc.config.json: securityPolicy.blacklist.entries[0] (both are 203.0.113.9 on the blacklist); keep one of the two entries',
  ],
];
test.each(cases)('%s', (_name, section, files, message) => {
  for (const [file, text] of Object.entries(files)) workingDirectory.write(file, text);
  const error = thrownBy(() => synthFromConfig(section));
  expect(error).toBeInstanceOf(PolicyFileError);
  expect({ code: error.code, message: error.message }).toEqual({ code: 'duplicate_policy_entry', message });
});

test('the entries stay plain { ip, description } to everything else', () => {
  const props = securityPolicyPropsFromConfig(parseSecurityPolicyConfig('svc.config.json', { blocklist: { entries: [{ ip: '198.51.100.7', description: 'x' }] } }));
  expect(props.blocklist?.entries).toEqual([{ ip: '198.51.100.7', description: 'x' }]);
  expect(JSON.stringify(props.blocklist?.entries)).toBe('[{"ip":"198.51.100.7","description":"x"}]');
});
