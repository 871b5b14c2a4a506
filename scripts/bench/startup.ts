/**
 * Provider start-up, from exec of the released executable (a Node single executable
 * application, built here for this machine by scripts/release) to its handshake line on stdout,
 * against the floor: a bare HTTP/2 server with mutual TLS made into an executable of the same
 * Node (handshake-floor.js). Issue 13 measured it against `node -e 0`, which moves with the node
 * on PATH; the floor is what any provider of this Node pays, so the target (issue 27) is on the
 * provider's own part. `node -e 0` stays as information, and the node script of `npm run build`
 * (the dev build) is measured beside it.
 *
 * Terraform starts providers with mutual TLS: it passes its client certificate in
 * PLUGIN_CLIENT_CERT and the provider makes a server certificate of its own before it prints
 * the line. That is the figure with the target; the plaintext start (TF_DISABLE_PLUGIN_TLS,
 * a debugging switch) is reported beside it.
 */
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { makeSingleExecutable } from '../release/build';
import { generateCertificate } from '../../src/provider/protocol/certificate';
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from '../../src/provider/protocol/handshake';
import { makeFigure, measurement, median, type Figure } from './figures';
import type { BenchSession } from './session';
import { BenchCommandError, secondsSince } from './timing';

/** The released executable's target against the floor row (issue 27; it measured 1.06x to 1.09x). */
export const STARTUP_MAX_RATIO_OVER_FLOOR = 1.1;
const HANDSHAKE_TIMEOUT_MS = 30_000;

export type StartupMode = 'tls' | 'plaintext';

export interface StartupMeasurement {
  /** The released executable. */
  readonly providerMilliseconds: Record<StartupMode, number[]>;
  /** The dev build's node script, mutual TLS. */
  readonly scriptMilliseconds: number[];
  /** `node -e 0` of the node on PATH: the baseline of the target. */
  readonly nodeMilliseconds: number[];
  /** `node -e 0` of the Node binary the executable is made of. */
  readonly releaseNodeMilliseconds: number[];
  /** The floor: a bare HTTP/2 server with mutual TLS, made into an executable of the same Node (handshake-floor.js). */
  readonly floorMilliseconds: number[];
  readonly release: ReleasedExecutable;
}

export interface ReleasedExecutable {
  readonly platform: string;
  /** `node --version` of the binary inside. */
  readonly nodeVersion: string;
  readonly executableBytes: number;
  readonly zipBytes: number;
  readonly codeCache: boolean;
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
async function timeToHandshake(session: BenchSession, executable: string, env: NodeJS.ProcessEnv): Promise<number> {
  const start = process.hrtime.bigint();
  const child = spawn(executable, [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  session.track(child);
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

async function timeNodeNothing(session: BenchSession, node = 'node'): Promise<number> {
  const start = process.hrtime.bigint();
  const child = spawn(node, ['-e', '0'], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, stdio: 'ignore' });
  session.track(child);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (exitCode) => resolve(exitCode));
  });
  const milliseconds = secondsSince(start) * 1000;
  if (code !== 0) throw new BenchCommandError(`${node} -e 0 exited with ${code}`);
  return milliseconds;
}

export async function measureStartup(session: BenchSession, runs: number, warmUp: boolean): Promise<StartupMeasurement> {
  const socketDirectory = session.scratchDirectory('plugin-sockets');
  // Stands in for terraform's client certificate: any valid certificate the provider can trust.
  const clientCertificatePem = generateCertificate().certificatePem;
  const script = session.build.executable;
  const { platform, executable, built } = await session.release();
  session.progress('start-up: building the floor (handshake-floor.js) into an executable of the same Node');
  const floor = path.join(session.scratchDirectory('floor'), 'handshake-floor');
  makeSingleExecutable(built.node, path.join(__dirname, 'handshake-floor.js'), floor);
  const floorCertificate = generateCertificate();
  const measured: StartupMeasurement = {
    providerMilliseconds: { tls: [], plaintext: [] },
    scriptMilliseconds: [],
    nodeMilliseconds: [],
    releaseNodeMilliseconds: [],
    floorMilliseconds: [],
    release: { platform, nodeVersion: execFileSync(built.node, ['--version'], { encoding: 'utf8' }).trim(), executableBytes: built.executableBytes, zipBytes: built.zipBytes, codeCache: built.codeCache },
  };
  const tls = pluginEnvironment('tls', socketDirectory, clientCertificatePem);
  const floorEnvironment = { ...tls, SVC_BENCH_FLOOR_KEY: floorCertificate.privateKeyPem, SVC_BENCH_FLOOR_CERT: floorCertificate.certificatePem };
  if (warmUp) {
    await timeToHandshake(session, executable, tls);
    await timeToHandshake(session, floor, floorEnvironment);
    await timeToHandshake(session, script, tls);
    await timeNodeNothing(session);
    await timeNodeNothing(session, built.node);
  }
  for (let run = 1; run <= runs; run += 1) {
    measured.providerMilliseconds.tls.push(await timeToHandshake(session, executable, tls));
    measured.nodeMilliseconds.push(await timeNodeNothing(session));
    measured.providerMilliseconds.plaintext.push(await timeToHandshake(session, executable, pluginEnvironment('plaintext', socketDirectory, clientCertificatePem)));
    measured.scriptMilliseconds.push(await timeToHandshake(session, script, tls));
    measured.releaseNodeMilliseconds.push(await timeNodeNothing(session, built.node));
    measured.floorMilliseconds.push(await timeToHandshake(session, floor, floorEnvironment));
  }
  const last = (samples: number[]) => samples[samples.length - 1].toFixed(0);
  session.progress(
    `start-up: ${runs} runs, last: executable ${last(measured.providerMilliseconds.tls)} ms (TLS), ${last(measured.providerMilliseconds.plaintext)} ms (plaintext), node script ${last(measured.scriptMilliseconds)} ms (TLS), node -e 0 ${last(measured.nodeMilliseconds)} ms, floor ${last(measured.floorMilliseconds)} ms, release's node ${measured.release.nodeVersion} -e 0 ${last(measured.releaseNodeMilliseconds)} ms`,
  );
  return measured;
}

