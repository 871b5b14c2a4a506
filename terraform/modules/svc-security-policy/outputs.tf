output "entries" {
  description = "The entries of each managed list, as applied: canonical address => description."
  value       = local.entry_maps

  # The checks of checks.tf: entry files and the policy rules over maps and files together.
  precondition {
    condition     = length(local.input_problems) == 0
    error_message = join("\n", local.input_problems)
  }
  precondition {
    condition     = length(local.rule_findings) == 0
    error_message = join("\n", local.rule_findings)
  }
}

output "list_resources" {
  description = "How each managed list is declared: \"per-entry\" or \"whole-list\"."
  value       = { for list, input in local.lists : list => input.resources }
}

output "entry_ids" {
  description = "IDs (<tenant>/<canonical ip>) of the per-entry resources, per list, by canonical address."
  value = {
    blacklist = { for address, entry in svc_blacklist_entry.this : address => entry.id }
    blocklist = { for address, entry in svc_blocklist_entry.this : address => entry.id }
    whitelist = { for address, entry in svc_whitelist_entry.this : address => entry.id }
  }
}

output "list_ids" {
  description = "IDs (<tenant>/<list>) of the whole-list resources, per list."
  value = merge(
    { for list in svc_blacklist.this : "blacklist" => list.id },
    { for list in svc_blocklist.this : "blocklist" => list.id },
    { for list in svc_whitelist.this : "whitelist" => list.id },
  )
}

output "tenant_sso" {
  description = "The tenant's SSO settings as applied (null when tenant_sso is not given)."
  value = one([for sso in svc_tenant_sso.this : {
    name              = sso.name
    enabled           = sso.enabled
    required          = sso.required
    saml_metadata_url = sso.saml_metadata_url
    uuid              = sso.uuid
  }])
}

output "channel_service_providers" {
  description = "The SAML service-provider side of each channel in channel_sso, for the identity provider: entity_id, acs_url, metadata_url (null without the provider's sso_base)."
  value = {
    for name, sso in svc_channel_sso.this : name => {
      entity_id    = sso.sp_entity_id
      acs_url      = sso.sp_acs_url
      metadata_url = sso.sp_metadata_url
    }
  }
}
