"""Shipped data: ``default/``, ``presets/`` and ``spec/``.

The three directories live at the top of the repository.  In a checkout the
package reaches them through symlinks (``openalice/default`` → ``../default``);
in a wheel they are copied inside the package.  Either way they sit in the
package's own directory, which is where they are looked for (what
``importlib.resources.files("openalice")`` answers for a package on disk,
without importing :mod:`importlib.resources`, whose ``typing`` and
``tempfile`` imports cost a listing more than its own work), so the tools
work installed or not.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from .errors import OperationalError

__all__ = ["data_root", "data_path", "load_json", "schema", "schema_validator"]

_KINDS = ("default", "presets", "spec")


def data_root(kind: str) -> Path:
    if kind not in _KINDS:
        raise ValueError(f"unknown data kind {kind!r}")
    import openalice

    root = Path(openalice.__file__).parent / kind
    if not root.is_dir():
        raise OperationalError(f"packaged data '{kind}/' is missing from this installation",
                               code="data_missing", file=str(root))
    return root


def data_path(kind: str, *parts: str) -> Path:
    return data_root(kind).joinpath(*parts)


@lru_cache(maxsize=None)
def load_json(kind: str, *parts: str) -> object:
    path = data_path(kind, *parts)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise OperationalError(f"cannot load packaged data: {exc}", file=path,
                               code="data_missing") from exc


def schema(name: str) -> dict:
    """The JSON Schema ``spec/<name>.schema.json``."""
    return load_json("spec", f"{name}.schema.json")


@lru_cache(maxsize=None)
def schema_validator(name: str):
    """The compiled validator for ``spec/<name>.schema.json`` (compiled once per process)."""
    from .schema import Validator

    return Validator(schema(name), source=f"spec/{name}.schema.json")
