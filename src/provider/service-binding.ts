/**
 * The plan binding: every refresh and plan records the service it read (a SHA-256 fingerprint
 * of base_url and one of the provider's tenant, never the API key) in the resource's private
 * data, and a change whose plan read another service is refused before any call, naming the
 * setting that changed. A saved plan then applies to the service it was reviewed against, or
 * not at all.
 */
import { createHash } from 'node:crypto';
import { errorDiagnostic, type Diagnostic, type ServiceBinding } from './core';
import type { Setting } from './context';

/** The settings that say which service (and which of its tenants) a plan reads. */
export interface BoundSettings {
  readonly baseUrl: Setting<string>;
  readonly tenant: Setting<string>;
}

const BOUND = {
  base_url: { setting: 'baseUrl', names: 'base_url (or SVC_BASE_URL)' },
  tenant: { setting: 'tenant', names: 'tenant (or SVC_TENANT)' },
} as const;

type BoundName = keyof typeof BOUND;

/** base_url as the client reaches it: trailing slashes and letter case of the host do not make another service. */
function normalised(name: BoundName, value: string): string {
  if (name !== 'base_url' || !URL.canParse(value)) return value;
  return new URL(value).href.replace(/\/+$/, '');
}

/**
 * Fingerprints already made in this process: every refresh and plan records the binding, so a
 * plan of N resources would otherwise parse base_url and hash both settings 2N times. A process
 * sees one or two services; the bound only keeps a misuse from growing it.
 */
const fingerprints = new Map<string, string>();
const FINGERPRINTS_KEPT = 64;

function fingerprint(name: BoundName, value: string): string {
  const key = `${name}\0${value}`;
  let made = fingerprints.get(key);
  if (made === undefined) {
    made = createHash('sha256').update(`${name}\0${normalised(name, value)}`).digest('hex');
    if (fingerprints.size >= FINGERPRINTS_KEPT) fingerprints.clear();
    fingerprints.set(key, made);
  }
  return made;
}

/** The binding of these settings; undefined while one is not known yet (nothing was read then). */
export function serviceBinding(settings: BoundSettings): ServiceBinding | undefined {
  const binding: Record<string, string | null> = {};
  for (const [name, { setting }] of Object.entries(BOUND) as Array<[BoundName, (typeof BOUND)[BoundName]]>) {
    const value = settings[setting];
    if (value.state === 'unknown') return undefined;
    binding[name] = value.state === 'set' ? fingerprint(name, value.value) : null;
  }
  return binding;
}

/** The refusal when `recorded` is not the binding of these settings; a setting the plan did not record is not compared. */
export function bindingMismatch(settings: BoundSettings, recorded: ServiceBinding): Diagnostic | undefined {
  const current = serviceBinding(settings);
  if (current === undefined) return undefined;
  const changed = (Object.keys(BOUND) as BoundName[]).filter((name) => name in recorded && recorded[name] !== current[name]);
  if (changed.length === 0) return undefined;
  const what = changed.map((name) => BOUND[name].names).join(' and ');
  const now = changed
    .map((name) => {
      const value = settings[BOUND[name].setting];
      return `${name} is now ${value.state === 'set' ? JSON.stringify(value.value) : 'unset'}`;
    })
    .join(', ');
  return errorDiagnostic(
    `Plan made against another svc service: ${changed.join(' and ')} changed`,
    `The plan of this change read the svc management API with another ${what} than the provider has now (${now}). ` +
      'Applying it would change a service, or a tenant, that the plan never read. Nothing was sent. ' +
      'Run terraform plan again with the settings you mean to apply with, review that plan, and apply it.',
  );
}
