"""core.lazy: a package's names imported at their first use, bound once loaded."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest


@pytest.fixture
def package(tmp_path):
    """A package ``pkg`` whose ``status`` module defines ``status`` and ``health`` (the
    collision harness has), and whose ``other`` module counts its imports."""
    root = tmp_path / "pkg"
    root.mkdir()
    (root / "__init__.py").write_text(textwrap.dedent("""\
        from openalice.core import lazy
        __getattr__ = lazy.exports(__name__, globals(), {
            "status": "status", "health": "status", "thing": ("other", "real_name")})
    """))
    (root / "status.py").write_text("def status():\n    return 'status'\n\ndef health():\n    return 'health'\n")
    (root / "other.py").write_text("import builtins\nbuiltins.loads = getattr(builtins, 'loads', 0) + 1\n"
                                   "real_name = 'the thing'\n")
    return tmp_path


def run(path, code: str) -> str:
    out = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(path)!r})\n" + code],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_a_name_loads_its_module_only_when_asked(package):
    assert run(package, "import pkg, sys; print('pkg.other' in sys.modules, 'pkg.status' in sys.modules)") == \
        "False False"
    assert run(package, "import pkg, sys; print(pkg.thing, 'pkg.status' in sys.modules)") == "the thing False"


def test_a_value_is_bound_once_loaded(package):
    assert run(package, "import pkg, builtins; pkg.thing; pkg.thing; from pkg import thing; "
                        "print(builtins.loads, 'thing' in vars(pkg))") == "1 True"


def test_a_module_named_like_one_of_its_names_does_not_shadow_it(package):
    # loading `health` imports pkg.status, which binds pkg.status to the module object
    assert run(package, "import pkg; pkg.health; print(pkg.status())") == "status"
    assert run(package, "import pkg; print(pkg.status(), pkg.health())") == "status health"


def test_an_unknown_name_is_an_attribute_error(package):
    assert run(package, "import pkg\ntry:\n    pkg.nope\nexcept AttributeError as e:\n    print(e)") == \
        "module 'pkg' has no attribute 'nope'"
