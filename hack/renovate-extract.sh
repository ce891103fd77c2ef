#!/usr/bin/env bash
# Which dependencies Renovate finds in this repository, offline: the pinned Renovate (make renovate)
# runs as `--platform=local --dry-run=extract` on a temporary git copy of the working tree (the
# files git would commit, new ones included). Giant Swarm's preset cannot be fetched offline, so
# the copy's renovate.json5 is renovate-custom.json5 alone, with `extends` emptied.
#
#   hack/renovate-extract.sh [REPORT.json]
#
# Prints one line per dependency, sorted: file, manager, datasource, depName, currentValue (tab-
# separated); REPORT.json gets Renovate's full report. Renovate's warnings go to stderr, except its
# note that GitHub lookups need a token; any other warning or error fails the run (exit 1).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
home=${GSVENDOR_RENOVATE_DIR:-$root/.tools/renovate}
renovate="$home/node_modules/.bin/renovate"
if [ ! -x "$renovate" ]; then
  echo "error: hack/renovate-extract.sh: no Renovate at $home; run make renovate" >&2
  exit 2
fi
report=${1:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/repo"

(cd "$root" && git ls-files -z --cached --others --exclude-standard) |
  while IFS= read -r -d '' name; do
    if [ -f "$root/$name" ] && [ ! -L "$root/$name" ]; then
      mkdir -p "$work/repo/$(dirname "$name")"
      cp -p "$root/$name" "$work/repo/$name"
    fi
  done
export NODE_PATH="$home/node_modules"
node -e '
  const fs = require("fs");
  const rules = require("json5").parse(fs.readFileSync(process.argv[1], "utf8"));
  if ("extends" in rules) { console.error("error: renovate-custom.json5: has its own extends"); process.exit(2); }
  fs.writeFileSync(process.argv[2], JSON.stringify({ ...rules, extends: [] }, null, 2) + "\n");
' "$root/renovate-custom.json5" "$work/repo/renovate.json5"
(
  cd "$work/repo"
  export GIT_AUTHOR_NAME=renovate-extract GIT_AUTHOR_EMAIL=renovate-extract@example.invalid
  export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
  git init -q -b main && git add -A && git commit -q -m "working tree"
)

echo 'module.exports = {};' >"$work/global-config.js"
status=0
(
  cd "$work/repo"
  env -u GITHUB_TOKEN -u GITHUB_COM_TOKEN -u RENOVATE_TOKEN \
    RENOVATE_X_IGNORE_RE2=true RENOVATE_CONFIG_FILE="$work/global-config.js" \
    RENOVATE_BASE_DIR="$work/base" LOG_LEVEL=warn LOG_FORMAT=json NO_COLOR=1 \
    "$renovate" --platform=local --dry-run=extract --report-type=file --report-path="$work/report.json" \
    >"$work/log.json" 2>&1
) || status=$?
node -e '
  const fs = require("fs");
  const [log, reportFile, out, status] = process.argv.slice(1);
  let failed = Number(status) !== 0;
  for (const line of fs.readFileSync(log, "utf8").split("\n")) {
    if (!line.startsWith("{")) { if (line.trim()) console.error(line); continue; }
    const entry = JSON.parse(line);
    if (entry.level >= 40 && entry.msg !== "GitHub token is required for some dependencies") {
      console.error(`renovate: ${entry.msg}${entry.err ? ": " + (entry.err.message || "") : ""}`);
      failed = true;
    }
  }
  if (failed || !fs.existsSync(reportFile)) { console.error("error: hack/renovate-extract.sh: Renovate failed"); process.exit(1); }
  const report = JSON.parse(fs.readFileSync(reportFile, "utf8"));
  if (out) fs.writeFileSync(out, JSON.stringify(report, null, 2) + "\n");
  const rows = [];
  for (const repository of Object.values(report.repositories))
    for (const [manager, files] of Object.entries(repository.packageFiles))
      for (const file of files)
        for (const dep of file.deps)
          rows.push([file.packageFile, manager, dep.datasource, dep.depName, dep.currentValue ?? ""].join("\t"));
  rows.sort();
  if (rows.length) console.log(rows.join("\n"));
' "$work/log.json" "$work/report.json" "$report" "$status"
