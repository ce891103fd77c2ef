#!/usr/bin/env bash
# Install mikefarah's yq v4 (the yq of CircleCI's setup workflow, whose `*+` merge builds the
# pipeline from .circleci/workflows.yml and .circleci/custom.yml) into .tools/bin/yq, unless the
# pinned version is already there. tests/test_ci_config.py runs the setup workflow's command with it.
#
# In order: `go install` of the pinned Go module (these build machines reach the Go module proxy);
# a mikefarah yq v4 already on PATH (CircleCI's images), linked; the release binary from GitHub,
# checked against the release's own checksums file.
set -euo pipefail

# renovate: datasource=go depName=github.com/mikefarah/yq/v4
YQ_VERSION=v4.47.2

root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/.tools/bin"
is_v4() { "$1" --version 2>/dev/null | grep -q 'mikefarah/yq.* version v4\.'; }

if [ -x "$dest/yq" ] && "$dest/yq" --version 2>/dev/null | grep -q "version $YQ_VERSION\$"; then
  exit 0
fi
mkdir -p "$dest"

go=$(command -v go || true)
[ -z "$go" ] && [ -x /usr/local/go/bin/go ] && go=/usr/local/go/bin/go
[ -z "$go" ] && [ -x "$dest/go" ] && go=$dest/go  # hack/install-go.sh
if [ -n "$go" ]; then
  GOBIN="$dest" GOFLAGS=-buildvcs=false CGO_ENABLED=0 "$go" install "github.com/mikefarah/yq/v4@$YQ_VERSION"
elif on_path=$(command -v yq) && is_v4 "$on_path"; then
  ln -sf "$on_path" "$dest/yq"
else
  case "$(uname -m)" in x86_64) arch=amd64 ;; aarch64 | arm64) arch=arm64 ;; *) arch=$(uname -m) ;; esac
  os=$(uname -s | tr '[:upper:]' '[:lower:]')
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  base="https://github.com/mikefarah/yq/releases/download/$YQ_VERSION"
  for f in "yq_${os}_$arch" checksums checksums_hashes_order; do curl -fsSL -o "$work/$f" "$base/$f"; done
  column=$(($(grep -n '^SHA-256$' "$work/checksums_hashes_order" | cut -d: -f1) + 1))
  expected=$(awk -v f="yq_${os}_$arch" -v c="$column" '$1 == f { print $c }' "$work/checksums")
  echo "$expected  $work/yq_${os}_$arch" | sha256sum -c --quiet
  install -m 0755 "$work/yq_${os}_$arch" "$dest/yq"
fi
is_v4 "$dest/yq" || { echo "install-yq: $dest/yq is not mikefarah's yq v4" >&2; exit 1; }
"$dest/yq" --version
