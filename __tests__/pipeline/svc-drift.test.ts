/**
 * `svc drift` with real terraform, the provider built from source and the emulator: an HCL root
 * and a synthesized cdktf stack, installed through the user's own CLI config (a
 * provider_installation block with a filesystem mirror: no note, nothing linked); clean, pending
 * changes (reported as such, exit 0, never counted as drift), drift with who did it from the
 * audit log, through a flood that fills the first audit window; --link-mirror writes into the
 * root only, never into the mirror; the provider installed from a network mirror over HTTPS
 * (svc drift and its svc-drift alias: no note, nothing linked, drift found); bad input named.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { main } from '../../src/pipeline/svc-cli';
import { currentPlatform, packageVersion } from '../../src/provider-identity';
import { executableName, sumsName, zipName } from '../../scripts/release/layout';
import { readRelease, writeNetworkMirror } from '../../scripts/release/static-sites';
import { EXECUTABLE_MODE, zipArchive } from '../../scripts/release/zip';
import { Workspace as TerraformWorkspace } from '../../scripts/terraform-harness/workspace';
import { track } from '../support/child-processes';
import { makeTestCertificateAuthority, serveStaticSite, type StaticSite } from '../release/support/https-site';
import { legacySvcDriftArguments } from '../../src/pipeline/svc/drift-command';
import { CONSOLE_USER } from '../../scripts/terraform-harness/emulator';
import { hclString, resourceBlock } from '../../scripts/terraform-harness/hcl';
import type { Workspace } from '../../scripts/terraform-harness/workspace';
import { useAcceptanceHarness } from '../provider-acceptance/support/harness';

jest.setTimeout(240_000);

const harness = useAcceptanceHarness({ tenants: ['hcl', 'stack', 'mirrored'] });

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function svc(workspace: Workspace, argv: string[], env: Record<string, string> = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { ...workspace.env, ...env },
    workingDirectory: workspace.dir,
  });
  return { code, stdout, stderr };
}

/** Every file under a directory with its size and modification time, to prove nothing was written there. */
function snapshot(directory: string): string[] {
  const found: string[] = [];
  const visit = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(file);
      else {
        const stat = fs.lstatSync(file);
        found.push(`${path.relative(directory, file)} ${stat.size} ${stat.mtimeMs}`);
      }
    }
  };
  visit(directory);
  return found.sort();
}

