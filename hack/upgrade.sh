#!/usr/bin/env bash
# The upgrade to upstream TAG in one command (make upgrade TAG=vX.Y.Z): bump the pins, write the
# dry-run report, sync, then every check; one summary at the end of what passed and what needs the
# maintainer. Offline when the tag's archive is in GSVENDOR_UPSTREAM_DIR (make passes
# ../shared/upstream by default): gsvendor reads it from there, for sync and patch-verify alike.
#
#   hack/upgrade.sh TAG
#
# Exit 0 when every step passed, 1 when a step failed (the summary names it), 2 for a usage error.
set -uo pipefail

tag=${1:-}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
gsvendor=${GSVENDOR:-$root/.venv/bin/gsvendor}
make=${MAKE:-make}
pin_files=(Dockerfile Dockerfile.llmisvc)
report=build/upgrade-report-$tag.md

if [ -z "$tag" ]; then
  echo "error: give the upstream tag: make upgrade TAG=vX.Y.Z" >&2
  exit 2
fi
if ! [[ "$tag" =~ ^[A-Za-z0-9][A-Za-z0-9._+-]*$ ]]; then
  echo "error: TAG=$tag is not an upstream tag (like v0.21.0)" >&2
  exit 2
fi
for file in "${pin_files[@]}"; do
  if ! grep -q '^ARG KSERVE_VERSION=' "$file" 2>/dev/null; then
    echo "error: $file: no ARG KSERVE_VERSION=… to bump" >&2
    exit 2
  fi
done
old=$(sed -n 's/^ARG KSERVE_VERSION=\([^[:space:]]*\).*/\1/p' Dockerfile.llmisvc | head -n 1)
if [ -z "$old" ]; then
  echo "error: Dockerfile.llmisvc: ARG KSERVE_VERSION= holds no tag to upgrade from" >&2
  exit 2
fi
# gsvendor reads an archive the folder holds, and GitHub for one it lacks (the old pin's may be there alone)
if [ -n "${GSVENDOR_UPSTREAM_DIR:-}" ] && [ -f "$GSVENDOR_UPSTREAM_DIR/kserve-$tag.tar.gz" ]; then
  where="offline, from $GSVENDOR_UPSTREAM_DIR/kserve-$tag.tar.gz"
else
  where="from GitHub (no kserve-$tag.tar.gz in the upstream folder)"
fi
[ -z "${GSVENDOR_UPSTREAM_DIR:-}" ] || export GSVENDOR_UPSTREAM_DIR
echo "upgrade $old → $tag, $where"

passed=()
failed=()
unjudged=()
maintainer=()
# step NAME COMMAND...: run it, its output as it comes, and record the verdict
step() {
  local name=$1
  shift
  echo
  if [ "$(type -t "$1")" = function ]; then echo "==> $name"; else echo "==> $name: $*"; fi
  "$@"
  local rc=$?
  if [ "$rc" -eq 0 ]; then
    passed+=("$name")
  elif [ "$rc" -eq 3 ]; then
    unjudged+=("$name")
  else
    failed+=("$name (exit $rc)")
  fi
  return "$rc"
}

# patch-verify, unless the source holds none of the patched files (GitHub's archive does; a charts-only
# copy in the upstream folder does not): then the series is not judged here, and the summary says so
patch_verify() {
  "$gsvendor" patch-verify --json >build/patch-verify.json 2>/dev/null
  if grep -q '"code": "source-incomplete"' build/patch-verify.json; then
    echo "patch-verify: the upstream source holds none of the files the patches touch: not judged here"
    return 3
  fi
  "$gsvendor" patch-verify
}

bump_pins() {
  local file
  for file in "${pin_files[@]}"; do
    sed -i.gsvendor-bak "s/^ARG KSERVE_VERSION=[^[:space:]]*/ARG KSERVE_VERSION=$tag/" "$file" && rm -f "$file.gsvendor-bak" || return 1
  done
}

mkdir -p build
# a clone without the lock (helm/ and the lock are git-ignored here): the report starts from the old pin's sync
if [ ! -f gsvendor.lock.yaml ] && [ "$old" != "$tag" ]; then
  if ! step "sync $old, the version the report starts from" "$gsvendor" sync "$old"; then
    # stop before the pins move: a run after the fix still knows the version to start from
    echo "error: the sync of $old failed (above), so the pins stay at $old; fix it and run this again" >&2
    exit 1
  fi
fi
step "pins ($old → $tag in ${pin_files[*]})" bump_pins || { echo "error: cannot bump the pins" >&2; exit 1; }
if [ -f gsvendor.lock.yaml ]; then
  if step "dry-run report ($report)" "$gsvendor" sync "$tag" --dry-run --report "$report"; then
    maintainer+=("review $report: images, RBAC, CRD changes and overlays of the upgrade")
  fi
fi
if step "sync" "$gsvendor" sync "$tag"; then
  step "verify" "$gsvendor" verify
  step "generate" "$gsvendor" generate
  step "versions" "$gsvendor" versions --check
  step "check-images" "$gsvendor" check-images --junit build/test-results/check-images.xml
  step "check-manifests" "$gsvendor" check-manifests --junit build/test-results/check-manifests.xml
  step "helm-test (the synced charts)" "$make" --no-print-directory helm-test CHART_PROJECT=. "PYTEST_ARGS=-k vendored"
  step "patch-verify" patch_verify
fi

echo
echo "upgrade $old → $tag: ${#passed[@]} step(s) passed, ${#failed[@]} failed, ${#unjudged[@]} not judged"
for name in "${passed[@]}"; do echo "  passed       $name"; done
for name in "${failed[@]}"; do echo "  FAILED       $name"; done
for name in "${unjudged[@]}"; do echo "  not judged   $name"; done
if [ "${#unjudged[@]}" -gt 0 ]; then
  maintainer+=("check the carried patches on a full upstream source: make patch-verify PATCH_SOURCE=<kserve checkout at $tag, or its git URL>")
fi
if [ "${#failed[@]}" -gt 0 ]; then
  maintainer+=("fix what failed above (its output is under its ==> line), then run make upgrade TAG=$tag again")
fi
if [ "${#failed[@]}" -eq 0 ]; then
  maintainer+=("commit what git status shows changed (the pins, and helm/ and gsvendor.lock.yaml where the repository tracks them) together")
fi
echo "needs the maintainer:"
for item in "${maintainer[@]}"; do echo "  - $item"; done
[ "${#failed[@]}" -eq 0 ]
