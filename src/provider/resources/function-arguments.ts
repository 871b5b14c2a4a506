/** What the address functions share: the address parameter and the error that names it. */
import { InvalidAddressError, parseAddress, type ParsedAddress } from '../../address';
import { FunctionCallError, types, type FunctionParameter, type Value } from '../core';

export function addressParameter(name: string, description: string): FunctionParameter {
  return { name, type: types.string, description };
}

/**
 * Parses the argument at `index` as an address or CIDR range; an invalid one becomes a
 * FunctionCallError at that position (terraform names the parameter), with the value and what
 * is wrong with it.
 */
export function addressArgument(args: readonly Value[], index: number): ParsedAddress {
  const value = args[index];
  if (typeof value !== 'string') throw new FunctionCallError(`expected a string, got ${value === null ? 'null' : typeof value}`, index);
  try {
    return parseAddress(value);
  } catch (error) {
    if (!(error instanceof InvalidAddressError)) throw error;
    // Terraform prefixes the text with `Invalid value for "<name>" parameter:`, so it names the argument.
    throw new FunctionCallError(
      `${error.message}. Give an IPv4 or IPv6 address, or a CIDR range without host bits (10.0.0.0/24, 2001:db8::/32)`,
      index,
    );
  }
}
