/** Where and when the figures were measured: machine, tool versions, date and git commit. */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { REPOSITORY } from './options';

export interface MachineInfo {
  readonly cores: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
  readonly os: string;
  readonly node: string;
  readonly terraform: string;
  /** 1-minute load average when the run started: other work on the machine skews the figures. */
  readonly loadAverageAtStart: number;
}

export interface GitInfo {
  readonly commit: string;
  /** Uncommitted changes in the working tree when the run started. */
  readonly dirty: boolean;
}

function operatingSystem(): string {
  const release = fs.existsSync('/etc/os-release') ? fs.readFileSync('/etc/os-release', 'utf8') : '';
  const pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(release)?.[1];
  return `${pretty ?? os.type()} (${os.type()} ${os.release()}, ${os.arch()})`;
}

function terraformVersion(): string {
  const output = execFileSync('terraform', ['version', '-json'], { encoding: 'utf8', env: { ...process.env, CHECKPOINT_DISABLE: '1', TF_CLI_CONFIG_FILE: '/dev/null' } });
  return (JSON.parse(output) as { terraform_version: string }).terraform_version;
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    os: operatingSystem(),
    node: process.version,
    terraform: terraformVersion(),
    loadAverageAtStart: Math.round(os.loadavg()[0] * 100) / 100,
  };
}

export function gitInfo(): GitInfo {
  const git = (args: string[]) => execFileSync('git', args, { cwd: REPOSITORY, encoding: 'utf8' }).trim();
  return { commit: git(['rev-parse', 'HEAD']), dirty: git(['status', '--porcelain']) !== '' };
}
