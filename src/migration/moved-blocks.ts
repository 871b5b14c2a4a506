/**
 * Leaving CDKTF without touching the service: `moved` blocks that carry each svc resource of a
 * synthesized security-policy stack (cdk.tf.json, whose logical IDs are the state's addresses)
 * to its address in a call of the HCL module terraform/modules/svc-security-policy. With the
 * blocks beside the module call and the stack's state, `terraform plan` shows moves and no
 * change, instead of destroying every entry and creating it again.
 *
 * The module keys entries by their canonical address, whole lists and the tenant's SSO by
 * count (`[0]`), and channels by name; this mirrors those keys.
 */
import { checkAddress } from '../address';
import { LIST_NAMES } from '../api/types';

/** Terraform's identifier rule for a module call's name. */
const MODULE_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

export class MovedBlocksError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MovedBlocksError';
  }
}

export interface Move {
  readonly from: string;
  readonly to: string;
}

export interface MovedBlocks {
  readonly moves: Move[];
  /** Resources of the stack that the svc-security-policy module does not hold (AWS and others), by address. */
  readonly leftBehind: string[];
}

type Resources = Record<string, Record<string, Record<string, unknown>>>;

function literal(resource: Record<string, unknown>, attribute: string, address: string): string {
  const value = resource[attribute];
  if (typeof value !== 'string' || value.includes('${')) {
    throw new MovedBlocksError(`${address}: ${attribute} is ${JSON.stringify(value)}, not a literal; a moved block needs the value the module keys it by. Write this block by hand.`);
  }
  return value;
}

function target(type: string, resource: Record<string, unknown>, address: string, moduleName: string): string | undefined {
  const inModule = (key: string) => `module.${moduleName}.${type}.this${key}`;
  for (const list of LIST_NAMES) {
    if (type === `svc_${list}_entry`) {
      const ip = literal(resource, 'ip', address);
      const checked = checkAddress(ip);
      if (!checked.ok) throw new MovedBlocksError(`${address}: ip: ${checked.error.message}`);
      return inModule(`[${JSON.stringify(checked.canonical)}]`);
    }
    if (type === `svc_${list}`) return inModule('[0]');
  }
  if (type === 'svc_tenant_sso') return inModule('[0]');
  if (type === 'svc_channel_sso') return inModule(`[${JSON.stringify(literal(resource, 'name', address))}]`);
  return undefined;
}

/** The moves for one synthesized stack (the parsed cdk.tf.json) into `module.<moduleName>`. */
export function movedBlocks(stack: unknown, moduleName: string): MovedBlocks {
  if (!MODULE_NAME.test(moduleName)) throw new MovedBlocksError(`module name ${JSON.stringify(moduleName)} is not a Terraform identifier (letters, digits, _ and -, not starting with a digit)`);
  if (typeof stack !== 'object' || stack === null || Array.isArray(stack)) throw new MovedBlocksError('the stack is not a JSON object; give the cdk.tf.json that cdktf synth wrote');
  const resources = ((stack as { resource?: unknown }).resource ?? {}) as Resources;
  const moves: Move[] = [];
  const leftBehind: string[] = [];
  const targets = new Map<string, string>();
  for (const [type, byName] of Object.entries(resources)) {
    for (const [name, resource] of Object.entries(byName)) {
      const from = `${type}.${name}`;
      const to = target(type, resource, from, moduleName);
      if (to === undefined) {
        leftBehind.push(from);
        continue;
      }
      const earlier = targets.get(to);
      if (earlier !== undefined) throw new MovedBlocksError(`${earlier} and ${from} both become ${to}; the module holds one resource per address (or per list), so merge them in the stack first`);
      targets.set(to, from);
      moves.push({ from, to });
    }
  }
  return { moves, leftBehind };
}

/** The blocks as HCL, one per move, in the order of the stack. */
export function formatMovedBlocks(moves: readonly Move[]): string {
  return moves.map((move) => `moved {\n  from = ${move.from}\n  to   = ${move.to}\n}\n`).join('\n');
}
