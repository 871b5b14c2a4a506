# Checks of what variable validations cannot see. A validation may read only the variables, not
# values derived from its own variable (terraform reports a cycle), so entry files, which are
# read in locals, and the policy rules over every entry of a list (maps and files together) are
# checked here, by preconditions of the `entries` output: terraform evaluates them at plan, and
# a failed one stops the plan before anything changes. Entries of the maps alone were already
# checked by the validations in variables.tf, with the same rules and words.

locals {
  # The shortest prefix allowed without SVC-POLICY-2, per list and family (BROAD_RANGE_THRESHOLDS
  # of the construct): a whitelist mistake is silent, so its thresholds are stricter.
  broad_range_thresholds = {
    blacklist = { ipv4 = 8, ipv6 = 32 }
    blocklist = { ipv4 = 8, ipv6 = 32 }
    whitelist = { ipv4 = 16, ipv6 = 48 }
  }

  # Each literal entry with its family and prefix length, its network as "<address>/<prefix>"
  # (key) and its network at every shorter prefix too (ancestors): a range B holds an entry A
  # exactly when B's key is among A's ancestors, so overlaps are set lookups, not pairs.
  parsed_entries = {
    for list, entries in local.declared : list => [
      for entry in entries : merge(entry, {
        list    = list
        family  = strcontains(entry.canonical, ":") ? "ipv6" : "ipv4"
        address = split("/", entry.canonical)[0]
        prefix  = length(split("/", entry.canonical)) == 2 ? tonumber(split("/", entry.canonical)[1]) : (strcontains(entry.canonical, ":") ? 128 : 32)
      }) if entry.canonical != null
    ]
  }
  ranged_entries = {
    for list, entries in local.parsed_entries : list => [
      for entry in entries : merge(entry, {
        key       = "${cidrhost("${entry.address}/${entry.prefix}", 0)}/${entry.prefix}"
        ancestors = [for length in range(0, entry.prefix + 1) : "${cidrhost("${entry.address}/${length}", 0)}/${length}"]
        shown     = "${list} entry ${jsonencode(entry.ip)} (${entry.where})"
      })
    ]
  }
  allowed_entries = lookup(local.ranged_entries, "whitelist", [])
  denied_entries  = concat(lookup(local.ranged_entries, "blacklist", []), lookup(local.ranged_entries, "blocklist", []))
  allowed_by_key  = { for entry in local.allowed_entries : entry.key => entry... }
  denied_by_key   = { for entry in local.denied_entries : entry.key => entry... }

  own_infrastructure = [
    for item in concat(
      [for index, address in var.own_infrastructure.egress_addresses : { what = "own_infrastructure.egress_addresses[${index}]", canonical = provider::svc::canonical_address(address) }],
      [for index, address in var.own_infrastructure.sensor_cidrs : { what = "own_infrastructure.sensor_cidrs[${index}]", canonical = provider::svc::canonical_address(address) }],
      [for address in var.own_infrastructure.vpc_cidr == null ? [] : [var.own_infrastructure.vpc_cidr] : { what = "own_infrastructure.vpc_cidr", canonical = provider::svc::canonical_address(address) }],
      ) : merge(item, {
        key = "${cidrhost("${split("/", item.canonical)[0]}/${length(split("/", item.canonical)) == 2 ? split("/", item.canonical)[1] : (strcontains(item.canonical, ":") ? 128 : 32)}", 0)}/${length(split("/", item.canonical)) == 2 ? split("/", item.canonical)[1] : (strcontains(item.canonical, ":") ? 128 : 32)}"
        ancestors = [
          for length in range(0, (length(split("/", item.canonical)) == 2 ? tonumber(split("/", item.canonical)[1]) : (strcontains(item.canonical, ":") ? 128 : 32)) + 1) :
          "${cidrhost("${split("/", item.canonical)[0]}/${length}", 0)}/${length}"
        ]
    })
  ]

  entries_by_key = { for list, entries in local.ranged_entries : list => { for entry in entries : entry.key => entry... } }
  covered_entries = {
    for list, entries in local.ranged_entries : list => [
      for entry in entries : merge(entry, {
        covered_by = flatten([for key in slice(entry.ancestors, 0, entry.prefix) : lookup(local.entries_by_key[list], key, [])])
      })
    ]
  }

  acknowledged = keys(var.acknowledge)

  rule_findings = concat(
    # SVC-POLICY-1: catch-all ranges (the provider refuses them at validate as well).
    flatten([
      for list, entries in local.ranged_entries : [
        for entry in entries :
        "SVC-POLICY-1 catch-all range: ${entry.shown} is a catch-all range: it ${list == "whitelist" ? "exempts" : "denies"} every ${entry.family == "ipv4" ? "IPv4" : "IPv6"} address. List the addresses or ranges you mean instead."
        if entry.prefix == 0
      ]
    ]),
    # SVC-POLICY-2: broad ranges.
    contains(local.acknowledged, "SVC-POLICY-2") ? [] : flatten([
      for list, entries in local.ranged_entries : [
        for entry in entries :
        "SVC-POLICY-2 broad range: ${entry.shown} is broader than /${local.broad_range_thresholds[list][entry.family]}, the widest ${entry.family == "ipv4" ? "IPv4" : "IPv6"} range expected on the ${list}. Narrow it, or acknowledge the rule with the reason: acknowledge = { \"SVC-POLICY-2\" = \"<why>\" }."
        if entry.prefix > 0 && entry.prefix < local.broad_range_thresholds[list][entry.family]
      ]
    ]),
    # SVC-POLICY-3: allowed and denied, containment either way.
    contains(local.acknowledged, "SVC-POLICY-3") ? [] : concat(
      flatten([
        for allowed in local.allowed_entries : [
          for key in allowed.ancestors : [
            for denied in lookup(local.denied_by_key, key, []) :
            "SVC-POLICY-3 allowed and denied: ${allowed.shown} ${denied.prefix == allowed.prefix ? "is the same as" : "lies inside"} ${denied.shown}: the address is both allowed and denied. Remove the entry that is stale, or acknowledge the rule with the reason: acknowledge = { \"SVC-POLICY-3\" = \"<why>\" }."
          ]
        ]
      ]),
      flatten([
        for denied in local.denied_entries : [
          for key in slice(denied.ancestors, 0, denied.prefix) : [
            for allowed in lookup(local.allowed_by_key, key, []) :
            "SVC-POLICY-3 allowed and denied: ${allowed.shown} contains ${denied.shown}: the address is both allowed and denied. Remove the entry that is stale, or acknowledge the rule with the reason: acknowledge = { \"SVC-POLICY-3\" = \"<why>\" }."
          ]
        ]
      ]),
    ),
    # SVC-POLICY-4: an entry inside a broader entry of the same list.
    contains(local.acknowledged, "SVC-POLICY-4") ? [] : flatten([
      for list, entries in local.covered_entries : [
        for entry in entries :
        "SVC-POLICY-4 redundant entry: ${entry.shown} is already covered by ${join(", ", [for broader in entry.covered_by : "${jsonencode(broader.ip)} (${broader.where})"])} on the same list. Remove it, or acknowledge the rule with the reason: acknowledge = { \"SVC-POLICY-4\" = \"<why>\" }."
        if length(entry.covered_by) > 0
      ]
    ]),
    # SVC-POLICY-5: the deny lists never deny the platform's own infrastructure.
    contains(local.acknowledged, "SVC-POLICY-5") ? [] : flatten([
      for denied in local.denied_entries : [
        for own in local.own_infrastructure :
        "SVC-POLICY-5 self-lockout: ${denied.shown} denies addresses of your own infrastructure: ${own.canonical} (${own.what}). Remove or narrow the entry; blocking them cuts the platform off from itself."
        if contains(own.ancestors, denied.key) || contains(denied.ancestors, own.key)
      ]
    ]),
  )
}
