# The README's two commands are `make demo` and `make test`; both work on a
# fresh machine with only Python 3.11+ and pip.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
BENCH_VENV ?= .venv-bench
PYTEST_ARGS ?=
# Test workers (pytest-xdist): one per core, at most 4; TEST_JOBS=1 runs in one
# process.  A file's tests stay on one worker (--dist loadfile: they share
# module fixtures such as the browser page).  The real agent CLIs' turns run
# afterwards on their own, not beside the rest (their TUIs want the CPU when they
# draw), but on every worker at once: a turn mostly waits for a Node start-up and
# the fake server, each worker has its own network namespace and fake server on
# its own port, and one test is one CLI (--dist load).
TEST_JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); [ "$$n" -gt 4 ] && n=4; echo $$n)
XDIST = $(if $(filter 0 1,$(TEST_JOBS)),,-n $(TEST_JOBS) --dist loadfile)
XDIST_REALCLI = $(if $(filter 0 1,$(TEST_JOBS)),,-n $(TEST_JOBS) --dist load)

.PHONY: test test-fast lint demo bench install venv clean screenshots soak

# The suites compile once: where the environment sets PYTHONDONTWRITEBYTECODE
# (some sandboxes and CI images do), every test worker re-rewrote all 200 test
# modules' asserts (9 s each) and every tool process started from source.  The
# bytecode goes to .pycache/ (ignored by git), never beside the sources: a
# __pycache__ under presets/ would be packaged as data.
test test-fast: export PYTHONDONTWRITEBYTECODE :=
test test-fast: export PYTHONPYCACHEPREFIX := $(CURDIR)/.pycache

# pip 26 and later write console-script wrappers without `import re` (older
# ones import it before our first line: 5-8 ms of every tool start), so every
# venv built here upgrades pip before installing the tools.  Not fatal: an
# older pip only costs start-up time.
#
# pip's own output (setuptools' notices, an index's warnings) goes to a log file
# beside the venv (scripts/pip-logged); only a pip that fails shows it, its tail.
PIP = scripts/pip-logged
PIP_ARGS = --disable-pip-version-check
pip_upgrade = $(PIP) $(1)/pip.log $(1)/bin/python install $(PIP_ARGS) --upgrade 'pip>=26' 2>/dev/null \
	|| echo "warning: could not upgrade pip (see $(1)/pip.log); console scripts will start a few ms slower" >&2

$(BIN)/.installed: pyproject.toml Makefile
	@echo "make: installing the toolkit and its test tools into $(VENV) (pip's log: $(VENV)/pip.log)" >&2
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(call pip_upgrade,$(VENV))
	@$(PIP) $(VENV)/pip.log $(BIN)/python install $(PIP_ARGS) -e '.[test]'
	@touch $@

venv: $(BIN)/.installed

# `make test` also installs the four real agent CLIs from npm (about 1.2 GB, several
# minutes the first time; AGENT_CLIS_DIR reuses an existing install) for tests/realcli.
# `make test-fast` runs everything else and downloads nothing.  npm's cache and the CLIs'
# config stay under that directory, never in $HOME (scripts/setup-agent-clis).  Then
# scripts/setup-browser: as root it installs Debian's chromium and chromium-driver with
# apt-get (saying so first); as another user it installs nothing and says how.
test: $(BIN)/.installed
	@echo "make test: installing the pinned real agent CLIs from npm into $${AGENT_CLIS_DIR:-.agent-clis} for tests/realcli (about 1.2 GB and several minutes the first time; verified only afterwards). 'make test-fast' skips them." >&2
	@if command -v npm >/dev/null 2>&1; then scripts/setup-agent-clis || echo "warning: setup-agent-clis failed; the realcli tests will report why" >&2; else echo "make test: npm not found; the realcli tests will say why they skip" >&2; fi
	@scripts/setup-browser || echo "warning: no Chromium; the browser tests (tests/web) will say why they skip" >&2
	$(BIN)/python -m pytest -m "not realcli" $(XDIST) $(PYTEST_ARGS)
	$(BIN)/python -m pytest -m realcli $(XDIST_REALCLI) $(PYTEST_ARGS) || [ $$? -eq 5 ]  # 5: PYTEST_ARGS chose none

