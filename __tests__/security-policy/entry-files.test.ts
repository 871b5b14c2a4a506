import { PolicyFileError, SecurityPolicy, loadPolicyEntryFile } from '../../modules/security-policy';
import { svcStack, thrownBy, useTemporaryWorkingDirectory } from './support';

const workingDirectory = useTemporaryWorkingDirectory();

describe('loadPolicyEntryFile', () => {
  test.each([
    ['YAML under entries', 'policy/list.yaml', 'entries:\n  - ip: 203.0.113.9\n    description: scanner\n  - ip: "2001:DB8::1"\n', ['entries[0]', 'entries[1]'], [2, 4]],
    ['YAML top-level list, .yml', 'policy/list.yml', '# comment\n- ip: 198.51.100.0/24\n- ip: 192.0.2.1/32\n  description: null\n', ['[0]', '[1]'], [2, 3]],
    ['JSON top-level list', 'policy/list.json', '[\n  {"ip": "203.0.113.9", "description": "scanner"},\n\n  {"ip": "2001:DB8::1"}\n]\n', ['[0]', '[1]'], [2, 4]],
    ['JSON saved with a byte order mark', 'policy/list.json', '\uFEFF[\n  {"ip": "203.0.113.9"}\n]\n', ['[0]'], [2]],
    ['YAML saved with a byte order mark', 'policy/list.yaml', '\uFEFF# comment\n- ip: 203.0.113.9\n', ['[0]'], [2]],
    ['JSON under entries', 'policy/list.json', '{\n  "entries": [\n    {\n      "description": "d",\n      "ip": "198.51.100.0/24"\n    }\n  ]\n}\n', ['entries[0]'], [5]],
  ])('reads %s with the line of each entry', (_name, file, text, fields, lines) => {
    workingDirectory.write(file, text);
    const entries = loadPolicyEntryFile(file);
    expect(entries.map((entry) => entry.source)).toEqual(fields.map((field, index) => ({ file, line: lines[index], field })));
  });

  test('keeps the spelling, gives the canonical address and the description', () => {
    workingDirectory.write('policy/list.yaml', 'entries:\n  - ip: 2001:DB8::1\n    description: probe\n  - ip: 192.0.2.1/32\n');
    expect(loadPolicyEntryFile('policy/list.yaml').map(({ ip, canonical, description }) => ({ ip, canonical, description }))).toEqual([
      { ip: '2001:DB8::1', canonical: '2001:db8::1', description: 'probe' },
      { ip: '192.0.2.1/32', canonical: '192.0.2.1', description: undefined },
    ]);
  });

  test('a file of comments only declares no entries', () => {
    workingDirectory.write('policy/empty.yaml', '# nothing whitelisted yet\n');
    expect(loadPolicyEntryFile('policy/empty.yaml')).toEqual([]);
  });

  test('an absolute path outside the working directory is shown as it is', () => {
    const file = workingDirectory.write('elsewhere/list.yaml', '- ip: 10.0.0.300\n');
    workingDirectory.write('project/.keep', '');
    process.chdir('project');
    const error = thrownBy(() => loadPolicyEntryFile(file));
    expect(error.message.startsWith(`${file}:1: [0].ip: "10.0.0.300"`)).toBe(true);
  });
});

