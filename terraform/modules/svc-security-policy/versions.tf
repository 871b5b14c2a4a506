terraform {
  # 1.9: validations that read other variables; 1.8: provider-defined functions
  # (provider::svc::canonical_address and friends check addresses exactly as the provider does).
  required_version = ">= 1.9"

  required_providers {
    svc = {
      source = "svc-prevent/svc"
    }
  }
}