# The repository's lint (pyproject's [tool.ruff]): pyflakes, import order, stale noqa comments.
lint: $(BIN)/.installed
	$(BIN)/python -m ruff check openalice tests bench scripts

# The fast suite: everything but the real agent CLIs and the long loops (marker
# `slow`); the CLI tests run the tools in-process (tests/helpers/cli.py).
# OPENALICE_TEST_CLI=process makes every cli(...) call a subprocess instead.
test-fast: $(BIN)/.installed
	$(BIN)/python -m pytest -m "not realcli and not slow" $(XDIST) $(PYTEST_ARGS)

demo: $(BIN)/.installed
	$(BIN)/python scripts/demo.py

# The reliability suite, long: kill -9 across every writer, concurrency, secret
# canaries, the cat race and the parser fuzz; the figures go to docs/reliability.md.
# (A short run of the same suite is part of `make test`: tests/reliability.)
SOAK_ARGS ?=
soak: $(BIN)/.installed
	$(BIN)/python -m tests.reliability.soak --write docs/reliability.md $(SOAK_ARGS)

# Each view of the web page (alice serve) in headless Chromium → docs/img/web-*.png
screenshots: $(BIN)/.installed
	scripts/setup-browser
	$(BIN)/python scripts/screenshots.py

# Peers (PyYAML, jsonschema, croniter) live only in the bench environment.
bench:
	@echo "make bench: installing the toolkit and the peers into $(BENCH_VENV) (pip's log: $(BENCH_VENV)/pip.log)" >&2
	@test -x $(BENCH_VENV)/bin/python || $(PYTHON) -m venv $(BENCH_VENV)
	@$(call pip_upgrade,$(BENCH_VENV))
	@$(PIP) $(BENCH_VENV)/pip.log $(BENCH_VENV)/bin/python install $(PIP_ARGS) . -r bench/requirements.txt
	$(BENCH_VENV)/bin/python bench/run_all.py

# `make install`: with pipx when it is there (its own venv, tools on pipx's bin dir);
# else into a venv of its own, $(INSTALL_VENV), with the five tools linked into
# $(INSTALL_BIN). Never `pip install` into the system Python, which refuses it
# where it is externally managed (PEP 668: Debian, Ubuntu, Homebrew, ...).
INSTALL_VENV ?= $(HOME)/.local/share/openalice/venv
INSTALL_BIN ?= $(HOME)/.local/bin
TOOLS := alice alice-schedule alice-inbox alice-harness harness-adapter

install:
	@if command -v pipx >/dev/null 2>&1; then \
	  echo "make install: installing with pipx (pipx install --force .)"; \
	  pipx install --force . ; \
	else \
	  echo "make install: pipx not found; installing into the venv $(INSTALL_VENV) and linking the tools into $(INSTALL_BIN)"; \
	  set -e; \
	  test -x "$(INSTALL_VENV)/bin/python" || $(PYTHON) -m venv "$(INSTALL_VENV)"; \
	  $(call pip_upgrade,"$(INSTALL_VENV)"); \
	  $(PIP) "$(INSTALL_VENV)/pip.log" "$(INSTALL_VENV)/bin/python" install $(PIP_ARGS) --upgrade . ; \
	  echo "make install: installed (pip's log: $(INSTALL_VENV)/pip.log)"; \
	  mkdir -p "$(INSTALL_BIN)"; \
	  for tool in $(TOOLS); do ln -sf "$(INSTALL_VENV)/bin/$$tool" "$(INSTALL_BIN)/$$tool"; done; \
	  echo "make install: done; $(INSTALL_BIN) must be on your PATH"; \
	fi

clean:
	rm -rf $(VENV) $(BENCH_VENV) build dist *.egg-info
