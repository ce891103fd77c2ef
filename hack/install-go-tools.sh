#!/usr/bin/env bash
# Build the Go tools gsvendor is checked against, from their pinned Go modules, into .tools/:
#
#   .tools/bin/helm-docs                 helm-docs (README.md from README.md.gotmpl)
#   .tools/bin/helm-values-schema-json   helm-values-schema-json (values.schema.json)
#   .tools/bin/schemalint                schemalint (normalize)
#   .tools/bin/helm-unittest             helm-unittest, also a helm plugin in .tools/helm-plugins/
#                                        (HELM_PLUGINS=.tools/helm-plugins .tools/bin/helm unittest …)
#
# Each tool is skipped when the installed binary was built from the pinned module version
# (`go version -m`), so a second run costs a few milliseconds. The module and build caches live
# in $GO_TOOLS_CACHE (default .tools/go-cache), which CI caches between runs. The Go module proxy
# serves these tool modules only. Without go ($GO, PATH, /usr/local/go/bin) the script says so and
# exits 0, as it does for a tool it cannot fetch: the tests that need the tools skip with a reason.
# A tool that fails to build is an error (exit 1).
set -euo pipefail

# renovate: datasource=go depName=github.com/norwoodj/helm-docs
HELM_DOCS_VERSION=v1.14.2
# renovate: datasource=go depName=github.com/losisin/helm-values-schema-json/v2
HELM_VALUES_SCHEMA_JSON_VERSION=v2.5.0
# renovate: datasource=go depName=github.com/giantswarm/schemalint/v2
SCHEMALINT_VERSION=v2.6.1
# renovate: datasource=go depName=github.com/helm-unittest/helm-unittest
HELM_UNITTEST_VERSION=v1.1.2

root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/.tools/bin"
plugins="$root/.tools/helm-plugins"

# $GO, else go on PATH, else the official installation's /usr/local/go/bin/go
if [ -n "${GO:-}" ]; then
  go=$(command -v "$GO" || true)
else
  go=$(command -v go || true)
  if [ -z "$go" ] && [ -x /usr/local/go/bin/go ]; then
    go=/usr/local/go/bin/go
  fi
fi
if [ -z "$go" ]; then
  echo "install-go-tools: go not found (${GO:-PATH, /usr/local/go/bin}): skipping helm-docs," \
    "helm-values-schema-json, schemalint and helm-unittest; the tests that need them skip" >&2
  exit 0
fi

cache=${GO_TOOLS_CACHE:-$root/.tools/go-cache}
export GOMODCACHE="$cache/mod" GOCACHE="$cache/build" GOBIN="$bin"
export GOFLAGS="-modcacherw -buildvcs=false -mod=readonly" GOTOOLCHAIN=local CGO_ENABLED=0
mkdir -p "$bin" "$GOMODCACHE" "$GOCACHE"

# installed NAME MODULE VERSION LDFLAGS: the binary exists, reports (`go version -m`) that it was
# built from MODULE at VERSION, and its stamp says with LDFLAGS (which -trimpath keeps out of the
# build information).
installed() {
  [ -x "$bin/$1" ] && [ "$(cat "$bin/.$1.ldflags" 2>/dev/null)" = "$4" ] &&
    "$go" version -m "$bin/$1" 2>/dev/null |
    awk -v m="$2" -v v="$3" '$1 == "mod" && $2 == m && $3 == v { ok = 1 } END { exit !ok }'
}

