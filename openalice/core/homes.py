"""Where the two homes are, as plain strings (no ``pathlib``: start-up paths
such as the scanner's fast path use this; :mod:`openalice.core.paths` wraps it)."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from collections.abc import Mapping

__all__ = ["openalice_home", "harness_home"]


def _home(var: str, default: str, environ: Mapping[str, str] | None = None) -> str:
    value = (os.environ if environ is None else environ).get(var)
    if value:
        return os.path.abspath(os.path.expanduser(value))
    return os.path.expanduser(default)


def openalice_home(environ: Mapping[str, str] | None = None) -> str:
    """``$OPENALICE_HOME`` (of ``environ``, default this process's), default ``~/.openalice``."""
    return _home("OPENALICE_HOME", "~/.openalice", environ)


def harness_home() -> str:
    """``$HARNESS_HOME``, default ``~/.harness``."""
    return _home("HARNESS_HOME", "~/.harness")
