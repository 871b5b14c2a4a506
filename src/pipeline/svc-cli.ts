/**
 * `svc`: the management API, plan reports and the drift check from the shell, for pipelines
 * outside this repository (help/pipelines.md, help/client.md, help/drift-in-ci.md). Shipped as
 * bin/svc.js in the npm package and as a self-contained executable in the release; both call
 * main(). Each sub-command lives in src/pipeline/svc/; this file only dispatches.
 */
import { redact, registerSecret } from '../api/redaction';
import { AUDIT_COMMAND } from './svc/audit-command';
import { SvcCommand, SvcCommandError, SvcContext, SvcIo } from './svc/command';
import { DRIFT_COMMAND } from './svc/drift-command';
import { ENTRIES_COMMAND } from './svc/entries-command';
import { PLAN_REPORT_COMMAND } from './svc/plan-report-command';
import { SSO_COMMAND } from './svc/sso-command';

export type { SvcIo } from './svc/command';

/** The sub-commands in the order `svc --help` lists them. */
const COMMANDS: readonly SvcCommand[] = [PLAN_REPORT_COMMAND, DRIFT_COMMAND, ENTRIES_COMMAND, AUDIT_COMMAND, SSO_COMMAND];

export function usage(commands: readonly SvcCommand[] = COMMANDS): string {
  const width = Math.max(8, ...commands.map((command) => command.name.length));
  const lines = commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return `Usage: svc <command> [arguments]

The svc management API, plan reports and drift checks from the shell and from CI.

Commands:
${lines.join('\n')}

Run \`svc <command> --help\` for a command's arguments.

Configuration comes from the environment, as for the provider:
  SVC_BASE_URL  the management API, e.g. https://svc.example.com
  SVC_TENANT    the tenant
  SVC_API_KEY   the API key; never give it on the command line, it is never printed

Exit status: 0 ok; 1 an error (bad arguments, the service refused or could not be reached);
2 drift or changes, where a command says so.`;
}

export async function main(argv: readonly string[], io: SvcIo = process): Promise<number> {
  const env = io.env ?? process.env;
  // Registered before anything runs, so no line printed from here on can carry the key.
  registerSecret(env.SVC_API_KEY);
  registerSecret(env.TF_VAR_api_key);
  const context: SvcContext = {
    // Whatever is printed may quote the service or terraform: credentials never reach a CI log.
    stdout: (text) => io.stdout.write(redact(text)),
    stderr: (text) => io.stderr.write(redact(text)),
    env,
    cwd: io.workingDirectory ?? process.cwd(),
  };
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    if (name === 'help' && rest[0] !== undefined) return main([rest[0], '--help'], io);
    context[name === undefined ? 'stderr' : 'stdout'](`${usage()}\n`);
    return name === undefined ? 1 : 0;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command === undefined) {
    context.stderr(`svc: unknown command ${JSON.stringify(name)}; the commands are ${COMMANDS.map((candidate) => candidate.name).join(', ')} (svc --help)\n`);
    return 1;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    context.stdout(`${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(rest, context);
  } catch (error) {
    if (!(error instanceof SvcCommandError)) throw error;
    context.stderr(`svc ${command.name}: ${error.message}\n`);
    return 1;
  }
}
