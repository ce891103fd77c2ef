# shellcheck shell=bash
# Sourced by hack/install-go-tools.sh and hack/install-helm.sh: build a pinned Go module's command
# into .tools/bin from the Go module proxy, with the module and build caches outside the clone.
#
#   go_install NAME MODULE PACKAGE VERSION [LDFLAGS]   then   go_install_finish
#
# Each tool is skipped when the installed binary was built from the pinned module version
# (`go version -m`) with the same flags, so a second run costs a few milliseconds. The module and
# build caches live in $GO_TOOLS_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/gsvendor-tools/go),
# shared by every clone on the machine and cached by CI between runs; nothing of it is in the clone.
#
# Strict mode (CI set, or GSVENDOR_REQUIRE_TOOLS=1): a tool that cannot be fetched, and a missing
# go, are failures (exit 1) — except the modules in GO_INSTALL_OPTIONAL (the module proxy refuses
# schemalint's module: the tests read its recorded outputs instead). Elsewhere they are skipped
# with one line each and the tests that need them skip, saying so. A failed build is always an error.

go_install_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
go_install_bin="$go_install_root/.tools/bin"
go_install_failed=()

# strict: the caller runs in CI or asks for every tool
go_install_strict() {
  case "${CI:-}" in "" | 0 | false | False | FALSE | no) ;; *) return 0 ;; esac
  [ "${GSVENDOR_REQUIRE_TOOLS:-}" = 1 ]
}

# go_install_find_go: $GO, else go on PATH, else the official installation's /usr/local/go/bin/go,
# else .tools/bin/go (hack/install-go.sh); sets $go (empty when none) and the cache environment.
go_install_find_go() {
  if [ -n "${GO:-}" ]; then
    go=$(command -v "$GO" || true)
  else
    go=$(command -v go || true)
    if [ -z "$go" ] && [ -x /usr/local/go/bin/go ]; then
      go=/usr/local/go/bin/go
    elif [ -z "$go" ] && [ -x "$go_install_bin/go" ]; then
      go=$go_install_bin/go
    fi
  fi
  go_install_cache=${GO_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gsvendor-tools/go}
  export GOMODCACHE="$go_install_cache/mod" GOCACHE="$go_install_cache/build" GOBIN="$go_install_bin"
  export GOFLAGS="-modcacherw -buildvcs=false -mod=readonly" GOTOOLCHAIN=local CGO_ENABLED=0
  [ -n "$go" ] || return 1
  mkdir -p "$go_install_bin" "$GOMODCACHE" "$GOCACHE" "$go_install_cache/modules"
}

# installed NAME MODULE VERSION STAMP: the binary exists, reports (`go version -m`) that it was
# built from MODULE at VERSION, and its stamp says with STAMP (the -ldflags, which -trimpath keeps
# out of the build information, and the toolchain when not the local one).
go_install_installed() {
  [ -x "$go_install_bin/$1" ] && [ "$(cat "$go_install_bin/.$1.ldflags" 2>/dev/null)" = "$4" ] &&
    "$go" version -m "$go_install_bin/$1" 2>/dev/null |
    awk -v m="$2" -v v="$3" '$1 == "mod" && $2 == m && $3 == v { ok = 1 } END { exit !ok }'
}