describe('an HCL root', () => {
  let workspace: Workspace;
  const configuration = (extra: Record<string, string> = {}) =>
    harness().providerBlock('hcl') +
    resourceBlock('svc_blacklist', 'deny', { entries: `{ "203.0.113.1" = "scanner", "203.0.113.2" = "bot", ${Object.entries(extra).map(([ip, text]) => `${hclString(ip)} = ${hclString(text)}`).join(', ')} }` }) +
    resourceBlock('svc_whitelist_entry', 'office', { ip: hclString('192.0.2.10'), description: hclString('office') });

  beforeAll(async () => {
    workspace = harness().createWorkspace('drift-hcl');
    workspace.write(configuration());
    await workspace.init();
    await workspace.apply();
  });

  test('clean: exit 0; the user\'s provider_installation is used as it is: no note, nothing linked', async () => {
    const run = await svc(workspace, ['drift']);
    expect(run).toMatchObject({ code: 0 });
    expect(run.stdout).toContain('. (hcl): clean: no drift, nothing to change');
    expect(run.stdout).toContain('svc drift: 1 root: 1 clean, 0 drifted, 0 with pending changes, 0 failed, 0 skipped; exit 0');
    expect(run.stderr).not.toMatch(/cannot install|filesystem_mirror|unset TF_CLI_CONFIG_FILE/);
    expect(fs.existsSync(path.join(workspace.dir, 'terraform.d'))).toBe(false);
  });

  test('pending changes are reported as such, with the addresses a change would write, and exit 0 (2 with --fail-on-pending)', async () => {
    workspace.write(configuration({ '203.0.113.50': 'new scanner', '10.0.0.0/7': 'far too broad' }));
    try {
      const run = await svc(workspace, ['drift']);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('. (hcl): PENDING CHANGES: the configuration has changes not applied yet; nothing changed outside terraform');
      expect(run.stdout).toContain('+ 203.0.113.50  "new scanner"  (svc_blacklist.deny)');
      expect(run.stdout).toMatch(/\+ 10\.0\.0\.0\/7 {2}"far too broad" {2}\(svc_blacklist\.deny\)\n\s+warning: Very broad range on the blacklist/);
      expect(run.stdout).toContain('0 drifted, 1 with pending changes');
      expect((await svc(workspace, ['drift', '--fail-on-pending'])).code).toBe(2);
    } finally {
      workspace.write(configuration());
    }
  });

  test('drift: exit 2, each change with who made it; a flood of 1,000 audit events does not hide the removal', async () => {
    const consoleClient = harness().emulator.consoleClient('hcl');
    await consoleClient.deleteEntry('blacklist', '203.0.113.2');
    await consoleClient.deleteEntry('whitelist', '192.0.2.10');
    // One bulk call of 1,000 copies of one address: 1,000 audit events newer than the removals.
    await consoleClient.bulkAddEntries('blocklist', Array.from({ length: 1000 }, (_, index) => ({ ip: `198.18.${Math.floor(index / 250)}.${index % 250}`, description: 'flood' })));
    const run = await svc(workspace, ['drift']);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('. (hcl): DRIFT: 2 resources changed outside terraform (the plan puts them back)');
    expect(run.stdout).toContain(`203.0.113.2 deleted outside terraform from the blacklist: Lists/remove_entry by ${CONSOLE_USER} at `);
    expect(run.stdout).toMatch(new RegExp(`192\\.0\\.2\\.10 deleted outside terraform from the whitelist: Lists/remove_entry by ${CONSOLE_USER.replace(/\./g, '\\.')} at \\S+ \\[matched\\]`));
    expect(run.stdout).toContain('svc drift: 1 root: 0 clean, 1 drifted, 0 with pending changes, 0 failed, 0 skipped; exit 2');
    const json = JSON.parse((await svc(workspace, ['drift', '--format', 'json'])).stdout);
    expect(json.roots[0]).toMatchObject({ status: 'drift', driftedAddresses: ['svc_blacklist.deny', 'svc_whitelist_entry.office'] });
    expect(json.roots[0].attributions.map((attribution: { certainty: string }) => attribution.certainty)).toEqual(['matched', 'matched']);
    const markdown = await svc(workspace, ['drift', '--format', 'markdown']);
    expect(markdown.stdout.split('\n')[0]).toBe('**svc drift: 1 root: 0 clean, 1 drifted, 0 with pending changes, 0 failed, 0 skipped; exit 2**');
    expect(markdown.stdout).toContain('_(matched)_');
    await workspace.apply();
    expect((await svc(workspace, ['drift'])).code).toBe(0);
  });

  test('--link-mirror --mirror links into the root and writes nothing into the mirror', async () => {
    const mirror = harness().build.mirrorDir;
    const before = snapshot(mirror);
    const run = await svc(workspace, ['drift', '--mirror', mirror], { TF_CLI_CONFIG_FILE: path.join(workspace.dir, 'no-such.rc') });
    expect(run.code).toBe(0);
    expect(fs.readlinkSync(path.join(workspace.dir, 'terraform.d', 'plugins'))).toBe(mirror);
    expect(snapshot(mirror)).toEqual(before);
    fs.rmSync(path.join(workspace.dir, 'terraform.d'), { recursive: true });
  });
});

describe('a synthesized cdktf stack', () => {
  test('DIR is the app (manifest.json): each stack is checked where cdktf runs terraform', async () => {
    const workspace = harness().createWorkspace('drift-cdktf');
    const stackDir = path.join(workspace.dir, 'cdktf.out', 'stacks', 'policy');
    fs.mkdirSync(stackDir, { recursive: true });
    fs.writeFileSync(path.join(workspace.dir, 'cdktf.out', 'manifest.json'), JSON.stringify({ version: '0.21.0', stacks: { policy: { name: 'policy', workingDirectory: 'stacks/policy', synthesizedStackPath: 'stacks/policy/cdk.tf.json' } } }));
    fs.writeFileSync(
      path.join(stackDir, 'cdk.tf.json'),
      JSON.stringify({
        terraform: { required_providers: { svc: { source: 'svc-prevent/svc' } } },
        provider: { svc: [{ base_url: harness().emulator.url, tenant: 'stack' }] },
        resource: { svc_whitelist: { allow: { entries: { '192.0.2.1': 'office' } } } },
      }),
    );
    const pending = await svc(workspace, ['drift']);
    expect(pending.code).toBe(0);
    expect(pending.stdout).toContain('policy (cdktf stack): PENDING CHANGES');
    expect(pending.stdout).toContain('+ 192.0.2.1  "office"  (svc_whitelist.allow)');
    const alias = await svc(workspace, ['drift', ...legacySvcDriftArguments(['--outdir', 'cdktf.out', 'policy', '--fail-on-pending'])]);
    expect(alias.code).toBe(2);
    expect(fs.existsSync(path.join(stackDir, 'terraform.d'))).toBe(false);
    expect((await svc(workspace, ['drift', 'cdktf.out', '--stack', 'nope'])).stderr).toMatch(/no stack named "nope" in cdktf\.out; it has policy/);
  });
});

