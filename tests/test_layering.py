"""The house's layering, computed from the import graph (``ast``, every import
anywhere in a module, lazy ones included):

- ``core`` imports no domain package and no ``cli``;
- no domain package imports ``cli`` (the CLI calls the domain, never back);
- a domain package imports only the domains listed for it in ``ALLOWED``
  (the one list of domain→domain edges: a new dependency is a decision, made
  here, not an accident);
- the packages form no cycle: not even through a lazy import (one inside a
  function cannot make an import-time cycle, but it still ties the two
  packages together, so it counts).
"""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from pathlib import Path

from tests.conftest import REPO

PACKAGE = REPO / "openalice"

#: Top layers: may import any domain; nothing imports them.
TOP = {"cli", "__main__"}
#: Data directories shipped inside the package (no code).
DATA = {"default", "presets", "spec"}

#: Every allowed domain → domain edge (``core`` is always allowed and not listed).
ALLOWED = {
    "adapters": {"credentials"},
    "agents": {"adapters", "credentials", "models"},
    "connectors": {"inbox", "issues", "journal", "workspaces"},
    "conversations": {"inbox", "issues", "runs", "sessions", "workspaces"},
    "credentials": {"models"},
    "doctor": {"agents", "connectors", "credentials", "harness", "preferences", "runs", "schedule", "sessions",
               "workspaces"},
    "gateway": {"connectors", "inbox", "issues", "journal", "runs", "workspaces"},
    "harness": {"agents", "journal", "managed", "runs", "workspaces"},
    "inbox": {"journal", "runs", "workspaces"},
    "issues": {"agents", "credentials", "journal", "models", "sessions"},
    "journal": set(),
    "managed": {"journal", "workspaces"},   # the ritual: the caller rule, the checkout lease, the fact
    "manager": {"agents", "sessions", "workspaces"},
    "models": set(),
    "preferences": {"agents", "credentials", "models"},
    "runs": {"agents", "issues", "journal", "sessions", "workspaces"},
    "schedule": {"connectors", "conversations", "issues", "runs", "workspaces"},
    "sessions": {"agents", "credentials", "journal", "models", "preferences"},
    "stickers": {"harness", "journal", "managed", "workspaces"},
    "studio": {"journal", "managed", "runs", "workspaces"},
    "workspaces": set(),
}

def _module_name(path: Path) -> tuple[str, bool]:
    rel = path.relative_to(REPO).with_suffix("")
    parts = list(rel.parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts.pop()
    return ".".join(parts), is_package


def _imports(path: Path) -> list[tuple[str, bool]]:
    """``(imported module, at module level)`` for every import in the file."""
    module, is_package = _module_name(path)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    top_level = {id(node) for node in tree.body}
    # `if TYPE_CHECKING:` blocks at the top count as top level (they never run, but say a dependency).
    for node in tree.body:
        if isinstance(node, ast.If):
            top_level.update(id(child) for child in node.body)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, id(node) in top_level) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((target, id(node) in top_level))
            # `from openalice import journal` imports the package openalice.journal
            found += [(f"{target}.{alias.name}", id(node) in top_level) for alias in node.names]
    return found


def _package_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "openalice" or len(parts) < 2:
        return None
    name = parts[1]
    if name in DATA or not ((PACKAGE / name).is_dir() or (PACKAGE / f"{name}.py").is_file()):
        return None  # a data directory, or a name such as `__version__`
    return name


@functools.cache
def package_edges() -> dict[tuple[str, str], list[tuple[str, str, bool]]]:
    """``(from package, to package) -> [(module, imported module, at module level)]``."""
    edges: dict[tuple[str, str], list] = defaultdict(list)
    for path in sorted(PACKAGE.rglob("*.py")):
        module, _ = _module_name(path)
        source = _package_of(module)
        if source is None:
            continue
        for target_module, at_top in _imports(path):
            target = _package_of(target_module)
            if target is not None and target != source:
                edges[(source, target)].append((module, target_module, at_top))
    return edges


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` (a list of nodes), or None."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def _where(edge) -> str:
    return "; ".join(f"{m} imports {t}" for m, t, _ in package_edges()[edge][:3])


def test_the_graph_is_computed_from_real_imports():
    # the parser sees both module-level and lazy imports (a guard against an empty graph)
    assert ("cli", "core") in package_edges() and ("workspaces", "core") in package_edges()
    assert any(not top for _, _, top in package_edges()[("cli", "workspaces")])
    assert set(ALLOWED) | TOP | {"core"} == {
        p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()
    } | {"__main__"}, "a package is missing from ALLOWED (or ALLOWED names one that is gone)"


def test_core_imports_no_domain_and_no_cli():
    bad = sorted(f"{e[1]}: {_where(e)}" for e in package_edges() if e[0] == "core")
    assert bad == [], bad


def test_no_domain_imports_the_cli():
    bad = sorted(f"{e[0]}: {_where(e)}" for e in package_edges() if e[1] in TOP and e[0] not in TOP)
    assert bad == [], bad


def test_domain_edges_are_exactly_the_allowed_ones():
    actual = {e for e in package_edges() if e[0] in ALLOWED and e[1] in ALLOWED}
    allowed = {(a, b) for a, targets in ALLOWED.items() for b in targets}
    unlisted = sorted(f"{a} -> {b} ({_where((a, b))})" for a, b in actual - allowed)
    assert unlisted == [], f"new domain dependencies (decide, then list them in ALLOWED): {unlisted}"
    stale = sorted(f"{a} -> {b}" for a, b in allowed - actual)
    assert stale == [], f"ALLOWED lists edges no import makes any more: {stale}"


def test_no_package_cycles():
    graph: dict[str, set[str]] = defaultdict(set)
    for a, b in package_edges():
        if a not in TOP and b != "core":
            graph[a].add(b)
    cycle = _cycle(graph)
    assert cycle is None, f"package cycle: {' -> '.join(cycle)} ({_where(tuple(cycle[:2]))})"


def test_the_cycle_check_sees_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
