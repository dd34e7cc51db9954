#!/usr/bin/env python3
"""Validate presets and run-configs against their schemas and the adapter catalog.

Standard library only.  From a checkout::

    python presets/_validate.py                  # every *.json beside the catalog
    python presets/_validate.py presets/pair.json --catalog-only --json

Each binding's wrapper must be a catalog adapter, its model in that adapter's
models and (unless --catalog-only) the adapter enabled on this machine.  Exit
0 when everything is valid, 2 otherwise.  It *is* ``harness-adapter validate``
(:func:`openalice.adapters.validate.validate`), run through that tool.
"""

from __future__ import annotations

import os
import sys


def _ensure_importable() -> None:
    # In a checkout presets/ sits beside the openalice package: prefer that copy
    # to any installed one.  Installed, this file is inside the package already.
    root = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    if os.path.isfile(os.path.join(root, "openalice", "__init__.py")) and root not in sys.path:
        sys.path.insert(0, root)


def validate(paths=(), *, catalog_path=None, machine=True):
    """The report (see :func:`openalice.adapters.validate.validate`)."""
    _ensure_importable()
    from openalice.adapters.validate import validate as run  # lazy: after _ensure_importable

    return run(paths, catalog_path=catalog_path, machine=machine)


def main(argv=None) -> int:
    """``harness-adapter validate`` with these arguments (the same flags, output,
    exit codes and top-level error handler)."""
    _ensure_importable()
    from openalice.cli.adapter import main as harness_adapter  # lazy: after _ensure_importable

    return harness_adapter(["validate", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
