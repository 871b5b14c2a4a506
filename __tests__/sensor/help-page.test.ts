/** help/sensor.md and `run-svc-sensor.sh --help` tell the same story as the code: the same
 *  options with the same defaults, the same exit codes and environment variables, and their
 *  example commands run as written (against the stub runtime). */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { collectRun, createSandbox, LAUNCHER, launcherEnvironment, realBash, removeSandboxes, runCall, runLauncher, SITE_IMAGE_REPOSITORY } from './harness';

afterAll(removeSandboxes);

const HELP_PAGE = fs.readFileSync(path.resolve(__dirname, '../../help/sensor.md'), 'utf8');
const HELP_OUTPUT = runLauncher(['--help']).stdout;

/** The lines of a markdown section, up to the next heading of the same or a higher level. */
function pageSection(heading: string): string[] {
  const lines = HELP_PAGE.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`help/sensor.md has no heading ${heading}`);
  const level = heading.indexOf(' ');
  let inCode = false;
  let end = lines.length;
  for (let index = start + 1; index < lines.length; index++) {
    if (lines[index].startsWith('```')) inCode = !inCode;
    // A `# comment` inside a code block is no heading.
    else if (!inCode && /^#+ /.test(lines[index]) && lines[index].indexOf(' ') <= level) {
      end = index;
      break;
    }
  }
  return lines.slice(start + 1, end);
}

/** The lines of a --help block that starts with `title` and ends at a blank line. */
function helpBlock(title: string): string[] {
  const lines = HELP_OUTPUT.split('\n');
  const start = lines.indexOf(title);
  if (start < 0) throw new Error(`--help has no line ${title}`);
  const end = lines.findIndex((line, index) => index > start && line.trim() === '');
  return lines.slice(start + 1, end);
}

/** The --help text of one option, its continuation lines joined. */
function helpOption(short: string, long: string): string {
  const lines = helpBlock('Options (long options also take --option=value):');
  const start = lines.findIndex((line) => line.startsWith(`  ${short}, ${long} `));
  if (start < 0) throw new Error(`--help does not list ${short}, ${long}`);
  const continuation = lines.slice(start + 1).findIndex((line) => !/^ {20,}\S/.test(line));
  const end = continuation < 0 ? lines.length : start + 1 + continuation;
  return lines.slice(start, end).map((line) => line.trim()).join(' ');
}

function pageOptionRow(short: string, long: string): string[] {
  const row = pageSection('## Options').find((line) => line.startsWith(`| \`${short}\`, \`${long}\` |`));
  if (!row) throw new Error(`help/sensor.md does not list ${short}, ${long}`);
  return row.split('|').slice(1, -1).map((cell) => cell.trim());
}

