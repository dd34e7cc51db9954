"""The benchmark scripts import each other's helpers (``from bench_inbox import
write_entries``, ``from _common import ...``).  They only run under ``make
bench``, so a renamed helper would go unnoticed until then: this checks every
such import against the names the imported script really defines."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


def top_level_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        names.add(name.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def sibling_imports(path: Path) -> list[tuple[str, str, int]]:
    """(module, name, line) of every ``from <bench script> import name``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and (BENCH / f"{node.module}.py").is_file():
            found += [(node.module, a.name, node.lineno) for a in node.names]
    return found


SCRIPTS = sorted(BENCH.glob("*.py"))


def test_there_are_benchmarks_that_share_helpers():
    assert any(sibling_imports(p) for p in SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_helper_a_benchmark_imports_exists(script):
    missing = [f"{script.name}:{line}: {module}.{name}"
               for module, name, line in sibling_imports(script)
               if name != "*" and name not in top_level_names(BENCH / f"{module}.py")]
    assert not missing, missing
