# Two entry points for a fresh machine with only Python 3.11:
#   make demo   -> creates .venv, installs migrate-lens, fetches segment-anything 1.0 (pinned, from PyPI)
#                  and scans it: .demo/report/report.html (+ json, sarif, md)
#   make test   -> creates .venv, installs migrate-lens with the test and verify extras (torch 2.13.0 CPU,
#                  jax, flax) and Chromium for the browser tests, then runs the whole test suite
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DEMO_PACKAGE ?= segment-anything==1.0

.PHONY: demo test install install-test browser clean calibrate

# pip prints one line per package it collects and a progress bar per download (torch is ~200 MB):
# no -q, so a long install is never silent.
$(BIN)/python:
	@echo "== creating $(VENV) with $(PY)"
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --progress-bar on --upgrade pip

install: $(BIN)/python
	@echo "== installing migrate-lens into $(VENV)"
	$(BIN)/pip install --progress-bar on -e .
	@echo "== done: run '. $(VENV)/bin/activate' to put migrate-lens on PATH (or call $(BIN)/migrate-lens)"

install-test: $(BIN)/python
	@echo "== installing migrate-lens with the test and verify extras (torch CPU, jax, flax: a few minutes)"
	$(BIN)/pip install --progress-bar on -e '.[test,verify]'

browser:
	@command -v chromium >/dev/null 2>&1 || (echo "== installing Chromium for the browser tests (apt-get)" && apt-get update -qq && apt-get install -y -qq chromium >/dev/null) \
	  || echo "chromium not installed: browser tests will be skipped"

demo: install
	rm -rf .demo/wheels .demo/src
	@echo "== fetching $(DEMO_PACKAGE) from the package index"
	$(BIN)/pip download --progress-bar on --no-deps --only-binary=:all: --dest .demo/wheels '$(DEMO_PACKAGE)'
	$(BIN)/python -m zipfile -e .demo/wheels/*.whl .demo/src
	$(BIN)/migrate-lens scan .demo/src --out .demo/report --format html,json,sarif,md
	@echo "open .demo/report/report.html"
	@echo "next: '. $(VENV)/bin/activate', then the README's commands work as written (migrate-lens scan .demo/src ...)"

# -rs: every skipped test is listed with its reason at the end
test: install-test browser
	$(BIN)/python -m pytest -q -rs

calibrate: install
	$(BIN)/python scripts/calibrate.py

clean:
	rm -rf $(VENV) .demo
