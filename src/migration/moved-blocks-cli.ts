/**
 * `svc-moved-blocks <stack directory | cdk.tf.json> [--module <name>]`: prints the `moved` blocks
 * that carry a synthesized security-policy stack's svc resources into a call of the HCL module
 * svc-security-policy (help/leaving-cdktf.md). Blocks go to stdout, notes to stderr.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MovedBlocksError, formatMovedBlocks, movedBlocks } from './moved-blocks';

export const USAGE = `Usage: svc-moved-blocks <stack directory | cdk.tf.json> [--module <name>]

Prints to stdout one moved block per svc resource of a stack that cdktf synthesized
(e.g. cdktf.out/stacks/security-policy), from its cdktf address to its address in
module "<name>" (default security_policy), a call of terraform/modules/svc-security-policy.
Save them beside the module call, keep the stack's state, and terraform plan shows the
moves and no other change. Resources the module does not hold are listed on stderr.

Exit status: 0 blocks printed, 1 the stack cannot be read or a resource has no literal key,
2 a usage error.`;

export class MovedBlocksUsageError extends Error {}

export function parseArguments(argv: readonly string[]): { stack: string; moduleName: string } | 'help' {
  let stack: string | undefined;
  let moduleName = 'security_policy';
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    if (argument === '--help' || argument === '-h') return 'help';
    if (argument === '--module') {
      const value = argv[index + 1];
      if (value === undefined) throw new MovedBlocksUsageError('--module needs a name, e.g. --module security_policy');
      moduleName = value;
      index += 1;
    } else if (argument.startsWith('-')) {
      throw new MovedBlocksUsageError(`unknown option ${argument}`);
    } else if (stack === undefined) {
      stack = argument;
    } else {
      throw new MovedBlocksUsageError(`one stack at a time: ${JSON.stringify(stack)} and ${JSON.stringify(argument)} were given`);
    }
  }
  if (stack === undefined) throw new MovedBlocksUsageError('name the synthesized stack, e.g. cdktf.out/stacks/security-policy');
  return { stack, moduleName };
}

function readStack(location: string): unknown {
  const file = fs.existsSync(location) && fs.statSync(location).isDirectory() ? path.join(location, 'cdk.tf.json') : location;
  if (!fs.existsSync(file)) throw new MovedBlocksError(`${file} does not exist; run cdktf synth first (the JSON output, not --hcl)`);
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new MovedBlocksError(`${file} is not JSON (${(error as Error).message}); give the cdk.tf.json that cdktf synth writes`);
  }
}

export function main(argv: readonly string[], out: (text: string) => void, err: (text: string) => void): number {
  try {
    const parsed = parseArguments(argv);
    if (parsed === 'help') {
      out(`${USAGE}\n`);
      return 0;
    }
    const { moves, leftBehind } = movedBlocks(readStack(parsed.stack), parsed.moduleName);
    out(formatMovedBlocks(moves));
    err(`svc-moved-blocks: ${moves.length} moved block(s) into module.${parsed.moduleName}\n`);
    for (const address of leftBehind) err(`svc-moved-blocks: ${address} is not part of the svc-security-policy module; move it with a block of your own\n`);
    return 0;
  } catch (error) {
    if (error instanceof MovedBlocksUsageError) {
      err(`svc-moved-blocks: ${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (error instanceof MovedBlocksError) {
      err(`svc-moved-blocks: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

if (require.main === module) {
  process.exitCode = main(process.argv.slice(2), (text) => process.stdout.write(text), (text) => process.stderr.write(text));
}