function timesOver(value: number, baseline: number): string {
  return `${(value / baseline).toFixed(2)}x (${value.toFixed(0)} against ${baseline.toFixed(0)} ms)`;
}

function mebibytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export function startupFigures(measured: StartupMeasurement, bundleBytes: number): Figure[] {
  const baseline = measurement('exec of node -e 0 to its exit (the node on PATH)', measured.nodeMilliseconds);
  const { release } = measured;
  const executable = `the released ${release.platform} executable (${mebibytes(release.executableBytes)}; zip ${mebibytes(release.zipBytes)}; ${release.codeCache ? 'with' : 'without'} V8 code cache)`;
  const sizes = { executableBytes: release.executableBytes, zipBytes: release.zipBytes, codeCache: release.codeCache, scriptBytes: bundleBytes };
  const floor = measurement(
    `exec of a bare HTTP/2 server with mutual TLS (scripts/bench/handshake-floor.js) made into an executable of the same Node (${release.nodeVersion}) and options, to its handshake line`,
    measured.floorMilliseconds,
  );
  const provider = measurement(`exec of ${executable} to its handshake line, with PLUGIN_CLIENT_CERT as terraform starts it`, measured.providerMilliseconds.tls);
  return [
    makeFigure({
      id: 'startup-tls',
      title: 'provider start-up (mutual TLS) vs the floor',
      unit: 'milliseconds',
      value: provider,
      baseline: floor,
      target: { maxRatio: STARTUP_MAX_RATIO_OVER_FLOOR, description: `<= ${STARTUP_MAX_RATIO_OVER_FLOOR.toFixed(2)}x the floor` },
      notes: [
        'The realistic start: terraform always offers a client certificate, and the provider makes its own server certificate (ECDSA P-256) before the line.',
        "The ratio is the provider's own part (issuing its certificate, its gRPC routes, logging, the console guard, loading its scripts); the floor is what any provider made of this Node pays.",
        `Sizes: executable ${mebibytes(release.executableBytes)}, zip ${mebibytes(release.zipBytes)} (what a registry serves).`,
      ],
      details: sizes,
    }),
    makeFigure({
      id: 'startup-tls-node',
      title: 'provider start-up vs node -e 0',
      unit: 'milliseconds',
      value: measurement('the same runs as provider start-up (mutual TLS)', measured.providerMilliseconds.tls),
      baseline,
      target: null,
      notes: [
        `Issue 13's ratio, for information: it moves with the node on PATH (the baseline), not with the provider. The floor is ${timesOver(median(measured.floorMilliseconds), median(measured.nodeMilliseconds))} this baseline.`,
      ],
    }),
    makeFigure({
      id: 'startup-tls-release-node',
      title: 'provider start-up vs its own Node',
      unit: 'milliseconds',
      value: measurement(`the same runs as provider start-up (mutual TLS)`, measured.providerMilliseconds.tls),
      baseline: measurement(`exec of node -e 0 to its exit, with the Node binary the executable is made of (${release.nodeVersion})`, measured.releaseNodeMilliseconds),
      target: null,
      notes: [
        'For comparison: what the provider adds to the start of the Node it ships, whichever node is on PATH. The target is on the row against the floor.',
      ],
    }),
    makeFigure({
      id: 'startup-floor',
      title: 'bare HTTP/2 server start-up (the floor)',
      unit: 'milliseconds',
      value: floor,
      baseline,
      target: null,
      notes: [
        "What any provider on this Node pays before its line (load http2, a P-256 key pair, a TLS context requiring the client certificate, listen): the baseline of the start-up row's target.",
      ],
    }),
    makeFigure({
      id: 'startup-plaintext',
      title: 'provider start-up (TF_DISABLE_PLUGIN_TLS)',
      unit: 'milliseconds',
      value: measurement(`exec of ${executable} to its handshake line, TLS disabled`, measured.providerMilliseconds.plaintext),
      baseline,
      target: null,
      notes: ['For comparison only: TF_DISABLE_PLUGIN_TLS is a debugging switch.'],
    }),
    makeFigure({
      id: 'startup-script-tls',
      title: 'dev-build node script start-up (mutual TLS)',
      unit: 'milliseconds',
      value: measurement(`exec of the npm run build node script (${(bundleBytes / 1024).toFixed(0)} KiB bundle, run by the node on PATH) to its handshake line, mutual TLS`, measured.scriptMilliseconds),
      baseline,
      target: null,
      notes: ['For comparison: the provider as this repository runs it before a release.'],
    }),
  ];
}
