# The svc lists and SSO settings of one tenant: the HCL counterpart of the CDKTF SecurityPolicy
# construct (modules/security-policy). Entries come from maps and entry files; every address is
# compared by its canonical form (provider::svc::canonical_address), so 10.0.0.1/32 and 10.0.0.1
# are one entry and a respelled file line changes nothing.

locals {
  list_inputs = {
    blacklist = var.blacklist
    blocklist = var.blocklist
    whitelist = var.whitelist
  }
  # Only the lists the caller declares are managed.
  lists = { for list, input in local.list_inputs : list => input if input != null }

  # ---- entry files: read and decode ----------------------------------------------------------

  entry_files = flatten([
    for list, input in local.lists : [
      for index, path in input.files : {
        list    = list
        path    = path
        is_json = endswith(lower(path), ".json")
        # Editors on Windows save a byte order mark, which is not part of the JSON or YAML text.
        text = try(trimprefix(file(path), "\ufeff"), null)
      }
    ]
  ])

  decoded_files = [
    for entry_file in local.entry_files : merge(entry_file, {
      # A tuple picks the decoder: a conditional would need both results to have one type.
      document = entry_file.text == null ? null : [try(jsondecode(entry_file.text), null), try(yamldecode(entry_file.text), null)][entry_file.is_json ? 0 : 1]
      decodes  = entry_file.text == null ? false : (entry_file.is_json ? can(jsondecode(entry_file.text)) : can(yamldecode(entry_file.text)))
    })
  ]

  # The kind of a decoded value from its JSON text: "[" list, "{" object, "\"" string, "n" null, else a number or bool.
  shaped_files = [
    for entry_file in local.decoded_files : merge(entry_file, {
      kind        = substr(jsonencode(entry_file.document), 0, 1)
      entries_key = can(keys(entry_file.document)) && substr(jsonencode(entry_file.document), 0, 1) == "{"
      other_keys  = can(keys(entry_file.document)) && substr(jsonencode(entry_file.document), 0, 1) == "{" ? [for key in keys(entry_file.document) : key if key != "entries"] : []
    })
  ]

  file_shape_problems = flatten([
    for entry_file in local.shaped_files : concat(
      entry_file.decodes ? [] : ["${entry_file.path}: is not valid ${entry_file.is_json ? "JSON" : "YAML"}; check it with a ${entry_file.is_json ? "JSON" : "YAML"} linter (the ${entry_file.list} is read from it)."],
      [for key in entry_file.other_keys : "${entry_file.path}: ${key}: unknown field; the file holds a list of { ip, description? } objects, at the top level or under \"entries\"."],
      entry_file.decodes && !contains(["[", "{", "n"], entry_file.kind) ? ["${entry_file.path}: (top level): expected a list of { ip, description? } objects, at the top level or under \"entries\", got ${jsonencode(entry_file.document)}."] : [],
      entry_file.entries_key && length(entry_file.other_keys) == 0 && substr(jsonencode(try(entry_file.document.entries, null)), 0, 1) != "[" ? ["${entry_file.path}: entries: expected a list of { ip, description? } objects, got ${jsonencode(try(entry_file.document.entries, null))}."] : [],
    )
  ])

  # Every item of every well-formed file, with its field path in the file.
  file_items = flatten([
    for entry_file in local.shaped_files : [
      for index, item in [entry_file.document, try(entry_file.document.entries, []), []][entry_file.kind == "[" ? 0 : (entry_file.entries_key && length(entry_file.other_keys) == 0 ? 1 : 2)] : {
        list        = entry_file.list
        where       = "${entry_file.path}: ${entry_file.kind == "[" ? "" : "entries"}[${index}]"
        is_object   = can(keys(item)) && substr(jsonencode(item), 0, 1) == "{"
        item_json   = jsonencode(item)
        other_keys  = can(keys(item)) ? [for key in keys(item) : key if !contains(["ip", "description"], key)] : []
        ip_json     = jsonencode(try(item.ip, null))
        ip          = try(tostring(item.ip), null)
        description = try(tostring(item.description), null)
        # A description must be text (or left out); a number or a list would pass tostring or fail it silently.
        description_kind = substr(jsonencode(try(item.description, null)), 0, 1)
      }
    ]
  ])

  file_item_problems = flatten([
    for item in local.file_items : concat(
      item.is_object ? [] : ["${item.where}: expected an object { ip, description? }, got ${item.item_json}."],
      [for key in item.other_keys : "${item.where}.${key}: unknown field; an entry has ip and description."],
      item.is_object && item.ip_json == "null" ? ["${item.where}.ip: is missing or empty; every entry needs an ip, e.g. ip: 203.0.113.9."] : [],
      item.is_object && !contains(["\"", "n"], substr(item.ip_json, 0, 1)) ? ["${item.where}.ip: expected a string, got ${item.ip_json}; quote the address."] : [],
      item.is_object && substr(item.ip_json, 0, 1) == "\"" && !can(provider::svc::canonical_address(item.ip)) ? ["${item.where}.ip: ${item.ip_json} is not an IPv4 or IPv6 address or CIDR range without host bits; write e.g. 203.0.113.9, 198.51.100.0/24 or 2001:db8::/32."] : [],
      item.is_object && !contains(["\"", "n"], item.description_kind) ? ["${item.where}.description: expected text, got ${jsonencode(item.description)}; put it in quotes."] : [],
      item.is_object && item.description_kind == "\"" ? (length(item.description) > 1024 ? ["${item.where}.description: is ${length(item.description)} characters long; descriptions hold at most 1024."] : []) : [],
      item.is_object && item.description_kind == "\"" ? (can(regex("[\\x{0}-\\x{1f}\\x{7f}-\\x{9f}]", item.description)) ? ["${item.where}.description: holds a control character at position ${length(regex("^[^\\x{0}-\\x{1f}\\x{7f}-\\x{9f}]*", item.description)) + 1}; descriptions are one line of printable text."] : []) : [],
    )
  ])

  # ---- every entry of every list, from maps and files ----------------------------------------

  declared = {
    for list, input in local.lists : list => concat(
      [
        for ip, description in input.entries : {
          ip          = ip
          description = description == null ? "" : description
          where       = "${list}.entries[${jsonencode(ip)}]"
          canonical   = try(provider::svc::canonical_address(ip), null)
        }
      ],
      [
        for item in local.file_items : {
          ip          = item.ip
          description = item.description == null ? "" : item.description
          where       = item.where
          canonical   = try(provider::svc::canonical_address(item.ip), null)
        } if item.list == list && item.is_object && substr(item.ip_json, 0, 1) == "\""
      ],
    )
  }

  duplicate_problems = flatten([
    for list, entries in local.declared : [
      for canonical, places in { for entry in entries : entry.canonical => "${jsonencode(entry.ip)} at ${entry.where}"... if entry.canonical != null } :
      "${list}: ${join(" and ", places)} are the same address (both are ${canonical}); keep one of the entries."
      if length(places) > 1
    ]
  ])

  input_problems = concat(local.file_shape_problems, local.file_item_problems, local.duplicate_problems)

  # The entries as the resources take them: canonical address => description, one per address.
  entries = {
    for list, entries in local.declared : list => {
      for entry in entries : entry.canonical => entry.description... if entry.canonical != null
    }
  }
  entry_maps = { for list, entries in local.entries : list => { for canonical, descriptions in entries : canonical => descriptions[0] } }

  per_entry  = { for list, input in local.lists : list => local.entry_maps[list] if input.resources == "per-entry" }
  whole_list = { for list, input in local.lists : list => input if input.resources == "whole-list" }
}

# ---- per-entry lists: one resource per address, keyed by its canonical form ----------------------

resource "svc_blacklist_entry" "this" {
  for_each = lookup(local.per_entry, "blacklist", {})

  ip          = each.key
  description = each.value
  tenant      = var.tenant
}

resource "svc_blocklist_entry" "this" {
  for_each = lookup(local.per_entry, "blocklist", {})

  ip          = each.key
  description = each.value
  tenant      = var.tenant
}

resource "svc_whitelist_entry" "this" {
  for_each = lookup(local.per_entry, "whitelist", {})

  ip          = each.key
  description = each.value
  tenant      = var.tenant
}

# ---- whole lists: one resource with an entries map ----------------------------------------------

resource "svc_blacklist" "this" {
  count = contains(keys(local.whole_list), "blacklist") ? 1 : 0

  entries = local.entry_maps["blacklist"]
  mode    = local.whole_list["blacklist"].mode
  tenant  = var.tenant
}

resource "svc_blocklist" "this" {
  count = contains(keys(local.whole_list), "blocklist") ? 1 : 0

  entries = local.entry_maps["blocklist"]
  mode    = local.whole_list["blocklist"].mode
  tenant  = var.tenant
}

resource "svc_whitelist" "this" {
  count = contains(keys(local.whole_list), "whitelist") ? 1 : 0

  entries = local.entry_maps["whitelist"]
  mode    = local.whole_list["whitelist"].mode
  tenant  = var.tenant
}

# ---- single sign-on -------------------------------------------------------------------------------

resource "svc_tenant_sso" "this" {
  count = var.tenant_sso == null ? 0 : 1

  name                     = var.tenant_sso.name
  enabled                  = var.tenant_sso.enabled
  required                 = var.tenant_sso.required
  saml_metadata_url        = var.tenant_sso.saml_metadata_url
  sign_in_tested_elsewhere = var.tenant_sso.sign_in_tested_elsewhere
}

resource "svc_channel_sso" "this" {
  for_each = var.channel_sso

  name                     = each.key
  enabled                  = each.value.enabled
  required                 = each.value.required
  saml_metadata_url        = each.value.saml_metadata_url
  sign_in_tested_elsewhere = each.value.sign_in_tested_elsewhere
}
