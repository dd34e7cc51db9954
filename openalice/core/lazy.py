"""A package's names loaded at their first use (PEP 562), one rule for every package.

A package's ``__init__`` that imported all of its modules made every verb pay for
all of them: ``alice-harness stickers cat`` loaded the projection, the managed-file
engine and the journal to print one image.  A package instead names where each
of its public names lives and lets this module's ``__getattr__`` import it::

    __getattr__ = lazy.exports(__name__, globals(), {
        "status": "report",                 # openalice.stickers.report.status
        "get_pack": ("library", "get"),     # a name the module spells otherwise
    })

The value is bound in the package once loaded, so later lookups are plain
attribute reads.  A module named like one of the package's names (``.status``
defining ``status``) is handled: importing a submodule binds the package's
attribute to the module object, so that name is bound again to its value.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    from collections.abc import Callable

__all__ = ["exports"]


def exports(package: str, namespace: dict, table: dict) -> Callable[[str], object]:
    """The ``__getattr__`` of ``package`` (whose ``globals()`` is ``namespace``) for ``table``:
    ``{name: module}`` or ``{name: (module, attribute)}``, modules relative to the package."""

    def resolve(name: str) -> object:
        where = table[name]
        module, attribute = where if isinstance(where, tuple) else (where, name)
        value = getattr(importlib.import_module(f"{package}.{module}"), attribute)
        namespace[name] = value
        return value

    def __getattr__(name: str) -> object:
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = resolve(name)
        module = table[name][0] if isinstance(table[name], tuple) else table[name]
        if module in table and module != name:
            resolve(module)   # importing .<module> bound that name to the module object
        return value

    return __getattr__
