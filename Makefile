# The README's two commands are `make demo` and `make test`; both work on a
# fresh machine with only Python 3.11+ and pip.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
BENCH_VENV ?= .venv-bench
PYTEST_ARGS ?=

.PHONY: test demo bench install venv clean screenshots

$(BIN)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

venv: $(BIN)/.installed

test: $(BIN)/.installed
	@if command -v npm >/dev/null 2>&1; then scripts/setup-agent-clis || echo "warning: setup-agent-clis failed; the realcli tests will report why" >&2; fi
	@scripts/setup-browser || echo "warning: no Chromium; the browser tests (tests/web) will say why they skip" >&2
	$(BIN)/python -m pytest $(PYTEST_ARGS)

demo: $(BIN)/.installed
	$(BIN)/python scripts/demo.py

# Each view of the web page (alice serve) in headless Chromium → docs/img/web-*.png
screenshots: $(BIN)/.installed
	scripts/setup-browser
	$(BIN)/python scripts/screenshots.py

# Peers (PyYAML, jsonschema, croniter) live only in the bench environment.
bench:
	test -x $(BENCH_VENV)/bin/python || $(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install --quiet --disable-pip-version-check . -r bench/requirements.txt
	$(BENCH_VENV)/bin/python bench/run_all.py

install:
	$(PYTHON) -m pip install .

clean:
	rm -rf $(VENV) $(BENCH_VENV) build dist *.egg-info
