/**
 * The management-API client. Import from here, not from the modules behind it.
 *
 *   const client = new ManagementClient({ baseUrl, apiKey, tenant });
 *   await client.addEntry('blacklist', { ip: '203.0.113.9', description: 'scanner' });
 *   const entries = await client.listEntries('blacklist');   // concurrent reads share one call
 *   await client.setTenantSso(tenant, { enabled: true, required: false, saml_metadata_url });
 *   await client.close();
 *
 * Every failure is a ManagementApiError; branch on its `code`. Login is lazy and shared.
 */
export * from './client';
export * from './errors';
export * from './redaction';
export * from './reply';
export * from './reply-checks';
export * from './retry';
export * from './session';
export * from './shared-read';
export * from './transport';
export * from './types';
export * from './validation';
