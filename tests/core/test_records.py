"""core.records: the small part of dataclasses the read paths use, without inspect."""

import subprocess
import sys
from pathlib import Path

import pytest

from openalice.core import records
from openalice.core.records import asdict, field, fields_of, record_class, replace


@record_class(frozen=True)
class Point:
    x: int
    y: int = 0
    tags: list = field(default_factory=list)
    note: str = field(default="", compare=False, repr=False)


@record_class
class Counter:
    n: int = 0


@record_class(frozen=True)
class Point3(Point):
    z: int = 0


def test_init_repr_eq_hash_and_frozen():
    p = Point(1, tags=["a"])
    assert (p.x, p.y, p.tags, p.note) == (1, 0, ["a"], "")
    assert repr(p) == "Point(x=1, y=0, tags=['a'])"
    assert p == Point(1, 0, ["a"], note="ignored by eq") and p != Point(2)
    assert Point(1).tags is not Point(1).tags            # a fresh default each time
    assert hash(Point(1, 2, ())) == hash(Point(1, 2, ()))
    with pytest.raises(AttributeError):
        p.x = 5
    with pytest.raises(TypeError):
        Point()                                           # x has no default
    c = Counter()
    c.n += 1
    assert c == Counter(1) and Counter.__hash__ is None   # mutable: unhashable, like a dataclass
    assert Point(1) != (1, 0, [])                         # another class is never equal


def test_subclass_asdict_replace_fields():
    p = Point3(1, 2, z=3)
    assert fields_of(p) == ("x", "y", "tags", "note", "z")
    assert asdict(p) == {"x": 1, "y": 2, "tags": [], "note": "", "z": 3}
    assert replace(p, z=4) == Point3(1, 2, z=4) and p.z == 3
    with pytest.raises(TypeError):
        replace(p, nope=1)


def test_a_field_without_default_after_one_with_a_default_is_refused():
    with pytest.raises(TypeError):
        @record_class
        class Bad:
            a: int = 1
            b: int


def test_importing_it_does_not_import_dataclasses_or_inspect():
    repo = str(Path(__file__).resolve().parents[2])
    code = (f"import sys; sys.path.insert(0, {repo!r}); import openalice.core.records; "
            "print(sorted(m for m in ('dataclasses', 'inspect', 'typing') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_no_module_of_the_toolkit_imports_dataclasses():
    """The rule of docs/architecture.md, kept: every record class is a core.records one (a
    dataclass on a verb's path cost it ``inspect``, ``ast``, ``dis``, ``tokenize``...)."""
    import ast

    package = Path(__file__).resolve().parents[2] / "openalice"
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            if any(n == "dataclasses" or (n or "").startswith("dataclasses.") for n in names):
                found.append(f"{path.relative_to(package.parent)}:{node.lineno}")
    assert found == [], found


def wide_class(tier: str) -> type:
    """A fresh record class; "compiled" has built enough instances to have its own ``__init__``."""
    @record_class(frozen=True)
    class Wide:
        a: int
        b: int
        c: int
        d: int = 4
        e: list = field(default_factory=list)

    if tier == "compiled":
        generic = Wide.__init__
        for _ in range(records.COMPILE_AFTER + 1):
            Wide(1, 2, 3)
        assert Wide.__init__ is not generic
    return Wide


def _reference(self, a, b, c, d=4, e=None):
    """What Python says for the same method's signature (the errors name the function)."""


_reference.__qualname__ = "Wide.__init__"


@pytest.mark.parametrize("tier", ["generic", "compiled"])
@pytest.mark.parametrize("args,kwargs", [
    ((), {}), ((1,), {}), ((1, 2), {}), ((1,), {"c": 3}), ((1, 2, 3), {"a": 1}),
    ((1, 2, 3), {"nope": 1}), ((), {"a": 1, "b": 2, "zz": 0}), ((1, 2, 3, 4, 5, 6), {}),
])
def test_a_bad_call_gets_the_error_python_gives_for_the_same_signature(tier, args, kwargs):
    wide = wide_class(tier)
    with pytest.raises(TypeError) as expected:
        _reference(object(), *args, **kwargs)
    with pytest.raises(TypeError) as got:
        wide(*args, **kwargs)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("tier", ["generic", "compiled"])
def test_every_way_of_giving_the_fields_builds_the_same_record(tier):
    wide = wide_class(tier)
    full = wide(1, 2, 3, 5, ["x"])
    assert full == wide(1, 2, 3, d=5, e=["x"]) == wide(e=["x"], d=5, c=3, b=2, a=1)
    assert (full.a, full.b, full.c, full.d, full.e) == (1, 2, 3, 5, ["x"])
    assert list(vars(full)) == ["a", "b", "c", "d", "e"]
    short = wide(1, 2, c=3)
    assert (short.d, short.e) == (4, []) and short.e is not wide(1, 2, 3).e
    with pytest.raises(AttributeError):
        short.a = 2  # still frozen: __init__ fills the instance's dict directly
    assert wide.__init__.__qualname__ == "Wide.__init__"


def test_a_class_compiles_its_own_init_only_once_it_is_built_often():
    wide = wide_class("generic")
    generic = wide.__init__
    for _ in range(records.COMPILE_AFTER):
        wide(1, 2, 3)
    assert wide.__init__ is generic
    wide(1, 2, 3)
    assert wide.__init__ is not generic and wide(1, 2, 3) == wide(1, 2, 3, 4, [])
