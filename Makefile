# Developer entry points. `make help` lists them.
VENV ?= .venv
PYTHON ?= python3
GSVENDOR := $(VENV)/bin/gsvendor
# The upstream version has one source: ARG KSERVE_VERSION of Dockerfile.llmisvc, which Renovate bumps.
PIN_DOCKERFILE ?= Dockerfile.llmisvc
TAG ?= $(shell sed -n 's/^ARG KSERVE_VERSION=\([^[:space:]]*\).*/\1/p' $(PIN_DOCKERFILE) 2>/dev/null | head -n 1)
# `make sync` reads the archive of TAG from LOCAL_ARCHIVES when it is there (offline), else none:
# gsvendor then downloads GitHub's archive of the tag. `make sync TAG=… SOURCE=…` overrides both.
LOCAL_ARCHIVES ?= $(or $(GSVENDOR_UPSTREAM_DIR),../shared/upstream)
SOURCE ?= $(wildcard $(LOCAL_ARCHIVES)/kserve-$(TAG).tar.gz)
# the upstream tags the test suite reads (tests/conftest.py TAGS); CircleCI downloads them
UPSTREAM_TAGS := v0.19.0 v0.20.0-rc1 v0.20.0
# TAG, SOURCE, PATCH_SOURCE and CHART_PROJECT from the command line or the environment are text: make
# never expands a $(…) in them, and recipes pass them as one shell word ($(call shq,…)): no value runs
# a command
$(foreach v,TAG SOURCE PATCH_SOURCE CHART_PROJECT,$(if $(filter command line environment,$(origin $(v))),$(eval override $(v) := $$(value $(v)))))
shq = '$(subst ','\'',$(1))'
UPSTREAM_DIR ?= build/upstream
UPSTREAM_ARCHIVES ?= https://github.com/kserve/kserve/archive/refs/tags
# the project whose helm/ the chart tests check at its synced tag, besides the fixed tags
CHART_PROJECT ?= .

.DEFAULT_GOAL := help
.PHONY: help venv tools renovate renovate-extract sync upgrade verify diff generate check-images check-manifests \
	check-image-registry cluster-test helm-test chart-tests helm-unittest upstream-archives ci-config patch-verify versions pre-commit \
	lint test bench bench-images bench-manifests bench-patch-verify bench-resolve bench-generate bench-swap bench-cluster

help: ## List the targets.
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{ \
		n = split($$2, w, " "); line = sprintf("  %-22s", $$1); width = 24; \
		for (i = 1; i <= n; i++) { \
			if (width > 24 && width + 1 + length(w[i]) > 80) { print line; line = sprintf("%24s", ""); width = 24 } \
			line = line " " w[i]; width += 1 + length(w[i]) \
		} \
		print line }'

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[test]'
	touch $@

venv: $(VENV)/.installed ## Create .venv with gsvendor and the test tools.

tools: ## Install the pinned helm, yq, helm-docs, helm-values-schema-json, schemalint, helm-unittest, kube-apiserver, etcd into .tools/.
	hack/install-go.sh
	hack/install-helm.sh
	hack/install-yq.sh
	hack/install-go-tools.sh
	hack/install-kube.sh

upstream-archives: ## Download GitHub's archives of the tags the tests read into UPSTREAM_DIR (CircleCI: ../shared/upstream).
	mkdir -p $(UPSTREAM_DIR)
	for tag in $(UPSTREAM_TAGS); do \
	  curl -fsSL --retry 3 -o $(UPSTREAM_DIR)/kserve-$$tag.tar.gz $(UPSTREAM_ARCHIVES)/$$tag.tar.gz; \
	done

renovate: ## Install the pinned Renovate into .tools/renovate (unless present; needs node and npm).
	hack/install-renovate.sh

renovate-extract: renovate ## Print every dependency Renovate finds here (offline, the repository's own rules).
	@hack/renovate-extract.sh

# --- vendoring --------------------------------------------------------------------------------

sync: venv ## Vendor the Dockerfile.llmisvc pin (TAG=…) from ../shared/upstream when there, else GitHub (SOURCE=…).
	@test -n $(call shq,$(TAG)) || { echo "error: $(PIN_DOCKERFILE): no ARG KSERVE_VERSION=…; give TAG=…" >&2; exit 2; }
	$(GSVENDOR) sync $(call shq,$(TAG))$(if $(SOURCE), --source $(call shq,$(SOURCE)))

upgrade: venv tools ## Upgrade to TAG=…: bump the pins, report, sync, verify, every check; one summary (hack/upgrade.sh).
	@GSVENDOR_UPSTREAM_DIR=$(call shq,$(LOCAL_ARCHIVES)) hack/upgrade.sh $(call shq,$(TAG))

verify: venv ## Prove helm/ is upstream plus the declared overlays.
	$(GSVENDOR) verify

diff: venv ## Show the delta from upstream per file.
	$(GSVENDOR) diff

generate: venv ## Regenerate values.schema.json and README.md of the vendored charts.
	$(GSVENDOR) generate

# --- checks -----------------------------------------------------------------------------------

check-images: venv tools ## Fail on any chart image outside gsoci.azurecr.io/ (after make sync); JUnit in build/.
	$(GSVENDOR) check-images --junit build/test-results/check-images.xml

check-manifests: venv tools ## Validate rendered custom resources against the charts' CRDs (after make sync); JUnit in build/.
	$(GSVENDOR) check-manifests --junit build/test-results/check-manifests.xml

