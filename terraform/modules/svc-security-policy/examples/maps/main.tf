# Lists from maps: a per-entry blacklist, an additive whole-list whitelist, and the tenant's SSO.
# The provider reads SVC_BASE_URL, SVC_TENANT and SVC_API_KEY from the environment.

terraform {
  required_version = ">= 1.9"
  required_providers {
    svc = { source = "svc-prevent/svc" }
  }
}

provider "svc" {}

variable "tenant" {
  description = "The tenant whose SSO this configures (the provider's SVC_TENANT)."
  type        = string
  default     = "acme"
}

module "security_policy" {
  source = "../.."

  # One svc_blacklist_entry per address: module.security_policy.svc_blacklist_entry.this["203.0.113.9"].
  blacklist = {
    entries = {
      "203.0.113.9"     = "port scanner"
      "198.51.100.0/24" = "botnet range"
    }
  }

  # One svc_whitelist holding only these entries; entries added in the console are left alone.
  whitelist = {
    resources = "whole-list"
    mode      = "additive"
    entries = {
      "192.0.2.10"      = "office egress"
      "2001:db8:1::/48" = "partner network"
    }
  }

  tenant_sso = {
    name              = var.tenant
    enabled           = true
    saml_metadata_url = "https://idp.example.com/metadata"
  }
}

output "entries" {
  value = module.security_policy.entries
}
