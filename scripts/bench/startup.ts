/**
 * Figure 4: provider start-up, from exec of the built bundle to its handshake line on stdout,
 * against `node -e 0` (exec to exit) on the same machine.
 *
 * Terraform starts providers with mutual TLS: it passes its client certificate in
 * PLUGIN_CLIENT_CERT and the provider makes a server certificate of its own before it prints
 * the line. That is the figure with the target; the plaintext start (TF_DISABLE_PLUGIN_TLS,
 * a debugging switch) is reported beside it.
 */
import { spawn } from 'node:child_process';
import { generateCertificate } from '../../src/provider/protocol/certificate';
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from '../../src/provider/protocol/handshake';
import { makeFigure, measurement, type Figure } from './figures';
import type { BenchSession } from './session';
import { BenchCommandError, secondsSince } from './timing';

export const STARTUP_MAX_RATIO = 2;
const HANDSHAKE_TIMEOUT_MS = 30_000;

export type StartupMode = 'tls' | 'plaintext';

export interface StartupMeasurement {
  readonly providerMilliseconds: Record<StartupMode, number[]>;
  readonly nodeMilliseconds: number[];
}

function pluginEnvironment(mode: StartupMode, socketDirectory: string, clientCertificatePem: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE,
    PLUGIN_PROTOCOL_VERSIONS: '6',
    PLUGIN_UNIX_SOCKET_DIR: socketDirectory,
    ...(mode === 'tls' ? { PLUGIN_CLIENT_CERT: clientCertificatePem } : { TF_DISABLE_PLUGIN_TLS: '1' }),
  };
}

/** Milliseconds from spawn to the first line on stdout; then SIGTERM (the provider removes its socket directory) and wait. */
async function timeToHandshake(executable: string, env: NodeJS.ProcessEnv): Promise<number> {
  const start = process.hrtime.bigint();
  const child = spawn(executable, [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => (stderr += text));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const seconds = await new Promise<number>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new BenchCommandError(`the provider ${executable} printed no handshake line within ${HANDSHAKE_TIMEOUT_MS} ms; stderr:\n${stderr}`));
    }, HANDSHAKE_TIMEOUT_MS);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => {
      stdout += text;
      if (!stdout.includes('\n')) return;
      const elapsed = secondsSince(start);
      clearTimeout(timer);
      if (!/^1\|6\|unix\|/.test(stdout)) reject(new BenchCommandError(`the provider's first stdout line is not a handshake: ${JSON.stringify(stdout.split('\n')[0])}`));
      else resolve(elapsed);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new BenchCommandError(`the provider ${executable} exited (${signal ?? code}) before its handshake line; stderr:\n${stderr}`));
    });
  });
  child.kill('SIGTERM');
  await exited;
  return seconds * 1000;
}

async function timeNodeNothing(): Promise<number> {
  const start = process.hrtime.bigint();
  const child = spawn('node', ['-e', '0'], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, stdio: 'ignore' });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (exitCode) => resolve(exitCode));
  });
  const milliseconds = secondsSince(start) * 1000;
  if (code !== 0) throw new BenchCommandError(`node -e 0 exited with ${code}`);
  return milliseconds;
}

export async function measureStartup(session: BenchSession, runs: number, warmUp: boolean): Promise<StartupMeasurement> {
  const socketDirectory = session.scratchDirectory('plugin-sockets');
  // Stands in for terraform's client certificate: any valid certificate the provider can trust.
  const clientCertificatePem = generateCertificate().certificatePem;
  const executable = session.build.executable;
  const measured: StartupMeasurement = { providerMilliseconds: { tls: [], plaintext: [] }, nodeMilliseconds: [] };
  if (warmUp) {
    await timeToHandshake(executable, pluginEnvironment('tls', socketDirectory, clientCertificatePem));
    await timeNodeNothing();
  }
  for (let run = 1; run <= runs; run += 1) {
    measured.providerMilliseconds.tls.push(await timeToHandshake(executable, pluginEnvironment('tls', socketDirectory, clientCertificatePem)));
    measured.nodeMilliseconds.push(await timeNodeNothing());
    measured.providerMilliseconds.plaintext.push(await timeToHandshake(executable, pluginEnvironment('plaintext', socketDirectory, clientCertificatePem)));
  }
  const last = (samples: number[]) => samples[samples.length - 1].toFixed(0);
  session.progress(
    `start-up: ${runs} runs, last: provider ${last(measured.providerMilliseconds.tls)} ms (TLS), ${last(measured.providerMilliseconds.plaintext)} ms (plaintext), node -e 0 ${last(measured.nodeMilliseconds)} ms`,
  );
  return measured;
}

export function startupFigures(measured: StartupMeasurement, bundleBytes: number): Figure[] {
  const baseline = measurement('exec of node -e 0 to its exit (node from PATH, as the bundle\'s #!/usr/bin/env node)', measured.nodeMilliseconds);
  const bundle = `${(bundleBytes / 1024).toFixed(0)} KiB bundle`;
  return [
    makeFigure({
      id: 'startup-tls',
      title: 'provider start-up (mutual TLS)',
      unit: 'milliseconds',
      value: measurement(`exec of the built provider (${bundle}) to its handshake line, with PLUGIN_CLIENT_CERT as terraform starts it`, measured.providerMilliseconds.tls),
      baseline,
      target: { maxRatio: STARTUP_MAX_RATIO, description: `<= ${STARTUP_MAX_RATIO}x` },
      notes: ['The realistic start: terraform always offers a client certificate, and the provider makes its own server certificate (ECDSA P-256) before the line.'],
    }),
    makeFigure({
      id: 'startup-plaintext',
      title: 'provider start-up (TF_DISABLE_PLUGIN_TLS)',
      unit: 'milliseconds',
      value: measurement(`exec of the built provider (${bundle}) to its handshake line, TLS disabled`, measured.providerMilliseconds.plaintext),
      baseline,
      target: null,
      notes: ['For comparison only: TF_DISABLE_PLUGIN_TLS is a debugging switch.'],
    }),
  ];
}
