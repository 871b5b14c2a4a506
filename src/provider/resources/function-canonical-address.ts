/** `provider::svc::canonical_address(address)`: the spelling the service stores and the resources compare. */
import { types, type FunctionDefinition } from '../core';
import { addressArgument, addressParameter } from './function-arguments';

const address = addressParameter('address', 'An IPv4 or IPv6 address, or a CIDR range, in any spelling the provider accepts.');

export const canonicalAddressFunction: FunctionDefinition = {
  name: 'canonical_address',
  summary: 'The canonical form of an IP address or CIDR range',
  description:
    'Returns the form the service stores and the provider compares: IPv4 as a dotted quad, IPv6 lower case and ' +
    'compressed (RFC 5952), `/32` and `/128` folded into the bare address. ' +
    '`canonical_address("2001:DB8:0:0::/32")` is `"2001:db8::/32"`. An invalid address or a range with host bits set is an error.',
  parameters: [address],
  returnType: types.string,
  call: (args) => addressArgument(args, 0).canonical,
};
