"""A package that exports names lazily (module ``__getattr__``) answers the
exported object whatever was loaded before: loading a submodule binds its name
in the package, so ``harness.status`` (a function in ``harness/status.py``)
was the module once ``harness.health`` had loaded that file, in any process
that asked for both (the gateway, a test run in-process)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGES = sorted(".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "openalice").rglob("__init__.py")
                  if "def __getattr__" in p.read_text() or "lazy.exports(" in p.read_text())

PROBE = """
import importlib, sys, types
package = importlib.import_module(sys.argv[1])
names = list(package.__all__)
for name in names:             # each in turn, then all of them again
    getattr(package, name)
bad = [n for n in names if isinstance(getattr(package, n), types.ModuleType)]
if bad:
    print(sys.argv[1], bad)
    sys.exit(1)
"""


def test_lazy_packages_are_found():
    assert {"openalice.harness", "openalice.conversations", "openalice.stickers", "openalice.managed",
            "openalice.agents", "openalice.issues"} <= set(PACKAGES)


@pytest.mark.parametrize("package", PACKAGES)
def test_an_export_is_never_shadowed_by_its_submodule(package):
    for order in ("forward", "reverse"):
        probe = PROBE if order == "forward" else PROBE.replace("names = list(package.__all__)",
                                                               "names = list(reversed(package.__all__))")
        r = subprocess.run([sys.executable, "-c", probe, package], capture_output=True, text=True, cwd=REPO)
        assert r.returncode == 0, (order, r.stdout, r.stderr)
