"""The suite needs nothing outside this checkout (issue 10): a clone anywhere runs it all.

The recorded agent streams and the JSON Schema Test Suite data live in ``tests/data/`` with
their licence; no test or module looks for a ``shared/`` directory beside or above the
repository, or for an environment variable naming one.  PyYAML, which the differential
frontmatter tests compare against, is a test dependency, so those tests run wherever the
suite does.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from tests.testdata import AGENT_STREAMS, JSON_SCHEMA_SUITE

REPO = Path(__file__).resolve().parent.parent
# (the alternations keep this file from naming the very lookups it forbids)
LOOKUPS = re.compile(r"OPENALICE_(?:FIXTURES|CONFORMANCE)_DIR|shared/(?:fixtures|conformance)"
                     r"|[\"']shared[\"']")


def _sources():
    for top in ("openalice", "tests", "scripts", "bench", "bin", ".ci"):
        for path in sorted((REPO / top).rglob("*")):
            if path.is_file() and "data" not in path.relative_to(REPO).parts[:2] \
                    and path.suffix in ("", ".py", ".sh") and path != Path(__file__):
                yield path
    yield REPO / "Makefile"


def test_nothing_looks_for_data_outside_the_checkout():
    found = []
    for path in _sources():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        found += [f"{path.relative_to(REPO)}:{n}" for n, line in enumerate(text.splitlines(), 1)
                  if LOOKUPS.search(line)]
    assert found == []


def test_the_data_is_in_the_repository_with_its_licence():
    assert (JSON_SCHEMA_SUITE.parent / "LICENSE").is_file()
    assert (JSON_SCHEMA_SUITE / "type.json").is_file()
    assert sorted(p.name for p in AGENT_STREAMS.glob("*-stream.jsonl"))  # replayed by the stand-ins
    assert (AGENT_STREAMS / "README.md").is_file() and (AGENT_STREAMS / "help" / "claude.txt").is_file()
    assert (REPO / "tests" / "data" / "README.md").is_file()


def test_pyyaml_is_a_test_dependency():
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(re.match(r"(?i)pyyaml\b", requirement) for requirement in extras["test"])
    import yaml  # noqa: F401  (installed with the test extra)


# A recording machine's home, written plainly (/home/<user>/, /Users/<user>/, /root/) or encoded
# into a name the way Claude names a project's memory directory (-home-<user>-...).
MACHINE_HOME = re.compile(r"(?:/home|/Users)/[^/\s\"']+/|/root/|[-/](?:home|Users)-[A-Za-z0-9_.]+-")


def test_the_recordings_name_no_machine_home():
    found = []
    for path in sorted(AGENT_STREAMS.rglob("*")):
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            found += [f"{path.relative_to(REPO)}:{n}: {m.group(0)}"
                      for n, line in enumerate(text.splitlines(), 1) for m in MACHINE_HOME.finditer(line)]
    assert found == [], found[:5]