# replaces MODULE@VERSION: MODULE's replace directives as `go mod edit` flags.
replaces() {
  local gomod
  gomod=$("$go" mod download -json "$1" | python3 -c '
import json, sys
info = json.load(sys.stdin)
sys.exit(info["Error"]) if info.get("Error") else print(info["GoMod"])
') || return 1
  "$go" mod edit -json "$gomod" | python3 -c '
import json, sys
for r in json.load(sys.stdin).get("Replace") or []:
    old, new = r["Old"], r["New"]
    if not new.get("Version"):
        sys.exit("a replace by a local folder cannot be reproduced: " + new["Path"])
    at = lambda m: m["Path"] + ("@" + m["Version"] if m.get("Version") else "")
    print("-replace=" + at(old) + "=" + at(new))
'
}

# install NAME MODULE PACKAGE VERSION [LDFLAGS]: build PACKAGE of MODULE@VERSION into $bin/NAME,
# with the -X flags by which the tool's release build stamps its version (helm-docs writes it into
# every README's footer).
#
# Not `go install PACKAGE@VERSION`: that reads the module's version list (for deprecation
# notices), which the proxy here refuses for some modules, and it refuses modules whose go.mod
# has replace directives (helm-unittest has one). Instead a throwaway module requires
# MODULE@VERSION alone, with MODULE's own replace directives: the build selects exactly the
# versions MODULE's go.mod selects, as a build in MODULE's repository does. Nothing is resolved
# to a "latest" version (-mod=readonly): a missing requirement is an error.
failed=()
install() {
  local name=$1 module=$2 package=$3 version=$4 ldflags="-s -w${5:+ $5}" start work log flags
  if installed "$name" "$module" "$version" "$ldflags"; then
    echo "install-go-tools: $name $version already installed"
    return
  fi
  start=$(date +%s)
  work="$cache/modules/$name"
  log="$cache/modules/$name.log"
  rm -rf "$work" && mkdir -p "$work"
  # fetching: a module the proxy does not serve, or no network, skips the tool with a message
  if ! (cd "$work" && "$go" mod init gsvendor.invalid/tools/"$name" &&
    flags=$(replaces "$module@$version") &&
    "$go" mod edit -require="$module@$version" $flags &&
    "$go" get "$package@$version") >"$log" 2>&1; then
    if grep -q 'requires go >= ' "$log"; then  # GOTOOLCHAIN=local: never downloads a toolchain
      cat "$log" >&2
      echo "install-go-tools: $name $version needs a newer go than $("$go" env GOVERSION) (log above)" >&2
      failed+=("$name")
    elif grep -qE '(403 Forbidden|404 Not Found|410 Gone)' "$log"; then
      echo "install-go-tools: $name $version skipped: the Go module proxy does not serve $module@$version" \
        "($(grep -oE '(403 Forbidden|404 Not Found|410 Gone)' "$log" | head -1)); the tests that need it skip" >&2
    else
      echo "install-go-tools: $name $version skipped: cannot fetch $module@$version:" \
        "$(grep -v '^go: downloading' "$log" | tail -1); the tests that need it skip" >&2
    fi
    return
  fi
  # building: a failure here is an error
  if ! (cd "$work" && "$go" build -trimpath -ldflags "$ldflags" -o "$bin/$name.new" "$package") >>"$log" 2>&1; then
    cat "$log" >&2
    echo "install-go-tools: building $name $version failed (log above)" >&2
    rm -f "$bin/$name.new"
    failed+=("$name")
    return
  fi
  mv "$bin/$name.new" "$bin/$name"
  printf '%s\n' "$ldflags" >"$bin/.$name.ldflags"
  if ! installed "$name" "$module" "$version" "$ldflags"; then
    echo "install-go-tools: $bin/$name is not $module $version after the build" >&2
    failed+=("$name")
    return
  fi
  echo "install-go-tools: $name $version installed in $(($(date +%s) - start)) s"
}

install helm-docs github.com/norwoodj/helm-docs \
  github.com/norwoodj/helm-docs/cmd/helm-docs "$HELM_DOCS_VERSION" \
  "-X main.version=${HELM_DOCS_VERSION#v}"
install helm-values-schema-json github.com/losisin/helm-values-schema-json/v2 \
  github.com/losisin/helm-values-schema-json/v2 "$HELM_VALUES_SCHEMA_JSON_VERSION" \
  "-X main.Version=$HELM_VALUES_SCHEMA_JSON_VERSION"
install schemalint github.com/giantswarm/schemalint/v2 \
  github.com/giantswarm/schemalint/v2 "$SCHEMALINT_VERSION" \
  "-X main.version=${SCHEMALINT_VERSION#v}"
install helm-unittest github.com/helm-unittest/helm-unittest \
  github.com/helm-unittest/helm-unittest/cmd/helm-unittest "$HELM_UNITTEST_VERSION" \
  "-X github.com/helm-unittest/helm-unittest/internal/build.version=${HELM_UNITTEST_VERSION#v}"

# helm-unittest as a helm plugin. Upstream's plugin.yaml runs an install hook that downloads a
# release binary; this one runs the binary built above and has no hook.
if [ -x "$bin/helm-unittest" ]; then
  plugin="$plugins/unittest"
  mkdir -p "$plugin"
  ln -sfn ../../bin/helm-unittest "$plugin/untt"
  cat >"$plugin/plugin.yaml.tmp" <<EOF
# Written by hack/install-go-tools.sh: helm-unittest built from its Go module.
name: unittest
version: "${HELM_UNITTEST_VERSION#v}"
usage: unit test for helm charts
description: helm-unittest $HELM_UNITTEST_VERSION (github.com/helm-unittest/helm-unittest)
ignoreFlags: false
command: \$HELM_PLUGIN_DIR/untt
EOF
  mv "$plugin/plugin.yaml.tmp" "$plugin/plugin.yaml"
fi

if [ ${#failed[@]} -gt 0 ]; then
  echo "install-go-tools: failed: ${failed[*]}" >&2
  exit 1
fi
