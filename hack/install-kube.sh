#!/usr/bin/env bash
# Install the Kubernetes API server the cluster tests (make cluster-test) run against:
#
#   .tools/bin/kube-apiserver   built from the pinned k8s.io/kubernetes Go module
#   etcd                        Debian's etcd-server package (apt-get), else $ETCD / PATH
#
# k8s.io/kubernetes replaces each of its k8s.io/<staging> modules by a ./staging folder, which a
# module download does not contain; a throwaway module therefore requires k8s.io/kubernetes and
# replaces each staging module by its published release (v1.X.Y → v0.X.Y), the code the folder
# holds at that tag. The build is skipped when `go version -m` shows the pinned version. Module and
# build caches live outside the clone, in $GO_TOOLS_CACHE (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/gsvendor-tools/go), shared with hack/install-go-tools.sh.
# Without go, or without etcd and a way to install it, the script says so and exits 0 (the
# cluster tests skip, or fail under CI=true); a build that fails is an error (exit 1).
set -euo pipefail

# renovate: datasource=go depName=k8s.io/kubernetes
KUBERNETES_VERSION=v1.34.2

root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/.tools/bin"

if [ -n "${GO:-}" ]; then
  go=$(command -v "$GO" || true)
else
  go=$(command -v go || true)
  if [ -z "$go" ] && [ -x /usr/local/go/bin/go ]; then
    go=/usr/local/go/bin/go
  fi
fi

# --- etcd ------------------------------------------------------------------------------------
etcd=$(command -v "${ETCD:-etcd}" || true)
if [ -z "$etcd" ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  echo "install-kube: installing etcd-server (apt-get)"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server; } \
    >/tmp/install-kube-apt.$$.log 2>&1; then
    cat /tmp/install-kube-apt.$$.log >&2
    echo "install-kube: apt-get install etcd-server failed (log above); the cluster tests skip" >&2
  fi
  rm -f /tmp/install-kube-apt.$$.log
  etcd=$(command -v etcd || true)
fi
if [ -n "$etcd" ]; then
  echo "install-kube: etcd $("$etcd" --version 2>/dev/null | sed -n 's/^etcd Version: //p') at $etcd"
else
  echo "install-kube: no etcd (set ETCD, or install Debian's etcd-server); the cluster tests skip" >&2
fi

# --- kube-apiserver --------------------------------------------------------------------------
if [ -z "$go" ]; then
  echo "install-kube: go not found (${GO:-PATH, /usr/local/go/bin}): skipping kube-apiserver;" \
    "the cluster tests skip" >&2
  exit 0
fi
cache=${GO_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gsvendor-tools/go}
export GOMODCACHE="$cache/mod" GOCACHE="$cache/build"
export GOFLAGS="-modcacherw -buildvcs=false" GOTOOLCHAIN=local CGO_ENABLED=0
mkdir -p "$bin" "$GOMODCACHE" "$GOCACHE"

module=k8s.io/kubernetes
package=k8s.io/kubernetes/cmd/kube-apiserver
staging=v0.${KUBERNETES_VERSION#v1.}
minor=${KUBERNETES_VERSION#v1.}
minor=${minor%%.*}
# the version the release build stamps (kube-apiserver --version, /version)
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$KUBERNETES_VERSION"
ldflags+=" -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"

if [ -x "$bin/kube-apiserver" ] && "$go" version -m "$bin/kube-apiserver" 2>/dev/null |
  awk -v m="$module" -v v="$KUBERNETES_VERSION" '$1 == "mod" && $2 == m && $3 == v { ok = 1 } END { exit !ok }'; then
  echo "install-kube: kube-apiserver $KUBERNETES_VERSION already installed"
  exit 0
fi

start=$(date +%s)
work="$cache/modules/kube-apiserver"
log="$cache/modules/kube-apiserver.log"
rm -rf "$work" && mkdir -p "$work"
# fetching: no network or a version the proxy does not serve skips with a message
# (an && chain: set -e does not stop a subshell that is an if's condition)
if ! (
  cd "$work" &&
    "$go" mod init gsvendor.invalid/tools/kube-apiserver &&
    gomod=$("$go" mod download -json "$module@$KUBERNETES_VERSION" | python3 -c '
import json, sys
info = json.load(sys.stdin)
sys.exit(info["Error"]) if info.get("Error") else print(info["GoMod"])') &&
    # every ./staging replace of k8s.io/kubernetes becomes the published release of that module
    flags=$("$go" mod edit -json "$gomod" | python3 -c '
import json, sys
staging = sys.argv[1]
for r in json.load(sys.stdin).get("Replace") or []:
    old, new = r["Old"], r["New"]
    if new.get("Version"):
        print("-replace=" + old["Path"] + "=" + new["Path"] + "@" + new["Version"])
    elif new["Path"].startswith("./staging/"):
        print("-replace=" + old["Path"] + "=" + old["Path"] + "@" + staging)
    else:
        sys.exit("a replace by a local folder cannot be reproduced: " + new["Path"])
' "$staging") &&
    # shellcheck disable=SC2086
    "$go" mod edit -require="$module@$KUBERNETES_VERSION" $flags &&
    "$go" get "$package@$KUBERNETES_VERSION"
) >"$log" 2>&1; then
  if grep -q 'requires go >= ' "$log"; then
    cat "$log" >&2
    echo "install-kube: kube-apiserver $KUBERNETES_VERSION needs a newer go than $("$go" env GOVERSION)" >&2
    exit 1
  fi
  echo "install-kube: kube-apiserver $KUBERNETES_VERSION skipped: cannot fetch $module@$KUBERNETES_VERSION:" \
    "$(grep -v '^go: downloading' "$log" | tail -1); the cluster tests skip" >&2
  exit 0
fi
# building: a failure here is an error
if ! (cd "$work" && "$go" build -mod=readonly -trimpath -ldflags "$ldflags" \
  -o "$bin/kube-apiserver.new" "$package") >>"$log" 2>&1; then
  cat "$log" >&2
  echo "install-kube: building kube-apiserver $KUBERNETES_VERSION failed (log above)" >&2
  rm -f "$bin/kube-apiserver.new"
  exit 1
fi
mv "$bin/kube-apiserver.new" "$bin/kube-apiserver"
echo "install-kube: kube-apiserver $KUBERNETES_VERSION installed in $(($(date +%s) - start)) s"
