/**
 * The providers the plan rows compare, each installed the way terraform installs a provider:
 *
 *   released  svc as users get it: the executable `npm run release` makes for this machine
 *             (session.release()), in a filesystem mirror of its own
 *   dev       svc's dev build (the node script of `npm run build`, the session's build)
 *   floor     the protocol floor (floor-provider/), made into an executable like the release
 *   Go peer   hashicorp/aws from the local plugin mirror (/opt/tf-plugins, or
 *             SVC_TF_PLUGIN_MIRROR), where it is installed; never downloaded
 *
 * One CLI config installs released svc, the floor and the Go peer (three sources), another the
 * dev build (the same source as released svc); neither falls back to a registry.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PROVIDER_SOURCE } from '../../src/provider-identity';
import { hclString } from '../terraform-harness/hcl';
import { buildFloorProvider } from './floor-provider/build';
import { FLOOR_PROVIDER_SOURCE } from './floor-provider/provider';
import type { BenchSession } from './session';

export const GO_PEER_SOURCE = 'registry.terraform.io/hashicorp/aws';
/** Why the Go peer's rows are skipped where it is missing. */
export const GO_PEER_NOT_INSTALLED = 'hashicorp/aws is not in the plugin mirror (/opt/tf-plugins or SVC_TF_PLUGIN_MIRROR); nothing is downloaded';
/** Why the Go peer's rows are skipped with --no-go-peer. */
export const NO_GO_PEER = '--no-go-peer: the Go peer was not planned';

export interface GoPeer {
  readonly mirrorDir: string;
  /** The newest version in the mirror, e.g. 5.100.0. */
  readonly version: string;
}

export interface PlanProviders {
  /** Released svc, the floor and the Go peer (where present). */
  readonly releasedCliConfig: string;
  /** svc's dev build. */
  readonly devCliConfig: string;
  /** undefined when the plugin is not installed: its rows are skipped. */
  readonly goPeer: GoPeer | undefined;
  readonly floorBundleBytes: number;
}

interface FilesystemMirror {
  readonly path: string;
  readonly include: string;
}

/** A CLI config that installs from these mirrors only (no `direct`: nothing from the network). */
export function mirrorsCliConfig(mirrors: readonly FilesystemMirror[]): string {
  return [
    '# Written by npm run bench (scripts/bench/plan-providers.ts) for one run.',
    'provider_installation {',
    ...mirrors.flatMap((mirror) => ['  filesystem_mirror {', `    path    = ${hclString(mirror.path)}`, `    include = [${hclString(mirror.include)}]`, '  }']),
    '}',
    '',
  ].join('\n');
}

/** hashicorp/aws in the local plugin mirror, or undefined. */
export function findGoPeer(mirrorDir: string = process.env.SVC_TF_PLUGIN_MIRROR || '/opt/tf-plugins'): GoPeer | undefined {
  const versions = path.join(mirrorDir, ...GO_PEER_SOURCE.split('/'));
  if (!fs.existsSync(versions)) return undefined;
  const newest = fs
    .readdirSync(versions)
    .filter((version) => /^\d+\.\d+\.\d+$/.test(version))
    .sort((left, right) => left.localeCompare(right, 'en', { numeric: true }))
    .pop();
  return newest === undefined ? undefined : { mirrorDir, version: newest };
}

export async function preparePlanProviders(session: BenchSession): Promise<PlanProviders> {
  const release = await session.release();
  const root = session.scratchDirectory('plan-providers');
  const releasedMirror = path.join(root, 'released-mirror');
  const packaged = path.join(releasedMirror, ...PROVIDER_SOURCE.split('/'), release.version, release.platform, path.basename(release.executable));
  fs.mkdirSync(path.dirname(packaged), { recursive: true });
  fs.copyFileSync(release.executable, packaged);
  fs.chmodSync(packaged, 0o755);

  session.progress('plans: building the protocol floor (scripts/bench/floor-provider) into an executable of the release\'s Node');
  const floorWork = path.join(root, 'floor');
  fs.mkdirSync(floorWork);
  const floor = buildFloorProvider(release.built.node, floorWork, release.platform);

  const goPeer = findGoPeer();
  if (goPeer === undefined) session.progress(`plans: no ${GO_PEER_SOURCE} in the plugin mirror; the Go peer's rows are skipped`);
  const releasedCliConfig = path.join(root, 'released.tfrc');
  fs.writeFileSync(
    releasedCliConfig,
    mirrorsCliConfig([
      { path: releasedMirror, include: PROVIDER_SOURCE },
      { path: floor.mirrorDir, include: FLOOR_PROVIDER_SOURCE },
      ...(goPeer === undefined ? [] : [{ path: goPeer.mirrorDir, include: GO_PEER_SOURCE }]),
    ]),
  );
  const devCliConfig = path.join(root, 'dev.tfrc');
  fs.writeFileSync(devCliConfig, mirrorsCliConfig([{ path: session.build.mirrorDir, include: PROVIDER_SOURCE }]));
  return { releasedCliConfig, devCliConfig, goPeer, floorBundleBytes: floor.bundleBytes };
}
