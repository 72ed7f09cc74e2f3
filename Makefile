# The two commands of the README's quick start: `make serve` and `make test`.
# Both create .venv and install what they need; nothing else has to be set up by hand.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
HOST   ?= 127.0.0.1
PORT   ?= 6443
PYTEST_ARGS ?=

.PHONY: serve test venv test-deps bench bench-compare clean load

export PATH := /usr/local/go/bin:$(PATH)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test,load]'
	touch $(STAMP)

venv: $(STAMP)

## Start fakeapi on 127.0.0.1:6443 with the in-memory store; writes ./kubeconfig.
serve: venv
	$(BIN)/fakeapi serve --host $(HOST) --port $(PORT) --kubeconfig ./kubeconfig

## System dependencies of the tests (etcd for differential tests, kubectl, Go); fails loudly.
test-deps:
	bash scripts/ensure-test-deps.sh

## Everything: store unit tests, HTTP tests with real clients (kubectl, the Python client).
test: venv test-deps
	$(BIN)/pytest -q $(PYTEST_ARGS)

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

## A load profile, headless, against a freshly seeded fakeapi on 127.0.0.1; reports and plots
## in results/<profile>-<timestamp>/. `make load PROFILE=watch-fanout USERS=200 DURATION=60s`
## (profiles: loadtests/README.md; knobs: KNOBS="WRITE_QPS=10 WRITERS=4").
PROFILE ?= watch-fanout
load: venv
	$(BIN)/python loadtests/run.py $(PROFILE) $(if $(USERS),--users $(USERS)) $(if $(DURATION),--duration $(DURATION)) \
		$(foreach knob,$(KNOBS),--set $(knob))
