/**
 * The wire layer against the real terraform binary: the empty-provider fixture, bundled like the
 * real provider, is run by `terraform plan` through a dev_overrides CLI configuration (no init,
 * no registry, no network).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { providerBlock } from '../../scripts/terraform-harness/hcl';
import { bundleEmptyProvider } from './helpers';

let directory: string;
let cliConfigFile: string;
let configurationDirectory: string;

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'provider-wire-terraform-'));
  const executable = bundleEmptyProvider(mkdtempSync(join(directory, 'bin-')));
  cliConfigFile = join(directory, 'terraform.rc');
  writeFileSync(
    cliConfigFile,
    [
      'provider_installation {',
      `  dev_overrides { "svc-prevent/svc" = ${JSON.stringify(dirname(executable))} }`,
      '  direct {}',
      '}',
      '',
    ].join('\n'),
  );
  configurationDirectory = mkdtempSync(join(directory, 'config-'));
  writeFileSync(
    join(configurationDirectory, 'main.tf'),
    providerBlock(),
  );
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const cases = [
  { name: 'with mutual TLS (terraform default)', env: {}, tlsLine: 'svc: serving with mutual TLS' },
  { name: 'with TF_DISABLE_PLUGIN_TLS=1', env: { TF_DISABLE_PLUGIN_TLS: '1' }, tlsLine: 'svc: serving without TLS' },
];

test.each(cases)('terraform plan with the empty provider succeeds $name, and the provider exits on Shutdown', ({ env, tlsLine }) => {
  const logFile = join(directory, `trace-${Object.keys(env).length}.log`);
  const result = spawnSync('terraform', ['plan', '-input=false', '-no-color'], {
    cwd: configurationDirectory,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      HOME: directory,
      TMPDIR: directory,
      TF_CLI_CONFIG_FILE: cliConfigFile,
      CHECKPOINT_DISABLE: '1',
      TF_IN_AUTOMATION: '1',
      TF_LOG: 'trace',
      TF_LOG_PATH: logFile,
      ...env,
    },
  });
  expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
  expect(result.stdout).toContain('No changes.');
  const trace = readFileSync(logFile, 'utf8');
  expect(trace).toContain('provider: using plugin: version=6');
  expect(trace).toContain(tlsLine);
  expect(trace).toContain('/tfplugin6.Provider/GetProviderSchema');
  // Without a working Shutdown go-plugin waits 2 s, logs this, and kills the provider.
  expect(trace).not.toContain('plugin failed to exit gracefully');
  expect(trace).toContain('svc: terraform asked the plugin to shut down');
});
