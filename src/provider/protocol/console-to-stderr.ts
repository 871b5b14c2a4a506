/**
 * The console guard: every console method writes to stderr (redacted), never to stdout.
 * Terraform reads the plugin's first stdout line as the handshake; a console.log from any
 * module (ours or a dependency, even while modules load) printed before it breaks the
 * start-up, and one printed after it is noise in terraform's plugin stream. stderr lines reach
 * TF_LOG instead. A provider's entry point calls routeConsoleTo from a module it imports FIRST
 * (src/provider/console-guard.ts for svc), so the guard is up before any other module loads.
 */
import { Console } from 'node:console';
import { Writable } from 'node:stream';
import type { TextSink } from './log';
import type { Redact } from './redaction';

/**
 * Replaces the global console with one whose output all goes to `stream`, redacted. The console
 * and its stream are built at the first use of `console`: the provider itself never logs through
 * it, and building them cost about 0.5 ms of every start (help/performance-history.md, "Where
 * the provider's own 7 to 10 ms go").
 */
export function routeConsoleTo(stream: TextSink, redact: Redact): void {
  let routed: Console | undefined;
  Object.defineProperty(globalThis, 'console', {
    configurable: true,
    enumerable: false,
    get: () => (routed ??= redactingConsole(stream, redact)),
    set: (replacement: Console) => {
      routed = replacement;
    },
  });
}

function redactingConsole(stream: TextSink, redact: Redact): Console {
  const redacting = new Writable({
    write(chunk: Buffer, _encoding, done) {
      stream.write(redact(chunk.toString('utf8')));
      done();
    },
  });
  return new Console({ stdout: redacting, stderr: redacting });
}
