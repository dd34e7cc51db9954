"""Write-only adapter secrets in the env file the wrapper sources.

The catalog's ``envFile`` is a pointer; the values live only in that file
(0600 from creation, in a 0700 directory, ``KEY='value'`` lines written by
``core.secrets``).  Nothing here returns a value: :func:`secret_status`
reports presence.  Whether a secret *works* is observable only through the
health probe.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from openalice.core import secrets
from openalice.core.errors import Conflict, InvalidInput

from .catalog import AdapterEntry

__all__ = ["SET", "MISSING", "env_file_of", "secret_status", "check_settable", "set_secret",
           "unset_secret",
           "git_exposure"]

SET, MISSING = "set", "missing"


def env_file_of(entry: AdapterEntry) -> Path:
    if entry.envFile is None:
        raise InvalidInput(f"adapter '{entry.id}' declares no envFile in the catalog, so it has "
                           "nowhere to keep secrets", field="envFile", code="no_env_file",
                           details={"hint": "add \"envFile\": \"wrappers/NAME.env\" to its catalog entry"})
    return entry.envFile


def secret_status(entry: AdapterEntry) -> dict[str, str]:
    """``{KEY: "set"|"missing"}`` for the declared keys plus every other key set."""
    present: list[str] = []
    if entry.envFile is not None:
        present = secrets.env_file_keys(entry.envFile)
    status = {key: SET if key in present else MISSING for key in entry.env}
    for key in present:
        status.setdefault(key, SET)
    return status


def check_settable(entry: AdapterEntry, key: str, *, force: bool = False) -> Path:
    """The env file ``key`` would go to, after the checks that need no value:
    the adapter has an env file, the name is valid, and an existing key is
    replaced only with ``force`` (as ``pass insert -f``), so a typo never
    silently overwrites a working secret.  Call it before asking for the value."""
    path = env_file_of(entry)
    secrets.validate_name(key)
    if not force and key in secrets.env_file_keys(path):
        raise Conflict(f"{key} is already set for adapter '{entry.id}'", file=path, field=key,
                       code="secret_exists", details={"hint": "pass --force to replace it"})
    return path


def set_secret(entry: AdapterEntry, key: str, value: str, *, force: bool = False) -> bool:
    """Store ``key`` in the adapter's env file; True if it replaced a value."""
    path = check_settable(entry, key, force=force)
    return secrets.set_env_var(path, key, value)


def unset_secret(entry: AdapterEntry, key: str) -> bool:
    """Remove ``key``; False if it was not set."""
    path = env_file_of(entry)
    secrets.validate_name(key)
    if not path.exists():
        return False
    return secrets.unset_env_var(path, key)


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess | None:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None  # no git, or it hung: nothing to say


def git_exposure(path: Path) -> str | None:
    """A warning when ``path`` sits in a git work tree and is tracked or not
    ignored (a ``git add -A`` would commit the secrets); None otherwise."""
    directory = path.parent
    while not directory.exists() and directory != directory.parent:
        directory = directory.parent
    inside = _git(["rev-parse", "--is-inside-work-tree"], directory)
    if inside is None or inside.returncode != 0 or inside.stdout.strip() != "true":
        return None
    tracked = _git(["ls-files", "--error-unmatch", "--", str(path)], directory)
    if tracked is not None and tracked.returncode == 0:
        return (f"{path} is tracked by git: its secrets are in the repository history; "
                "remove it from the index (git rm --cached) and rotate the secrets")
    ignored = _git(["check-ignore", "-q", "--", str(path)], directory)
    if ignored is not None and ignored.returncode == 1:
        return (f"{path} is inside a git work tree and not ignored; add it to .gitignore "
                f"(e.g. '{os.path.basename(path)}' or '*.env') so it is never committed")
    return None