describe('options: the spec table, in both help texts, with the defaults the code uses', () => {
  // [short, long, default as the page's table writes it, as --help writes it]
  const options: Array<[short: string, long: string, pageDefault: string, helpDefault: string]> = [
    ['-n', '--tenant-id', 'none, required', '(required)'],
    ['-d', '--domain', 'none, required', '(required)'],
    ['-a', '--app-name', 'none, required', '(required)'],
    ['-s', '--stack-name', '`SvcPrevent`', '(default: SvcPrevent;'],
    ['-i', '--image-repo', '`$SVC_SENSOR_IMAGE_REPOSITORY` (with `-I`: `$SVC_SENSOR_INTERNAL_IMAGE_REPOSITORY`); none built in: required', '(default: $SVC_SENSOR_IMAGE_REPOSITORY, with -I: $SVC_SENSOR_INTERNAL_IMAGE_REPOSITORY; none built in)'],
    ['-t', '--image-tag', '`1.2.0`', '(default: 1.2.0)'],
    ['-N', '--network-interface', 'none (chosen as above)', '(default: none, chosen automatically)'],
    ['-l', '--sensor-log-level', '`info`', '(default: info)'],
    ['-p', '--trace-path', '`/sys`', '(default: /sys)'],
    ['-H', '--host-mode', 'disabled', '(default: disabled)'],
    ['-I', '--internal', 'disabled', '(default: disabled)'],
    ['-h', '--help', '', 'Print this help and exit'],
  ];

  test.each(options)('%s, %s', (short, long, pageDefault, helpDefault) => {
    expect(pageOptionRow(short, long)[2]).toBe(pageDefault);
    expect(helpOption(short, long)).toContain(helpDefault);
  });

  test('neither help lists an option the spec table lacks', () => {
    const pageRows = pageSection('## Options').filter((line) => /^\| `-/.test(line));
    expect(pageRows).toHaveLength(options.length);
    const helpRows = helpBlock('Options (long options also take --option=value):').filter((line) => /^ {2}-/.test(line));
    expect(helpRows).toHaveLength(options.length);
  });

  test('the defaults are what the launcher does without the options', () => {
    const run = runLauncher(['-n', 'acme', '-d', 'corp.example.com', '-a', 'shop-web']);
    const call = runCall(run);
    // The repository: the host's SVC_SENSOR_IMAGE_REPOSITORY (the harness sets it).
    expect(call[call.length - 1]).toBe(`${SITE_IMAGE_REPOSITORY}:1.2.0`);
    expect(call).toEqual(expect.arrayContaining(['SVC_LOG_LEVEL=info', 'SVC_TRACE_PATH=/sys', 'SVC_SENSOR_MODE=container', 'SVC_ANALYZER_ADDRESS=analyzer.svcprevent.corp.example.com:50051']));
  });
});

describe('options beyond the spec: the same in both help texts, with the defaults the code uses', () => {
  const pageRows = pageSection('## Options beyond the spec').filter((line) => /^\| `--/.test(line) && !/^\| `--(dry-run|version|ensure)`/.test(line));
  // Flags without a default first.
  const helpRows = helpBlock('Launcher options (not in the spec):').filter((line) => /^ {2}--/.test(line) && !/^ {2}--(dry-run|version|ensure) /.test(line));
  // [option, page default, --help default]
  const launcherOptions: Array<[option: string, pageDefault: string, helpDefault: string]> = [
    ['--memory-limit', '`512m`', '(default: 512m)'],
    ['--cpu-limit', '`1`', '(default: 1)'],
    ['--log-max-size', '`10m`', '(default: 10m)'],
    ['--pull', '`missing`', '(default: missing;'],
    ['--signature-policy', 'none (the runtime\'s own policy)', '(default: none, the runtime\'s own policy)'],
    ['--health-wait', '`10`', '(default: 10)'],
    ['--stop-timeout', '`30`', '(default: 30)'],
    ['--key-file', 'none', '(default: none, the environment'],
    ['--management-key-file', 'none', '(default: none;'],
    ['--systemd-unit', 'none', '(default: none);'],
    ['--app-unit', "the app container's `PODMAN_SYSTEMD_UNIT` label; none in host mode", '(default: the app'],
    ['--key-delivery', '`file`', '(default: file)'],
    ['--output', '`text`', '(default: text)'],
    ['--allow-small-host', 'off', '(default: off)'],
  ];

  test.each(launcherOptions)('%s', (option, pageDefault, helpDefault) => {
    const row = pageRows.find((line) => line.startsWith(`| \`${option}\` |`));
    expect(row?.split('|')[3]?.trim()).toBe(pageDefault);
    expect(helpRows.find((line) => line.startsWith(`  ${option} `))).toContain(helpDefault);
  });

  test('no other option in either', () => {
    expect(pageRows).toHaveLength(launcherOptions.length);
    expect(helpRows).toHaveLength(launcherOptions.length);
  });
});

describe('exit codes and environment variables: the same in both help texts', () => {
  test('exit codes', () => {
    const numeric = (codes: string[]): number[] => codes.map(Number).sort((a, b) => a - b);
    const pageCodes = pageSection('## Exit codes').flatMap((line) => /^\| (\d+) \|/.exec(line)?.[1] ?? []);
    const helpCodes = helpBlock('Exit codes:').flatMap((line) => /^ {2}(\d+) +\S/.exec(line)?.[1] ?? []);
    expect(pageCodes.length).toBeGreaterThan(0);
    expect(numeric(helpCodes)).toEqual(numeric(pageCodes));
  });

  test('every exit code the script can give is documented in both', () => {
    const script = fs.readFileSync(LAUNCHER, 'utf8');
    const declared = [...script.matchAll(/^readonly EXIT_[A-Z_]+=(\d+)$/gm)].map((match) => match[1]);
    const pageCodes = pageSection('## Exit codes').flatMap((line) => /^\| (\d+) \|/.exec(line)?.[1] ?? []);
    const helpCodes = helpBlock('Exit codes:').flatMap((line) => /^ {2}(\d+) +\S/.exec(line)?.[1] ?? []);
    for (const code of declared) {
      expect(pageCodes).toContain(code);
      expect(helpCodes).toContain(code);
    }
  });

  test('environment variables', () => {
    const pageNames = pageSection('## Environment variables of the launcher').flatMap((line) => /^\| `([A-Z_]+)` \|/.exec(line)?.[1] ?? []);
    const helpNames = helpBlock('Environment:').flatMap((line) => /^ {2}([A-Z_]+) +\S/.exec(line)?.[1] ?? []);
    expect(pageNames.length).toBeGreaterThan(0);
    expect(helpNames).toEqual(pageNames);
  });
});

/** Shell commands of a markdown section's ```sh blocks: comments dropped, continuations joined. */
function pageCommands(lines: readonly string[]): string[] {
  const commands: string[] = [];
  let inBlock = false;
  let pending = '';
  for (const line of lines) {
    if (line.startsWith('```')) {
      inBlock = line === '```sh';
      continue;
    }
    if (!inBlock || line.startsWith('#') || line.trim() === '') continue;
    pending += line.replace(/\\$/, '');
    if (!line.endsWith('\\')) {
      commands.push(pending);
      pending = '';
    }
  }
  return commands;
}

function runExample(script: string, input = ''): ReturnType<typeof collectRun> {
  const stub = {
    runtimeNames: ['docker', 'podman'],
    containerInterfaces: /-N eth1\b/.test(script) ? ['eth0', 'eth1'] : ['eth0'],
  };
  const sandbox = createSandbox(stub);
  fs.writeFileSync(path.join(sandbox.root, 'sensor-key'), 'sk-from-a-file\n', { mode: 0o600 });
  const result = spawnSync(realBash(), ['-c', script], { env: { ...launcherEnvironment(sandbox, { stub }), LAUNCHER }, input, encoding: 'utf8' });
  const run = collectRun(sandbox, result.status, result.stdout, result.stderr);
  fs.rmSync(sandbox.root, { recursive: true, force: true });
  return run;
}

describe('the examples run as written', () => {
  const pageExamples = pageCommands(pageSection('## Examples'));
  // The page's opening example: the export and the command form one script.
  const opening = pageCommands(HELP_PAGE.slice(0, HELP_PAGE.indexOf('\n## ')).split('\n')).join('\n');
  const helpExamples = helpBlock('Examples:').map((line) => line.trim().replace(/(^|\s)run-svc-sensor\.sh /, '$1bin/run-svc-sensor.sh '));
  const examples: Array<[where: string, script: string]> = [
    ['page opening', opening],
    ...pageExamples.map((command, index): [string, string] => [`page example ${index + 1}: ${command}`, command]),
    ...helpExamples.map((command, index): [string, string] => [`--help example ${index + 1}: ${command}`, command]),
  ];

  test('there are examples to run', () => {
    expect(pageExamples.length).toBeGreaterThanOrEqual(5);
    expect(helpExamples).toHaveLength(2);
    expect(opening).toMatch(/read -rs SVC_SENSOR_API_KEY && export SVC_SENSOR_API_KEY.*\n.*bin\/run-svc-sensor\.sh/);
  });

  test.each(examples)('%s', (_where, script) => {
    // The key from the environment unless the example sets it; ~/sensor-key holds one.
    // The opening example reads the key from standard input (a paste into `read -rs`).
    const run = runExample(script.replace(/bin\/run-svc-sensor\.sh/g, '"$LAUNCHER"'), 'sk-pasted-key\n');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/Sensor svc-sensor-\S+ started/);
  });
});
