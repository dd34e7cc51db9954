"""A template repository elsewhere: clone it, ask its default branch, fetch a
ref of it, drop the local ref that kept it."""

from __future__ import annotations

import os

from .command import GitError, run
from .commits import resolve_commit

# Transports a template repository may use: a tracked receipt names it, so
# nothing that runs a command (``ext::``) or an unknown helper is allowed.
REMOTE_PROTOCOLS = "file:git:http:https:ssh"
_REMOTE_ENV = {"GIT_ALLOW_PROTOCOL": REMOTE_PROTOCOLS, "GIT_PROTOCOL_FROM_USER": "0"}


def clone(source: str, target: os.PathLike | str) -> None:
    """``git clone --no-checkout`` of ``source`` (any URL or a local path) into ``target``."""
    run(None, "clone", "-q", "--no-checkout", "--", source, os.fspath(target), env=_REMOTE_ENV)


def remote_head(root: os.PathLike | str, repository: str) -> tuple[str | None, str | None]:
    """``(branch, sha)`` of the repository's default branch (its ``HEAD``)."""
    out = run(root, "ls-remote", "--symref", "--", repository, "HEAD", env=_REMOTE_ENV).stdout
    branch = sha = None
    for line in out.decode("utf-8", "surrogateescape").splitlines():
        if line.startswith("ref: ") and line.endswith("\tHEAD"):
            target = line[5:-5]
            branch = target[len("refs/heads/"):] if target.startswith("refs/heads/") else target
        elif line.endswith("\tHEAD"):
            sha = line.split("\t", 1)[0]
    return branch, sha


def fetch(root: os.PathLike | str, repository: str, ref: str, *, into: str) -> str:
    """Fetch ``ref`` (a branch, a tag, ``HEAD`` or a commit sha) of ``repository`` into the
    local ref ``into`` (which keeps it from garbage collection); the commit it names."""
    if ref.startswith("-") or ":" in ref:
        raise GitError(f"not a ref: {ref!r}", code="bad_ref")
    run(root, "fetch", "-q", "--no-tags", "--no-write-fetch-head", "--", repository, f"+{ref}:{into}",
        env=_REMOTE_ENV)
    commit = resolve_commit(root, into)
    if commit is None:
        raise GitError(f"{ref!r} of {repository} is not a commit", code="bad_ref")
    return commit


def delete_ref(root: os.PathLike | str, ref: str) -> None:
    run(root, "update-ref", "-d", ref, check=False)
