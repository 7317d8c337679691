# presetsim — see README.md. `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help
GO ?= go
# Control-plane binaries: $PRESETSIM_BIN_DIR when set (as a run takes them,
# README), else built from source once per pin (hack/build-tools.sh).
BIN_DIR = $${PRESETSIM_BIN_DIR:-$$(hack/build-tools.sh)}

.PHONY: help
help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  %-10s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: tools
tools: ## build kube-apiserver, kube-controller-manager and etcd from source (cached)
	@hack/build-tools.sh >/dev/null

.PHONY: run
run: ## run the feature suite against the reference implementation
	@PRESETSIM_BIN_DIR=$(BIN_DIR) $(GO) run ./cmd/presetsim run $(ARGS)

.PHONY: test
test: ## generated files up to date, vet, unit tests and the feature suite with the race detector
	@mkdir -p .cache && date +%s > .cache/make-test.started
	hack/verify.sh
	hack/install-chromium.sh
	$(GO) vet ./...
	PRESETSIM_BIN_DIR=$(BIN_DIR) $(GO) test -race -timeout 20m ./...
	$(MAKE) --no-print-directory fuzz FUZZTIME=500x
	$(MAKE) --no-print-directory conformance-fuzz CASES=200
	@echo $$(( $$(date +%s) - $$(cat .cache/make-test.started) )) > .cache/make-test.seconds
	@echo "make test passed in $$(cat .cache/make-test.seconds) s (recorded for make bench)"

.PHONY: test-short
test-short: ## the contributors' fast lane: go test -short (no control plane, a sample of the mutants); make test is the gate
	$(GO) test -short ./...

# Generative conformance (presetsim fuzz, docs/guide.md "Generated cases"): the
# reference against the model, offline and on envtest, with a fixed seed.
CASES ?= 2000
.PHONY: conformance-fuzz
conformance-fuzz: ## presetsim fuzz: $(CASES) generated cases (seed 1), offline and on envtest, the reference against the model
	$(GO) run ./cmd/presetsim fuzz --backend offline --cases $(CASES) --seed 1 --report-dir .cache/fuzz/offline
	PRESETSIM_BIN_DIR=$(BIN_DIR) $(GO) run ./cmd/presetsim fuzz --cases $(CASES) --seed 1 --report-dir .cache/fuzz/envtest

# CHAINSAW: a chainsaw binary you built by hand (nothing here builds it):
# make bench then times the seed features side by side with it.
CHAINSAW ?=
.PHONY: bench
bench: ## start-up, per-scenario overhead, parallel speed-up, pod-create latency (webhook, policy), merge pods/s, scaling: offline scenarios/s, apply and fuzz cases/s with peak memory; with CHAINSAW=path, side by side with chainsaw; every figure beside its goal in reports/bench.json
	$(GO) test -run '^$$' -bench . -benchtime 2s ./presets/merge/ ./steps/
	mkdir -p reports
	PRESETSIM_BIN_DIR=$(BIN_DIR) $(GO) run -buildvcs=true ./cmd/presetsim bench --json reports/bench.json $(if $(CHAINSAW),--chainsaw $(CHAINSAW)) $(if $(wildcard .cache/make-test.seconds),--make-test-seconds $(shell cat .cache/make-test.seconds))
	$(MAKE) --no-print-directory conformance-fuzz CASES=2000

# The five seed features; internal/app/bench/bench.go's seedFeatures lists them too.
SEED_FEATURES = features/simple.feature features/configmap.feature features/replicaset.feature features/multiple.feature features/conflict.feature
# make test-kind: the seed features and the checks of any kind (features/objects.feature).
KIND_FEATURES = $(SEED_FEATURES) features/objects.feature
.PHONY: kind-image
kind-image: ## build the kind node image from Debian packages and source (cached; needs root and Docker)
	@hack/kind/build-node-image.sh >/dev/null

.PHONY: image
image: ## build presetsim:<version> FROM scratch: presetsim and the control plane, static binaries, nothing pulled (needs Docker)
	@hack/build-image.sh

.PHONY: test-image
test-image: ## build the image, then run the built-in suite in a container: offline, and on envtest inside it
	@image=$$(hack/build-image.sh) && echo "test-image: $$image" && \
	docker run --rm "$$image" run --backend offline && \
	docker run --rm "$$image" run

.PHONY: test-kind
test-kind: ## build the kind node image if needed, run the seed features on new kind clusters against the reference and the policy; then the in-cluster conformance Job, whole and in 3 shards (hack/kind/conformance.sh)
	@image=$$(hack/kind/build-node-image.sh) && \
	$(GO) run ./cmd/presetsim run --backend kind --kind-name presetsim-test --kind-image "$$image" $(KIND_FEATURES) $(ARGS) && \
	$(GO) run ./cmd/presetsim run --backend kind --kind-name presetsim-test --kind-image "$$image" --implementation policy $(KIND_FEATURES) $(ARGS) && \
	hack/kind/conformance.sh "$$image"

# Budgets are execution counts, not durations: Go 1.26's fuzz coordinator can
# fail a target with a bare "context deadline exceeded" when a duration ends
# (go.dev/issue/75804, fixed in Go 1.27); a count has no deadline to race.
FUZZTIME ?= 5000x
.PHONY: fuzz
fuzz: ## fuzz the merge engine, environment resolution, YAML decoding, webhook handler and its pod patches ($(FUZZTIME) inputs each)
	$(GO) test -run '^$$' -fuzz '^FuzzApply$$' -fuzztime $(FUZZTIME) ./presets/merge/
	$(GO) test -run '^$$' -fuzz '^FuzzResolve$$' -fuzztime $(FUZZTIME) ./internal/containerenv/
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) ./internal/manifest/
	$(GO) test -run '^$$' -fuzz '^FuzzHandler$$' -fuzztime $(FUZZTIME) ./internal/webhook/
	$(GO) test -run '^$$' -fuzz '^FuzzPodPatch$$' -fuzztime $(FUZZTIME) ./internal/webhook/

.PHONY: fuzz-rules
fuzz-rules: ## fuzz every module mutant offline (300 cases each, seed 7) and count the kinds of disagreement that name the mutant's rule first (docs/mutation.md)
	$(GO) run ./hack/fuzzrules $(ARGS)

.PHONY: mutation
mutation: ## mutation-test presets/ with gremlins: admission, merge, model by the offline suite; explain by its goldens; policy by the suite on envtest and by generated cases offline; fails below 90 % of all mutants (docs/mutation.md)
	hack/mutation.sh

.PHONY: generate
generate: ## regenerate the PodPreset deepcopy functions and CRD manifest
	hack/generate.sh

.PHONY: verify
verify: ## check that generated files and formatting are up to date
	hack/verify.sh