describe('the provider installed from a network mirror over HTTPS (a TF_CLI_CONFIG_FILE with network_mirror)', () => {
  let site: StaticSite;
  let scratch: string;
  let cliConfigFile: string;
  let caFile: string;
  let hclRoot: TerraformWorkspace;
  let stackRoot: TerraformWorkspace;
  let appDir: string;

  /** The release's layout from this run's provider build: a zip per platform, SHA256SUMS, then the mirror site. */
  function networkMirrorSite(directory: string): string {
    const version = packageVersion();
    const platform = currentPlatform();
    const executable = harness().build.mirrorExecutables.find((file) => file.includes(`${path.sep}${platform}${path.sep}`));
    if (executable === undefined) throw new Error(`the provider build has no executable for ${platform}`);
    const releaseDir = path.join(directory, 'release');
    fs.mkdirSync(releaseDir, { recursive: true });
    const [osName, arch] = platform.split('_') as [string, string];
    const zip = zipArchive([{ name: executableName(version), data: fs.readFileSync(executable), mode: EXECUTABLE_MODE }], 1_700_000_000);
    fs.writeFileSync(path.join(releaseDir, zipName(version, osName, arch)), zip);
    fs.writeFileSync(path.join(releaseDir, sumsName(version)), `${createHash('sha256').update(zip).digest('hex')}  ${zipName(version, osName, arch)}\n`);
    const siteDir = path.join(directory, 'site');
    writeNetworkMirror({ release: readRelease(releaseDir), outDir: siteDir });
    return siteDir;
  }

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-drift-network-mirror-'));
    const authority = makeTestCertificateAuthority(path.join(scratch, 'ca'));
    caFile = authority.caFile;
    site = await serveStaticSite(networkMirrorSite(scratch), authority);
    cliConfigFile = path.join(scratch, 'network-mirror.tfrc');
    fs.writeFileSync(cliConfigFile, `provider_installation {\n  network_mirror {\n    url = "${site.url}/"\n  }\n}\n`);
    const workspace = (dir: string) =>
      new TerraformWorkspace({ dir, cliConfigFile, trackChild: track, env: { SVC_API_KEY: harness().emulator.apiKey, SSL_CERT_FILE: caFile } });

    hclRoot = workspace(path.join(scratch, 'hcl-root'));
    hclRoot.write(harness().providerBlock('mirrored') + resourceBlock('svc_blacklist_entry', 'scanner', { ip: hclString('203.0.113.77'), description: hclString('scanner') }));
    // A synthesized cdktf app as cdktf writes it: manifest.json and the stack's cdk.tf.json.
    appDir = path.join(scratch, 'project', 'cdktf.out');
    const stackDir = path.join(appDir, 'stacks', 'policy');
    fs.mkdirSync(stackDir, { recursive: true });
    fs.writeFileSync(path.join(appDir, 'manifest.json'), JSON.stringify({ version: '0.21.0', stacks: { policy: { name: 'policy', workingDirectory: 'stacks/policy', synthesizedStackPath: 'stacks/policy/cdk.tf.json' } } }));
    fs.writeFileSync(
      path.join(stackDir, 'cdk.tf.json'),
      JSON.stringify({
        terraform: { required_providers: { svc: { source: 'svc-prevent/svc', version: packageVersion() } } },
        provider: { svc: [{ base_url: harness().emulator.url, tenant: 'mirrored' }] },
        resource: { svc_whitelist: { allow: { entries: { '192.0.2.77': 'office' } } } },
      }),
    );
    stackRoot = workspace(stackDir);
    for (const root of [hclRoot, stackRoot]) {
      await root.init();
      await root.apply();
    }
  });

  afterAll(async () => {
    await site?.close();
    if (scratch !== undefined) fs.rmSync(scratch, { recursive: true, force: true });
  });

  async function drift(argv: string[]): Promise<Run> {
    let stdout = '';
    let stderr = '';
    const code = await main(['drift', ...argv], {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      env: { ...hclRoot.env, TF_CLI_CONFIG_FILE: cliConfigFile, SSL_CERT_FILE: caFile },
      workingDirectory: path.join(scratch, 'project'),
    });
    return { code, stdout, stderr };
  }

  test('terraform installed svc from the mirror site (the zip it serves), not from a filesystem mirror', () => {
    expect(site.requests).toEqual(expect.arrayContaining(['/registry.terraform.io/svc-prevent/svc/index.json', `/registry.terraform.io/svc-prevent/svc/${packageVersion()}.json`]));
    // Each root's init downloaded the zip (terraform fetches it more than once per install).
    expect(site.requests.filter((request) => request.endsWith('.zip')).length).toBeGreaterThanOrEqual(2);
  });

  test('clean, then drift in both roots: no note about mirrors, nothing linked, the lock files untouched; the svc-drift alias the same', async () => {
    const locks = [hclRoot.dir, stackRoot.dir].map((dir) => fs.readFileSync(path.join(dir, '.terraform.lock.hcl'), 'utf8'));
    const clean = await drift(['cdktf.out', hclRoot.dir]);
    expect({ code: clean.code, stderr: clean.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    expect(clean.stdout).toContain('svc drift: 2 roots: 2 clean, 0 drifted');

    const consoleClient = harness().emulator.consoleClient('mirrored');
    await consoleClient.deleteEntry('blacklist', '203.0.113.77');
    await consoleClient.addEntry('whitelist', { ip: '192.0.2.78', description: 'added in the console' });
    const drifted = await drift(['cdktf.out', hclRoot.dir]);
    expect(drifted.code).toBe(2);
    expect(drifted.stdout).toContain('policy (cdktf stack): DRIFT: 1 resource changed outside terraform');
    expect(drifted.stdout).toContain(`${path.relative(path.join(scratch, 'project'), hclRoot.dir)} (hcl): DRIFT: 1 resource changed outside terraform`);
    expect(drifted.stdout).toContain('+ 192.0.2.78  "added in the console"  (svc_whitelist.allow)');
    expect(drifted.stdout).toContain('203.0.113.77 deleted outside terraform from the blacklist: Lists/remove_entry by ');
    expect(drifted.stdout).toContain('svc drift: 2 roots: 0 clean, 2 drifted');

    const alias = await drift(legacySvcDriftArguments([]));
    expect(alias.code).toBe(2);
    expect(alias.stdout).toContain('policy (cdktf stack): DRIFT');

    for (const run of [clean, drifted, alias]) {
      expect(run.stderr).not.toMatch(/cannot install|filesystem_mirror|unset TF_CLI_CONFIG_FILE|linked the svc provider/);
    }
    for (const dir of [hclRoot.dir, stackRoot.dir]) expect(fs.existsSync(path.join(dir, 'terraform.d'))).toBe(false);
    expect([hclRoot.dir, stackRoot.dir].map((dir) => fs.readFileSync(path.join(dir, '.terraform.lock.hcl'), 'utf8'))).toEqual(locks);
  });
});

describe('bad input: exit 1 naming the argument', () => {
  test.each([
    [['drift', 'nowhere'], /DIR "nowhere" is not a directory/],
    [['drift', '.', '--format', 'yaml'], /--format "yaml": expected text, json, markdown/],
    [['drift', '.', '--stack', 'policy'], /--stack names stacks of a synthesized cdktf app, and "." has no manifest\.json/],
    [['drift', '--mirrors', 'x'], /unknown option "--mirrors"/],
  ])('%j', async (argv, message) => {
    const workspace = harness().createWorkspace('drift-bad');
    workspace.write('# empty root\n');
    const run = await svc(workspace, argv);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(message);
  });

  test('a directory without configuration', async () => {
    const workspace = harness().createWorkspace('drift-empty');
    const run = await svc(workspace, ['drift']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/DIR "\." holds no terraform configuration/);
  });
});
