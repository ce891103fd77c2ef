#!/usr/bin/env bash
# Install the Kubernetes API server the cluster tests (make cluster-test) run against:
#
#   .tools/bin/kube-apiserver   built from the pinned k8s.io/kubernetes Go module
#   etcd                        $ETCD or etcd on PATH when it is 3.4 or newer; else, as root with
#                               apt-get, Debian's etcd-server; else .tools/bin/etcd built from the
#                               pinned go.etcd.io/etcd/server/v3 Go module
#
# k8s.io/kubernetes replaces each of its k8s.io/<staging> modules by a ./staging folder, and etcd's
# server module its sibling modules by ../ folders, which a module download does not contain; a
# throwaway module therefore requires the module and replaces each such folder by the module's
# published release of the same tag (k8s.io: v1.X.Y → v0.X.Y). A build is skipped when
# `go version -m` shows the pinned version. Module and build caches live outside the clone, in
# $GO_TOOLS_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/gsvendor-tools/go), shared with
# hack/install-go-tools.sh. Without go, or a module the proxy does not serve, the script says so and
# exits 0 (the cluster tests skip, or fail under CI=true); a build that fails is an error (exit 1).
set -euo pipefail

# renovate: datasource=go depName=k8s.io/kubernetes
KUBERNETES_VERSION=v1.34.2
# renovate: datasource=go depName=go.etcd.io/etcd/server/v3
ETCD_VERSION=v3.5.21

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
cache=${GO_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gsvendor-tools/go}
export GOMODCACHE="$cache/mod" GOCACHE="$cache/build"
export GOFLAGS="-modcacherw -buildvcs=false" GOTOOLCHAIN=local CGO_ENABLED=0

# installed NAME MODULE VERSION: .tools/bin/NAME exists and was built from MODULE at VERSION
installed() {
  [ -x "$bin/$1" ] && "$go" version -m "$bin/$1" 2>/dev/null |
    awk -v m="$2" -v v="$3" '$1 == "mod" && $2 == m && $3 == v { ok = 1 } END { exit !ok }'
}

