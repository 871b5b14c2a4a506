/** SvcProvider's `source`: where terraform installs the provider from (a released one, issue 13). */
import { TerraformStack, Testing } from 'cdktf';
import { ProviderSourceError, SvcProvider } from '../../modules/svc-provider/provider';

function requiredSource(source: string | undefined): unknown {
  const stack = new TerraformStack(Testing.app(), 'stack');
  new SvcProvider(stack, 'svc', source === undefined ? {} : { source });
  const synthesized = JSON.parse(Testing.synth(stack)) as { terraform: { required_providers: Record<string, { source: string }> } };
  return synthesized.terraform.required_providers.svc.source;
}

test.each([
  ['the default: the public address, which the dev-build mirror and a network mirror serve', undefined, 'svc-prevent/svc'],
  ['a private registry', 'registry.example.com/acme/svc', 'registry.example.com/acme/svc'],
  ['a registry on a port', 'registry.example.com:8443/acme/svc', 'registry.example.com:8443/acme/svc'],
  ['namespace/type only', 'acme/svc', 'acme/svc'],
])('%s', (_name, source, expected) => {
  expect(requiredSource(source)).toBe(expected);
});

test.each([['https://registry.example.com/acme/svc'], ['svc'], ['registry.example.com/acme/svc/extra'], ['acme/svc '], ['']])('%j is refused, naming the option and the value', (source) => {
  expect(() => requiredSource(source)).toThrow(ProviderSourceError);
  expect(() => requiredSource(source)).toThrow(`SvcProvider: source must be a provider source address [<hostname>/]<namespace>/<type>, e.g. registry.example.com/acme/svc; got ${JSON.stringify(source)}.`);
});
