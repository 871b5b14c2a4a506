/**
 * The names of a release, in the layout the public Terraform registry reads from a repository
 * release (the goreleaser layout), shared by the build, the static-site generators and the tests.
 */
import { EXECUTABLE_NAME, PROVIDER_NAMESPACE, PROVIDER_TYPE } from '../../src/provider-identity';

export { PROVIDER_TYPE };
/** The goreleaser project name: the executable's name, which every file of a release starts with. */
export const PROJECT_NAME = EXECUTABLE_NAME;
/** The registry namespace this repository publishes under (`svc-prevent/svc`). */
export const DEFAULT_NAMESPACE = PROVIDER_NAMESPACE;
/** Terraform's plugin protocol the provider speaks (tfplugin6). */
export const PROTOCOL_VERSIONS: readonly string[] = ['6.0'];

/**
 * The platforms a release ships. darwin is left out on purpose: macOS refuses an arm64 binary
 * without a valid code signature, and nothing reachable from this build (npm, Debian) can sign
 * Mach-O; see help/releasing.md.
 */
export const RELEASE_PLATFORMS: readonly ReleasePlatform[] = [
  { os: 'linux', arch: 'amd64', nodeArch: 'x64' },
  { os: 'linux', arch: 'arm64', nodeArch: 'arm64' },
];

export interface ReleasePlatform {
  /** Terraform's names, as in `<os>_<arch>`. */
  readonly os: string;
  readonly arch: string;
  /** Node's name of the architecture (the node-linux-<nodeArch> package). */
  readonly nodeArch: 'x64' | 'arm64';
}

export const executableName = (version: string): string => `${PROJECT_NAME}_v${version}`;
export const zipName = (version: string, os: string, arch: string): string => `${PROJECT_NAME}_${version}_${os}_${arch}.zip`;
export const manifestName = (version: string): string => `${PROJECT_NAME}_${version}_manifest.json`;
export const sumsName = (version: string): string => `${PROJECT_NAME}_${version}_SHA256SUMS`;
export const signatureName = (version: string): string => `${sumsName(version)}.sig`;
/** The CycloneDX SBOM of one platform's executable (help/releasing.md#software-bill-of-materials). */
export const executableSbomName = (version: string, os: string, arch: string): string => `${PROJECT_NAME}_${version}_${os}_${arch}.sbom.cdx.json`;
/** The npm package's name, whose tarball `npm pack` writes as `<name>-<version>.tgz`. */
export const LIBRARY_PACKAGE_NAME = 'svc-prevent';
/** The CycloneDX SBOM of the npm package, named after its tarball. */
export const packageSbomName = (version: string): string => `${LIBRARY_PACKAGE_NAME}-${version}.sbom.cdx.json`;
/** The `svc` command's executable (src/pipeline/svc-cli.ts), released beside the provider. */
export const SVC_COMMAND_NAME = 'svc';
/** Its zip: one executable `svc`, listed in the same SHA256SUMS as the provider's. */
export const svcZipName = (version: string, os: string, arch: string): string => `${SVC_COMMAND_NAME}_${version}_${os}_${arch}.zip`;
/** The CycloneDX SBOM of one platform's svc executable. */
export const svcSbomName = (version: string, os: string, arch: string): string => `${SVC_COMMAND_NAME}_${version}_${os}_${arch}.sbom.cdx.json`;
/** Not part of the goreleaser layout: the armored public key, for the registry generator and for users. */
export const publicKeyName = (version: string): string => `${PROJECT_NAME}_${version}_signing-key.asc`;

/** The registry manifest: which plugin protocols the release speaks. */
export function manifestText(): string {
  return `${JSON.stringify({ version: 1, metadata: { protocol_versions: PROTOCOL_VERSIONS } }, null, 2)}\n`;
}

/** Terraform accepts only semantic versions (no leading "v"). */
export function isSemanticVersion(version: string): boolean {
  return /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version);
}

/** `<hex>  <name>` lines, as sha256sum writes them and terraform reads them. */
export function parseSums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const match = /^([0-9a-f]{64}) [ *](\S+)$/.exec(line);
    if (match === null) throw new Error(`not a SHA256SUMS line: ${JSON.stringify(line)}`);
    sums.set(match[2], match[1]);
  }
  return sums;
}
