# Two commands on a fresh machine with Python 3.11 (no conda needed):
#   make run   - create .venv, install, run the headline comparison, write results/
#   make test  - create .venv, install, run every test
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m simulations scenario --all --out results/incidents

test: $(STAMP)
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
