"""Private names stay inside their module (``ast``, every import and attribute use, lazy ones included).

A name spelled ``_name`` is its module's own business. When another openalice module needs it, it is
part of a seam: make it public and name it for what it is, or move it into the one module that uses it.
So no module under ``openalice/`` may

- ``from X import _name``, or
- use ``X._name`` where ``X`` is a name bound to a module (``import openalice.x as X``,
  ``from openalice import x``),

where ``X`` is another openalice module. Allowed: a module's own names, dunders (``__version__``), and
a package's own ``_internal`` module (``openalice/pkg/_internal.py`` may be used by ``openalice/pkg/...``).
Importing a private *module* (``from openalice.cli import _run``) is a module import, not a name: the
names used from it are checked.

``ALLOWLIST`` holds the crossings not fixed yet; it only shrinks (a stale entry fails too).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from tests.conftest import REPO

PACKAGE = REPO / "openalice"

#: ``"importer -> module._name"`` crossings not fixed yet: none (issue 29 item 1); keep it empty.
ALLOWLIST: set[str] = set()


def _module_name(path: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts.pop()
    return ".".join(parts), is_package


def _is_module(name: str) -> bool:
    parts = name.split(".")
    if parts[0] != "openalice":
        return False
    base = REPO.joinpath(*parts)
    return (base / "__init__.py").is_file() or base.with_suffix(".py").is_file()


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _own_internal(importer: str, target: str) -> bool:
    """``target`` is ``pkg._internal`` (or below it) and ``importer`` lives in ``pkg``."""
    parts = target.split(".")
    if "_internal" not in parts:
        return False
    package = ".".join(parts[:parts.index("_internal")])
    return importer == package or importer.startswith(package + ".")


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def crossings_in(source: str, module: str, is_package: bool = False) -> list[tuple[str, str, int]]:
    """``(target module, private name, line)`` for every private name ``module`` takes from another one."""
    tree = ast.parse(source)
    found: list[tuple[str, str, int]] = []
    bound: dict[str, str] = {}  # local name -> openalice module it is bound to (anywhere in the file)

    def note(target: str, name: str, line: int) -> None:
        if target != module and _private(name) and not _own_internal(module, target):
            found.append((target, name, line))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _is_module(alias.name):
                    if alias.asname:
                        bound[alias.asname] = alias.name
                    else:
                        bound[alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(module, is_package, node)
            if target.split(".")[0] != "openalice":
                continue
            for alias in node.names:
                if _is_module(f"{target}.{alias.name}"):
                    bound[alias.asname or alias.name] = f"{target}.{alias.name}"
                else:
                    note(target, alias.name, node.lineno)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        chain: list[str] = []
        base: ast.expr = node
        while isinstance(base, ast.Attribute):
            chain.append(base.attr)
            base = base.value
        if not isinstance(base, ast.Name) or base.id not in bound:
            continue
        chain.reverse()
        target = bound[base.id]
        for index, attr in enumerate(chain):
            if _is_module(f"{target}.{attr}"):
                target = f"{target}.{attr}"
                continue
            # every Attribute of a chain is walked: note the name only at the node that ends in it
            if index == len(chain) - 1:
                note(target, attr, node.lineno)
            break
    return found


@functools.cache
def crossings() -> dict[str, list[str]]:
    """``"importer -> module._name"`` -> the lines where it happens (``path:line``)."""
    result: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.is_symlink():
            continue
        module, is_package = _module_name(path)
        for target, name, line in crossings_in(path.read_text(encoding="utf-8"), module, is_package):
            key = f"{module} -> {target}.{name}"
            result.setdefault(key, []).append(f"{path.relative_to(REPO)}:{line}")
    return result


def test_no_private_name_crosses_a_module_outside_the_allowlist():
    found = crossings()  # read when a test asks, not while pytest collects
    new = sorted(f"{key} ({', '.join(found[key])})" for key in set(found) - ALLOWLIST)
    assert new == [], ("private names used from another module (make them public and named for what they are, "
                       f"or move them into the one module that uses them): {new}")


def test_the_allowlist_only_shrinks():
    stale = sorted(ALLOWLIST - set(crossings()))
    assert stale == [], f"fixed crossings still in ALLOWLIST (remove them): {stale}"


def test_the_scanner_sees_each_form():
    src = (
        "import openalice.core.fs as fs\n"
        "import openalice.core.clock\n"
        "from openalice.core import jsonl\n"
        "from openalice.core.schema.nodes import _Node, Public\n"
        "from .refs import _helper\n"
        "from ._internal import _fine\n"
        "from openalice import __version__\n"
        "def f():\n"
        "    from openalice.core.frontmatter import parser\n"
        "    return fs._sweep, openalice.core.clock._now(), jsonl.append, parser._Frame.x, _own\n"
    )
    found = sorted((t, n) for t, n, _ in crossings_in(src, "openalice.core.schema.compiler"))
    assert found == [
        ("openalice.core.clock", "_now"),
        ("openalice.core.frontmatter.parser", "_Frame"),
        ("openalice.core.fs", "_sweep"),
        ("openalice.core.schema.nodes", "_Node"),
        ("openalice.core.schema.refs", "_helper"),
    ]
    # a package's own _internal module is its own business, not another package's
    assert crossings_in("from openalice.core.schema._internal import _x\n", "openalice.core.schema.compiler") == []
    assert crossings_in("from openalice.core.schema._internal import _x\n", "openalice.runs.tasks") == [
        ("openalice.core.schema._internal", "_x", 1)]


def test_the_scan_sees_the_package():
    assert len(list(PACKAGE.rglob("*.py"))) > 100
