#!/usr/bin/env bash
# Install the pinned helm 3 into .tools/bin/helm, built from its Go module (helm.sh/helm/v3,
# cmd/helm) by hack/go-install.sh's mechanism, as hack/install-go-tools.sh builds the Go tools:
# from the Go module proxy, caches outside the clone, skipped when the binary there was built from
# the pinned version with the same flags. The flags are the release build's (helm's Makefile):
# the version, the release commit (the module proxy's origin record, when it gives one), and the
# Kubernetes version `helm template` reports by default (.Capabilities.KubeVersion), taken from
# the k8s.io/client-go that helm's go.mod requires; and the release's Go (HELM_GO).
#
# Without go: CI (or GSVENDOR_REQUIRE_TOOLS=1) fails; elsewhere the official release archive is
# used, checked against the checksum file published beside it.
#
# Renovate bumps HELM_VERSION (the `# renovate:` comment; renovate-custom.json5 keeps it on 3.x).
set -euo pipefail

# renovate: datasource=go depName=helm.sh/helm/v3
HELM_VERSION=v3.17.3
# The Go release helm's own release was built with (`helm version` of the release binary says
# GoVersion): the runtime's reading of GOMEMLIMIT and the like is that Go's. Follows HELM_VERSION
# by hand; Renovate would move it to the newest Go instead.
HELM_GO=go1.23.7

# shellcheck source=hack/go-install.sh
GO_INSTALL_LABEL=install-helm
. "$(dirname "$0")/go-install.sh"
dest=$go_install_bin

if go_install_find_go; then
  info=$("$go" mod download -json "helm.sh/helm/v3@$HELM_VERSION") || {
    go_install_skip helm "cannot fetch helm.sh/helm/v3@$HELM_VERSION"
    go_install_finish
    exit 0
  }
  ldflags=$(python3 -c '
import json, re, sys
info = json.loads(sys.argv[1])
if info.get("Error"):
    sys.exit(info["Error"])
gomod = open(info["GoMod"], encoding="utf-8").read()
client = re.search(r"^\s*k8s\.io/client-go v0\.(\d+)\.", gomod, re.MULTILINE)
if not client:
    sys.exit(info["GoMod"] + ": no k8s.io/client-go v0.N requirement")
pkg = "helm.sh/helm/v3"
version = info["Version"]
flags = [f"-X {pkg}/internal/version.version={version}"]
commit = (info.get("Origin") or {}).get("Hash")
if commit:
    flags.append(f"-X {pkg}/internal/version.gitCommit={commit}")
flags.append(f"-X {pkg}/internal/version.gitTreeState=clean")
for where in ("pkg/lint/rules", "pkg/chartutil"):  # client-go v0.N is Kubernetes 1.N
    flags += [f"-X {pkg}/{where}.k8sVersionMajor=1", f"-X {pkg}/{where}.k8sVersionMinor={client.group(1)}"]
print(" ".join(flags))
' "$info")
  GO_INSTALL_TOOLCHAIN=$HELM_GO go_install helm helm.sh/helm/v3 helm.sh/helm/v3/cmd/helm "$HELM_VERSION" "$ldflags"
  go_install_finish
  exit 0
fi
if go_install_strict; then
  echo "install-helm: go not found (${GO:-PATH, /usr/local/go/bin}): cannot build helm $HELM_VERSION, which CI requires" >&2
  exit 1
fi
if [ -x "$dest/helm" ] && "$dest/helm" version --short 2>/dev/null | grep -q "^$HELM_VERSION"; then
  exit 0
fi
mkdir -p "$dest"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case "$(uname -m)" in x86_64) goarch=amd64 ;; aarch64 | arm64) goarch=arm64 ;; *) goarch=$(uname -m) ;; esac
os=$(uname -s | tr '[:upper:]' '[:lower:]')
archive="helm-$HELM_VERSION-$os-$goarch.tar.gz"
curl -fsSL "https://get.helm.sh/$archive" -o "$work/$archive"
# the release's own checksum file, published beside the archive
expected=$(curl -fsSL "https://get.helm.sh/$archive.sha256sum" | cut -d' ' -f1)
echo "$expected  $work/$archive" | sha256sum -c --quiet
tar -xzf "$work/$archive" -C "$work"
install -m 0755 "$work/$os-$goarch/helm" "$dest/helm"
echo "install-helm: helm $("$dest/helm" version --short) installed from the release archive"
