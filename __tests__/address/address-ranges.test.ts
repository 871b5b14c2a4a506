import { parseAddress } from '../../src/address';
import { RangeIndex, contains, ipv4Number, overlaps } from '../../src/address-ranges';

const p = parseAddress;

describe('contains(outer, inner)', () => {
  test.each([
    ['a /24 holds an address of it', '198.51.100.0/24', '198.51.100.7', true],
    ['a /24 holds a /28 of it', '198.51.100.0/24', '198.51.100.16/28', true],
    ['a range holds itself', '198.51.100.0/24', '198.51.100.0/24', true],
    ['an address holds itself', '203.0.113.9', '203.0.113.9', true],
    ['an address outside the /24', '198.51.100.0/24', '198.51.101.1', false],
    ['a broader range is not inside a narrower one', '198.51.100.0/25', '198.51.100.0/24', false],
    ['0.0.0.0/0 holds every IPv4 address', '0.0.0.0/0', '203.0.113.9', true],
    ['::/0 holds every IPv6 address', '::/0', '2001:db8::1', true],
    ['IPv4 never holds IPv6', '0.0.0.0/0', '::ffff:192.0.2.1', false],
    ['IPv6 never holds IPv4', '::/0', '192.0.2.1', false],
    ['an IPv6 /48 holds an address of it', '2001:db8:bad::/48', '2001:db8:bad:1::9', true],
    ['an IPv6 /48 does not hold its neighbour', '2001:db8:bad::/48', '2001:db8:bae::1', false],
    ['a /127 next to the top of the space', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/127', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', true],
    ['a /8 holds an address of it', '10.0.0.0/8', '10.1.2.3', true],
    ['a /8 does not hold the next /8', '10.0.0.0/8', '11.0.0.1', false],
    ['a /24 inside a /16', '10.0.0.0/16', '10.0.0.0/24', true],
    ['a /16 is not inside its own /24', '10.0.0.0/24', '10.0.0.0/16', false],
    ['an IPv6 /32 holds a /48 of it, spelled in capitals', '2001:DB8:0:0::/32', '2001:db8:ffff::/48', true],
    ['an IPv6 /32 never holds IPv4', '2001:db8::/32', '10.0.0.1', false],
    ['an IPv4 /8 never holds the IPv4-mapped IPv6 address', '10.0.0.0/8', '::ffff:10.0.0.1', false],
    ['the upper IPv4 /1 holds the broadcast address', '128.0.0.0/1', '255.255.255.255', true],
    ['the lower IPv4 /1 does not hold the upper half', '0.0.0.0/1', '128.0.0.0', false],
    ['the broadcast address holds itself', '255.255.255.255', '255.255.255.255', true],
    ['an IPv4 /31 holds its odd address', '192.0.2.254/31', '192.0.2.255', true],
    ['an IPv4 /31 does not hold the next address', '192.0.2.254/31', '192.0.3.0', false],
    ['224.0.0.0/4 holds 239.255.255.255', '224.0.0.0/4', '239.255.255.255', true],
    ['224.0.0.0/4 does not hold 240.0.0.0', '224.0.0.0/4', '240.0.0.0', false],
  ])('%s', (_name, outer, inner, expected) => {
    expect(contains(p(outer), p(inner))).toBe(expected);
  });
});

describe('ipv4Number', () => {
  test.each([
    ['0.0.0.0', 0],
    ['0.0.0.1', 1],
    ['1.0.0.0', 16_777_216],
    ['10.1.2.3', 167_838_211],
    ['255.255.255.255', 4_294_967_295],
  ])('%s is %d', (address, number) => {
    expect(ipv4Number(address)).toBe(number);
  });
});

describe('overlaps(a, b)', () => {
  test.each([
    ['either way round (a inside b)', '198.51.100.7', '198.51.100.0/24', true],
    ['either way round (b inside a)', '198.51.100.0/24', '198.51.100.7', true],
    ['disjoint ranges', '198.51.100.0/25', '198.51.100.128/25', false],
    ['different families', '10.0.0.0/8', '2001:db8::/32', false],
    ['nested ranges', '10.0.0.0/8', '10.1.0.0/16', true],
    ['the same address spelled twice', '2001:db8::1', '2001:DB8:0::1/128', true],
    ['disjoint IPv6 ranges', '2001:db8::/48', '2001:db8:1::/48', false],
    ['the two catch-all ranges', '0.0.0.0/0', '::/0', false],
  ])('%s', (_name, a, b, expected) => {
    expect(overlaps(p(a), p(b))).toBe(expected);
  });
});

describe('RangeIndex', () => {
  const index = new RangeIndex<string>();
  for (const range of ['10.0.0.0/8', '10.1.0.0/16', '10.1.2.3', '192.0.2.0/24', '2001:db8::/32', '2001:db8::/32']) index.add(p(range), range);

  test.each([
    ['an address inside three ranges, broadest first', '10.1.2.3', ['10.0.0.0/8', '10.1.0.0/16', '10.1.2.3']],
    ['a range inside one', '10.2.0.0/16', ['10.0.0.0/8']],
    ['a range broader than every member', '10.0.0.0/7', []],
    ['nothing for another family', '::ffff:10.1.2.3', []],
    ['two values under one range', '2001:db8:1::/48', ['2001:db8::/32', '2001:db8::/32']],
  ])('%s', (_name, range, expected) => {
    expect(index.containing(p(range))).toEqual(expected);
  });
});
