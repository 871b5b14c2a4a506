/**
 * What a test needs from the machine (a command on PATH, a plugin in the provider mirror) and
 * the one rule for when it is missing: under CI (the CI variable set, as .ci/run does) the test
 * fails, saying what is missing and that CI must provide it, so a run cannot pass having checked
 * nothing; on a developer's machine it is skipped with a line saying why. A test states its
 * requirements once, through describeRequiring, testRequiring or requirementMet.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface Requirement {
  /** What the test needs, e.g. "terraform on PATH". */
  readonly name: string;
  /** Why it is not there (with how to provide it), or undefined when it is. */
  readonly missing: string | undefined;
}

/** CI=true (or any value but "", "0" and "false") marks a CI run. */
export function underCi(environment: NodeJS.ProcessEnv = process.env): boolean {
  const value = environment.CI;
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

/** A command that runs (`command --version` exits 0, or `versionArgs`). */
export function commandOnPath(command: string, versionArgs: readonly string[] = ['--version']): Requirement {
  const result = spawnSync(command, versionArgs, { encoding: 'utf8' });
  const missing =
    result.error !== undefined ? `${command} is not on PATH (${result.error.message})` : result.status !== 0 ? `${command} ${versionArgs.join(' ')} exited ${result.status}: ${result.stderr.trim()}` : undefined;
  return { name: `${command} on PATH`, missing };
}

export interface AwsProviderMirror {
  /** The filesystem mirror (SVC_TF_PLUGIN_MIRROR, default /opt/tf-plugins). */
  readonly mirror: string;
  /** The newest hashicorp/aws version in it, or undefined. */
  readonly version: string | undefined;
  readonly requirement: Requirement;
}

/** hashicorp/aws in the local filesystem mirror terraform reads instead of downloading. */
export function awsProviderMirror(environment: NodeJS.ProcessEnv = process.env): AwsProviderMirror {
  const mirror = environment.SVC_TF_PLUGIN_MIRROR ?? '/opt/tf-plugins';
  const providerDir = path.join(mirror, 'registry.terraform.io', 'hashicorp', 'aws');
  const version = fs.existsSync(providerDir) ? fs.readdirSync(providerDir).sort().pop() : undefined;
  const missing =
    version === undefined
      ? `hashicorp/aws is not in the provider mirror ${mirror} (no version under ${providerDir}); put it there with ` +
        '`terraform providers mirror` in a configuration requiring hashicorp/aws = 5.100.0, or name another mirror in SVC_TF_PLUGIN_MIRROR'
      : undefined;
  return { mirror, version, requirement: { name: 'hashicorp/aws in the provider mirror', missing } };
}

function missingOf(requirements: readonly Requirement[]): string[] {
  return requirements.flatMap((requirement) => (requirement.missing === undefined ? [] : [requirement.missing]));
}

function failureMessage(missing: readonly string[]): string {
  return `${missing.join('; ')}. CI must provide it (this run has CI set, so the test fails instead of skipping)`;
}

function announceSkip(what: string, missing: readonly string[]): void {
  console.warn(`skipped: ${what}, because ${missing.join('; ')} (under CI this is a failure)`);
}

type Body = () => void;
type TestFunction = (name: string, fn: jest.ProvidesCallback, timeout?: number) => void;

/** `describe` when every requirement is met; otherwise one failing test under CI, or a skip said out loud. */
export function describeRequiring(requirements: readonly Requirement[]): (name: string, body: Body) => void {
  const missing = missingOf(requirements);
  if (missing.length === 0) return describe;
  if (underCi()) {
    return (name) =>
      describe(name, () => {
        test(`has what it needs: ${requirements.map((requirement) => requirement.name).join(', ')}`, () => {
          throw new Error(failureMessage(missing));
        });
      });
  }
  return (name, body) => {
    announceSkip(`"${name}"`, missing);
    describe.skip(name, body);
  };
}

/** `test` when every requirement is met; otherwise a test that fails under CI, or a skip said out loud. */
export function testRequiring(requirements: readonly Requirement[]): TestFunction {
  const missing = missingOf(requirements);
  if (missing.length === 0) return test;
  if (underCi()) {
    return (name) =>
      test(name, () => {
        throw new Error(failureMessage(missing));
      });
  }
  return (name, fn, timeout) => {
    announceSkip(`"${name}"`, missing);
    test.skip(name, fn, timeout);
  };
}

/**
 * For one check inside a test: true when the requirement is met; under CI a missing one throws
 * (failing the test); elsewhere it says the check is skipped and returns false.
 */
export function requirementMet(requirement: Requirement, check: string): boolean {
  if (requirement.missing === undefined) return true;
  if (underCi()) throw new Error(`${check}: ${failureMessage([requirement.missing])}`);
  announceSkip(check, [requirement.missing]);
  return false;
}
