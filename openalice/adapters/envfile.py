"""Write-only adapter secrets in the env file the wrapper sources.

The catalog's ``envFile`` is a pointer; the values live only in that file
(0600 from creation, in a 0700 directory, ``KEY='value'`` lines written by
``core.secrets``).  Nothing here returns a value: :func:`secret_status`
reports presence.  Whether a secret *works* is observable only through the
health probe.

The shipped catalog's env files live in ``$HARNESS_HOME/env/`` (0700).  Older
versions wrote them beside the shipped wrappers (in the checkout or in
``site-packages``); :func:`adopt_legacy_env_files` finds such files and moves
them to the home, returning a notice for each.
"""

from __future__ import annotations

import os
from pathlib import Path

from openalice.core import fs, locks, paths, secrets
from openalice.core.errors import AliceError, Conflict, InvalidInput

from .catalog import AdapterEntry, Catalog, default_catalog_path

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    import subprocess

__all__ = ["SET", "MISSING", "env_file_of", "secret_status", "check_settable", "set_secret",
           "unset_secret", "home_env_dir", "legacy_env_file", "adopt_legacy_env_files",
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
    secrets.check_secret(value)
    _private_if_home(path)
    return secrets.set_env_var(path, key, value)


def home_env_dir() -> Path:
    """``$HARNESS_HOME/env``: where the shipped catalog's env files live."""
    return paths.harness_home() / "env"


def _private_if_home(path: Path) -> None:
    if paths.is_within(path.parent, home_env_dir()):
        fs.ensure_private_dir(path.parent)


def legacy_env_file(entry: AdapterEntry, catalog: Catalog) -> Path | None:
    """Where an older version kept this entry's env file: beside the shipped
    wrappers.  None unless ``catalog`` is the shipped one and the entry's
    env file now lives under ``$HARNESS_HOME/env/``."""
    if entry.envFile is None or catalog.path != default_catalog_path():
        return None
    if not paths.is_within(entry.envFile, home_env_dir()):
        return None
    return catalog.base_dir / "wrappers" / entry.envFile.name


def adopt_legacy_env_files(catalog: Catalog) -> list[str]:
    """Move env files left at the old place (:func:`legacy_env_file`) to their
    home; one notice per file found.  Nothing is lost: when both files exist
    and differ, the home one is kept and the old one left for a person to
    merge; a file that cannot be removed (a read-only install) is copied."""
    notices: list[str] = []
    for entry in catalog:
        old = legacy_env_file(entry, catalog)
        if old is None or not os.path.lexists(old):
            continue
        new = entry.envFile
        try:
            notices.append(_adopt(old, new))
        except AliceError as err:
            notices.append(f"could not move the old env file {old} to {new}: {err}")
    return notices


def _adopt(old: Path, new: Path) -> str:
    if os.path.islink(old) or not os.path.isfile(old):
        return f"{old} (an old env file location) is not a regular file; it was left alone"
    _private_if_home(new)
    with fs.locked_file(new):
        data = fs.read_bytes(old, max_bytes=1024 * 1024)
        current = fs.read_bytes(new, missing=None)
        if current is None:
            fs.atomic_write_bytes(new, data, mode=0o600, dir_mode=0o700)
        elif current != data:
            return (f"{old} (the old place of adapter secrets) differs from {new}; {new} is used. "
                    f"Copy any key you still need with 'harness-adapter set-secret', then delete {old}")
    try:
        fs.remove_file(old)
    except AliceError:
        return (f"copied the adapter secrets in {old} to {new}; the old file could not be removed "
                "(read-only install?): delete it by hand")
    try:
        fs.remove_file(locks.lock_path_for(old))
    except AliceError:
        pass  # a stale lock file holds nothing
    return f"moved the adapter secrets in {old} to {new} (env files now live under $HARNESS_HOME/env/)"


def unset_secret(entry: AdapterEntry, key: str) -> bool:
    """Remove ``key``; False if it was not set."""
    path = env_file_of(entry)
    secrets.validate_name(key)
    return secrets.unset_env_var(path, key)


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess | None:
    import subprocess  # lazy: only moving a legacy env file asks git

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
