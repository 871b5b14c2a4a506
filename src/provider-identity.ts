/**
 * Who the svc provider is, in one place: its source address, executable name and version (the
 * package.json version), and the terraform platform of this machine. The provider build
 * (scripts/build-provider.ts), the bindings generator (scripts/generate-bindings.ts), the mirror
 * preparation (src/pipeline/provider-mirror.ts) and the library's exports all read these, so a
 * rename or a new version is one edit. Imports nothing of the repository but package-root.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { packageRoot } from './package-root';

export const PROVIDER_HOSTNAME = 'registry.terraform.io';
export const PROVIDER_NAMESPACE = 'svc-prevent';
/** The provider's type: the `svc` of `provider "svc"` and of every `svc_*` resource type. */
export const PROVIDER_TYPE = 'svc';
/** The short address, as a configuration's required_providers (and cdktf) write it. */
export const PROVIDER_ADDRESS = `${PROVIDER_NAMESPACE}/${PROVIDER_TYPE}`;
/** The fully qualified address, as terraform's lock files and filesystem mirrors write it. */
export const PROVIDER_SOURCE = `${PROVIDER_HOSTNAME}/${PROVIDER_ADDRESS}`;
export const EXECUTABLE_NAME = `terraform-provider-${PROVIDER_TYPE}`;

export type BuildErrorCode = 'entry_missing' | 'bundle_failed' | 'invalid_version' | 'invalid_platform' | 'cli_usage';

/** A provider build that cannot be made as asked (a bad version, platform, entry point or option); the message says how to fix it. */
export class BuildError extends Error {
  constructor(
    readonly code: BuildErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'BuildError';
  }
}

/** The package.json version: the provider's version in the mirror and the bindings' constraint. */
export function packageVersion(root: string = packageRoot()): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version?: unknown };
  if (typeof manifest.version !== 'string') throw new BuildError('invalid_version', 'package.json has no "version" string; set one (e.g. "0.1.0").');
  return manifest.version;
}

/** The terraform platform this machine is, e.g. linux_amd64. */
export function currentPlatform(): string {
  const architectures: Record<string, string> = { x64: 'amd64', arm64: 'arm64', ia32: '386', arm: 'arm' };
  return `${process.platform === 'win32' ? 'windows' : process.platform}_${architectures[process.arch] ?? process.arch}`;
}
