/** `provider::svc::overlaps(a, b)`: whether two addresses or ranges share an address. */
import { overlaps } from '../../address-ranges';
import { types, type FunctionDefinition } from '../core';
import { addressArgument, addressParameter } from './function-arguments';

const first = addressParameter('a', 'An address or CIDR range.');
const second = addressParameter('b', 'Another address or CIDR range.');

export const overlapsFunction: FunctionDefinition = {
  name: 'overlaps',
  summary: 'Whether two addresses or CIDR ranges share at least one address',
  description:
    'Returns true when `a` and `b` have an address in common (one contains the other, as CIDR ranges do not ' +
    'partly overlap). Values of different families never overlap. An invalid argument is an error naming it.',
  parameters: [first, second],
  returnType: types.bool,
  call(args) {
    const a = addressArgument(args, 0);
    const b = addressArgument(args, 1);
    return overlaps(a, b);
  },
};
