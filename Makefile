# The two commands of the README's quick start: `make serve` and `make test`.
# Both create .venv and install what they need; nothing else has to be set up by hand.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
HOST   ?= 127.0.0.1
PORT   ?= 6443
PYTEST_ARGS ?=

.PHONY: serve test venv test-deps kube-binaries bench bench-compare bench-agree clean load cluster conformance envtest-suites

export PATH := /usr/local/go/bin:$(PATH)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test,load]'
	touch $(STAMP)

# fakeapi's bytecode, written even where PYTHONDONTWRITEBYTECODE is set (stale or missing
# .pyc files are compiled again at every start: 0.1 s of a 0.5 s start); up to date, a no-op.
venv: $(STAMP)
	@$(BIN)/python -m compileall -q fakeapi >/dev/null

## Start fakeapi on 127.0.0.1:6443 with the in-memory store; writes ./kubeconfig.
serve: venv
	$(BIN)/fakeapi serve --host $(HOST) --port $(PORT) --kubeconfig ./kubeconfig

## A whole fake cluster on 127.0.0.1:6443: fakeapi, the real kube-controller-manager and
## kube-scheduler, kwok's fake nodes (`make cluster NODES=1000 STAGES=fast`); Ctrl-C stops it.
## Writes ./kubeconfig, logs in ./cluster-logs/. The first run builds the binaries.
NODES  ?= 100
STAGES ?= fast
cluster: venv
	bash scripts/build-kube.sh kube-controller-manager kube-scheduler kwok >/dev/null
	$(BIN)/fakeapi cluster --nodes $(NODES) --stages $(STAGES) --port $(PORT) --kubeconfig ./kubeconfig --logs ./cluster-logs

## System dependencies of the tests (etcd for differential tests, kubectl, Go); fails loudly.
test-deps:
	bash scripts/ensure-test-deps.sh

## The real control plane the tests compare against and run beside fakeapi (kube-apiserver,
## kube-controller-manager, kube-scheduler, kubectl v1.35.4, etcd/etcdctl v3.6.6, kwok v0.8.0), built from the
## Go module proxy into ~/.cache/fakeapi (about 6 minutes cold on 2 cores; seconds when cached).
kube-binaries:
	bash scripts/build-kube.sh >/dev/null

## Everything: store unit tests, HTTP tests with real clients (kubectl, the Python client), the
## differential suite against the real kube-apiserver, the real controllers on fakeapi. kubectl is
## the v1.35.4 just built (the release fakeapi emulates), whatever the machine has.
test: venv test-deps kube-binaries
	PATH="$$(bash scripts/build-kube.sh):$$PATH" $(BIN)/pytest -q $(PYTEST_ARGS)

## kubernetes v1.35.4's conformance e2e specs (e2e.test, built on first run) on a fakeapi cluster
## (3 kwok nodes, the real controller manager and scheduler); KUBE=1 runs them on the real
## kube-apiserver + etcd first and prints both side by side. FOCUS='\[sig-apps\].*\[Conformance\]'
## narrows the default (the conformance specs of sig-api-machinery, apps, node, scheduling, auth);
## SKIP=REGEX skips more; PROCS=4 runs the specs on four processes (ginkgo's CLI, as `make test`
## does). Results in results/conformance-<time>/ (scripts/conformance.py --help).
FOCUS ?=
SKIP  ?=
PROCS ?= 1
conformance: venv
	$(BIN)/python scripts/conformance.py $(if $(FOCUS),--focus '$(FOCUS)') $(if $(SKIP),--skip '$(SKIP)') \
		--procs $(PROCS) $(if $(KUBE),--kube) $(ARGS)

## controller-runtime v0.23.3's own envtest suites (pkg/envtest, client, cache, manager, builder,
## controller, webhook; built on first run) with KUBEBUILDER_ASSETS at the real kube-apiserver v1.35.4 and at
## `fakeapi envtest`'s files, one table of both. PACKAGES=client,cache narrows them, FOCUS=REGEX
## runs matching specs alone. Results in results/envtest-suites-<time>/ (scripts/envtest_suites.py --help).
PACKAGES ?=
envtest-suites: venv
	$(BIN)/python scripts/envtest_suites.py $(if $(PACKAGES),--packages '$(PACKAGES)') $(if $(FOCUS),--focus '$(FOCUS)') $(ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis

## Store benchmark (prints numbers; not a test). `make bench ARGS=--quick` for a short run.
bench: venv
	$(BIN)/python benchmarks/store_bench.py $(ARGS)

## fakeapi against the real kube-apiserver + etcd, same client-go workloads, one table with ratios;
## the full run (~1 h) writes docs/benchmarks.md. `make bench-compare QUICK=1` for ~3 minutes;
## ARGS="--only fanout --fakeapi-arg=--workers=2" (benchmarks/compare.py --help).
bench-compare: venv
	$(BIN)/python benchmarks/compare.py $(if $(QUICK),--quick) $(ARGS)

## Locust (loadtests/loadgen_workloads.py) against that Go load generator, the same workloads on one
## fakeapi: ops/s side by side, agreeing within 20 %? ~8 min; `make bench-agree QUICK=1` ~2 min.
bench-agree: venv
	$(BIN)/python benchmarks/locust_vs_loadgen.py $(if $(QUICK),--quick) $(ARGS)

## A load profile, headless, against a freshly seeded fakeapi on 127.0.0.1; reports and plots
## in results/<profile>-<timestamp>/. `make load PROFILE=watch-fanout USERS=200 DURATION=60s`
## (profiles: loadtests/README.md; knobs: KNOBS="WRITE_QPS=10 WRITERS=4"). Locust runs one
## process per core left after the server; PROCESSES=N chooses.
PROFILE ?= watch-fanout
load: venv
	$(BIN)/python loadtests/run.py $(PROFILE) $(if $(USERS),--users $(USERS)) $(if $(DURATION),--duration $(DURATION)) \
		$(if $(PROCESSES),--processes $(PROCESSES)) $(foreach knob,$(KNOBS),--set $(knob))
