/** `provider::svc::contains(range, address)`: whether an address or range lies wholly inside a range. */
import { contains } from '../../address-ranges';
import { types, type FunctionDefinition } from '../core';
import { addressArgument, addressParameter } from './function-arguments';

const range = addressParameter('range', 'The outer CIDR range (or a single address).');
const address = addressParameter('address', 'The address or CIDR range to look for inside `range`.');

export const containsFunction: FunctionDefinition = {
  name: 'contains',
  summary: 'Whether a CIDR range contains an address or another range',
  description:
    'Returns true when every address of `address` (an address, or a CIDR range) lies inside `range`. ' +
    'An IPv4 value is never inside an IPv6 range, nor the other way round. An invalid argument is an error naming it.',
  parameters: [range, address],
  returnType: types.bool,
  call(args) {
    const outer = addressArgument(args, 0);
    const inner = addressArgument(args, 1);
    return contains(outer, inner);
  },
};
