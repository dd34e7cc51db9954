"""Where the two homes are, as plain strings (no ``pathlib``: start-up paths
such as the scanner's fast path use this; :mod:`openalice.core.paths` wraps it)."""

from __future__ import annotations

import os

__all__ = ["openalice_home", "harness_home"]


def _home(var: str, default: str) -> str:
    value = os.environ.get(var)
    if value:
        return os.path.abspath(os.path.expanduser(value))
    return os.path.expanduser(default)


def openalice_home() -> str:
    """``$OPENALICE_HOME``, default ``~/.openalice``."""
    return _home("OPENALICE_HOME", "~/.openalice")


def harness_home() -> str:
    """``$HARNESS_HOME``, default ``~/.harness``."""
    return _home("HARNESS_HOME", "~/.harness")