// One row per kind of mistake a security team makes in an entry file: the error names file,
// line, field and value, with a stable code.
const BAD_FILES: ReadonlyArray<{ name: string; files: Record<string, string>; load?: string[]; code: string; message: string | RegExp }> = [
  {
    name: 'bad IPv4 (YAML)',
    files: { 'policy/blacklist.yaml': '# blocked\nentries:\n  - ip: 203.0.113.9\n  - ip: 198.51.100.1\n    description: ok\n\n  - ip: "10.0.0.300"\n' },
    code: 'invalid_policy_entry',
    message: 'policy/blacklist.yaml:7: entries[2].ip: "10.0.0.300" is not an IPv4 or IPv6 address or CIDR range (octet 300 is above 255)',
  },
  {
    name: 'bad IPv4 (JSON)',
    files: { 'policy/blacklist.json': '[\n  { "ip": "203.0.113.9" },\n  {\n    "description": "x",\n    "ip": "1.2.3"\n  }\n]\n' },
    code: 'invalid_policy_entry',
    message: 'policy/blacklist.json:5: [1].ip: "1.2.3" is not an IPv4 or IPv6 address or CIDR range (not a dotted-quad IPv4 address)',
  },
  {
    name: 'CIDR with host bits',
    files: { 'policy/blacklist.yaml': '- ip: 198.51.100.7/24\n  description: range\n' },
    code: 'invalid_policy_entry',
    message: 'policy/blacklist.yaml:1: [0].ip: "198.51.100.7/24" is not an IPv4 or IPv6 address or CIDR range (host bits are set; the network of this range is 198.51.100.0/24)',
  },
  {
    name: 'empty ip',
    files: { 'policy/blacklist.yaml': '- ip: 203.0.113.9\n- ip: ""\n' },
    code: 'invalid_policy_entry',
    message: 'policy/blacklist.yaml:2: [1].ip: "" is not an IPv4 or IPv6 address or CIDR range (the value is empty)',
  },
  {
    name: 'ip without a value',
    files: { 'policy/blacklist.yaml': '- ip: 203.0.113.9\n- description: who?\n  ip:\n' },
    code: 'invalid_policy_entry',
    message: 'policy/blacklist.yaml:3: [1].ip: has no value',
  },
  {
    name: 'missing ip (JSON)',
    files: { 'policy/blacklist.json': '{"entries": [\n  {"ip": "203.0.113.9"},\n  {"description": "no address"}\n]}\n' },
    code: 'invalid_policy_entry',
    message: 'policy/blacklist.json:3: entries[1].ip: is missing; every entry needs an ip',
  },
  {
    name: 'ip of the wrong type',
    files: { 'policy/blacklist.yaml': '- ip: 203.0.113.9\n- ip: 10\n' },
    code: 'invalid_policy_entry',
    message: 'policy/blacklist.yaml:2: [1].ip: expected a string, got number 10; quote the address',
  },
  {
    name: 'description of the wrong type',
    files: { 'policy/blacklist.json': '[{"ip": "203.0.113.9",\n  "description": ["a"]}]' },
    code: 'invalid_policy_entry',
    message: 'policy/blacklist.json:2: [0].description: expected text, got a list',
  },
  {
    name: 'entry that is not an object',
    files: { 'policy/blacklist.yaml': 'entries:\n  - 203.0.113.9\n' },
    code: 'invalid_policy_entry',
    message: 'policy/blacklist.yaml:2: entries[0]: expected an object { ip, description? }, got string "203.0.113.9"',
  },
  {
    name: 'unknown field of an entry (a typo)',
    files: { 'policy/blacklist.yaml': '- ip: 203.0.113.9\n  desc: scanner\n' },
    code: 'invalid_policy_entry',
    message: 'policy/blacklist.yaml:2: [0].desc: unknown field; an entry has ip and description',
  },
  {
    name: 'duplicate across two files, in another spelling',
    files: { 'policy/a.yaml': '- ip: 203.0.113.9\n- ip: 2001:db8::1\n', 'policy/b.json': '[\n  {"ip": "198.51.100.1"},\n  {"ip": "2001:DB8:0::1/128"}\n]\n' },
    code: 'duplicate_policy_entry',
    message: 'policy/b.json:3: [1].ip: "2001:DB8:0::1/128" is the same address as "2001:db8::1" at policy/a.yaml:2: [1] (both are 2001:db8::1 on the blacklist); keep one of the two entries',
  },
  {
    name: 'duplicate within one file',
    files: { 'policy/a.yaml': '- ip: 203.0.113.9\n- ip: 198.51.100.1\n- ip: 203.0.113.9/32\n' },
    code: 'duplicate_policy_entry',
    message: 'policy/a.yaml:3: [2].ip: "203.0.113.9/32" is the same address as "203.0.113.9" at policy/a.yaml:1: [0]',
  },
  {
    name: 'unreadable file',
    files: {},
    code: 'invalid_policy_file',
    message: 'policy/blacklist.yaml: cannot be read (ENOENT); check the path',
  },
  {
    name: 'bad YAML syntax',
    files: { 'policy/blacklist.yaml': 'entries:\n  - ip: 203.0.113.9\n  - ip: [198.51.100.1\n' },
    code: 'invalid_policy_file',
    message: /^policy\/blacklist\.yaml:[34]: is not valid YAML: /,
  },
  {
    name: 'bad JSON syntax (trailing comma)',
    files: { 'policy/blacklist.json': '[\n  {"ip": "203.0.113.9"},\n]\n' },
    code: 'invalid_policy_file',
    message: "policy/blacklist.json:3: is not valid JSON: expected a value, found ']' (a trailing comma?)",
  },
  {
    name: 'two YAML documents in one file',
    files: { 'policy/blacklist.yaml': '- ip: 203.0.113.9\n---\n- ip: 198.51.100.1\n' },
    code: 'invalid_policy_file',
    message: 'policy/blacklist.yaml:2: is not valid YAML: holds more than one document (a --- line); keep one list per file, or split it into files',
  },
  {
    name: 'a YAML alias for an entry',
    files: { 'policy/blacklist.yaml': '- &scanner { ip: 203.0.113.9 }\n- *scanner\n' },
    code: 'invalid_policy_entry',
    message: 'policy/blacklist.yaml:2: [1]: expected an object { ip, description? }, got the alias *scanner (write the value out; entry files take no YAML anchors or aliases)',
  },
  {
    name: 'a YAML alias for an ip',
    files: { 'policy/blacklist.yaml': '- ip: &office 192.0.2.1\n- ip: *office\n' },
    code: 'invalid_policy_entry',
    message: 'policy/blacklist.yaml:2: [1].ip: expected a string, got the alias *office (write the value out; entry files take no YAML anchors or aliases)',
  },
  {
    name: 'a mapping without entries',
    files: { 'policy/blacklist.yaml': 'ips:\n  - 203.0.113.9\n' },
    code: 'invalid_policy_file',
    message: 'policy/blacklist.yaml:1: ips: unknown field; the file holds a list of { ip, description? } objects',
  },
  {
    name: 'entries that is not a list',
    files: { 'policy/blacklist.yaml': 'entries: 203.0.113.9\n' },
    code: 'invalid_policy_file',
    message: 'policy/blacklist.yaml:1: entries: expected a list of { ip, description? } objects, got string "203.0.113.9"',
  },
  {
    name: 'entries with no value',
    files: { 'policy/blacklist.yaml': '# to do\nentries:\n' },
    code: 'invalid_policy_file',
    message: 'policy/blacklist.yaml:2: entries: expected a list of { ip, description? } objects, got nothing',
  },
  {
    name: 'an empty JSON object',
    files: { 'policy/blacklist.json': '{}\n' },
    code: 'invalid_policy_file',
    message: 'policy/blacklist.json:1: entries: expected a list of { ip, description? } objects, got nothing',
  },
  {
    name: 'a single address at the top level',
    files: { 'policy/blacklist.yaml': '203.0.113.9\n' },
    code: 'invalid_policy_file',
    message: 'policy/blacklist.yaml:1: (top level): expected a list of { ip, description? } objects, at the top level or under "entries", got string "203.0.113.9"',
  },
  {
    name: 'an empty list item',
    files: { 'policy/blacklist.yaml': '- ip: 203.0.113.9\n-\n' },
    code: 'invalid_policy_entry',
    message: 'policy/blacklist.yaml:2: [1]: expected an object { ip, description? }, got nothing',
  },
  {
    name: 'a description with a control character',
    files: { 'policy/blacklist.yaml': '- ip: 203.0.113.9\n  description: "bell\\u0007"\n' },
    code: 'invalid_policy_entry',
    message: 'policy/blacklist.yaml:2: [0].description: holds the control character U+0007 at position 5; descriptions are one line of printable text',
  },
  {
    name: 'a directory where the file should be',
    files: { 'policy/blacklist.yaml/keep': '' },
    load: ['policy/blacklist.yaml'],
    code: 'invalid_policy_file',
    message: 'policy/blacklist.yaml: cannot be read (EISDIR); check the file and its permissions',
  },
  {
    name: 'unknown extension',
    files: { 'policy/blacklist.txt': '203.0.113.9\n' },
    code: 'invalid_policy_file',
    message: 'policy/blacklist.txt: has an unknown extension ".txt"; name it .yaml, .yml or .json',
  },
];

