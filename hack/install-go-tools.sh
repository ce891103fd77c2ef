#!/usr/bin/env bash
# Build the Go tools gsvendor is checked against, from their pinned Go modules, into .tools/:
#
#   .tools/bin/helm-docs                 helm-docs (README.md from README.md.gotmpl)
#   .tools/bin/helm-values-schema-json   helm-values-schema-json (values.schema.json)
#   .tools/bin/schemalint                schemalint (normalize)
#   .tools/bin/helm-unittest             helm-unittest, also a helm plugin in .tools/helm-plugins/
#                                        (HELM_PLUGINS=.tools/helm-plugins .tools/bin/helm unittest …)
#
# The mechanism (caches in ${XDG_CACHE_HOME:-$HOME/.cache}/gsvendor-tools/go or $GO_TOOLS_CACHE,
# outside the clone; what is skipped, what fails) is hack/go-install.sh's. With CI set (or
# GSVENDOR_REQUIRE_TOOLS=1) a missing go or a tool that cannot be fetched fails (exit 1), except
# schemalint: the Go module proxy refuses its module, and the tests read its recorded outputs
# (../shared/fidelity) instead. Elsewhere both are one line each and exit 0: the tests that need
# a missing tool skip with a reason. A tool that fails to build is always an error (exit 1).
set -euo pipefail

# renovate: datasource=go depName=github.com/norwoodj/helm-docs
HELM_DOCS_VERSION=v1.14.2
# renovate: datasource=go depName=github.com/losisin/helm-values-schema-json/v2
HELM_VALUES_SCHEMA_JSON_VERSION=v2.5.0
# renovate: datasource=go depName=github.com/giantswarm/schemalint/v2
SCHEMALINT_VERSION=v2.6.1
# renovate: datasource=go depName=github.com/helm-unittest/helm-unittest
HELM_UNITTEST_VERSION=v1.1.2

# shellcheck source=hack/go-install.sh
. "$(dirname "$0")/go-install.sh"
GO_INSTALL_OPTIONAL=schemalint
GO_INSTALL_OPTIONAL_NOTE="the tests compare with its recorded outputs (../shared/fidelity/schemalint-$SCHEMALINT_VERSION)"
bin=$go_install_bin
plugins="$go_install_root/.tools/helm-plugins"

if ! go_install_find_go; then
  if go_install_strict; then
    echo "install-go-tools: go not found (${GO:-PATH, /usr/local/go/bin}): cannot build helm-docs," \
      "helm-values-schema-json and helm-unittest, which CI requires" >&2
    exit 1
  fi
  echo "install-go-tools: go not found (${GO:-PATH, /usr/local/go/bin}): skipping helm-docs," \
    "helm-values-schema-json, schemalint and helm-unittest; the tests that need them skip" >&2
  exit 0
fi

go_install helm-docs github.com/norwoodj/helm-docs \
  github.com/norwoodj/helm-docs/cmd/helm-docs "$HELM_DOCS_VERSION" \
  "-X main.version=${HELM_DOCS_VERSION#v}"
go_install helm-values-schema-json github.com/losisin/helm-values-schema-json/v2 \
  github.com/losisin/helm-values-schema-json/v2 "$HELM_VALUES_SCHEMA_JSON_VERSION" \
  "-X main.Version=$HELM_VALUES_SCHEMA_JSON_VERSION"
go_install schemalint github.com/giantswarm/schemalint/v2 \
  github.com/giantswarm/schemalint/v2 "$SCHEMALINT_VERSION" \
  "-X main.version=${SCHEMALINT_VERSION#v}"
go_install helm-unittest github.com/helm-unittest/helm-unittest \
  github.com/helm-unittest/helm-unittest/cmd/helm-unittest "$HELM_UNITTEST_VERSION" \
  "-X github.com/helm-unittest/helm-unittest/internal/build.version=${HELM_UNITTEST_VERSION#v}"

# helm-unittest as a helm plugin. Upstream's plugin.yaml runs an install hook that downloads a
# release binary; this one runs the binary built above and has no hook.
if [ -x "$bin/helm-unittest" ]; then
  plugin="$plugins/unittest"
  mkdir -p "$plugin"
  ln -sfn ../../bin/helm-unittest "$plugin/untt"
  cat >"$plugin/plugin.yaml.tmp" <<PLUGIN
# Written by hack/install-go-tools.sh: helm-unittest built from its Go module.
name: unittest
version: "${HELM_UNITTEST_VERSION#v}"
usage: unit test for helm charts
description: helm-unittest $HELM_UNITTEST_VERSION (github.com/helm-unittest/helm-unittest)
ignoreFlags: false
command: \$HELM_PLUGIN_DIR/untt
PLUGIN
  mv "$plugin/plugin.yaml.tmp" "$plugin/plugin.yaml"
fi

go_install_finish
