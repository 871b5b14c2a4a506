/**
 * help/getting-started.md, run as written: every command of its ```sh blocks, in order, in one
 * bash session (exports and the background emulator carry over), in a copy of the repository
 * with the installed node_modules linked in. The exemptions of support/command-coverage.ts say
 * which commands are not run (the clone, npm ci, the real-API section) and why; the emulator's
 * port is the only text replaced. The output the page quotes (the bare ``` blocks after a
 * command) must appear in what that command printed, so the page shows what a user sees.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { SUBSTITUTIONS, exemptionFor } from './support/command-coverage';
import { codeBlocks, readPage, shellCommands, type ShellCommand } from './support/markdown';
import { track } from '../support/child-processes';
import { copyRepository } from '../support/repository-copy';
import { STEP_BUDGET_MS, testTimeoutFor } from '../support/step-budgets';

const PAGE = 'getting-started.md';
const MARKER = '@@help-command';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Terminal colours and cdktf's spinner lines out, white space collapsed: text to search. */
function searchable(text: string): string {
  return text
    .replace(/\u001b\[[0-9;]*[A-Za-z]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

interface PageRun {
  readonly commands: readonly ShellCommand[];
  readonly code: number | null;
  /** Output per command index (stdout and stderr together). */
  readonly outputs: readonly string[];
  /** The index of the last command that started, and whether the script got past the last one. */
  readonly lastStarted: number;
  readonly finished: boolean;
  readonly seconds: number;
  /** Seconds per command index, for the commands that started. */
  readonly commandSeconds: readonly number[];
  /** The command that ran past its step budget (the session was ended there), if one did. */
  readonly overBudget?: { readonly index: number; readonly budgetMs: number };
}

/** What a command of the page is, as a step with a time budget (support/step-budgets.ts). */
function stepBudgetMs(command: string): number {
  if (/^(NODE_PATH=\S+ )?(npm run (synth|diff|deploy|destroy)|npx cdktf) /.test(command)) return STEP_BUDGET_MS.cdktfCommand;
  if (/^terraform /.test(command)) return STEP_BUDGET_MS.terraformCommand;
  return STEP_BUDGET_MS.shellCommand;
}

const pageCommands = codeBlocks(PAGE)
  .filter((block) => block.language === 'sh')
  .flatMap(shellCommands);
const commandsToRun = pageCommands.filter((command) => exemptionFor(PAGE, command.command, command.section) === undefined);
const budgetsMs = commandsToRun.map((command) => stepBudgetMs(command.command));

describe('help/getting-started.md runs as written', () => {
  let root: string;
  let run: PageRun;
  /** Top-level entries of the checkout that the page's commands added. */
  let added: string[];

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-help-getting-started-'));
    const checkout = path.join(root, 'svc-prevent');
    const home = path.join(root, 'home');
    fs.mkdirSync(home);
    copyRepository(checkout);
    const before = new Set(fs.readdirSync(checkout));
    const port = String(await freePort());
    const substituted = commandsToRun.map((command) =>
      SUBSTITUTIONS.filter((substitution) => substitution.page === PAGE).reduce((text, substitution) => text.split(substitution.text).join(port), command.command),
    );
    const script = ['set -e', 'exec 2>&1', ...substituted.flatMap((command, index) => [`echo "${MARKER} ${index}"`, command]), `echo "${MARKER} end"`].join('\n');
    const environment = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(TF_|SVC_|CDKTF_)/.test(name)));
    const started = Date.now();
    const output: Buffer[] = [];
    const child = track(spawn('bash', ['-c', script], {
      cwd: checkout,
      env: { ...environment, HOME: home, CHECKPOINT_DISABLE: '1', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    }), { group: true });
    const endSession = (): void => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      }
    };
    // Each command gets its own step's budget from the moment its marker is printed: the one
    // that runs past it ends the session, and the failure names it (not a bare hook timeout).
    const startedAt: number[] = [];
    let overBudget: PageRun['overBudget'];
    let budgetTimer: NodeJS.Timeout | undefined;
    let scanned = '';
    const onOutput = (chunk: Buffer): void => {
      output.push(chunk);
      scanned += chunk.toString('utf8');
      const lastNewline = scanned.lastIndexOf('\n');
      if (lastNewline < 0) return;
      for (const match of scanned.slice(0, lastNewline).matchAll(new RegExp(`^${MARKER} (\\d+)$`, 'gm'))) {
        const index = Number(match[1]);
        startedAt[index] = Date.now();
        clearTimeout(budgetTimer);
        budgetTimer = setTimeout(() => {
          overBudget = { index, budgetMs: budgetsMs[index]! };
          endSession();
        }, budgetsMs[index]);
      }
      scanned = scanned.slice(lastNewline + 1);
    };
    child.stdout.on('data', onOutput);
    child.stderr.on('data', onOutput);
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
    const ended = Date.now();
    clearTimeout(budgetTimer);
    // Whatever the session left behind (the background emulator after a failed step) holds its
    // output open: end the session's process group, then read the rest.
    endSession();
    await closed;
    const text = Buffer.concat(output).toString('utf8');
    const outputs: string[] = commandsToRun.map(() => '');
    let lastStarted = -1;
    let finished = false;
    for (const part of text.split(new RegExp(`^${MARKER} `, 'm')).slice(1)) {
      const newline = part.indexOf('\n');
      const label = part.slice(0, newline);
      if (label === 'end') finished = true;
      else {
        lastStarted = Number(label);
        outputs[lastStarted] = part.slice(newline + 1);
      }
    }
    const commandSeconds = startedAt.map((at, index) => ((startedAt[index + 1] ?? ended) - at) / 1000);
    run = { commands: commandsToRun, code, outputs, lastStarted, finished, seconds: (ended - started) / 1000, commandSeconds, overBudget };
    added = fs.readdirSync(checkout).filter((name) => !before.has(name)).sort();
    // Every command that took a second or more, against its budget: what a budget is checked by.
    const timings = commandSeconds
      .map((seconds, index) => ({ seconds, index }))
      .filter(({ seconds }) => seconds >= 1)
      .map(({ seconds, index }) => `${seconds.toFixed(1)} s of ${budgetsMs[index]! / 1000} s: ${commandsToRun[index]!.command.split('\n')[0]}`);
    console.log(`getting-started.md: ${commandsToRun.length} commands in ${run.seconds.toFixed(1)} s\n${timings.join('\n')}`);
  }, testTimeoutFor(STEP_BUDGET_MS.repositoryCopy, ...budgetsMs));

  afterAll(() => {
    if (root !== undefined) fs.rmSync(root, { recursive: true, force: true });
  });

  /** The output of the first command run that starts with `prefix` (after `after` runs of it). */
  function outputOf(prefix: string, occurrence = 0): string {
    const indexes = run.commands.map((command, index) => (command.command.startsWith(prefix) ? index : -1)).filter((index) => index >= 0);
    const index = indexes[occurrence];
    if (index === undefined) throw new Error(`no command starting with ${JSON.stringify(prefix)} on the page (occurrence ${occurrence})`);
    return run.outputs[index]!;
  }

  test('the page runs the whole journey, with only the clone, npm ci and the real-API section left out', () => {
    const skipped = pageCommands.filter((command) => !commandsToRun.includes(command)).map((command) => command.command.split('\n')[0]);
    expect(skipped.slice(0, 3)).toEqual([expect.stringMatching(/^git clone /), 'cd terraform-provider-svc', 'npm ci']);
    expect(pageCommands.filter((command) => command.section === 'Against the real management API').every((command) => !commandsToRun.includes(command))).toBe(true);
  });

  test('every command succeeds', () => {
    const failed = run.finished ? undefined : run.commands[run.lastStarted];
    const overBudget = run.overBudget === undefined ? undefined : `${run.commands[run.overBudget.index]!.command.split('\n')[0]} ran past its ${run.overBudget.budgetMs / 1000} s budget`;
    expect({ code: run.code, finished: run.finished, failedCommand: failed?.command, overBudget, output: failed === undefined ? '' : run.outputs[run.lastStarted]!.slice(-4000) }).toEqual({
      code: 0,
      finished: true,
      failedCommand: undefined,
      overBudget: undefined,
      output: '',
    });
  });

  test('the plan of the shipped configuration creates every entry and SSO setting', () => {
    const plan = searchable(outputOf('npm run diff -- security-policy', 0));
    expect(plan).toMatch(/svc_blacklist_entry\.blacklist_203_0_113_9 .*will be created/);
    expect(plan).toMatch(/svc_whitelist\.whitelist .*will be created/);
    expect(plan).toMatch(/svc_channel_sso\.channel_main .*will be created/);
    expect(plan).toMatch(/Plan: \d+ to add, 0 to change, 0 to destroy/);
  });

  test('deploy applies it, and the edited entry file plans exactly one new entry', () => {
    expect(searchable(outputOf('npm run deploy -- security-policy'))).toMatch(/Apply complete! Resources: \d+ added, 0 changed, 0 destroyed/);
    const plan = searchable(outputOf('npm run diff -- security-policy', 1));
    expect(plan).toMatch(/svc_blacklist_entry\.blacklist_192_0_2_200 .*will be created/);
    expect(plan).toContain('Plan: 1 to add, 0 to change, 0 to destroy.');
  });

  test('the own program plans its entry with the build\'s CLI configuration', () => {
    expect(searchable(outputOf('terraform -chdir="$scratch/out/stacks/my-policy" plan'))).toMatch(/svc_blacklist_entry\.scanner will be created/);
  });

  test('the commands leave only the app\'s own outputs in the checkout, none of step 6\'s scratch files', () => {
    // cdktf.out (synth), dist (the provider build), the stack's local state: all git-ignored.
    expect(added.filter((name) => !/^(cdktf\.out|dist|terraform\.security-policy\.tfstate(\.backup)?)$/.test(name))).toEqual([]);
  });

  test('destroy removes what deploy added', () => {
    expect(searchable(outputOf('npm run destroy -- security-policy'))).toMatch(/Destroy complete! Resources: \d+ destroyed/);
  });

  test('the output the page quotes is what the commands print', () => {
    const blocks = codeBlocks(PAGE);
    const missing: string[] = [];
    blocks.forEach((block, index) => {
      if (block.language !== '' || index === 0 || blocks[index - 1]!.language !== 'sh') return;
      const commands = shellCommands(blocks[index - 1]!);
      const printedBy = commands.at(-1)!;
      const runIndex = run.commands.findIndex((command) => command.command === printedBy.command && command.blockLine === printedBy.blockLine);
      const printed = searchable(run.outputs[runIndex] ?? '');
      for (const line of block.code.split('\n').map(searchable)) {
        if (line === '' || line === '...') continue;
        if (!printed.includes(line)) missing.push(`block at line ${block.line}: ${line}`);
      }
    });
    expect(missing).toEqual([]);
  });

});

// The quoted page must exist and be the one the coverage table names.
test('getting-started.md is the page this test runs', () => {
  expect(readPage(PAGE)).toContain('__tests__/help/getting-started.test.ts');
});