# go_install_replaces MODULE@VERSION: MODULE's replace directives as `go mod edit` flags.
go_install_replaces() {
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

# go_install_skip NAME MESSAGE: a tool that cannot be fetched: a failure in strict mode (unless
# optional), else one line and the tests that need it skip.
go_install_skip() {
  local name=$1 message=$2 optional=" ${GO_INSTALL_OPTIONAL:-} "
  if [[ $optional == *" $name "* ]]; then
    echo "${GO_INSTALL_LABEL:-install-go-tools}: $name skipped: $message; ${GO_INSTALL_OPTIONAL_NOTE:-optional}" >&2
  elif go_install_strict; then
    echo "${GO_INSTALL_LABEL:-install-go-tools}: $name: $message (CI requires it)" >&2
    go_install_failed+=("$name")
  else
    echo "${GO_INSTALL_LABEL:-install-go-tools}: $name skipped: $message; the tests that need it skip" >&2
  fi
}

# go_install NAME MODULE PACKAGE VERSION [LDFLAGS]: build PACKAGE of MODULE@VERSION into
# .tools/bin/NAME, with the -X flags by which the tool's release build stamps its version; with
# GO_INSTALL_TOOLCHAIN=goX.Y.Z set, by that Go release (GOTOOLCHAIN, fetched as a module from
# the proxy) instead of the local go, as the tool's release was built (the Go runtime's behaviour,
# e.g. how it reads GOMEMLIMIT, is the binary's).
#
# Not `go install PACKAGE@VERSION`: that reads the module's version list (for deprecation
# notices), which the proxy here refuses for some modules, and it refuses modules whose go.mod
# has replace directives (helm-unittest has one). Instead a throwaway module requires
# MODULE@VERSION alone, with MODULE's own replace directives: the build selects exactly the
# versions MODULE's go.mod selects, as a build in MODULE's repository does. Nothing is resolved
# to a "latest" version (-mod=readonly): a missing requirement is an error.
go_install() {
  local name=$1 module=$2 package=$3 version=$4 ldflags="-s -w${5:+ $5}" start work log flags stamp
  local GOTOOLCHAIN=${GO_INSTALL_TOOLCHAIN:-local}
  export GOTOOLCHAIN
  stamp="$ldflags${GO_INSTALL_TOOLCHAIN:+ GOTOOLCHAIN=$GO_INSTALL_TOOLCHAIN}"
  if go_install_installed "$name" "$module" "$version" "$stamp"; then
    echo "${GO_INSTALL_LABEL:-install-go-tools}: $name $version already installed"
    return
  fi
  start=$(date +%s)
  # a folder of its own: two clones may build the same tool at once in the shared cache
  work=$(mktemp -d "$go_install_cache/modules/$name.XXXXXX")
  log="$work.log"
  if ! (cd "$work" && "$go" mod init gsvendor.invalid/tools/"$name" &&
    flags=$(go_install_replaces "$module@$version") &&
    "$go" mod edit -require="$module@$version" $flags &&
    "$go" get "$package@$version") >"$log" 2>&1; then
    if grep -q 'requires go >= ' "$log"; then # GOTOOLCHAIN=local: never downloads a toolchain
      cat "$log" >&2
      echo "${GO_INSTALL_LABEL:-install-go-tools}: $name $version needs a newer go than $("$go" env GOVERSION) (log above)" >&2
      go_install_failed+=("$name")
    elif grep -qE '(403 Forbidden|404 Not Found|410 Gone)' "$log"; then
      go_install_skip "$name" "the Go module proxy does not serve $module@$version ($(grep -oE '(403 Forbidden|404 Not Found|410 Gone)' "$log" | head -1))"
    else
      go_install_skip "$name" "cannot fetch $module@$version: $(grep -v '^go: downloading' "$log" | tail -1)"
    fi
    rm -rf "$work" "$log"
    return
  fi
  if ! (cd "$work" && "$go" build -trimpath -ldflags "$ldflags" -o "$go_install_bin/$name.new.$$" "$package") >>"$log" 2>&1; then
    cat "$log" >&2
    echo "${GO_INSTALL_LABEL:-install-go-tools}: building $name $version failed (log above)" >&2
    rm -f "$go_install_bin/$name.new.$$"
    go_install_failed+=("$name")
  else
    mv "$go_install_bin/$name.new.$$" "$go_install_bin/$name"
    printf '%s\n' "$stamp" >"$go_install_bin/.$name.ldflags"
    if ! go_install_installed "$name" "$module" "$version" "$stamp"; then
      echo "${GO_INSTALL_LABEL:-install-go-tools}: $go_install_bin/$name is not $module $version after the build" >&2
      go_install_failed+=("$name")
    else
      echo "${GO_INSTALL_LABEL:-install-go-tools}: $name $version installed in $(($(date +%s) - start)) s"
    fi
  fi
  rm -rf "$work" "$log"
}

# go_install_finish: exit 1 naming every tool that failed (strict mode: also those not fetched).
go_install_finish() {
  if [ ${#go_install_failed[@]} -gt 0 ]; then
    echo "${GO_INSTALL_LABEL:-install-go-tools}: failed: ${go_install_failed[*]}" >&2
    exit 1
  fi
}
