# Two commands on a fresh machine with Python 3.11 (no conda needed):
#   make run   - create .venv, install, run the headline comparison, write results/
#   make test  - create .venv, install, run every test
#   make results - regenerate every committed result under results/
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test results clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m simulations scenario --all --out results/incidents

results: $(STAMP)
	$(BIN)/python -m simulations scenario --all --out results/incidents
	$(BIN)/python -m simulations run simulations/configs/rolling_restart.toml \
		--out results/runs/rolling_restart

test: $(STAMP)
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
