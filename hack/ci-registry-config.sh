#!/usr/bin/env bash
# Print a Docker config (the format of `gsvendor check-images --registry-config`) holding the
# gsoci.azurecr.io pull credentials of CircleCI's `architect` context, ACR_GSOCI_USERNAME and
# ACR_GSOCI_PASSWORD. Missing credentials are an error: the release gate must not quietly fall
# back to anonymous lookups.
set -euo pipefail
: "${ACR_GSOCI_USERNAME:?not set: run in the architect context}"
: "${ACR_GSOCI_PASSWORD:?not set: run in the architect context}"
registry=${GSOCI_REGISTRY:-gsoci.azurecr.io}
auth=$(printf '%s:%s' "$ACR_GSOCI_USERNAME" "$ACR_GSOCI_PASSWORD" | base64 | tr -d '\n')
printf '{"auths": {"%s": {"auth": "%s"}}}\n' "$registry" "$auth"
