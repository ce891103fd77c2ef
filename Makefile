# Developer entry points. `make help` lists them.
VENV ?= .venv
PYTHON ?= python3
GSVENDOR := $(VENV)/bin/gsvendor
TAG ?= v0.20.0
SOURCE ?= ../shared/upstream/kserve-$(TAG).tar.gz

.DEFAULT_GOAL := help
.PHONY: help venv tools sync verify diff generate test lint bench

help: ## List the targets.
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-22s %s\n", $$1, $$2}'

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[test]'
	touch $@

venv: $(VENV)/.installed ## Create .venv with gsvendor and the test tools.

tools: ## Install the pinned helm into .tools/bin (unless present).
	hack/install-helm.sh

sync: venv ## Vendor $(TAG) from $(SOURCE) into helm/ (offline with the default SOURCE).
	$(GSVENDOR) sync $(TAG) --source $(SOURCE)

verify: venv ## Prove helm/ is upstream plus the declared overlays.
	$(GSVENDOR) verify

.PHONY: check-images check-image-registry bench-images
check-images: venv tools ## Fail on any chart image outside gsoci.azurecr.io/ (after make sync); JUnit in build/.
	$(GSVENDOR) check-images --junit build/test-results/check-images.xml

check-image-registry: check-images ## Alias of check-images (the name the README and CI job use).

bench-images: venv tools ## Time check-images against a serial loop of the same helm calls.
	$(VENV)/bin/python benchmarks/bench_check_images.py

diff: venv ## Show the delta from upstream per file.
	$(GSVENDOR) diff

generate: venv ## Regenerate values.schema.json and README.md of the vendored charts.
	$(GSVENDOR) generate

lint: venv ## ruff on the code and tests.
	$(VENV)/bin/ruff check gsvendor tests benchmarks

test: venv tools lint ## Lint and run the test suite (needs ../shared/upstream).
	$(VENV)/bin/pytest -q

bench: venv tools ## Print the benchmark figures.
	$(VENV)/bin/python benchmarks/bench_sync.py

.PHONY: patch-verify versions bench-patch-verify

patch-verify: venv ## Check patches/llmisvc applies to the pinned upstream (PATCH_SOURCE=… to read it elsewhere).
	$(GSVENDOR) patch-verify $(if $(PATCH_SOURCE),--source $(PATCH_SOURCE))

versions: venv ## Check every place the upstream version is written follows Dockerfile.llmisvc.
	$(GSVENDOR) versions --check

bench-patch-verify: venv ## Print patch-verify vs clone + git apply figures.
	$(VENV)/bin/python benchmarks/bench_patch_verify.py
