/**
 * Imported FIRST by the provider's entry point, for its side effect: every console method now
 * writes to stderr (redacted), never to stdout. Terraform reads the plugin's first stdout line
 * as the handshake; a console.log from any module (ours or a dependency, even while modules
 * load) printed before it breaks the start-up, and one printed after it is noise in terraform's
 * plugin stream. stderr lines reach TF_LOG instead.
 */
import { Console } from 'node:console';
import { Writable } from 'node:stream';
import { redact } from '../../api/redaction';

/** Replaces the global console with one whose output all goes to `stream`, redacted. */
export function routeConsoleTo(stream: NodeJS.WritableStream): void {
  const redacting = new Writable({
    write(chunk: Buffer, _encoding, done) {
      stream.write(redact(chunk.toString('utf8')));
      done();
    },
  });
  globalThis.console = new Console({ stdout: redacting, stderr: redacting });
}

routeConsoleTo(process.stderr);
