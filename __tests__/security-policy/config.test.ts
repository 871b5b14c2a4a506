import * as path from 'node:path';
// The app's config section: parsed inside the package, not part of its public surface.
import { parseSecurityPolicyConfig, securityPolicyPropsFromConfig, svcProviderSettings } from '../../modules/security-policy/config';
import { SecurityPolicyConfigError } from '../../modules/security-policy/errors';

const CONFIG_FILE = path.join('/projects', 'acme', 'config', 'svc.config.json');

const FULL_SECTION = {
  $comment: 'the security team owns policy/',
  baseUrl: 'https://svc.example.com',
  tenant: 'acme-corp',
  ssoBase: 'https://sso.example.com',
  providerSource: 'registry.example.com/acme/svc',
  blacklist: { files: ['../policy/blacklist.yaml'] },
  blocklist: { entries: [{ ip: '198.51.100.23', description: 'credential stuffing' }] },
  whitelist: { resources: 'whole-list', mode: 'additive', files: ['policy/whitelist.yaml', '/etc/svc/extra.json'] },
  tenantSso: { name: 'acme-corp', enabled: false },
  channelSso: [{ name: 'main', enabled: true, samlMetadataUrl: 'https://idp.example.com/metadata' }],
  allowControlPlaneEgress: { natGatewayIds: ['nat-0123456789abcdef0', 'nat-01234567'] },
};

