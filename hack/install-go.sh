#!/usr/bin/env bash
# Make a Go toolchain available to hack/install-go-tools.sh and hack/install-helm.sh (CI images
# without Go): a go on PATH or in /usr/local/go/bin is used as it is; otherwise the pinned
# release is downloaded from go.dev into ${XDG_CACHE_HOME:-$HOME/.cache}/gsvendor-tools/ (outside
# the clone, cached by CI), checked against the sha256 go.dev publishes for it, and linked as
# .tools/bin/go, where the Go tool scripts look.
set -euo pipefail

# renovate: datasource=golang-version depName=go
GO_VERSION=1.26.8

root=$(cd "$(dirname "$0")/.." && pwd)
if found=$(command -v go || { [ -x /usr/local/go/bin/go ] && echo /usr/local/go/bin/go; }); then
  echo "install-go: using $found ($("$found" env GOVERSION))"
  exit 0
fi
cache=${XDG_CACHE_HOME:-$HOME/.cache}/gsvendor-tools
dest="$cache/go-$GO_VERSION"
if [ ! -x "$dest/bin/go" ]; then
  case "$(uname -m)" in x86_64) arch=amd64 ;; aarch64 | arm64) arch=arm64 ;; *) arch=$(uname -m) ;; esac
  os=$(uname -s | tr '[:upper:]' '[:lower:]')
  file="go$GO_VERSION.$os-$arch.tar.gz"
  mkdir -p "$cache"
  work=$(mktemp -d "$cache/go-$GO_VERSION.partial.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  curl -fsSL --retry 3 -o "$work/$file" "https://go.dev/dl/$file"
  # go.dev's own record of the release files (JSON), for the checksum
  expected=$(curl -fsSL --retry 3 'https://go.dev/dl/?mode=json&include=all' | python3 -c '
import json, sys
name = sys.argv[1]
print(next(f["sha256"] for r in json.load(sys.stdin) for f in r["files"] if f["filename"] == name))
' "$file")
  echo "$expected  $work/$file" | sha256sum -c --quiet
  tar -xzf "$work/$file" -C "$work"
  rm -rf "$dest"
  mv "$work/go" "$dest"
fi
mkdir -p "$root/.tools/bin"
ln -sfn "$dest/bin/go" "$root/.tools/bin/go"
echo "install-go: $("$root/.tools/bin/go" env GOVERSION) in $root/.tools/bin/go"
