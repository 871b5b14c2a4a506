/**
 * The released `svc` executable's main script: the same main() as bin/svc.js in the npm package
 * (src/pipeline/svc-cli.ts), bundled with everything it needs so no node is needed to run it.
 * A single executable's argv is [executable, executable, ...arguments].
 */
import { main } from '../../src/pipeline/svc-cli';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`svc: unexpected error: ${error instanceof Error && error.stack !== undefined ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  },
);
