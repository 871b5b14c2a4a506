# Inputs. Each check names the field and the value it refuses; the policy rules (SVC-POLICY-n) are
# those of the CDKTF SecurityPolicy construct (help/guardrails.md).

variable "tenant" {
  description = "The tenant whose lists these are. null: the provider's tenant (its tenant argument or SVC_TENANT)."
  type        = string
  default     = null

  validation {
    condition     = var.tenant != ""
    error_message = "tenant = \"\": is empty; give the tenant (customer) name, or leave tenant out to use the provider's."
  }
}

variable "tenant_sso" {
  description = "SAML single sign-on of a tenant (svc_tenant_sso.this). null: not managed."
  type = object({
    # The tenant's name; it must exist on the service.
    name = string
    # Users may sign in through the identity provider; needs saml_metadata_url.
    enabled = bool
    # Users must sign in through SSO; needs enabled. null: the service's (false).
    required = optional(bool)
    # The identity provider's SAML metadata URL, https; needed when enabled.
    saml_metadata_url = optional(string)
    # Opt-out of the provider's lockout guard (required turning on in the apply that enables SSO
    # or changes the URL); true only when sign-in through this identity provider was tested elsewhere.
    sign_in_tested_elsewhere = optional(bool)
  })
  default = null

  validation {
    condition     = var.tenant_sso == null ? true : var.tenant_sso.name != ""
    error_message = "tenant_sso.name = \"\": is empty; give the tenant name."
  }

  validation {
    condition     = var.tenant_sso == null ? true : !(var.tenant_sso.required == true && var.tenant_sso.enabled == false)
    error_message = "tenant_sso.required = true: needs enabled = true (users cannot be required to use SSO that is off); set enabled to true or leave required out."
  }

  validation {
    condition     = try(var.tenant_sso.saml_metadata_url, null) == null ? true : !(var.tenant_sso.saml_metadata_url == "")
    error_message = try("tenant_sso.saml_metadata_url = ${jsonencode(replace(var.tenant_sso.saml_metadata_url, "/^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@]+@/", "$1[REDACTED]@"))}: is empty; give the identity provider's https:// metadata URL, e.g. https://idp.example.com/metadata.", "tenant_sso.saml_metadata_url: invalid")
  }

  validation {
    condition     = try(var.tenant_sso.saml_metadata_url, null) == null ? true : !(can(regex("[\\x{0}-\\x{20}\\x{7f}-\\x{9f}]", var.tenant_sso.saml_metadata_url)))
    error_message = try("tenant_sso.saml_metadata_url = ${jsonencode(replace(var.tenant_sso.saml_metadata_url, "/^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@]+@/", "$1[REDACTED]@"))}: holds white space or a control character (at position ${length(regex("^[^\\x{0}-\\x{20}\\x{7f}-\\x{9f}]*", var.tenant_sso.saml_metadata_url)) + 1}); a URL is one word of printable text; give the identity provider's https:// metadata URL, e.g. https://idp.example.com/metadata.", "tenant_sso.saml_metadata_url: invalid")
  }

  validation {
    condition     = try(var.tenant_sso.saml_metadata_url, null) == null ? true : !(var.tenant_sso.saml_metadata_url != "" && !can(regex("^[A-Za-z][A-Za-z0-9+.-]*://", var.tenant_sso.saml_metadata_url)))
    error_message = try("tenant_sso.saml_metadata_url = ${jsonencode(replace(var.tenant_sso.saml_metadata_url, "/^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@]+@/", "$1[REDACTED]@"))}: is not a URL; give the identity provider's https:// metadata URL, e.g. https://idp.example.com/metadata.", "tenant_sso.saml_metadata_url: invalid")
  }

  validation {
    condition     = try(var.tenant_sso.saml_metadata_url, null) == null ? true : !(can(regex("^[A-Za-z][A-Za-z0-9+.-]*://", var.tenant_sso.saml_metadata_url)) && !startswith(lower(var.tenant_sso.saml_metadata_url), "https://"))
    error_message = try("tenant_sso.saml_metadata_url = ${jsonencode(replace(var.tenant_sso.saml_metadata_url, "/^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@]+@/", "$1[REDACTED]@"))}: is not an https:// URL (it uses ${try(lower(regex("^([A-Za-z][A-Za-z0-9+.-]*):", var.tenant_sso.saml_metadata_url)[0]), "?")}); give the identity provider's https:// metadata URL, e.g. https://idp.example.com/metadata.", "tenant_sso.saml_metadata_url: invalid")
  }

  validation {
    condition     = try(var.tenant_sso.saml_metadata_url, null) == null ? true : !(can(regex("^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*@", var.tenant_sso.saml_metadata_url)))
    error_message = try("tenant_sso.saml_metadata_url = ${jsonencode(replace(var.tenant_sso.saml_metadata_url, "/^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@]+@/", "$1[REDACTED]@"))}: holds a user name or password before the host, which would be stored in clear in terraform state and the audit log; give the metadata URL without credentials.", "tenant_sso.saml_metadata_url: invalid")
  }

  validation {
    condition     = try(var.tenant_sso.saml_metadata_url, null) == null ? true : !(startswith(lower(var.tenant_sso.saml_metadata_url), "https://") && !can(regex("^https://([^/?#]*@)?[^/?#:@]+", lower(var.tenant_sso.saml_metadata_url))))
    error_message = try("tenant_sso.saml_metadata_url = ${jsonencode(replace(var.tenant_sso.saml_metadata_url, "/^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@]+@/", "$1[REDACTED]@"))}: has no host name; give the identity provider's https:// metadata URL, e.g. https://idp.example.com/metadata.", "tenant_sso.saml_metadata_url: invalid")
  }

  validation {
    condition     = var.tenant_sso == null ? true : !(var.tenant_sso.enabled && var.tenant_sso.saml_metadata_url == null)
    error_message = "tenant_sso.saml_metadata_url: is not set, and enabled SSO needs it; give the identity provider's metadata URL (https) or set enabled to false."
  }
}

