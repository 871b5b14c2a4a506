/**
 * Figure 5: synth of the full cdktf app against an empty one, both run as `cdktf synth` runs
 * them: cdktf.json's app command (`node bin/run-ts.js main.ts`) from the
 * repository root, with CDKTF_OUTDIR pointing into a temporary directory (never cdktf.out).
 * The empty app is the same command with main.ts replaced by scripts/bench/empty-app.ts.
 * Whatever stacks main.ts builds at run time are what is measured; they are recorded.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeFigure, measurement, type Figure } from './figures';
import { REPOSITORY } from './options';
import type { BenchSession } from './session';
import { BenchCommandError, secondsSince } from './timing';

const APP_ENTRY = 'main.ts';
export const EMPTY_APP = path.join(__dirname, 'empty-app.ts');

export interface SynthCommands {
  readonly full: string;
  readonly empty: string;
}

/** cdktf.json's app command, and the same with main.ts swapped for the empty app. */
export function synthCommands(repository = REPOSITORY): SynthCommands {
  const configFile = path.join(repository, 'cdktf.json');
  const config = JSON.parse(fs.readFileSync(configFile, 'utf8')) as { app?: unknown };
  if (typeof config.app !== 'string') throw new BenchCommandError(`${configFile} has no "app" command string; the synth figure runs it`);
  const words = config.app.split(/\s+/);
  const entryIndex = words.lastIndexOf(APP_ENTRY);
  if (entryIndex === -1) throw new BenchCommandError(`cdktf.json's app command "${config.app}" does not name ${APP_ENTRY}; the synth baseline replaces that word with the empty app`);
  const emptyWords = [...words];
  emptyWords[entryIndex] = path.relative(repository, EMPTY_APP);
  return { full: config.app, empty: emptyWords.join(' ') };
}

/** Runs the app command once into a fresh outdir; returns seconds and the stacks written. */
async function timeSynth(session: BenchSession, command: string, name: string): Promise<{ seconds: number; stacks: string[] }> {
  const outdir = session.scratchDirectory(`synth-${name}`);
  const env = Object.fromEntries(Object.entries(process.env).filter(([variable]) => !/^(TF_|CDKTF_)/.test(variable)));
  const start = process.hrtime.bigint();
  const child = spawn(command, { shell: true, cwd: REPOSITORY, env: { ...env, CDKTF_OUTDIR: outdir, CHECKPOINT_DISABLE: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  session.track(child);
  let output = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (text: string) => (output += text));
  child.stderr.on('data', (text: string) => (output += text));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode) => resolve(exitCode));
  });
  const seconds = secondsSince(start);
  if (code !== 0) throw new BenchCommandError(`synth (${command}) exited with ${code}:\n${output.trimEnd().split('\n').slice(-30).join('\n')}`);
  const stacksDir = path.join(outdir, 'stacks');
  const stacks = fs.existsSync(stacksDir) ? fs.readdirSync(stacksDir).sort() : [];
  if (!fs.existsSync(path.join(outdir, 'manifest.json'))) throw new BenchCommandError(`synth (${command}) exited 0 but wrote no manifest.json into ${outdir}`);
  fs.rmSync(outdir, { recursive: true, force: true });
  return { seconds, stacks };
}

export interface SynthMeasurement {
  readonly commands: SynthCommands;
  readonly fullSeconds: number[];
  readonly emptySeconds: number[];
  readonly stacks: string[];
}

export async function measureSynth(session: BenchSession, runs: number, warmUp: boolean): Promise<SynthMeasurement> {
  const commands = synthCommands();
  session.progress(`synth: "${commands.full}" vs "${commands.empty}"`);
  if (warmUp) {
    await timeSynth(session, commands.full, 'full');
    await timeSynth(session, commands.empty, 'empty');
  }
  const fullSeconds: number[] = [];
  const emptySeconds: number[] = [];
  let stacks: string[] = [];
  for (let run = 1; run <= runs; run += 1) {
    const full = await timeSynth(session, commands.full, 'full');
    stacks = full.stacks;
    fullSeconds.push(full.seconds);
    const empty = await timeSynth(session, commands.empty, 'empty');
    if (empty.stacks.length !== 0) throw new BenchCommandError(`the empty app wrote stacks (${empty.stacks.join(', ')}); it should write none`);
    emptySeconds.push(empty.seconds);
    session.progress(`synth: run ${run}/${runs}: full app ${full.seconds.toFixed(2)} s (${stacks.join(', ')}), empty app ${empty.seconds.toFixed(2)} s`);
  }
  return { commands, fullSeconds, emptySeconds, stacks };
}

export function synthFigure(measured: SynthMeasurement): Figure {
  return makeFigure({
    id: 'synth',
    title: 'cdktf synth of the app',
    unit: 'seconds',
    value: measurement(`${measured.commands.full} (stacks: ${measured.stacks.join(', ') || 'none'}), into a temporary outdir`, measured.fullSeconds),
    baseline: measurement(`${measured.commands.empty} (an App with no stacks), into a temporary outdir`, measured.emptySeconds),
    target: null,
    notes: ['Both include starting node, loading the transpiled TypeScript (bin/run-ts.js) and loading cdktf; the difference is what main.ts builds.'],
    details: { stacks: measured.stacks },
  });
}
