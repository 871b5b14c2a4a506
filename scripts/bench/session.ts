/**
 * What every measurement shares: the provider built into a temporary directory (its own
 * filesystem mirror and terraform.rc), one in-process emulator seeded with a tenant per use,
 * terraform workspaces under one temporary root, and progress lines on stderr. close() stops
 * the emulator and removes everything it made. A stop (Ctrl-C, output that cannot be written:
 * stop.ts) ends every process the session started at once, and every later step throws.
 *
 * It uses the terraform harness the acceptance tests use (build, emulator, workspace) so the
 * bench runs terraform exactly as they do, minus the debug logging they turn on: log lines cost time.
 */
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { currentPlatform, packageVersion } from '../../src/provider-identity';
import { DEFAULT_CACHE_DIR, buildProviderExecutables, fetchNode, type ReleasedPlatform } from '../release/build';
import { RELEASE_PLATFORMS, executableName, executableSbomName, zipName } from '../release/layout';
import { readZipEntry } from '../release/zip';
import { startAcceptanceEmulator, type AcceptanceEmulator } from '../terraform-harness/emulator';
import { providerBlock } from '../terraform-harness/hcl';
import { buildTestProvider, type TestProviderBuild } from '../terraform-harness/provider-build';
import { Workspace } from '../terraform-harness/workspace';
import type { EmulatorStats } from '../../src/emulator/server';
import { REPOSITORY } from './options';
import { BenchCommandError } from './timing';

export type Progress = (line: string) => void;

/**
 * How long a process a stop ended with SIGTERM has to exit before SIGKILL: terraform stops
 * gracefully on SIGTERM, shutting its providers down (a provider left behind by a SIGKILLed
 * terraform lingers until it notices, its socket directory in TMPDIR).
 */
const STOP_GRACE_MS = 5000;

/** The acceptance workspace turns on provider debug logs for its failure messages; a benchmark must not pay for them. */
const NO_DEBUG_LOGGING = { TF_LOG_PROVIDER: undefined, TF_LOG_PATH: undefined, SVC_LOG: undefined, TF_LOG: undefined } as const;

export interface BenchSessionOptions {
  /** Tenants to seed (each measurement uses its own, so lists start empty). */
  readonly tenants: readonly string[];
  readonly progress: Progress;
  /** Take the released executable from this `npm run release` output instead of building it (--release-dir). */
  readonly releaseDir?: string;
  /** The run's stop (BenchStop's signal): once aborted, what runs is ended and every step throws its reason. */
  readonly signal?: AbortSignal;
}

/** The released executable for this machine, as `npm run release` makes it (this platform only). */
export interface BenchRelease {
  /** `<os>_<arch>`, e.g. linux_amd64. */
  readonly platform: string;
  readonly version: string;
  /** The unzipped executable terraform would install. */
  readonly executable: string;
  readonly built: ReleasedPlatform;
}

export class BenchSession {
  /** Every process started for the session (terraform, synth, provider start-ups) until it has closed its output. */
  private readonly children = new Map<ChildProcess, Promise<void>>();
  private releasing: Promise<BenchRelease> | undefined;
  private closing: Promise<void> | undefined;

  private constructor(
    readonly root: string,
    readonly build: TestProviderBuild,
    private readonly emulator: AcceptanceEmulator,
    readonly progress: Progress,
    private readonly releaseDir: string | undefined,
    private readonly signal: AbortSignal,
  ) {
    signal.addEventListener('abort', () => this.endChildren(), { once: true });
  }

  static async start(options: BenchSessionOptions): Promise<BenchSession> {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
    options.progress(`building the provider into ${root}`);
    let build: TestProviderBuild | undefined;
    try {
      build = buildTestProvider();
      const emulator = await startAcceptanceEmulator({ tenants: options.tenants });
      options.progress(`emulator on ${emulator.url} (tenants: ${options.tenants.join(', ')})`);
      return new BenchSession(root, build, emulator, options.progress, options.releaseDir, options.signal ?? new AbortController().signal);
    } catch (error) {
      build?.remove();
      fs.rmSync(root, { recursive: true, force: true });
      throw error;
    }
  }

  /**
   * The released executable for this machine, built once per session (the start-up and plan
   * rows share it): the provider's part of scripts/release (buildProviderExecutables: the same
   * executable, without the svc command, module archives and sums it does not measure) for this
   * platform only, into the session root; or taken from an existing release (--release-dir).
   */
  release(): Promise<BenchRelease> {
    this.throwIfStopped();
    this.releasing ??= (async () => {
      const platform = currentPlatform();
      if (this.releaseDir !== undefined) return this.existingRelease(this.releaseDir, platform);
      this.progress(`building the released executable for ${platform} (npm run release's provider part, this platform only)`);
      const released = await buildProviderExecutables({
        outDir: this.scratchDirectory('release'),
        executablesDir: this.scratchDirectory('executables'),
        platforms: [platform],
        // A stop ends the build at its next step, through its own finally (its work directory).
        log: (line) => {
          this.throwIfStopped();
          this.progress(`release: ${line}`);
        },
      });
      return { platform, version: released.version, executable: released.executables[platform], built: released.platforms[0] };
    })();
    return this.releasing;
  }

