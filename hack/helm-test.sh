#!/usr/bin/env bash
# Run the helm-unittest suites of every vendored chart (helm/<chart>/tests/*_test.yaml, copied
# there from overlays/files/tests/ by the overlay 95-chart-tests) with the project's helm and the
# helm-unittest plugin that hack/install-go-tools.sh builds.
#
# Giant Swarm's Chart.yaml says version: "[[ .Version ]]" (the release pipeline fills it in),
# which helm refuses to load; the suites therefore run on copies in build/helm-test.XXXXXX/ whose version
# is 0.0.0-gsvendor, never on helm/. Results also go to build/test-results/helm-unittest.xml (JUnit).
#
#   hack/helm-test.sh [OUTPUT_DIR [CHART ...]]   (the vendored charts, default helm/; every chart there)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
output=${1:-helm}
shift $(($# > 0 ? 1 : 0))
helm="$root/.tools/bin/helm"
export HELM_PLUGINS="$root/.tools/helm-plugins"

if [ ! -x "$helm" ] || [ ! -f "$HELM_PLUGINS/unittest/plugin.yaml" ] || [ ! -x "$HELM_PLUGINS/unittest/untt" ]; then
  echo "helm-test: helm or the helm-unittest plugin is missing in .tools/; run make tools (needs go)" >&2
  exit 2
fi
charts=("$@")
if [ ${#charts[@]} -eq 0 ]; then
  for chart_yaml in "$output"/*/Chart.yaml; do
    [ -f "$chart_yaml" ] && charts+=("$(basename "$(dirname "$chart_yaml")")")
  done
fi
if [ ${#charts[@]} -eq 0 ]; then
  echo "helm-test: no chart in $output/; run make sync first" >&2
  exit 2
fi

# a folder of this run's own: two runs at once (the test suite's workers) never share copies
mkdir -p "$root/build/test-results"
work=$(mktemp -d "$root/build/helm-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
for chart in "${charts[@]}"; do
  if [ ! -f "$output/$chart/Chart.yaml" ]; then
    echo "helm-test: no chart $output/$chart" >&2
    exit 2
  fi
  if ! compgen -G "$output/$chart/tests/*_test.yaml" >/dev/null; then
    echo "helm-test: $output/$chart/tests/ has no helm-unittest suite (overlay 95-chart-tests; run make sync)" >&2
    exit 1
  fi
  cp -R "$output/$chart" "$work/$chart"
  sed -i 's/^version: "\[\[ \.Version \]\]"$/version: 0.0.0-gsvendor/' "$work/$chart/Chart.yaml"
done

cd "$work"
# the JUnit file is written in this run's folder and moved into place whole: a run beside it never
# leaves a half-written file (the last run to finish is the one kept)
status=0
"$helm" unittest --color=false --output-type JUnit --output-file "$work/helm-unittest.xml" "${charts[@]}" || status=$?
if [ -f "$work/helm-unittest.xml" ]; then
  mv -f "$work/helm-unittest.xml" "$root/build/test-results/helm-unittest.xml"
fi
exit "$status"