describe('bad entry files stop synth, naming file and line', () => {
  test.each(BAD_FILES.map((row) => [row.name, row] as const))('%s', (_name, row) => {
    for (const [file, text] of Object.entries(row.files)) workingDirectory.write(file, text);
    const files = row.load ?? (Object.keys(row.files).length > 0 ? Object.keys(row.files) : ['policy/blacklist.yaml']);
    const error = thrownBy(() => new SecurityPolicy(svcStack(), 'security-policy', { blacklist: { files } }));
    expect(error).toBeInstanceOf(PolicyFileError);
    expect(error.code).toBe(row.code);
    if (typeof row.message === 'string') expect(error.message).toContain(row.message);
    else expect(error.message).toMatch(row.message);
    expect(error.message.startsWith(`${(error as PolicyFileError).file}`)).toBe(true);
  });

  test('the error carries file, line, field and value', () => {
    workingDirectory.write('policy/whitelist.yaml', 'entries:\n  - ip: 203.0.113.9\n  - ip: 10.0.0.1/24\n');
    const error = thrownBy(() => new SecurityPolicy(svcStack(), 'security-policy', { whitelist: { resources: 'whole-list', files: ['policy/whitelist.yaml'] } }));
    expect(error).toMatchObject({ name: 'PolicyFileError', file: 'policy/whitelist.yaml', line: 3, field: 'entries[1].ip', value: '10.0.0.1/24' });
  });
});