  /**
   * The executable from the zip `npm run release` wrote into `directory` for this machine (the
   * same bytes terraform would install from it), and the pinned Node it is made of from
   * build/release-cache (fetched as the release fetches it where missing). npm run release
   * builds this machine's executable with its code caches.
   */
  private existingRelease(directory: string, platform: string): BenchRelease {
    const target = RELEASE_PLATFORMS.find((candidate) => `${candidate.os}_${candidate.arch}` === platform);
    if (target === undefined) throw new BenchCommandError(`--release-dir: no release is made for this machine (${platform})`);
    const version = packageVersion(REPOSITORY);
    const zip = path.join(directory, zipName(version, target.os, target.arch));
    if (!fs.existsSync(zip)) throw new BenchCommandError(`--release-dir ${directory} has no ${path.basename(zip)} (package.json's version ${version}): run npm run release, or leave out --release-dir to build it`);
    this.progress(`taking the released executable for ${platform} from ${zip} (--release-dir)`);
    const archive = fs.readFileSync(zip);
    let data: Buffer;
    try {
      data = readZipEntry(archive, executableName(version));
    } catch (error) {
      throw new BenchCommandError(`--release-dir: ${zip}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const executable = path.join(this.scratchDirectory('executables'), platform, executableName(version));
    fs.mkdirSync(path.dirname(executable));
    fs.writeFileSync(executable, data, { mode: 0o755 });
    const node = fetchNode(target.nodeArch, DEFAULT_CACHE_DIR);
    return {
      platform,
      version,
      executable,
      built: { os: target.os, arch: target.arch, zip, zipBytes: archive.length, sbom: path.join(directory, executableSbomName(version, target.os, target.arch)), executableBytes: data.length, codeCache: true, node },
    };
  }

  /**
   * A terraform working directory under the session root, with no debug logging; providers
   * from `cliConfigFile` (default: the dev build's mirror).
   */
  workspace(name: string, cliConfigFile: string = this.build.cliConfigFile): Workspace {
    this.throwIfStopped();
    return new Workspace({
      dir: fs.mkdtempSync(path.join(this.root, `${name}-`)),
      cliConfigFile,
      env: { SVC_API_KEY: this.emulator.apiKey, ...NO_DEBUG_LOGGING },
      trackChild: (child) => this.track(child),
    });
  }

  /** A directory under the session root for anything else (synth outdirs, plugin sockets). */
  scratchDirectory(name: string): string {
    this.throwIfStopped();
    return fs.mkdtempSync(path.join(this.root, `${name}-`));
  }

  /**
   * Registers a process started for the session, so that a stop ends it (SIGTERM, then SIGKILL
   * at close() if it lingers) and close() waits for it before removing the files it may still
   * write; one started after a stop is ended at once.
   */
  track(child: ChildProcess): void {
    this.children.set(child, new Promise((resolve) => {
      const forget = () => {
        this.children.delete(child);
        resolve();
      };
      child.once('close', forget);
      child.once('error', forget);
    }));
    if (this.signal.aborted) child.kill('SIGTERM');
  }

  /** Throws the stop's reason (a BenchStopped) once the run has been stopped. */
  throwIfStopped(): void {
    this.signal.throwIfAborted();
  }

  /** `terraform { required_providers }` + `provider "svc"` for this emulator and `tenant`. */
  providerBlock(tenant: string): string {
    return providerBlock({ baseUrl: this.emulator.url, tenant });
  }

  resetApiStats(): void {
    this.emulator.emulator.resetStats();
  }

  apiStats(): EmulatorStats {
    return this.emulator.emulator.stats();
  }

  /** Entries now on a tenant's list, through the API (a check that a setup really landed). */
  async listSize(tenant: string, list: 'blacklist' | 'blocklist' | 'whitelist'): Promise<number> {
    return (await this.emulator.client(tenant).listEntries(list)).length;
  }

  /** Ends what still runs, stops the emulator and removes everything the session made; the same promise on every call. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.endChildren();
      const lingering = setTimeout(() => this.endChildren('SIGKILL'), STOP_GRACE_MS);
      // Until none is left: the step a stop interrupted may start one more as it unwinds.
      while (this.children.size > 0) await Promise.all(this.children.values());
      clearTimeout(lingering);
      await this.emulator.stop();
      this.build.remove();
      fs.rmSync(this.root, { recursive: true, force: true });
    })();
    return this.closing;
  }

  private endChildren(signal: NodeJS.Signals = 'SIGTERM'): void {
    for (const child of this.children.keys()) child.kill(signal);
  }
}
