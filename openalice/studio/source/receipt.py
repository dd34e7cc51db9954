"""The source receipt (``.alice/harness-source.json``) and where a template comes from: the
``URL[@REF]`` spec, the repository check, the incoming ``harness.json``."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from urllib.parse import urlsplit

from openalice.core import fs, git, patterns
from openalice.core.errors import InvalidInput, NotFound
from openalice.core.records import record_class
from openalice.studio.manifest import MANIFEST_NAME, MAX_BYTES, ManifestError, parse_manifest

RECEIPT_FILE = ".alice/harness-source.json"
INCOMING_REF = "refs/openalice/source/incoming"
TRAILER = "OpenAlice-Source-Upgrade"
COMMIT_TRAILER = "OpenAlice-Source-Commit"
MERGE_TREE_GIT = (2, 38)
MAX_RECEIPT = 16 * 1024
_SHA = patterns.compile(r"[0-9a-f]{40}\Z")
_TEMPLATE = patterns.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z")
_RECEIPT_KEYS = ("schemaVersion", "template", "repository", "version", "commit")


# -- the receipt ------------------------------------------------------------------------------------

@record_class(frozen=True)
class Receipt:
    template: str
    repository: str
    version: str
    commit: str

    def to_json(self) -> dict:
        return {"schemaVersion": 1, "template": self.template, "repository": self.repository,
                "version": self.version, "commit": self.commit}

    def encoded(self) -> bytes:
        return fs.dump_json(self.to_json()).encode("utf-8")


def _bad_receipt(path, reason: str, field_name: str | None = None) -> InvalidInput:
    return InvalidInput(reason, file=path, field=field_name, code="malformed_source_receipt")


def parse_receipt(data: bytes, *, file) -> Receipt:
    if len(data) > MAX_RECEIPT:
        raise _bad_receipt(file, f"larger than {MAX_RECEIPT} bytes")
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise _bad_receipt(file, f"not valid JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise _bad_receipt(file, "must be a JSON object")
    for key in doc:
        if key not in _RECEIPT_KEYS:
            raise _bad_receipt(file, f"unknown key {key!r}", f"/{key}")
    for key in _RECEIPT_KEYS:
        if key not in doc:
            raise _bad_receipt(file, f"missing {key!r}", f"/{key}")
    if doc["schemaVersion"] != 1 or isinstance(doc["schemaVersion"], bool):
        raise _bad_receipt(file, f"unsupported schemaVersion {doc['schemaVersion']!r}", "/schemaVersion")
    for key in ("template", "repository", "version", "commit"):
        if not isinstance(doc[key], str) or not doc[key]:
            raise _bad_receipt(file, "must be a non-empty string", f"/{key}")
    if not _TEMPLATE.match(doc["template"]):
        raise _bad_receipt(file, "must be 1-128 of A-Z a-z 0-9 . _ - (starting with a letter or digit)",
                           "/template")
    if not _SHA.match(doc["commit"]):
        raise _bad_receipt(file, "must be a 40-hex commit id", "/commit")
    if len(doc["version"]) > 128:
        raise _bad_receipt(file, "at most 128 characters", "/version")
    try:
        _check_repository(doc["repository"], field_name="/repository")
    except InvalidInput as exc:
        raise _bad_receipt(file, exc.message, "/repository") from None
    return Receipt(doc["template"], doc["repository"], doc["version"], doc["commit"])


def read_receipt(root: Path) -> tuple[Receipt, bytes]:
    path = root / RECEIPT_FILE
    try:
        data = fs.read_bytes(path, max_bytes=MAX_RECEIPT, missing=None, root=root)
    except InvalidInput as exc:
        raise _bad_receipt(path, exc.message) from None
    if data is None:
        raise NotFound(f"no {RECEIPT_FILE}: this workspace was not created from a template repository",
                       file=path, code="no_source_receipt",
                       details={"hint": "create one with 'alice workspace init PATH --from-git URL[@REF]'"})
    return parse_receipt(data, file=path), data


# -- where the template comes from ------------------------------------------------------------------

def _check_repository(repository: str, *, field_name: str) -> None:
    """A repository the toolkit may fetch: not an option, no secret in it, no command transport."""
    if not repository or repository.startswith("-") or any(c in repository for c in "\0\n\r"):
        raise InvalidInput(f"not a repository: {repository[:80]!r}", field=field_name, code="bad_repository")
    if "://" in repository:
        parts = urlsplit(repository)
        if parts.password is not None:
            raise InvalidInput("the repository URL carries a password; it would be written into the tracked "
                               "receipt: use a git credential helper instead", field=field_name,
                               code="credentials_in_url")
        scheme = parts.scheme.lower()
        if scheme not in ("file", "git", "http", "https", "ssh"):
            raise InvalidInput(f"unsupported transport {scheme!r} (use file, git, http, https or ssh)",
                               field=field_name, code="bad_repository")
    elif "::" in repository.split("/", 1)[0]:
        raise InvalidInput("remote helpers (transport::address) are not allowed", field=field_name,
                           code="bad_repository")


def parse_source_spec(text: str) -> tuple[str, str | None]:
    """``URL[@REF]`` → ``(repository, ref)``.

    The ref is what follows the last ``@`` when that leaves a whole repository
    before it and no ``:`` after it (a ref never holds one): ``git@host:o/r.git``
    has no ref, ``git@host:o/r.git@v2`` has ``v2``, ``https://h/o/r@feature/x``
    has ``feature/x``.  A local path that exists is never split.  A local path
    is recorded absolute.
    """
    text = text.strip()
    repository, ref = text, None
    if not os.path.exists(text) and "@" in text:
        head, _, tail = text.rpartition("@")
        if tail and ":" not in tail and _whole_repository(head):
            repository, ref = head, tail
    if ref is not None and (ref.startswith("-") or ".." in ref or any(c in ref for c in " ~^?*[\\")):
        raise InvalidInput(f"not a ref: {ref!r}", field="--from-git", code="bad_ref")
    _check_repository(repository, field_name="--from-git")
    if "://" not in repository and not _scp_like(repository):
        repository = os.path.realpath(os.path.expanduser(repository))
    return repository, ref


def _scp_like(text: str) -> bool:
    """``[user@]host:path`` (git's scp-like syntax: a colon before any slash)."""
    colon, slash = text.find(":"), text.find("/")
    return colon > 0 and (slash == -1 or colon < slash)


def _whole_repository(text: str) -> bool:
    if "://" in text:
        return bool(urlsplit(text).path.strip("/"))
    if _scp_like(text):
        return bool(text.split(":", 1)[1].strip("/"))
    return bool(text)


def template_name(repository: str) -> str:
    last = repository.rstrip("/").replace(":", "/").rsplit("/", 1)[-1]
    if last.endswith(".git"):
        last = last[:-4]
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", last).strip("-._")[:128]
    return name or "harness"


def incoming_manifest(root, treeish: str, label: str):
    data = git.show_file(root, treeish, MANIFEST_NAME, max_bytes=MAX_BYTES)
    if data is None:
        raise ManifestError(f"{label} has no {MANIFEST_NAME}: not a Harness repository", file=label,
                            code="missing")
    return parse_manifest(data, file=label)
