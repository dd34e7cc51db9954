"""Which bundle a workspace is compared with: the one it follows, unless asked.

A workspace follows the bundle its last bundle upgrade (or its creation)
applied: the version file's ``bundle`` (``default`` or a directory) and
``appliedVersion``.  ``status``, ``upgrade`` and ``config`` compare with that
bundle, so after ``upgrade --bundle NEWER --apply`` a plain ``status`` is
current and a plain ``upgrade`` offers no downgrade to the shipped bundle.
Another bundle is used only when asked: ``--bundle DIR`` (``--bundle default``:
the shipped one) or ``$ALICE_HARNESS_BUNDLE``.

Every answer says why (``reason``): ``flag``, ``env``, ``followed`` (the
recorded bundle) or ``default`` (nothing recorded, or the shipped one is
what the workspace follows).
"""

from __future__ import annotations

import os
from pathlib import Path

from openalice.core.errors import AliceError, InvalidInput
from openalice.core.records import record_class

from . import bundle as bundles
from . import state

__all__ = ["Selected", "DEFAULT", "select", "REASONS"]

DEFAULT = "default"
REASONS = {"flag": "named with --bundle", "env": f"named by ${bundles.BUNDLE_ENV}",
           "followed": "the bundle this workspace follows", "default": "the shipped bundle"}


@record_class(frozen=True)
class Selected:
    bundle: bundles.Bundle
    reason: str                      # flag | env | followed | default
    follows: dict | None             # {"source", "version"} from the version file, if any

    def compared_with(self) -> dict:
        return {"source": self.bundle.source, "version": self.bundle.version, "revision": self.bundle.revision,
                "reason": self.reason}

    def describe(self) -> str:
        return f"{self.bundle.source} {self.bundle.version} ({REASONS[self.reason]})"


def _follows(root: Path, version: dict | None) -> dict | None:
    if version is None:
        try:
            version = state.read_version(root)
        except AliceError:
            return None   # reported by whoever reads it strictly
    if not version.get("bundle") or version.get("appliedVersion") == state.UNVERSIONED:
        return None
    return {"source": version["bundle"], "version": version["appliedVersion"]}


def select(root: os.PathLike | str, bundle_dir=None, *, version: dict | None = None,
           env=None) -> Selected:
    """The bundle to compare ``root`` with (see the module docstring)."""
    env = os.environ if env is None else env
    follows = _follows(Path(root), version)
    if bundle_dir is not None:
        if os.fspath(bundle_dir) == DEFAULT:
            return Selected(bundles.load(None, env={}), "flag", follows)
        return Selected(bundles.load(bundle_dir), "flag", follows)
    if env.get(bundles.BUNDLE_ENV):
        given = env[bundles.BUNDLE_ENV]
        return Selected(bundles.load(None, env={} if given == DEFAULT else env), "env", follows)
    if follows is None or follows["source"] == DEFAULT:
        return Selected(bundles.load(None, env={}), "default", follows)
    try:
        return Selected(bundles.load(follows["source"]), "followed", follows)
    except InvalidInput as err:
        raise InvalidInput(
            f"the bundle this workspace follows ({follows['source']}, {follows['version']}) cannot be read: "
            f"{err}", file=Path(root) / state.VERSION_FILE, field="bundle", code=err.code,
            details={"hint": f"name a bundle with --bundle DIR, or go back to the shipped one with "
                             f"--bundle {DEFAULT}"}) from None
