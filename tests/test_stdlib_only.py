"""The runtime is standard library only: every import under openalice/ must be."""

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "openalice"
# CPython's builtin SHA-256 module under both of its names (``_sha256`` to 3.11, ``_sha2`` from
# 3.12: each version's stdlib_module_names lists only its own); openalice/core/digests.py
# imports the one the running interpreter lists.
ALLOWED = set(sys.stdlib_module_names) | {"openalice", "__future__", "_sha256", "_sha2"}


def imports_of(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module


def test_every_import_is_stdlib_or_openalice():
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) > 10
    bad = [f"{f.relative_to(PACKAGE.parent)}:{line}: {name}"
           for f in files for line, name in imports_of(f) if name.split(".")[0] not in ALLOWED]
    assert bad == []


def test_checker_catches_a_third_party_import(tmp_path):
    sample = tmp_path / "x.py"
    sample.write_text("import yaml\nfrom requests import get\nimport json\n")
    names = [name for _, name in imports_of(sample)]
    assert [n for n in names if n.split(".")[0] not in ALLOWED] == ["yaml", "requests"]
