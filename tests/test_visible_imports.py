"""Imports you can see: an import inside a function is there only because
start-up needs it lazy, and it says why (``# lazy: <reason>``) on its own line,
on the comment line just above it, or above the group of imports it belongs to.
Everywhere else imports sit at the top of the module, where a reader sees the
real dependencies."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "openalice"


def unexplained_imports(source: str) -> list[int]:
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for parent in ast.walk(node):
            body = [getattr(parent, name, None) for name in ("body", "orelse", "finalbody", "handlers")]
            for block in body:
                if not isinstance(block, list):
                    continue
                group: list[ast.stmt] = []
                for stmt in block + [None]:
                    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                        group.append(stmt)
                        continue
                    if group:
                        first, last = group[0].lineno - 1, group[-1].end_lineno
                        context = lines[max(0, first - 2):last]
                        if not any("lazy" in line for line in context):
                            found.append(group[0].lineno)
                        group = []
    return sorted(set(found))


def test_the_check_sees_an_import_without_a_reason_and_accepts_one_with_it():
    bare = "def f():\n    import json\n    return json\n"
    explained = "def f():\n    # lazy: only f needs it\n    import json\n    import re\n    return json, re\n"
    inline = "def f():\n    import json  # lazy: only f needs it\n    return json\n"
    assert unexplained_imports(bare) == [2]
    assert unexplained_imports(explained) == unexplained_imports(inline) == []


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("module", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_import_inside_a_function_says_why_it_is_lazy(module):
    lines = unexplained_imports(module.read_text(encoding="utf-8"))
    assert not lines, [f"{module.relative_to(PACKAGE.parent)}:{n}" for n in lines]
