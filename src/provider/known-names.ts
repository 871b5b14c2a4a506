/**
 * The tenant and channel names the service knows, for checking names at plan time without a
 * call per resource: each listing (customers, channels) is read at most once per provider
 * process, a tenant a tenant-scoped read already worked for (a list read at refresh) needs no
 * listing at all, and what was found about a tenant is kept for the process, so 1,000
 * resources naming one tenant cost at most one call between them.
 */
import type { ListName } from '../api/types';

export type NameKind = 'tenant' | 'channel';

/** What the service says about a name: it exists, or it does not and these do. */
export type NameFinding = { readonly exists: true } | { readonly exists: false; readonly listed: readonly string[] };

/** Lists the names of one kind (one customers or channels call). */
export type NameLister = (kind: NameKind) => Promise<readonly string[]>;

/**
 * Proves a tenant by reading one of its lists: true when the read worked, false when the
 * service refused the tenant; throws for anything else (the service unreachable, ...).
 */
export type TenantProbe = (tenant: string, list: ListName) => Promise<boolean>;

const EXISTS: NameFinding = { exists: true };

/** How many names a message shows before "and N more". */
export const NAMES_SHOWN = 10;

export class KnownNames {
  /** Tenants a tenant-scoped read worked for in this process. */
  private readonly answered = new Set<string>();
  private readonly listings = new Map<NameKind, Promise<readonly string[]>>();
  private readonly tenantFindings = new Map<string, Promise<NameFinding>>();

  constructor(private readonly list: NameLister) {}

  /** Records that a tenant-scoped read for `tenant` worked: it exists. */
  tenantAnswered(tenant: string): void {
    this.answered.add(tenant);
  }

  /** The names of `kind`, listed at most once per process; a failed listing is not kept. */
  names(kind: NameKind): Promise<readonly string[]> {
    const existing = this.listings.get(kind);
    if (existing !== undefined) return existing;
    const listing = this.list(kind);
    listing.catch(() => {
      if (this.listings.get(kind) === listing) this.listings.delete(kind);
    });
    this.listings.set(kind, listing);
    return listing;
  }

  /** A listing a hook read anyway (a refresh): later checks use it instead of calling again. */
  offer(kind: NameKind, names: readonly string[]): void {
    if (!this.listings.has(kind)) this.listings.set(kind, Promise.resolve(names));
  }

  async channel(name: string): Promise<NameFinding> {
    return findIn(await this.names('channel'), name);
  }

  /**
   * Whether `tenant` exists, found out at most once per process. `probe`: prove it by reading
   * that list instead of listing the tenants (the provider's tenant, whose lists a plan reads
   * anyway); only when the service refuses that read are the tenants listed, to name them.
   */
  tenant(tenant: string, probe?: { readonly read: TenantProbe; readonly list: ListName }): Promise<NameFinding> {
    if (this.answered.has(tenant)) return Promise.resolve(EXISTS);
    const existing = this.tenantFindings.get(tenant);
    if (existing !== undefined) return existing;
    const finding = (async (): Promise<NameFinding> => {
      if (probe !== undefined && (await probe.read(tenant, probe.list))) return EXISTS;
      return findIn(await this.names('tenant'), tenant);
    })();
    // A refusal is kept (the name will not appear during this run); a failure to ask is not.
    finding.catch(() => {
      if (this.tenantFindings.get(tenant) === finding) this.tenantFindings.delete(tenant);
    });
    this.tenantFindings.set(tenant, finding);
    return finding;
  }
}

function findIn(listed: readonly string[], name: string): NameFinding {
  return listed.includes(name) ? EXISTS : { exists: false, listed };
}

/** `"a", "b", and 3 more` (the first NAMES_SHOWN), or `none`. */
export function describeNames(names: readonly string[]): string {
  if (names.length === 0) return 'none';
  const shown = names.slice(0, NAMES_SHOWN).map((name) => JSON.stringify(name)).join(', ');
  return names.length > NAMES_SHOWN ? `${shown}, and ${names.length - NAMES_SHOWN} more` : shown;
}
