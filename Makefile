# Two commands on a fresh machine with Python 3.11 (no conda needed):
#   make run   - create .venv, install, print the incident matrix and a small version of the
#                headline comparison (results/quick/sweep, with figures)
#   make test  - create .venv, install, lint (ruff check), run every test
#   (both compile model/ and the engines' hot loops with mypyc first when a C compiler is there;
#   without one, or with MCP_MODEL_PURE=1, they run from source: the same results, slower)
#   make results - regenerate every committed result under results/ (conformance needs nginx),
#                  the conformance runs beside the niced DES and verification runs
#   make des-results - the incidents and the discrete-event runs and sweeps alone (minutes)
#   make verification - the verification matrix alone: results/verification/matrix
#   make conformance - the model against the real MCP SDK behind nginx: results/conformance
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
COMPILED := $(BIN)/python -m simulations compile

.PHONY: run test results des-results verification conformance compiled ts-sdk clean \
	des-then-verification des-runs verification-matrix conformance-runs

# The MCP TypeScript SDK for the conformance harness's `ts` server, pinned by its lockfile. Without
# npm it says so and the TypeScript cases skip; under MCP_CONFORMANCE_REQUIRED=1 (CI) it fails.
TS_SDK := simulations/conformance/ts
$(TS_SDK)/node_modules/.package-lock.json: $(TS_SDK)/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --prefix $(TS_SDK) --no-audit --no-fund --loglevel=error; \
	else \
		echo "npm not found: the TypeScript SDK conformance cases will skip"; \
		if [ -n "$$MCP_CONFORMANCE_REQUIRED" ]; then exit 1; fi; \
	fi

ts-sdk: $(TS_SDK)/node_modules/.package-lock.json

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e '.[dev,conformance,compiled]'
	touch $(STAMP)

# The compiled model and engines: a no-op while every _native/ matches the sources; never fails
# the build (it says why the sources are used instead).
compiled: $(STAMP)
	$(COMPILED)

run: compiled
	$(BIN)/python -m simulations scenario --all --out results/quick/incidents
	$(BIN)/python -m simulations sweep simulations/sweeps/quick.toml --out results/quick/sweep \
		--workers 2
	$(BIN)/python -m simulations figures results/quick/sweep

# Everything, in two lanes side by side: the conformance runs, which mostly wait on their real
# servers (about 0.7 of one core over their 8 minutes), beside the DES results and then the
# verification matrix, which take whatever CPU is left: they run under `nice`, so the servers
# get the CPU they ask for as soon as they ask (their timing is what conformance judges). The
# README's generated blocks are rewritten once at the end, from every result.
results: compiled ts-sdk
	$(MAKE) -j2 NICE="nice -n 10" des-then-verification conformance-runs
	$(BIN)/python -m simulations readme

des-then-verification:
	$(MAKE) des-runs
	$(MAKE) verification-matrix

# The scripted incidents and the discrete-event results alone (a few minutes): the incident
# matrix, the default comparison and the three headline sweeps with figures and reports.
des-results: des-runs
	$(BIN)/python -m simulations readme

des-runs: compiled
	rm -rf results/sweeps
	$(NICE) $(BIN)/python -m simulations scenario --all --out results/incidents
	$(NICE) $(BIN)/python -m simulations run simulations/configs/rolling_restart.toml \
		--out results/runs/rolling_restart --workers 2
	for s in restart_frequency buffer_capacity transports; do \
		$(NICE) $(BIN)/python -m simulations sweep simulations/sweeps/$$s.toml \
			--out results/sweeps/$$s --workers 2 --quiet && \
		$(NICE) $(BIN)/python -m simulations figures results/sweeps/$$s && \
		$(NICE) $(BIN)/python -m simulations report results/sweeps/$$s || exit 1; \
	done
	$(NICE) $(BIN)/python -m simulations report results/runs/rolling_restart

# Every deployment of simulations/spaces/matrix.toml under every gate (resumable: cells/ keeps
# finished cells, so an interrupted run continues where it stopped).
verification: verification-matrix
	$(BIN)/python -m simulations readme --block verification-summary

verification-matrix: compiled
	$(NICE) $(BIN)/python -m simulations verify --space simulations/spaces/matrix.toml \
		--out results/verification/matrix --workers 2 --quiet

# The model against the real MCP SDKs (Python and TypeScript) and the guard, case by case and
# by differential testing (needs nginx: apt-get install nginx-light; and Node 20).
# Three units (a case on a server, a fleet cell, a server's differential run) at a time: each
# unit mostly waits on its real servers, so three share two cores (the same results, in order).
conformance: conformance-runs
	$(BIN)/python -m simulations readme --block conformance

conformance-runs: $(STAMP) ts-sdk
	$(BIN)/python -m simulations conformance --workers 3 --out results/conformance
	$(BIN)/python -m simulations conformance --workers 3 --out results/conformance/guarded \
		--server guard-naive --server guard-range --server guard-generation \
		--server guard-provenance
	$(BIN)/python -m simulations conformance --fleet --workers 3 --out results/conformance/fleet
	$(BIN)/python -m simulations conformance --differential --examples 200 --seed 0 \
		--workers 3 --out results/conformance/differential
	$(BIN)/python -m simulations conformance --transport stateless --workers 2 \
		--out results/conformance/stateless

test: compiled ts-sdk
	$(BIN)/ruff check .
	$(BIN)/python -m pytest --nbmake tests notebooks

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis model/_native simulations/explore/_native \
		simulations/des/_native $(TS_SDK)/node_modules
