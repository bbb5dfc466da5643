#!/usr/bin/env bash
# The Kubernetes API types (k8s.io/api) that check deploy/k8s's manifests
# live in their own module, deploy/k8s/validate, to keep them out of
# conclab's; fetch its modules here so the check runs offline after setup.
set -euo pipefail
cd "$(dirname "$0")/../../deploy/k8s/validate"
go mod download
