# The security policy of one tenant as a plain HCL root: what the HCL flavour of the pipeline
# templates plans, applies and checks for drift (help/pipelines.md). The provider reads
# SVC_BASE_URL, SVC_TENANT and SVC_API_KEY from the CI job's environment.

terraform {
  required_version = ">= 1.11"
  required_providers {
    svc = { source = "svc-prevent/svc" }
  }
}

provider "svc" {}

resource "svc_blacklist_entry" "port_scanner" {
  ip          = "203.0.113.9"
  description = "port scanner"
}

resource "svc_whitelist_entry" "office" {
  ip          = "198.51.100.0/24"
  description = "head office"
}