variable "channel_sso" {
  description = "SAML single sign-on of channels (svc_channel_sso.this[<name>]), by channel name; each channel must exist on the service. {}: none managed."
  type = map(object({
    enabled                  = bool
    required                 = optional(bool)
    saml_metadata_url        = optional(string)
    sign_in_tested_elsewhere = optional(bool)
  }))
  default  = {}
  nullable = false

  validation {
    condition     = !contains(keys(var.channel_sso), "")
    error_message = "channel_sso[\"\"]: the channel name is empty; key each setting by its channel's name."
  }

  validation {
    condition     = length([for name, settings in var.channel_sso : name if settings.required == true && settings.enabled == false]) == 0
    error_message = join("\n", [for name, settings in var.channel_sso : "channel_sso[${jsonencode(name)}].required = true: needs enabled = true (users cannot be required to use SSO that is off); set enabled to true or leave required out." if settings.required == true && settings.enabled == false])
  }

  validation {
    condition     = length([for name, settings in var.channel_sso : name if settings.saml_metadata_url == null ? false : (settings.saml_metadata_url == "")]) == 0
    error_message = join("\n", [for name, settings in var.channel_sso : "channel_sso[${jsonencode(name)}].saml_metadata_url = ${jsonencode(replace(settings.saml_metadata_url, "/^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@]+@/", "$1[REDACTED]@"))}: is empty; give the identity provider's https:// metadata URL, e.g. https://idp.example.com/metadata." if settings.saml_metadata_url == null ? false : (settings.saml_metadata_url == "")])
  }

  validation {
    condition     = length([for name, settings in var.channel_sso : name if settings.saml_metadata_url == null ? false : (can(regex("[\\x{0}-\\x{20}\\x{7f}-\\x{9f}]", settings.saml_metadata_url)))]) == 0
    error_message = join("\n", [for name, settings in var.channel_sso : "channel_sso[${jsonencode(name)}].saml_metadata_url = ${jsonencode(replace(settings.saml_metadata_url, "/^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@]+@/", "$1[REDACTED]@"))}: holds white space or a control character (at position ${length(regex("^[^\\x{0}-\\x{20}\\x{7f}-\\x{9f}]*", settings.saml_metadata_url)) + 1}); a URL is one word of printable text; give the identity provider's https:// metadata URL, e.g. https://idp.example.com/metadata." if settings.saml_metadata_url == null ? false : (can(regex("[\\x{0}-\\x{20}\\x{7f}-\\x{9f}]", settings.saml_metadata_url)))])
  }

  validation {
    condition     = length([for name, settings in var.channel_sso : name if settings.saml_metadata_url == null ? false : (settings.saml_metadata_url != "" && !can(regex("^[A-Za-z][A-Za-z0-9+.-]*://", settings.saml_metadata_url)))]) == 0
    error_message = join("\n", [for name, settings in var.channel_sso : "channel_sso[${jsonencode(name)}].saml_metadata_url = ${jsonencode(replace(settings.saml_metadata_url, "/^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@]+@/", "$1[REDACTED]@"))}: is not a URL; give the identity provider's https:// metadata URL, e.g. https://idp.example.com/metadata." if settings.saml_metadata_url == null ? false : (settings.saml_metadata_url != "" && !can(regex("^[A-Za-z][A-Za-z0-9+.-]*://", settings.saml_metadata_url)))])
  }

  validation {
    condition     = length([for name, settings in var.channel_sso : name if settings.saml_metadata_url == null ? false : (can(regex("^[A-Za-z][A-Za-z0-9+.-]*://", settings.saml_metadata_url)) && !startswith(lower(settings.saml_metadata_url), "https://"))]) == 0
    error_message = join("\n", [for name, settings in var.channel_sso : "channel_sso[${jsonencode(name)}].saml_metadata_url = ${jsonencode(replace(settings.saml_metadata_url, "/^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@]+@/", "$1[REDACTED]@"))}: is not an https:// URL (it uses ${try(lower(regex("^([A-Za-z][A-Za-z0-9+.-]*):", settings.saml_metadata_url)[0]), "?")}); give the identity provider's https:// metadata URL, e.g. https://idp.example.com/metadata." if settings.saml_metadata_url == null ? false : (can(regex("^[A-Za-z][A-Za-z0-9+.-]*://", settings.saml_metadata_url)) && !startswith(lower(settings.saml_metadata_url), "https://"))])
  }

  validation {
    condition     = length([for name, settings in var.channel_sso : name if settings.saml_metadata_url == null ? false : (can(regex("^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*@", settings.saml_metadata_url)))]) == 0
    error_message = join("\n", [for name, settings in var.channel_sso : "channel_sso[${jsonencode(name)}].saml_metadata_url = ${jsonencode(replace(settings.saml_metadata_url, "/^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@]+@/", "$1[REDACTED]@"))}: holds a user name or password before the host, which would be stored in clear in terraform state and the audit log; give the metadata URL without credentials." if settings.saml_metadata_url == null ? false : (can(regex("^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*@", settings.saml_metadata_url)))])
  }

  validation {
    condition     = length([for name, settings in var.channel_sso : name if settings.saml_metadata_url == null ? false : (startswith(lower(settings.saml_metadata_url), "https://") && !can(regex("^https://([^/?#]*@)?[^/?#:@]+", lower(settings.saml_metadata_url))))]) == 0
    error_message = join("\n", [for name, settings in var.channel_sso : "channel_sso[${jsonencode(name)}].saml_metadata_url = ${jsonencode(replace(settings.saml_metadata_url, "/^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#@]+@/", "$1[REDACTED]@"))}: has no host name; give the identity provider's https:// metadata URL, e.g. https://idp.example.com/metadata." if settings.saml_metadata_url == null ? false : (startswith(lower(settings.saml_metadata_url), "https://") && !can(regex("^https://([^/?#]*@)?[^/?#:@]+", lower(settings.saml_metadata_url))))])
  }

  validation {
    condition     = length([for name, settings in var.channel_sso : name if settings.enabled && settings.saml_metadata_url == null]) == 0
    error_message = join("\n", [for name, settings in var.channel_sso : "channel_sso[${jsonencode(name)}].saml_metadata_url: is not set, and enabled SSO needs it; give the identity provider's metadata URL (https) or set enabled to false." if settings.enabled && settings.saml_metadata_url == null])
  }
}

variable "own_infrastructure" {
  description = "Addresses your own infrastructure uses, which the blacklist and blocklist must never deny (policy rule SVC-POLICY-5)."
  type = object({
    # The control plane's egress (NAT gateway) public IPs.
    egress_addresses = optional(list(string), [])
    # Where the sensors run.
    sensor_cidrs = optional(list(string), [])
    # The control plane VPC's range.
    vpc_cidr = optional(string)
  })
  default  = {}
  nullable = false

  validation {
    condition = length([
      for item in concat(
        [for index, address in var.own_infrastructure.egress_addresses : { field = "own_infrastructure.egress_addresses[${index}]", value = address }],
        [for index, address in var.own_infrastructure.sensor_cidrs : { field = "own_infrastructure.sensor_cidrs[${index}]", value = address }],
        [for address in var.own_infrastructure.vpc_cidr == null ? [] : [var.own_infrastructure.vpc_cidr] : { field = "own_infrastructure.vpc_cidr", value = address }],
      ) : item if !can(provider::svc::canonical_address(item.value))
    ]) == 0
    error_message = join("\n", [
      for item in concat(
        [for index, address in var.own_infrastructure.egress_addresses : { field = "own_infrastructure.egress_addresses[${index}]", value = address }],
        [for index, address in var.own_infrastructure.sensor_cidrs : { field = "own_infrastructure.sensor_cidrs[${index}]", value = address }],
        [for address in var.own_infrastructure.vpc_cidr == null ? [] : [var.own_infrastructure.vpc_cidr] : { field = "own_infrastructure.vpc_cidr", value = address }],
      ) : "${item.field} = ${jsonencode(item.value)}: is not an IPv4 or IPv6 address or CIDR range without host bits; write e.g. 203.0.113.9, 198.51.100.0/24 or 2001:db8::/32."
      if !can(provider::svc::canonical_address(item.value))
    ])
  }
}

variable "acknowledge" {
  description = "Policy rules whose findings you accept, by rule id (SVC-POLICY-2 to SVC-POLICY-5), with the reason: { \"SVC-POLICY-2\" = \"partner range, denied whole on purpose (security team, 2026-11)\" }."
  type        = map(string)
  default     = {}
  nullable    = false

  validation {
    condition     = length([for rule in keys(var.acknowledge) : rule if !contains(["SVC-POLICY-2", "SVC-POLICY-3", "SVC-POLICY-4", "SVC-POLICY-5"], rule)]) == 0
    error_message = join("\n", [for rule in keys(var.acknowledge) : "acknowledge[${jsonencode(rule)}]: ${rule == "SVC-POLICY-1" ? "a catch-all range cannot be acknowledged here: the svc provider refuses 0.0.0.0/0 and ::/0 at validate; give the ranges you mean" : "is not a policy rule this module checks; expected SVC-POLICY-2, SVC-POLICY-3, SVC-POLICY-4 or SVC-POLICY-5"}." if !contains(["SVC-POLICY-2", "SVC-POLICY-3", "SVC-POLICY-4", "SVC-POLICY-5"], rule)])
  }

  validation {
    condition     = length([for rule, reason in var.acknowledge : rule if trimspace(reason == null ? "" : reason) == ""]) == 0
    error_message = join("\n", [for rule, reason in var.acknowledge : "acknowledge[${jsonencode(rule)}] = ${jsonencode(reason)}: is empty; say why the ${rule} findings are acceptable, and who decided." if trimspace(reason == null ? "" : reason) == ""])
  }
}

variable "blacklist" {
  description = "The tenant's blacklist (addresses denied until removed). null: not managed. See README.md, \"Lists\"."
  type = object({
    # "per-entry": one svc_blacklist_entry per address; "whole-list": one svc_blacklist with an entries map.
    resources = optional(string, "per-entry")
    # Whole-list only: "authoritative" (the provider's default) or "additive".
    mode = optional(string)
    # Address or CIDR range => description ("" or null for none).
    entries = optional(map(string), {})
    # Entry files (.yaml, .yml, .json): a list of { ip, description? }, at the top level or under "entries".
    files = optional(list(string), [])
  })
  default = null

  validation {
    condition     = var.blacklist == null ? true : contains(["per-entry", "whole-list"], var.blacklist.resources)
    error_message = "blacklist.resources = ${jsonencode(try(var.blacklist.resources, null))}: expected \"per-entry\" or \"whole-list\"."
  }

  validation {
    condition     = var.blacklist == null ? true : (var.blacklist.mode == null ? true : contains(["authoritative", "additive"], var.blacklist.mode))
    error_message = "blacklist.mode = ${jsonencode(try(var.blacklist.mode, null))}: expected \"authoritative\" or \"additive\", or leave it out."
  }

  validation {
    condition     = var.blacklist == null ? true : (var.blacklist.mode == null || var.blacklist.resources == "whole-list")
    error_message = "blacklist.mode = ${jsonencode(try(var.blacklist.mode, null))}: applies to whole-list resources only; add resources = \"whole-list\" or remove mode (a per-entry resource owns its one entry)."
  }

  validation {
    condition = length([for ip in keys(try(var.blacklist.entries, {})) : ip if !can(provider::svc::canonical_address(ip))]) == 0
    error_message = join("\n", [
      for ip in keys(try(var.blacklist.entries, {})) :
      "blacklist.entries[${jsonencode(ip)}]: ${jsonencode(ip)} is not an IPv4 or IPv6 address or CIDR range without host bits; write e.g. 203.0.113.9, 198.51.100.0/24 or 2001:db8::/32."
      if !can(provider::svc::canonical_address(ip))
    ])
  }

  validation {
    condition = length([
      for ip, description in try(var.blacklist.entries, {}) : ip
      if description == null ? false : (length(description) > 1024 || can(regex("[\\x{0}-\\x{1f}\\x{7f}-\\x{9f}]", description)))
    ]) == 0
    error_message = join("\n", [
      for ip, description in try(var.blacklist.entries, {}) :
      (length(description) > 1024
        ? "blacklist.entries[${jsonencode(ip)}] (the description): is ${length(description)} characters long; descriptions hold at most 1024."
      : "blacklist.entries[${jsonencode(ip)}] (the description): holds a control character at position ${length(regex("^[^\\x{0}-\\x{1f}\\x{7f}-\\x{9f}]*", description)) + 1}; descriptions are one line of printable text.")
      if description == null ? false : (length(description) > 1024 || can(regex("[\\x{0}-\\x{1f}\\x{7f}-\\x{9f}]", description)))
    ])
  }

  validation {
    condition = length([
      for canonical, spellings in { for ip in keys(try(var.blacklist.entries, {})) : provider::svc::canonical_address(ip) => ip... if can(provider::svc::canonical_address(ip)) } :
      canonical if length(spellings) > 1
    ]) == 0
    error_message = join("\n", [
      for canonical, spellings in { for ip in keys(try(var.blacklist.entries, {})) : provider::svc::canonical_address(ip) => ip... if can(provider::svc::canonical_address(ip)) } :
      "blacklist.entries: ${join(" and ", [for ip in spellings : jsonencode(ip)])} are the same address (both are ${canonical} on the blacklist); keep one of the entries."
      if length(spellings) > 1
    ])
  }

  validation {
    condition = length([
      for ip in keys(try(var.blacklist.entries, {})) : ip
      if can(provider::svc::canonical_address(ip)) ? endswith(provider::svc::canonical_address(ip), "/0") : false
    ]) == 0
    error_message = join("\n", [
      for ip in keys(try(var.blacklist.entries, {})) :
      "SVC-POLICY-1 catch-all range: blacklist.entries[${jsonencode(ip)}]: ${jsonencode(ip)} is a catch-all range: it denies every ${strcontains(ip, ":") ? "IPv6" : "IPv4"} address. List the addresses or ranges you mean instead."
      if can(provider::svc::canonical_address(ip)) ? endswith(provider::svc::canonical_address(ip), "/0") : false
    ])
  }

  validation {
    condition = contains(keys(var.acknowledge), "SVC-POLICY-2") || length([
      for ip in keys(try(var.blacklist.entries, {})) : ip
      if try(tonumber(split("/", provider::svc::canonical_address(ip))[1]) > 0 && tonumber(split("/", provider::svc::canonical_address(ip))[1]) < (strcontains(ip, ":") ? 32 : 8), false)
    ]) == 0
    error_message = join("\n", [
      for ip in keys(try(var.blacklist.entries, {})) :
      "SVC-POLICY-2 broad range: blacklist.entries[${jsonencode(ip)}]: ${jsonencode(ip)} is broader than /${strcontains(ip, ":") ? 32 : 8}, the widest ${strcontains(ip, ":") ? "IPv6" : "IPv4"} range expected on the blacklist. Narrow it, or acknowledge the rule with the reason: acknowledge = { \"SVC-POLICY-2\" = \"<why>\" }."
      if try(tonumber(split("/", provider::svc::canonical_address(ip))[1]) > 0 && tonumber(split("/", provider::svc::canonical_address(ip))[1]) < (strcontains(ip, ":") ? 32 : 8), false)
    ])
  }

  validation {
    condition = contains(keys(var.acknowledge), "SVC-POLICY-4") || length([
      for pair in setproduct([for ip in keys(try(var.blacklist.entries, {})) : ip if can(provider::svc::canonical_address(ip))], [for ip in keys(try(var.blacklist.entries, {})) : ip if can(provider::svc::canonical_address(ip))]) :
      pair if provider::svc::contains(pair[1], pair[0]) && !provider::svc::contains(pair[0], pair[1])
    ]) == 0
    error_message = join("\n", [
      for pair in setproduct([for ip in keys(try(var.blacklist.entries, {})) : ip if can(provider::svc::canonical_address(ip))], [for ip in keys(try(var.blacklist.entries, {})) : ip if can(provider::svc::canonical_address(ip))]) :
      "SVC-POLICY-4 redundant entry: blacklist.entries[${jsonencode(pair[0])}] is already covered by ${jsonencode(pair[1])} on the same list. Remove it, or acknowledge the rule with the reason: acknowledge = { \"SVC-POLICY-4\" = \"<why>\" }."
      if provider::svc::contains(pair[1], pair[0]) && !provider::svc::contains(pair[0], pair[1])
    ])
  }

  validation {
    condition = length([
      for index, path in try(var.blacklist.files, []) : path
      if !can(regex("\\.(ya?ml|json)$", lower(path)))
    ]) == 0
    error_message = join("\n", [
      for index, path in try(var.blacklist.files, []) :
      "blacklist.files[${index}] = ${jsonencode(path)}: has an unknown extension; name it .yaml, .yml or .json."
      if !can(regex("\\.(ya?ml|json)$", lower(path)))
    ])
  }

  validation {
    condition = length([
      for index, path in try(var.blacklist.files, []) : path
      if !can(file(path))
    ]) == 0
    error_message = join("\n", [
      for index, path in try(var.blacklist.files, []) :
      "blacklist.files[${index}] = ${jsonencode(path)}: cannot be read; check the path (a relative path is relative to the directory terraform runs in: use \"$${path.module}/...\" for a file next to your configuration)."
      if !can(file(path))
    ])
  }

  validation {
    condition = contains(keys(var.acknowledge), "SVC-POLICY-5") || length(flatten([
      for ip in keys(try(var.blacklist.entries, {})) : [
        for own in concat(
          [for index, address in try(var.own_infrastructure.egress_addresses, []) : { field = "own_infrastructure.egress_addresses[${index}]", value = address }],
          [for index, address in try(var.own_infrastructure.sensor_cidrs, []) : { field = "own_infrastructure.sensor_cidrs[${index}]", value = address }],
          [for address in compact([try(var.own_infrastructure.vpc_cidr, null)]) : { field = "own_infrastructure.vpc_cidr", value = address }],
        ) : own if can(provider::svc::canonical_address(ip)) && can(provider::svc::canonical_address(own.value)) ? provider::svc::overlaps(ip, own.value) : false
      ]
    ])) == 0
    error_message = join("\n", flatten([
      for ip in keys(try(var.blacklist.entries, {})) : [
        for own in concat(
          [for index, address in try(var.own_infrastructure.egress_addresses, []) : { field = "own_infrastructure.egress_addresses[${index}]", value = address }],
          [for index, address in try(var.own_infrastructure.sensor_cidrs, []) : { field = "own_infrastructure.sensor_cidrs[${index}]", value = address }],
          [for address in compact([try(var.own_infrastructure.vpc_cidr, null)]) : { field = "own_infrastructure.vpc_cidr", value = address }],
        ) :
        "SVC-POLICY-5 self-lockout: blacklist.entries[${jsonencode(ip)}] denies addresses of your own infrastructure: ${own.value} (${own.field}). Remove or narrow the entry; blocking them cuts the platform off from itself."
        if can(provider::svc::canonical_address(ip)) && can(provider::svc::canonical_address(own.value)) ? provider::svc::overlaps(ip, own.value) : false
      ]
    ]))
  }
}

variable "blocklist" {
  description = "The tenant's blocklist (addresses denied for 30 minutes; the next apply renews them). null: not managed. See README.md, \"Lists\"."
  type = object({
    # "per-entry": one svc_blocklist_entry per address; "whole-list": one svc_blocklist with an entries map.
    resources = optional(string, "per-entry")
    # Whole-list only: "authoritative" (the provider's default) or "additive".
    mode = optional(string)
    # Address or CIDR range => description ("" or null for none).
    entries = optional(map(string), {})
    # Entry files (.yaml, .yml, .json): a list of { ip, description? }, at the top level or under "entries".
    files = optional(list(string), [])
  })
  default = null

  validation {
    condition     = var.blocklist == null ? true : contains(["per-entry", "whole-list"], var.blocklist.resources)
    error_message = "blocklist.resources = ${jsonencode(try(var.blocklist.resources, null))}: expected \"per-entry\" or \"whole-list\"."
  }

  validation {
    condition     = var.blocklist == null ? true : (var.blocklist.mode == null ? true : contains(["authoritative", "additive"], var.blocklist.mode))
    error_message = "blocklist.mode = ${jsonencode(try(var.blocklist.mode, null))}: expected \"authoritative\" or \"additive\", or leave it out."
  }

  validation {
    condition     = var.blocklist == null ? true : (var.blocklist.mode == null || var.blocklist.resources == "whole-list")
    error_message = "blocklist.mode = ${jsonencode(try(var.blocklist.mode, null))}: applies to whole-list resources only; add resources = \"whole-list\" or remove mode (a per-entry resource owns its one entry)."
  }

  validation {
    condition = length([for ip in keys(try(var.blocklist.entries, {})) : ip if !can(provider::svc::canonical_address(ip))]) == 0
    error_message = join("\n", [
      for ip in keys(try(var.blocklist.entries, {})) :
      "blocklist.entries[${jsonencode(ip)}]: ${jsonencode(ip)} is not an IPv4 or IPv6 address or CIDR range without host bits; write e.g. 203.0.113.9, 198.51.100.0/24 or 2001:db8::/32."
      if !can(provider::svc::canonical_address(ip))
    ])
  }

  validation {
    condition = length([
      for ip, description in try(var.blocklist.entries, {}) : ip
      if description == null ? false : (length(description) > 1024 || can(regex("[\\x{0}-\\x{1f}\\x{7f}-\\x{9f}]", description)))
    ]) == 0
    error_message = join("\n", [
      for ip, description in try(var.blocklist.entries, {}) :
      (length(description) > 1024
        ? "blocklist.entries[${jsonencode(ip)}] (the description): is ${length(description)} characters long; descriptions hold at most 1024."
      : "blocklist.entries[${jsonencode(ip)}] (the description): holds a control character at position ${length(regex("^[^\\x{0}-\\x{1f}\\x{7f}-\\x{9f}]*", description)) + 1}; descriptions are one line of printable text.")
      if description == null ? false : (length(description) > 1024 || can(regex("[\\x{0}-\\x{1f}\\x{7f}-\\x{9f}]", description)))
    ])
  }

  validation {
    condition = length([
      for canonical, spellings in { for ip in keys(try(var.blocklist.entries, {})) : provider::svc::canonical_address(ip) => ip... if can(provider::svc::canonical_address(ip)) } :
      canonical if length(spellings) > 1
    ]) == 0
    error_message = join("\n", [
      for canonical, spellings in { for ip in keys(try(var.blocklist.entries, {})) : provider::svc::canonical_address(ip) => ip... if can(provider::svc::canonical_address(ip)) } :
      "blocklist.entries: ${join(" and ", [for ip in spellings : jsonencode(ip)])} are the same address (both are ${canonical} on the blocklist); keep one of the entries."
      if length(spellings) > 1
    ])
  }

  validation {
    condition = length([
      for ip in keys(try(var.blocklist.entries, {})) : ip
      if can(provider::svc::canonical_address(ip)) ? endswith(provider::svc::canonical_address(ip), "/0") : false
    ]) == 0
    error_message = join("\n", [
      for ip in keys(try(var.blocklist.entries, {})) :
      "SVC-POLICY-1 catch-all range: blocklist.entries[${jsonencode(ip)}]: ${jsonencode(ip)} is a catch-all range: it denies every ${strcontains(ip, ":") ? "IPv6" : "IPv4"} address. List the addresses or ranges you mean instead."
      if can(provider::svc::canonical_address(ip)) ? endswith(provider::svc::canonical_address(ip), "/0") : false
    ])
  }

  validation {
    condition = contains(keys(var.acknowledge), "SVC-POLICY-2") || length([
      for ip in keys(try(var.blocklist.entries, {})) : ip
      if try(tonumber(split("/", provider::svc::canonical_address(ip))[1]) > 0 && tonumber(split("/", provider::svc::canonical_address(ip))[1]) < (strcontains(ip, ":") ? 32 : 8), false)
    ]) == 0
    error_message = join("\n", [
      for ip in keys(try(var.blocklist.entries, {})) :
      "SVC-POLICY-2 broad range: blocklist.entries[${jsonencode(ip)}]: ${jsonencode(ip)} is broader than /${strcontains(ip, ":") ? 32 : 8}, the widest ${strcontains(ip, ":") ? "IPv6" : "IPv4"} range expected on the blocklist. Narrow it, or acknowledge the rule with the reason: acknowledge = { \"SVC-POLICY-2\" = \"<why>\" }."
      if try(tonumber(split("/", provider::svc::canonical_address(ip))[1]) > 0 && tonumber(split("/", provider::svc::canonical_address(ip))[1]) < (strcontains(ip, ":") ? 32 : 8), false)
    ])
  }

  validation {
    condition = contains(keys(var.acknowledge), "SVC-POLICY-4") || length([
      for pair in setproduct([for ip in keys(try(var.blocklist.entries, {})) : ip if can(provider::svc::canonical_address(ip))], [for ip in keys(try(var.blocklist.entries, {})) : ip if can(provider::svc::canonical_address(ip))]) :
      pair if provider::svc::contains(pair[1], pair[0]) && !provider::svc::contains(pair[0], pair[1])
    ]) == 0
    error_message = join("\n", [
      for pair in setproduct([for ip in keys(try(var.blocklist.entries, {})) : ip if can(provider::svc::canonical_address(ip))], [for ip in keys(try(var.blocklist.entries, {})) : ip if can(provider::svc::canonical_address(ip))]) :
      "SVC-POLICY-4 redundant entry: blocklist.entries[${jsonencode(pair[0])}] is already covered by ${jsonencode(pair[1])} on the same list. Remove it, or acknowledge the rule with the reason: acknowledge = { \"SVC-POLICY-4\" = \"<why>\" }."
      if provider::svc::contains(pair[1], pair[0]) && !provider::svc::contains(pair[0], pair[1])
    ])
  }

  validation {
    condition = length([
      for index, path in try(var.blocklist.files, []) : path
      if !can(regex("\\.(ya?ml|json)$", lower(path)))
    ]) == 0
    error_message = join("\n", [
      for index, path in try(var.blocklist.files, []) :
      "blocklist.files[${index}] = ${jsonencode(path)}: has an unknown extension; name it .yaml, .yml or .json."
      if !can(regex("\\.(ya?ml|json)$", lower(path)))
    ])
  }

  validation {
    condition = length([
      for index, path in try(var.blocklist.files, []) : path
      if !can(file(path))
    ]) == 0
    error_message = join("\n", [
      for index, path in try(var.blocklist.files, []) :
      "blocklist.files[${index}] = ${jsonencode(path)}: cannot be read; check the path (a relative path is relative to the directory terraform runs in: use \"$${path.module}/...\" for a file next to your configuration)."
      if !can(file(path))
    ])
  }

  validation {
    condition = contains(keys(var.acknowledge), "SVC-POLICY-5") || length(flatten([
      for ip in keys(try(var.blocklist.entries, {})) : [
        for own in concat(
          [for index, address in try(var.own_infrastructure.egress_addresses, []) : { field = "own_infrastructure.egress_addresses[${index}]", value = address }],
          [for index, address in try(var.own_infrastructure.sensor_cidrs, []) : { field = "own_infrastructure.sensor_cidrs[${index}]", value = address }],
          [for address in compact([try(var.own_infrastructure.vpc_cidr, null)]) : { field = "own_infrastructure.vpc_cidr", value = address }],
        ) : own if can(provider::svc::canonical_address(ip)) && can(provider::svc::canonical_address(own.value)) ? provider::svc::overlaps(ip, own.value) : false
      ]
    ])) == 0
    error_message = join("\n", flatten([
      for ip in keys(try(var.blocklist.entries, {})) : [
        for own in concat(
          [for index, address in try(var.own_infrastructure.egress_addresses, []) : { field = "own_infrastructure.egress_addresses[${index}]", value = address }],
          [for index, address in try(var.own_infrastructure.sensor_cidrs, []) : { field = "own_infrastructure.sensor_cidrs[${index}]", value = address }],
          [for address in compact([try(var.own_infrastructure.vpc_cidr, null)]) : { field = "own_infrastructure.vpc_cidr", value = address }],
        ) :
        "SVC-POLICY-5 self-lockout: blocklist.entries[${jsonencode(ip)}] denies addresses of your own infrastructure: ${own.value} (${own.field}). Remove or narrow the entry; blocking them cuts the platform off from itself."
        if can(provider::svc::canonical_address(ip)) && can(provider::svc::canonical_address(own.value)) ? provider::svc::overlaps(ip, own.value) : false
      ]
    ]))
  }
}

variable "whitelist" {
  description = "The tenant's whitelist (addresses never blocked, not even by risk-based blocking). null: not managed. See README.md, \"Lists\"."
  type = object({
    # "per-entry": one svc_whitelist_entry per address; "whole-list": one svc_whitelist with an entries map.
    resources = optional(string, "per-entry")
    # Whole-list only: "authoritative" (the provider's default) or "additive".
    mode = optional(string)
    # Address or CIDR range => description ("" or null for none).
    entries = optional(map(string), {})
    # Entry files (.yaml, .yml, .json): a list of { ip, description? }, at the top level or under "entries".
    files = optional(list(string), [])
  })
  default = null

  validation {
    condition     = var.whitelist == null ? true : contains(["per-entry", "whole-list"], var.whitelist.resources)
    error_message = "whitelist.resources = ${jsonencode(try(var.whitelist.resources, null))}: expected \"per-entry\" or \"whole-list\"."
  }

  validation {
    condition     = var.whitelist == null ? true : (var.whitelist.mode == null ? true : contains(["authoritative", "additive"], var.whitelist.mode))
    error_message = "whitelist.mode = ${jsonencode(try(var.whitelist.mode, null))}: expected \"authoritative\" or \"additive\", or leave it out."
  }

  validation {
    condition     = var.whitelist == null ? true : (var.whitelist.mode == null || var.whitelist.resources == "whole-list")
    error_message = "whitelist.mode = ${jsonencode(try(var.whitelist.mode, null))}: applies to whole-list resources only; add resources = \"whole-list\" or remove mode (a per-entry resource owns its one entry)."
  }

  validation {
    condition = length([for ip in keys(try(var.whitelist.entries, {})) : ip if !can(provider::svc::canonical_address(ip))]) == 0
    error_message = join("\n", [
      for ip in keys(try(var.whitelist.entries, {})) :
      "whitelist.entries[${jsonencode(ip)}]: ${jsonencode(ip)} is not an IPv4 or IPv6 address or CIDR range without host bits; write e.g. 203.0.113.9, 198.51.100.0/24 or 2001:db8::/32."
      if !can(provider::svc::canonical_address(ip))
    ])
  }

  validation {
    condition = length([
      for ip, description in try(var.whitelist.entries, {}) : ip
      if description == null ? false : (length(description) > 1024 || can(regex("[\\x{0}-\\x{1f}\\x{7f}-\\x{9f}]", description)))
    ]) == 0
    error_message = join("\n", [
      for ip, description in try(var.whitelist.entries, {}) :
      (length(description) > 1024
        ? "whitelist.entries[${jsonencode(ip)}] (the description): is ${length(description)} characters long; descriptions hold at most 1024."
      : "whitelist.entries[${jsonencode(ip)}] (the description): holds a control character at position ${length(regex("^[^\\x{0}-\\x{1f}\\x{7f}-\\x{9f}]*", description)) + 1}; descriptions are one line of printable text.")
      if description == null ? false : (length(description) > 1024 || can(regex("[\\x{0}-\\x{1f}\\x{7f}-\\x{9f}]", description)))
    ])
  }

  validation {
    condition = length([
      for canonical, spellings in { for ip in keys(try(var.whitelist.entries, {})) : provider::svc::canonical_address(ip) => ip... if can(provider::svc::canonical_address(ip)) } :
      canonical if length(spellings) > 1
    ]) == 0
    error_message = join("\n", [
      for canonical, spellings in { for ip in keys(try(var.whitelist.entries, {})) : provider::svc::canonical_address(ip) => ip... if can(provider::svc::canonical_address(ip)) } :
      "whitelist.entries: ${join(" and ", [for ip in spellings : jsonencode(ip)])} are the same address (both are ${canonical} on the whitelist); keep one of the entries."
      if length(spellings) > 1
    ])
  }

  validation {
    condition = length([
      for ip in keys(try(var.whitelist.entries, {})) : ip
      if can(provider::svc::canonical_address(ip)) ? endswith(provider::svc::canonical_address(ip), "/0") : false
    ]) == 0
    error_message = join("\n", [
      for ip in keys(try(var.whitelist.entries, {})) :
      "SVC-POLICY-1 catch-all range: whitelist.entries[${jsonencode(ip)}]: ${jsonencode(ip)} is a catch-all range: it exempts every ${strcontains(ip, ":") ? "IPv6" : "IPv4"} address. List the addresses or ranges you mean instead."
      if can(provider::svc::canonical_address(ip)) ? endswith(provider::svc::canonical_address(ip), "/0") : false
    ])
  }

  validation {
    condition = contains(keys(var.acknowledge), "SVC-POLICY-2") || length([
      for ip in keys(try(var.whitelist.entries, {})) : ip
      if try(tonumber(split("/", provider::svc::canonical_address(ip))[1]) > 0 && tonumber(split("/", provider::svc::canonical_address(ip))[1]) < (strcontains(ip, ":") ? 48 : 16), false)
    ]) == 0
    error_message = join("\n", [
      for ip in keys(try(var.whitelist.entries, {})) :
      "SVC-POLICY-2 broad range: whitelist.entries[${jsonencode(ip)}]: ${jsonencode(ip)} is broader than /${strcontains(ip, ":") ? 48 : 16}, the widest ${strcontains(ip, ":") ? "IPv6" : "IPv4"} range expected on the whitelist. Narrow it, or acknowledge the rule with the reason: acknowledge = { \"SVC-POLICY-2\" = \"<why>\" }."
      if try(tonumber(split("/", provider::svc::canonical_address(ip))[1]) > 0 && tonumber(split("/", provider::svc::canonical_address(ip))[1]) < (strcontains(ip, ":") ? 48 : 16), false)
    ])
  }

  validation {
    condition = contains(keys(var.acknowledge), "SVC-POLICY-4") || length([
      for pair in setproduct([for ip in keys(try(var.whitelist.entries, {})) : ip if can(provider::svc::canonical_address(ip))], [for ip in keys(try(var.whitelist.entries, {})) : ip if can(provider::svc::canonical_address(ip))]) :
      pair if provider::svc::contains(pair[1], pair[0]) && !provider::svc::contains(pair[0], pair[1])
    ]) == 0
    error_message = join("\n", [
      for pair in setproduct([for ip in keys(try(var.whitelist.entries, {})) : ip if can(provider::svc::canonical_address(ip))], [for ip in keys(try(var.whitelist.entries, {})) : ip if can(provider::svc::canonical_address(ip))]) :
      "SVC-POLICY-4 redundant entry: whitelist.entries[${jsonencode(pair[0])}] is already covered by ${jsonencode(pair[1])} on the same list. Remove it, or acknowledge the rule with the reason: acknowledge = { \"SVC-POLICY-4\" = \"<why>\" }."
      if provider::svc::contains(pair[1], pair[0]) && !provider::svc::contains(pair[0], pair[1])
    ])
  }

  validation {
    condition = length([
      for index, path in try(var.whitelist.files, []) : path
      if !can(regex("\\.(ya?ml|json)$", lower(path)))
    ]) == 0
    error_message = join("\n", [
      for index, path in try(var.whitelist.files, []) :
      "whitelist.files[${index}] = ${jsonencode(path)}: has an unknown extension; name it .yaml, .yml or .json."
      if !can(regex("\\.(ya?ml|json)$", lower(path)))
    ])
  }

  validation {
    condition = length([
      for index, path in try(var.whitelist.files, []) : path
      if !can(file(path))
    ]) == 0
    error_message = join("\n", [
      for index, path in try(var.whitelist.files, []) :
      "whitelist.files[${index}] = ${jsonencode(path)}: cannot be read; check the path (a relative path is relative to the directory terraform runs in: use \"$${path.module}/...\" for a file next to your configuration)."
      if !can(file(path))
    ])
  }

  validation {
    condition = contains(keys(var.acknowledge), "SVC-POLICY-3") || length(flatten([
      for list, entries in { blacklist = try(var.blacklist.entries, {}), blocklist = try(var.blocklist.entries, {}) } : [
        for pair in setproduct(
          [for ip in keys(try(var.whitelist.entries, {})) : ip if can(provider::svc::canonical_address(ip))],
          [for ip in keys(entries) : ip if can(provider::svc::canonical_address(ip))],
        ) : pair if provider::svc::overlaps(pair[0], pair[1])
      ]
    ])) == 0
    error_message = join("\n", flatten([
      for list, entries in { blacklist = try(var.blacklist.entries, {}), blocklist = try(var.blocklist.entries, {}) } : [
        for pair in setproduct(
          [for ip in keys(try(var.whitelist.entries, {})) : ip if can(provider::svc::canonical_address(ip))],
          [for ip in keys(entries) : ip if can(provider::svc::canonical_address(ip))],
        ) :
        "SVC-POLICY-3 allowed and denied: whitelist.entries[${jsonencode(pair[0])}] ${provider::svc::contains(pair[1], pair[0]) ? "lies inside" : "contains"} ${list}.entries[${jsonencode(pair[1])}]: the address is both allowed and denied. Remove the entry that is stale, or acknowledge the rule with the reason: acknowledge = { \"SVC-POLICY-3\" = \"<why>\" }."
        if provider::svc::overlaps(pair[0], pair[1])
      ]
    ]))
  }
}