# build NAME MODULE PACKAGE VERSION FOLDER_VERSION LDFLAGS: build PACKAGE of MODULE@VERSION into
# .tools/bin/NAME, each replace of MODULE by a local folder pointing at the version MODULE requires
# the replaced module at (etcd's client/v2 is v2.305.x), FOLDER_VERSION where that is a v0.0.0
# placeholder (k8s.io/kubernetes' staging modules). Returns 0 when built, 2 when the module cannot be fetched (said why), exits 1
# when the build fails.
build() {
  local name=$1 module=$2 package=$3 version=$4 folders=$5 ldflags=$6 work log start
  start=$(date +%s)
  work="$cache/modules/$name"
  log="$cache/modules/$name.log"
  mkdir -p "$bin" "$GOMODCACHE" "$GOCACHE"
  rm -rf "$work" && mkdir -p "$work"
  # fetching (an && chain: set -e does not stop a subshell that is an if's condition)
  if ! (
    cd "$work" &&
      "$go" mod init "gsvendor.invalid/tools/$name" &&
      gomod=$("$go" mod download -json "$module@$version" | python3 -c '
import json, sys
info = json.load(sys.stdin)
sys.exit(info["Error"]) if info.get("Error") else print(info["GoMod"])') &&
      flags=$("$go" mod edit -json "$gomod" | python3 -c '
import json, sys
folders = sys.argv[1]
mod = json.load(sys.stdin)
required = {r["Path"]: r["Version"] for r in mod.get("Require") or []}
for r in mod.get("Replace") or []:
    old, new = r["Old"], r["New"]
    if new.get("Version"):
        print("-replace=" + old["Path"] + "=" + new["Path"] + "@" + new["Version"])
    elif "FORBIDDEN" in new["Path"]:
        continue  # etcd: a module its build must never need
    elif new["Path"].startswith(("./", "../")):
        # the version the module requires it at, unless a placeholder (k8s.io: v0.0.0)
        version = required.get(old["Path"], "v0.0.0")
        version = folders if version.startswith("v0.0.0") else version
        print("-replace=" + old["Path"] + "=" + old["Path"] + "@" + version)
    else:
        sys.exit("a replace by a folder outside the module cannot be reproduced: " + new["Path"])
' "$folders") &&
      # shellcheck disable=SC2086
      "$go" mod edit -require="$module@$version" $flags &&
      "$go" get "$package@$version"
  ) >"$log" 2>&1; then
    if grep -q 'requires go >= ' "$log"; then
      cat "$log" >&2
      echo "install-kube: $name $version needs a newer go than $("$go" env GOVERSION)" >&2
      exit 1
    fi
    echo "install-kube: $name $version skipped: cannot fetch $module@$version:" \
      "$(grep -v '^go: downloading' "$log" | tail -1); the cluster tests skip" >&2
    return 2
  fi
  # building: a failure here is an error
  if ! (cd "$work" && "$go" build -mod=readonly -trimpath -ldflags "$ldflags" \
    -o "$bin/$name.new" "$package") >>"$log" 2>&1; then
    cat "$log" >&2
    echo "install-kube: building $name $version failed (log above)" >&2
    rm -f "$bin/$name.new"
    exit 1
  fi
  mv "$bin/$name.new" "$bin/$name"
  echo "install-kube: $name $version installed in $(($(date +%s) - start)) s"
}

# --- etcd ------------------------------------------------------------------------------------
# recent NAME: an etcd of 3.4 or newer (kube-apiserver's oldest supported; Debian 12 ships 3.4)
recent() {
  "$1" --version 2>/dev/null | awk '/^etcd Version: / { split($3, v, "."); ok = v[1] > 3 || (v[1] == 3 && v[2] >= 4) } END { exit !ok }'
}
etcd=$(command -v "${ETCD:-etcd}" || true)
if [ -n "$etcd" ] && ! recent "$etcd"; then
  echo "install-kube: $etcd is older than etcd 3.4; not used" >&2
  etcd=""
fi
if [ -z "$etcd" ] && [ -n "$go" ] && installed etcd go.etcd.io/etcd/server/v3 "$ETCD_VERSION"; then
  etcd="$bin/etcd"
fi
if [ -z "$etcd" ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  echo "install-kube: installing etcd-server (apt-get)"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq etcd-server; } \
    >/tmp/install-kube-apt.$$.log 2>&1; then
    cat /tmp/install-kube-apt.$$.log >&2
    echo "install-kube: apt-get install etcd-server failed (log above)" >&2
  fi
  rm -f /tmp/install-kube-apt.$$.log
  etcd=$(command -v etcd || true)
  if [ -n "$etcd" ] && ! recent "$etcd"; then
    etcd=""
  fi
fi
if [ -z "$etcd" ] && [ -n "$go" ]; then
  if build etcd go.etcd.io/etcd/server/v3 go.etcd.io/etcd/server/v3 "$ETCD_VERSION" "$ETCD_VERSION" "-s -w"; then
    etcd="$bin/etcd"
  fi
fi
if [ -n "$etcd" ]; then
  echo "install-kube: etcd $("$etcd" --version 2>/dev/null | sed -n 's/^etcd Version: //p') at $etcd"
else
  echo "install-kube: no etcd 3.4 or newer (set ETCD, or install Debian's etcd-server); the cluster tests skip" >&2
fi

# --- kube-apiserver --------------------------------------------------------------------------
if [ -z "$go" ]; then
  echo "install-kube: go not found (${GO:-PATH, /usr/local/go/bin}): skipping kube-apiserver;" \
    "the cluster tests skip" >&2
  exit 0
fi
if installed kube-apiserver k8s.io/kubernetes "$KUBERNETES_VERSION"; then
  echo "install-kube: kube-apiserver $KUBERNETES_VERSION already installed"
  exit 0
fi
minor=${KUBERNETES_VERSION#v1.}
minor=${minor%%.*}
# the version the release build stamps (kube-apiserver --version, /version)
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$KUBERNETES_VERSION"
ldflags+=" -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
build kube-apiserver k8s.io/kubernetes k8s.io/kubernetes/cmd/kube-apiserver "$KUBERNETES_VERSION" \
  "v0.${KUBERNETES_VERSION#v1.}" "$ldflags" || true
