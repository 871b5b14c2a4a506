# Lists from entry files (the SecurityPolicy construct's format: YAML or JSON, a list of
# { ip, description? } at the top level or under "entries"), maps and files together, and the
# SSO of a channel with the SAML URLs its identity provider needs.

terraform {
  required_version = ">= 1.9"
  required_providers {
    svc = { source = "svc-prevent/svc" }
  }
}

# base_url, tenant and api_key from SVC_BASE_URL, SVC_TENANT and SVC_API_KEY; sso_base names the
# service-provider URLs of channels (the channel_service_providers output).
provider "svc" {
  sso_base = "https://sso.example.com"
}

module "security_policy" {
  source = "../.."

  blacklist = {
    # Relative paths are relative to the directory terraform runs in; path.module keeps the
    # files next to this configuration wherever it is run from.
    files = ["${path.module}/policy/blacklist.yaml"]
  }

  blocklist = {
    resources = "whole-list"
    files     = ["${path.module}/policy/blocklist.json"]
    entries   = { "192.0.2.200" = "credential stuffing, from the incident channel" }
  }

  whitelist = {
    files = ["${path.module}/policy/whitelist.yaml"]
  }

  channel_sso = {
    main = {
      enabled           = true
      saml_metadata_url = "https://idp.example.com/app/svc/metadata"
    }
  }

  # The control plane's egress address and VPC: the blacklist and blocklist may never deny them.
  own_infrastructure = {
    egress_addresses = ["203.0.113.250"]
    vpc_cidr         = "10.20.0.0/16"
  }
}

output "entries" {
  value = module.security_policy.entries
}

output "main_channel_acs_url" {
  value = module.security_policy.channel_service_providers["main"].acs_url
}