check-image-registry: check-images ## Alias of check-images (the name .ci/run uses).

cluster-test: venv tools ## Install the synced charts on a local kube-apiserver + etcd and check them there (after make sync).
	$(VENV)/bin/pytest -q tests/cluster $(PYTEST_ARGS)

# both halves run and report even when the first fails; the exit status is the first failure's
helm-test: ## The chart tests (CircleCI's chart-tests job): helm-unittest and chart-tests, both reported.
	@unittest=0; charts=0; \
	$(MAKE) --no-print-directory helm-unittest || unittest=$$?; \
	$(MAKE) --no-print-directory chart-tests || charts=$$?; \
	result() { if [ "$$1" = 0 ]; then echo passed; else echo "failed (make exit $$1)"; fi; }; \
	echo "helm-test: helm-unittest $$(result $$unittest), chart-tests $$(result $$charts)" >&2; \
	[ "$$unittest" = 0 ] && [ "$$charts" = 0 ]

helm-unittest: tools ## The helm-unittest suites of every chart in CHART_PROJECT's helm/ (after make sync), real plugin; JUnit in build/.
	hack/helm-test.sh $(call shq,$(abspath $(CHART_PROJECT))/helm)

chart-tests: venv tools ## The overlays' behaviour rendered with helm on CHART_PROJECT's helm/ (its synced tag) and the fixed tags.
	GSVENDOR_CHART_PROJECT=$(call shq,$(abspath $(CHART_PROJECT))) $(VENV)/bin/pytest -q tests/overlays/test_chart_overlays.py $(PYTEST_ARGS)

patch-verify: venv ## Check patches/llmisvc applies to the pinned upstream (PATCH_SOURCE=… to read it elsewhere).
	$(GSVENDOR) patch-verify $(if $(PATCH_SOURCE),--source $(call shq,$(PATCH_SOURCE)))

versions: venv ## Check every place the upstream version is written follows Dockerfile.llmisvc.
	$(GSVENDOR) versions --check

pre-commit: venv ## Run this repository's pre-commit hooks on every file.
	$(VENV)/bin/pre-commit run --all-files

ci-config: venv tools ## Merge .circleci/workflows.yml and custom.yml as CircleCI's setup job does, into build/circleci/continue.yml.
	mkdir -p build/circleci
	.tools/bin/yq eval-all '. as $$item ireduce ({}; . *+ $$item)' .circleci/workflows.yml .circleci/custom.yml \
	  > build/circleci/continue.yml
	$(VENV)/bin/check-jsonschema --builtin-schema vendor.circle-ci .circleci/config.yml build/circleci/continue.yml

lint: venv ## ruff on the code and tests; the package's shape (module sizes, import cycles, folder names) and README's length.
	$(VENV)/bin/ruff check gsvendor tests benchmarks
	$(VENV)/bin/ruff format --check gsvendor tests benchmarks
	$(VENV)/bin/python -m pytest -q -p no:cacheprovider tests/test_architecture.py tests/test_docs.py

# pytest-xdist workers for make test: one per core (most tests wait on helm, git or a server)
TEST_WORKERS ?= auto

test: venv tools lint ## Lint and run the test suite on TEST_WORKERS workers (needs ../shared/upstream; tests/cluster: make cluster-test).
	$(VENV)/bin/pytest -q -n $(TEST_WORKERS) --ignore=tests/cluster $(PYTEST_ARGS)

# --- benchmarks (print figures; no pass/fail) -------------------------------------------------

bench: venv tools ## Print every benchmark's figures.
	$(VENV)/bin/python benchmarks/bench_sync.py
	$(VENV)/bin/python benchmarks/bench_check_images.py
	$(VENV)/bin/python benchmarks/bench_check_manifests.py
	$(VENV)/bin/python benchmarks/bench_patch_verify.py
	$(VENV)/bin/python benchmarks/bench_resolve.py
	$(VENV)/bin/python benchmarks/bench_parse.py
	$(VENV)/bin/python benchmarks/bench_upgrade_report.py
	$(VENV)/bin/python hack/swap_torture.py --quick
	$(VENV)/bin/python benchmarks/bench_generate.py

bench-images: venv tools ## Time check-images against a serial loop of the same helm calls.
	$(VENV)/bin/python benchmarks/bench_check_images.py

bench-manifests: venv tools ## Time check-images + check-manifests on one rendering against check-images alone.
	$(VENV)/bin/python benchmarks/bench_check_manifests.py

bench-patch-verify: venv ## Print patch-verify vs clone + git apply figures.
	$(VENV)/bin/python benchmarks/bench_patch_verify.py

bench-generate: venv tools ## Time gsvendor generate in-process against helm-values-schema-json + helm-docs (after make sync).
	$(VENV)/bin/python benchmarks/bench_generate.py

bench-resolve: venv ## Time check-images --resolve lookups of 100 references against a local docker-registry.
	$(VENV)/bin/python benchmarks/bench_resolve.py

bench-cluster: venv tools ## Time the API server's start to ready, and make cluster-test's wall time (after make sync).
	$(VENV)/bin/python benchmarks/bench_cluster.py

bench-swap: venv ## SIGKILL/TERM/INT at every step of sync's swap, then the next syncs; counts (REAL=1: v0.19.0 → v0.20.0).
	$(VENV)/bin/python hack/swap_torture.py $(if $(REAL),--real)
