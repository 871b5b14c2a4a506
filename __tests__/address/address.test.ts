import { canonicalAddress, checkAddress, InvalidAddressError, parseAddress } from '../../src/address';

describe('canonicalAddress: valid input', () => {
  const cases: Array<[name: string, input: string, canonical: string]> = [
    ['IPv4 plain', '10.0.0.1', '10.0.0.1'],
    ['IPv4 zero address', '0.0.0.0', '0.0.0.0'],
    ['IPv4 broadcast', '255.255.255.255', '255.255.255.255'],
    ['IPv4 /32 folds to the bare address', '10.0.0.1/32', '10.0.0.1'],
    ['IPv4 /24 network', '192.168.1.0/24', '192.168.1.0/24'],
    ['IPv4 /8 network', '10.0.0.0/8', '10.0.0.0/8'],
    ['IPv4 /0 default route', '0.0.0.0/0', '0.0.0.0/0'],
    ['IPv4 /31 pair', '10.0.0.2/31', '10.0.0.2/31'],
    ['IPv4 single zero octets', '10.0.0.0/16', '10.0.0.0/16'],
    ['IPv6 loopback', '::1', '::1'],
    ['IPv6 unspecified', '::', '::'],
    ['IPv6 upper case lowers', '2001:DB8::1', '2001:db8::1'],
    ['IPv6 full form compresses', '2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['IPv6 longest zero run compresses', '2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['IPv6 first of equal zero runs compresses', '2001:0:0:1:0:0:0:1', '2001:0:0:1::1'],
    ['IPv6 single zero group is not compressed', '2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['IPv6 leading zeros in a group drop', '2001:db8::0001', '2001:db8::1'],
    ['IPv6 /128 folds to the bare address', '2001:db8::1/128', '2001:db8::1'],
    ['IPv6 /64 network', '2001:db8:abcd:12::/64', '2001:db8:abcd:12::/64'],
    ['IPv6 /32 network written long', '2001:0DB8:0000::/32', '2001:db8::/32'],
    ['IPv6 /0', '::/0', '::/0'],
    ['IPv6 trailing compression', '1::', '1::'],
    ['IPv6 IPv4-mapped keeps the dotted tail', '::FFFF:192.0.2.1', '::ffff:192.0.2.1'],
    ['IPv6 IPv4-mapped written in hex', '::ffff:c000:0201', '::ffff:192.0.2.1'],
    // IPv4-compatible (deprecated, RFC 4291): ::1.2.3.4 is ::102:304, not the mapped ::ffff:1.2.3.4.
    ['IPv6 IPv4-compatible is the hex form', '::1.2.3.4', '::102:304'],
    ['IPv6 IPv4-compatible written in hex', '::102:304', '::102:304'],
    ['IPv6 dotted tail after other groups', '64:ff9b::192.0.2.1', '64:ff9b::c000:201'],
  ];
  test.each(cases)('%s: %s -> %s', (_name, input, canonical) => {
    expect(canonicalAddress(input)).toBe(canonical);
  });

  test('the IPv4-compatible and the IPv4-mapped spelling are two addresses', () => {
    expect(canonicalAddress('::1.2.3.4')).not.toBe(canonicalAddress('::ffff:1.2.3.4'));
    expect(canonicalAddress('::1.2.3.4')).toBe(canonicalAddress('::102:304'));
  });

  test('canonical form is a fixed point', () => {
    for (const [, , canonical] of cases) expect(canonicalAddress(canonical)).toBe(canonical);
  });
});

describe('canonicalAddress: invalid input', () => {
  const cases: Array<[name: string, input: string, reason: RegExp]> = [
    ['empty string', '', /empty/],
    ['leading space', ' 10.0.0.1', /white space/],
    ['trailing newline', '10.0.0.1\n', /white space/],
    ['three octets', '10.0.1', /dotted-quad/],
    ['five octets', '10.0.0.0.1', /dotted-quad/],
    ['octet above 255', '10.0.0.256', /above 255/],
    ['octet with leading zero', '10.0.0.01', /leading zero/],
    ['hex octet', '0x0a.0.0.1', /dotted-quad/],
    ['word', 'localhost', /dotted-quad/],
    ['IPv4 host bits set', '10.0.0.1/24', /host bits .*10\.0\.0\.0\/24/],
    ['IPv4 prefix above 32', '10.0.0.0/33', /above 32/],
    ['IPv4 negative prefix', '10.0.0.0/-1', /not a number/],
    ['IPv4 empty prefix', '10.0.0.0/', /not a number/],
    ['IPv4 two prefixes', '10.0.0.0/8/8', /not a number/],
    ['IPv4 prefix with letters', '10.0.0.0/8a', /not a number/],
    // Refused like a leading-zero octet, rather than read as decimal.
    ['IPv4 prefix with a leading zero', '10.0.0.0/08', /prefix length "08" has a leading zero/],
    ['IPv6 prefix with a leading zero', '2001:db8::/032', /prefix length "032" has a leading zero/],
    ['IPv6 two compressions', '2001::db8::1', /IPv6/],
    ['IPv6 group too long', '2001:db8::12345', /IPv6/],
    ['IPv6 bad hex digit', '2001:db8::g', /IPv6/],
    ['IPv6 zone identifier', 'fe80::1%eth0', /zone/],
    ['IPv6 too many groups', '1:2:3:4:5:6:7:8:9', /IPv6/],
    ['IPv6 host bits set', '2001:db8::1/64', /host bits .*2001:db8::\/64/],
    ['IPv6 prefix above 128', '2001:db8::/129', /above 128/],
    ['IPv6 embedded IPv4 with leading zero', '::ffff:192.0.2.01', /leading zero/],
    ['URL instead of address', 'https://10.0.0.1/', /IPv6|dotted-quad|not a number/],
    ['absurdly long value', '1'.repeat(100), /longer than/],
  ];
  test.each(cases)('%s: %j', (_name, input, reason) => {
    let thrown: unknown;
    try {
      canonicalAddress(input);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidAddressError);
    const error = thrown as InvalidAddressError;
    expect(error.code).toBe('invalid_address');
    expect(error.value).toBe(input);
    expect(error.message).toContain(JSON.stringify(input));
    expect(error.message).toMatch(/^Invalid IP address or CIDR: /);
    expect(error.reason).toMatch(reason);
  });
});

describe('parseAddress: one parsed form per spelling', () => {
  test('a spelling parsed again gives the same object, frozen', () => {
    const first = parseAddress('2001:DB8::1/128');
    expect(parseAddress('2001:DB8::1/128')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(first.canonical).toBe('2001:db8::1');
  });

  test('an invalid spelling throws every time, each with the value and why', () => {
    for (let attempt = 0; attempt < 2; attempt += 1) expect(() => parseAddress('10.0.0.1/33')).toThrow('prefix length 33 is above 32');
  });
});

describe('parseAddress and helpers', () => {
  test('reports family, prefix and range', () => {
    expect(parseAddress('192.168.0.0/16')).toEqual({
      family: 'ipv4',
      address: '192.168.0.0',
      prefixLength: 16,
      canonical: '192.168.0.0/16',
      isRange: true,
    });
    expect(parseAddress('2001:db8::1')).toMatchObject({ family: 'ipv6', prefixLength: 128, isRange: false });
  });

  test('checkAddress returns instead of throwing', () => {
    expect(checkAddress('10.0.0.1/32')).toEqual({ ok: true, canonical: '10.0.0.1' });
    const result = checkAddress('10.0.0.1/8');
    expect(result.ok).toBe(false);
  });
});
