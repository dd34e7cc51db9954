"""core.patterns: a pattern compiled at its first use answers as re's own does,
and no module of the package compiles one at import."""

import ast
import re

from openalice.core import patterns
from tests.conftest import REPO


def test_compiles_at_first_use_and_answers_as_re_does():
    lazy = patterns.compile(r"(?i)([a-z]+)-(\d+)")
    assert "_compiled" not in vars(lazy)
    real = re.compile(r"(?i)([a-z]+)-(\d+)")
    for text in ("ABC-12", "x-1 y-2", "-3", "", "abc-"):
        assert bool(lazy.match(text)) == bool(real.match(text))
        mine, theirs = lazy.fullmatch(text), real.fullmatch(text)
        assert (mine and mine.groups()) == (theirs and theirs.groups())
        assert lazy.findall(text) == real.findall(text)
        assert lazy.sub("#", text) == real.sub("#", text)
        assert lazy.split(text) == real.split(text)
    assert "_compiled" in vars(lazy)
    assert (lazy.pattern, lazy.flags, lazy.groups) == (real.pattern, real.flags, real.groups)
    # the compiled pattern, for the re functions that want a real one
    assert re.sub(lazy.compiled(), "#", "ab-1") == "#"
    assert lazy.compiled() is lazy.compiled()


def test_bytes_patterns_and_errors_at_first_use():
    assert patterns.compile(rb"\d+").findall(b"a1b22") == [b"1", b"22"]
    bad = patterns.compile("(")  # nothing is compiled yet, so nothing fails yet
    try:
        bad.match("x")
    except re.error:
        pass
    else:
        raise AssertionError("an invalid pattern must fail at its first use")


def test_no_module_compiles_a_pattern_at_import():
    """A module-level ``re.compile`` costs every verb that imports the module about
    0.2 ms (issue 28): module-level patterns go through core.patterns."""
    found = []
    for path in sorted((REPO / "openalice").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            value = getattr(node, "value", None)
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                    and value.func.attr == "compile" and getattr(value.func.value, "id", None) == "re":
                found.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert found == [], f"module-level re.compile (use openalice.core.patterns.compile): {found}"
