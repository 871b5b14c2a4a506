# Remote state with locking: one S3 object per root, and terraform's own lock file beside it
# (use_lockfile, terraform 1.10 and later; no DynamoDB table). Two pipelines that run at once
# (a merge and the scheduled drift check) wait for each other instead of writing over each other.
# The bucket needs versioning on (a bad apply can be rolled back) and the CI role
# s3:GetObject/PutObject/DeleteObject on the state key and on "<key>.tflock".
terraform {
  backend "s3" {
    bucket       = "acme-terraform-state"
    key          = "svc/security-policy.tfstate"
    region       = "eu-west-1"
    encrypt      = true
    use_lockfile = true
  }
}
