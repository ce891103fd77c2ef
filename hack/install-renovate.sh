#!/usr/bin/env bash
# Install the pinned Renovate into .tools/renovate (unless that version is already there), from the
# npm registry, for tests/test_renovate.py: Renovate run offline with `--dry-run=extract` on this
# repository, asserting the dependencies renovate-custom.json5 makes it find.
#
# RENOVATE_VERSION is the newest release line that runs on the build machines' Node.js 20
# (Renovate 40 and later need Node.js 22); renovate-custom.json5 keeps Renovate's own bumps of it
# below 40. Install scripts are skipped: the optional native RE2 module would be downloaded or
# compiled, and Renovate falls back to JavaScript regular expressions without it (one warning).
set -euo pipefail

# renovate: datasource=npm depName=renovate
RENOVATE_VERSION=39.264.1

root=$(cd "$(dirname "$0")/.." && pwd)
# One installation per version in the user's cache (a fresh clone, as in CI, links it again);
# .tools/renovate is a link to it.
cache=${GSVENDOR_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gsvendor-tools}
dest="$cache/renovate-$RENOVATE_VERSION"
link="$root/.tools/renovate"
bin="$dest/node_modules/.bin/renovate"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "error: hack/install-renovate.sh: node and npm are needed (apt-get install npm)" >&2
  exit 1
fi
installed=$(node -p 'require(process.argv[1]).version' "$dest/node_modules/renovate/package.json" 2>/dev/null || true)
if [ ! -x "$bin" ] || [ "$installed" != "$RENOVATE_VERSION" ]; then
  # a folder of its own: two clones may install at once into the shared cache
  mkdir -p "$cache"
  partial=$(mktemp -d "$dest.partial.XXXXXX")
  trap 'rm -rf "$partial"' EXIT
  npm install --prefix "$partial" --no-save --no-package-lock --no-audit --no-fund --ignore-scripts \
    --omit=optional --loglevel=error "renovate@$RENOVATE_VERSION" >/dev/null
  rm -rf "$dest"
  mv "$partial" "$dest"
fi
mkdir -p "$root/.tools"
rm -rf "$link"
ln -s "$dest" "$link"
echo "install-renovate: renovate $(RENOVATE_X_IGNORE_RE2=true "$link/node_modules/.bin/renovate" --version) in $link"