describe('parseSecurityPolicyConfig', () => {
  test('parses the whole section, resolving entry files against the config file\'s directory', () => {
    const config = parseSecurityPolicyConfig(CONFIG_FILE, FULL_SECTION);
    expect(config).toEqual({
      baseUrl: 'https://svc.example.com',
      tenant: 'acme-corp',
      ssoBase: 'https://sso.example.com',
      providerSource: 'registry.example.com/acme/svc',
      blacklist: { files: ['/projects/acme/policy/blacklist.yaml'] },
      blocklist: { entries: [{ ip: '198.51.100.23', description: 'credential stuffing' }] },
      whitelist: { resources: 'whole-list', mode: 'additive', files: ['/projects/acme/config/policy/whitelist.yaml', '/etc/svc/extra.json'] },
      tenantSso: { name: 'acme-corp', enabled: false },
      channelSso: [{ name: 'main', enabled: true, samlMetadataUrl: 'https://idp.example.com/metadata' }],
      allowControlPlaneEgress: { natGatewayIds: ['nat-0123456789abcdef0', 'nat-01234567'] },
    });
    expect(svcProviderSettings(config)).toEqual({ baseUrl: 'https://svc.example.com', tenant: 'acme-corp', ssoBase: 'https://sso.example.com', source: 'registry.example.com/acme/svc' });
    expect(securityPolicyPropsFromConfig(config)).toEqual({
      blacklist: config.blacklist,
      blocklist: config.blocklist,
      whitelist: config.whitelist,
      tenantSso: config.tenantSso,
      channelSso: config.channelSso,
    });
  });

  test('an empty section is valid: provider settings come from SVC_* variables', () => {
    const config = parseSecurityPolicyConfig(CONFIG_FILE, {});
    expect(config).toEqual({});
    expect(svcProviderSettings(config)).toEqual({});
    expect(securityPolicyPropsFromConfig(config)).toEqual({});
  });

  const F = `${CONFIG_FILE}: securityPolicy`;
  const SECRET_ADVICE = 'secrets never go in this file (it is committed and shown in errors); remove the key and give the API key through env SVC_API_KEY or the sensitive variable api_key (export TF_VAR_api_key=...)';
  test.each([
    ['not an object', [], `${F}: expected an object`],
    ['an unknown field', { blacklists: {} }, `${F}.blacklists: unknown field; expected one of $comment, baseUrl, tenant, ssoBase, providerSource, blacklist, blocklist, whitelist, tenantSso, channelSso, allowControlPlaneEgress`],
    ['apiKey', { apiKey: 'svc-secret-value' }, `${F}.apiKey: ${SECRET_ADVICE}`],
    ['api_key', { api_key: 'svc-secret-value' }, `${F}.api_key: ${SECRET_ADVICE}`],
    ['a nested secret', { channelSso: [{ name: 'main', enabled: false, clientSecret: 'x' }] }, `${F}.channelSso[0].clientSecret: ${SECRET_ADVICE}`],
    ['a baseUrl that is not a URL', { baseUrl: 'svc.example.com' }, `${F}.baseUrl: "svc.example.com" is not an http or https URL; give one such as https://svc.example.com`],
    ['an http ssoBase', { ssoBase: 'http://sso.example.com' }, `${F}.ssoBase: "http://sso.example.com" is not an https URL`],
    ['a providerSource that is not a source address', { providerSource: 'https://registry.example.com/acme/svc' }, `${F}.providerSource: "https://registry.example.com/acme/svc" is not a provider source address [<hostname>/]<namespace>/<type>; write e.g. registry.example.com/acme/svc`],
    ['an empty tenant', { tenant: '' }, `${F}.tenant: expected a non-empty string (the tenant (customer) name), got ""; or leave it out`],
    ['a list that is not an object', { blacklist: ['203.0.113.9'] }, `${F}.blacklist: expected { resources?, mode?, entries?, files? }, got ["203.0.113.9"]`],
    ['an unknown list field', { blacklist: { file: 'policy/blacklist.yaml' } }, `${F}.blacklist.file: unknown field; expected one of resources, mode, entries, files`],
    ['an unknown resources style', { whitelist: { resources: 'whole' } }, `${F}.whitelist.resources: expected one of "per-entry", "whole-list", got "whole"`],
    ['mode on a per-entry list', { whitelist: { mode: 'additive' } }, `${F}.whitelist.mode: "additive" applies to whole-list resources only`],
    ['an unknown mode', { whitelist: { resources: 'whole-list', mode: 'merge' } }, `${F}.whitelist.mode: expected one of "authoritative", "additive", got "merge"`],
    ['files as a string', { blacklist: { files: 'policy/blacklist.yaml' } }, `${F}.blacklist.files: expected a list of entry-file paths, got "policy/blacklist.yaml"`],
    ['an empty file path', { blacklist: { files: [''] } }, `${F}.blacklist.files[0]: expected a path (relative to the config file's directory)`],
    ['a bad inline address', { blocklist: { entries: [{ ip: '198.51.100.300' }] } }, `${F}.blocklist.entries[0].ip: "198.51.100.300" is not an IPv4 or IPv6 address or CIDR range (octet 300 is above 255)`],
    ['an inline ip of the wrong type', { blocklist: { entries: [{ ip: 3232235777 }] } }, `${F}.blocklist.entries[0].ip: expected a string (an IPv4/IPv6 address or CIDR range), got 3232235777`],
    ['an unknown entry field', { blocklist: { entries: [{ ip: '198.51.100.1', comment: 'x' }] } }, `${F}.blocklist.entries[0].comment: unknown field; expected one of ip, description`],
    ['SSO without enabled', { tenantSso: { name: 'acme' } }, `${F}.tenantSso.enabled: is missing; give true or false`],
    ['SSO enabled as a string', { tenantSso: { name: 'acme', enabled: 'yes' } }, `${F}.tenantSso.enabled: expected true or false, got "yes"`],
    ['required SSO that is off', { tenantSso: { name: 'acme', enabled: false, required: true } }, `${F}.tenantSso.required: true: needs enabled = true`],
    ['enabled SSO without a metadata URL', { channelSso: [{ name: 'main', enabled: true }] }, `${F}.channelSso[0].samlMetadataUrl: (not set): is not set, and enabled SSO needs it`],
    ['channelSso not a list', { channelSso: { name: 'main', enabled: false } }, `${F}.channelSso: expected a list of { name, enabled, ... }`],
    ['a channel named twice', { channelSso: [{ name: 'main', enabled: false }, { name: 'main', enabled: false }] }, `${F}.channelSso[1].name: "main" is also channelSso[0]; keep one setting per channel`],
    ['a bad NAT gateway id', { allowControlPlaneEgress: { natGatewayIds: ['igw-0123456789abcdef0'] } }, `${F}.allowControlPlaneEgress.natGatewayIds[0]: "igw-0123456789abcdef0" is not a NAT gateway id; give one such as nat-0123456789abcdef0`],
    ['a bad VPC id', { allowControlPlaneEgress: { vpcId: 'vpc-xyz' } }, `${F}.allowControlPlaneEgress.vpcId: "vpc-xyz" is not a VPC id`],
    ['egress naming no gateway', { allowControlPlaneEgress: { natGatewayIds: [] } }, `${F}.allowControlPlaneEgress: names no NAT gateway; give natGatewayIds (["nat-..."]) or vpcId, or remove allowControlPlaneEgress`],
  ])('refuses %s, naming file, field path and value', (_name, section, message) => {
    let caught: unknown;
    try {
      parseSecurityPolicyConfig(CONFIG_FILE, section);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SecurityPolicyConfigError);
    const error = caught as SecurityPolicyConfigError;
    expect(error.code).toBe('invalid_config');
    expect(error.file).toBe(CONFIG_FILE);
    expect(error.message.startsWith(message)).toBe(true);
    expect(error.message).not.toContain('svc-secret-value');
  });
});
