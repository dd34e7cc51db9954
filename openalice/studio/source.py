"""Source-backed Harness upgrades: a workspace cloned from a template repository, merged forward.

    ws, receipt = create_workspace("~/src/aq", "https://example.org/autoquant.git@v1", now=now)
    plan = preview(ws, to="main", now=now)            # fetch, validate harness.json, merge-tree: nothing touched
    plan, applied = apply(ws, digest=plan.digest, now=now)   # a --no-ff merge commit that updates the receipt

A workspace created with ``alice workspace init PATH --from-git URL[@REF]``
records where its Harness came from in the tracked ``.alice/harness-source.json``
(``spec/harness-source.schema.json``): the template's name, the repository, the
``harness.json`` version and the 40-hex commit.  ``preview`` fetches a target
commit of that repository (default: its default branch) into the local ref
``refs/openalice/source/incoming`` (nothing else of the workspace changes),
validates the target's ``harness.json``, and asks ``git merge-tree --write-tree``
whether it merges.  Its digest covers what would be merged: the workspace's
HEAD, the target commit, the merged tree, the receipt.  ``apply --digest D``
merges exactly that commit: under the Studio operation lease (no ``studio
start`` can begin) with no live generation, no live run, the workspace
checkout lease, no staged changes and a clean work tree for every path the merge
touches, as one ``--no-ff`` merge commit that also updates the receipt.  A merge
that cannot be completed (a conflict, a file in the way, a failing hook) is
aborted: work tree, index and HEAD are as before.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from openalice.core import fs, git
from openalice.core.errors import Busy, Conflict, InvalidInput, NotFound, OperationalError, UsageError

__all__ = ["RECEIPT_FILE", "INCOMING_REF", "TRAILER", "Receipt", "Preview", "Applied", "parse_source_spec",
           "create_workspace", "preview", "apply", "recover"]

RECEIPT_FILE = ".alice/harness-source.json"
INCOMING_REF = "refs/openalice/source/incoming"
TRAILER = "OpenAlice-Source-Upgrade"
COMMIT_TRAILER = "OpenAlice-Source-Commit"
MERGE_TREE_GIT = (2, 38)
MAX_RECEIPT = 16 * 1024
RECOVERY_WAIT = 30.0
_SHA = re.compile(r"[0-9a-f]{40}\Z")
_TEMPLATE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z")
_RECEIPT_KEYS = ("schemaVersion", "template", "repository", "version", "commit")


# -- the receipt ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Receipt:
    template: str
    repository: str
    version: str
    commit: str

    def to_json(self) -> dict:
        return {"schemaVersion": 1, "template": self.template, "repository": self.repository,
                "version": self.version, "commit": self.commit}

    def encoded(self) -> bytes:
        return (json.dumps(self.to_json(), indent=2) + "\n").encode("utf-8")


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


def _read_receipt(root: Path) -> tuple[Receipt, bytes]:
    path = root / RECEIPT_FILE
    try:
        data = fs.read_bytes(path, max_bytes=MAX_RECEIPT, missing=None)
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


def _template_name(repository: str) -> str:
    last = repository.rstrip("/").replace(":", "/").rsplit("/", 1)[-1]
    if last.endswith(".git"):
        last = last[:-4]
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", last).strip("-._")[:128]
    return name or "harness"


def _incoming_manifest(root, treeish: str, label: str):
    from openalice.studio.manifest import MANIFEST_NAME, MAX_BYTES, ManifestError, parse_manifest

    data = git.show_file(root, treeish, MANIFEST_NAME, max_bytes=MAX_BYTES)
    if data is None:
        raise ManifestError(f"{label} has no {MANIFEST_NAME}: not a Harness repository", file=label,
                            code="missing")
    return parse_manifest(data, file=label)


# -- creating a workspace from a template repository --------------------------------------------------

def create_workspace(path: os.PathLike | str, spec: str, *, now: datetime, template: str = "blank",
                     label: str | None = None, notes: list[str] | None = None):
    """Clone ``spec`` (``URL[@REF]``) into ``path``, validate its ``harness.json``, write the
    receipt, register the workspace, and commit what init wrote (the receipt, the guidance and
    skills, ``.alice/.gitignore``) as one commit; ``(workspace, receipt)``.  On a failure before
    the workspace is registered nothing is left behind."""
    from openalice import workspaces

    git.require_version(MERGE_TREE_GIT, "source-backed upgrades (merge-tree --write-tree)")
    repository, ref = parse_source_spec(spec)
    target = Path(os.path.abspath(os.path.expanduser(os.fspath(path))))
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise Conflict("exists and is not an empty directory: --from-git clones into a new directory",
                       file=target, code="target_not_empty")
    made: list[Receipt] = []

    def populate(real: Path) -> None:
        made.append(_clone_into(real, repository, ref))

    try:
        ws, created = workspaces.init(target, template=template, label=label, now=now, notes=notes,
                                      populate=populate)
    except BaseException:
        if made and not _registered(target):
            shutil.rmtree(target, ignore_errors=True)     # our clone, never registered
        raise
    if not created:
        raise Conflict(f"is already workspace '{ws.id}'", file=target, code="already_registered")
    receipt = made[0]
    written = [path for _code, path in git.status_entries(ws.root)]
    git.commit_paths(ws.root, sorted(set(written) | {RECEIPT_FILE}),
                     f"source({receipt.template}): created from {repository} {receipt.version} "
                     f"({receipt.commit[:12]})", trailers={COMMIT_TRAILER: receipt.commit})
    return ws, receipt


def _registered(target: Path) -> bool:
    from openalice import workspaces

    try:
        return workspaces.find(target) is not None
    except Exception:      # a registry we cannot read: leave the directory alone
        return True


def _clone_into(target: Path, repository: str, ref: str | None) -> Receipt:
    """Clone next to ``target``, check it, then move it into place (an empty ``target`` is replaced)."""
    parent = target.parent
    fs.ensure_dir(parent, 0o755)
    scratch = Path(tempfile.mkdtemp(prefix=".tmp-clone-", dir=parent))
    try:
        clone = scratch / "repo"
        git.clone(repository, clone)
        commit = git.resolve_commit(clone, "HEAD") if ref is None else _clone_ref(clone, ref)
        if commit is None:
            raise InvalidInput(f"{repository} has no commit to start from"
                               + (f" at {ref!r}" if ref else " (empty repository)"), field="--from-git",
                               code="bad_ref")
        label = f"{repository}@{commit[:12]}:harness.json"
        manifest = _incoming_manifest(clone, commit, label)
        branch = git.current_branch(clone) or "main"
        if ref is not None and git.resolve_commit(clone, f"refs/remotes/origin/{ref}"):
            branch = ref
        git.checkout_branch(clone, branch, commit)
        receipt = Receipt(_template_name(repository), repository, manifest.version, commit)
        fs.atomic_write_bytes(clone / RECEIPT_FILE, receipt.encoded(), mode=0o644, dir_mode=0o755)
        if target.exists():
            target.rmdir()            # empty (checked): the clone takes its place
        os.rename(clone, target)
        fs.fsync_dir(parent)
        return receipt
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _clone_ref(clone: Path, ref: str) -> str | None:
    for candidate in (f"refs/remotes/origin/{ref}", f"refs/tags/{ref}", ref):
        commit = git.resolve_commit(clone, candidate)
        if commit is not None:
            return commit
    return None


# -- planning ---------------------------------------------------------------------------------------

@dataclass
class Preview:
    ws: Any
    receipt: Receipt
    ref: str | None                   # what was asked for (None at apply: the previewed commit)
    commit: str                       # the target commit
    version: str                      # its harness.json version
    head: str
    tree: str
    conflicts: list[str]
    touched: list[str]
    blockers: list[dict]
    live_runs: int
    studio: str | None                # the Studio's phase when it is live
    current: bool
    digest: str = ""
    recovered: list[dict] = field(default_factory=list)

    @property
    def mergeable(self) -> bool:
        return not self.conflicts

    @property
    def status(self) -> str:
        if self.current:
            return "current"
        if self.blockers:
            return "blocked"
        return "ready" if self.mergeable else "conflicts"

    def next_command(self) -> str | None:
        if self.status != "ready":
            return None
        return f"alice-harness source apply --workspace {self.ws.id} --digest {self.digest}"

    def to_json(self) -> dict:
        return {"status": self.status, "workspaceId": self.ws.id, "workspace": self.ws.path,
                "template": self.receipt.template, "repository": self.receipt.repository, "ref": self.ref,
                "fromCommit": self.receipt.commit, "fromVersion": self.receipt.version,
                "commit": self.commit, "toVersion": self.version, "head": self.head, "mergeable": self.mergeable,
                "conflicts": list(self.conflicts), "touchedPaths": list(self.touched),
                "blockers": list(self.blockers),
                "activity": {"liveRuns": self.live_runs, "studio": self.studio},
                "digest": self.digest, "nextCommand": self.next_command()}


def _digest(ws, receipt_bytes: bytes, plan: Preview) -> str:
    doc = {"workspaceId": ws.id, "receipt": hashlib.sha256(receipt_bytes).hexdigest(),
           "repository": plan.receipt.repository, "fromCommit": plan.receipt.commit, "commit": plan.commit,
           "version": plan.version, "head": plan.head, "tree": plan.tree, "conflicts": plan.conflicts,
           "touched": plan.touched}
    return hashlib.sha256(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _git_root(ws) -> Path:
    root = Path(ws.path)
    if not (root / ".alice").is_dir():
        from openalice.core.errors import Unavailable

        raise Unavailable(f"workspace '{ws.id}' is not available: {root} (or its .alice/) is missing",
                          code="workspace_unavailable", file=root)
    top = git.work_tree(root)
    if top is None or os.path.realpath(top) != os.path.realpath(root):
        raise InvalidInput("not the top of a git work tree: source upgrades merge commits", file=root,
                           code="not_a_git_workspace")
    return root


def _in_the_way(touched: set[str], entries: list[tuple[str, str]]) -> list[str]:
    """Local changes (or untracked files) at a touched path, or above or below one."""
    found = []
    for _code, path in entries:
        bare = path.rstrip("/")
        if bare in touched or any(t.startswith(bare + "/") or bare.startswith(t + "/") for t in touched):
            found.append(bare)
    return sorted(set(found))


def _live_runs(ws) -> int:
    from openalice.runs import admission

    return len(admission.live_runs(ws.id))


def _studio_blocker(ws) -> tuple[str | None, dict | None]:
    from openalice.studio import lifecycle

    try:
        lifecycle.require_idle(ws)
    except Busy as exc:
        return exc.details.get("phase"), {"code": exc.code, "message": exc.message}
    return None, None


def _plan(ws, root: Path, receipt: Receipt, receipt_bytes: bytes, commit: str, ref: str | None) -> Preview:
    label = f"{receipt.repository}@{commit[:12]}:harness.json"
    manifest = _incoming_manifest(root, commit, label)
    head = git.head(root)
    if head is None:
        raise InvalidInput("the workspace repository has no commit yet", file=root, code="not_a_git_workspace")
    current = git.is_ancestor(root, commit, head)      # the workspace has it already
    merged = git.merge_tree(root, head, commit)
    conflicts = [p for p in merged.conflicts if p != RECEIPT_FILE]   # ours is rewritten anyway
    touched = [] if current else sorted(set(git.changed_paths(root, head, merged.tree)) | {RECEIPT_FILE})
    blockers: list[dict] = []
    if not current:
        if git.merge_head(root) is not None:
            blockers.append({"code": "merge_in_progress",
                             "message": "a merge is in progress in the workspace (finish or abort it first)"})
        staged = git.staged_paths(root)
        if staged:
            blockers.append({"code": "staged_changes",
                             "message": f"the repository has {len(staged)} staged change"
                                        f"{'s' if len(staged) != 1 else ''} (commit or unstage them first)",
                             "paths": staged})
        dirty = _in_the_way(set(touched), git.status_entries(root))
        if dirty:
            blockers.append({"code": "working_tree_changes",
                             "message": f"{len(dirty)} path{'s' if len(dirty) != 1 else ''} the merge touches "
                                        "ha" + ("ve" if len(dirty) != 1 else "s") + " local changes or untracked "
                                        "files (commit, stash or move them first): " + ", ".join(dirty[:5])
                                        + ("…" if len(dirty) > 5 else ""),
                             "paths": dirty})
        if merged.clean:
            try:
                _incoming_manifest(root, merged.tree, f"the merge of {label}")
            except InvalidInput as exc:
                blockers.append({"code": "invalid_merged_manifest",
                                 "message": f"the merged harness.json would be invalid: {exc.message}"})
    live = _live_runs(ws)
    if live and not current:
        blockers.append({"code": "live_run", "message": f"{live} run{'s' if live != 1 else ''} of this "
                                                        "workspace are live; source upgrades wait until they end"})
    phase, studio_blocker = _studio_blocker(ws)
    if studio_blocker and not current:
        blockers.append(studio_blocker)
    plan = Preview(ws=ws, receipt=receipt, ref=ref, commit=commit, version=manifest.version, head=head,
                   tree=merged.tree, conflicts=conflicts, touched=touched, blockers=blockers, live_runs=live,
                   studio=phase, current=current)
    plan.digest = _digest(ws, receipt_bytes, plan)
    return plan


def preview(ws, *, to: str | None = None, now: datetime) -> Preview:
    """Fetch the target (``to``: a branch, tag or commit; default: the repository's default
    branch), validate it and plan the merge.  Writes only the ref ``INCOMING_REF``."""
    git.require_version(MERGE_TREE_GIT, "source upgrades (merge-tree --write-tree)")
    root = _git_root(ws)
    receipt, receipt_bytes = _read_receipt(root)
    recovered = recover(ws, now=now)
    if to is None:
        branch, _sha = _from_remote(receipt, None, lambda: git.remote_head(root, receipt.repository))
        ref = branch or "HEAD"
    else:
        if not to.strip() or to.startswith("-") or ":" in to or any(c.isspace() for c in to):
            raise UsageError(f"not a ref: {to!r}", field="--to", code="bad_ref")
        ref = to
    commit = _from_remote(receipt, ref, lambda: git.fetch(root, receipt.repository, ref, into=INCOMING_REF))
    plan = _plan(ws, root, receipt, receipt_bytes, commit, ref)
    plan.recovered = recovered
    if plan.current:
        git.delete_ref(root, INCOMING_REF)    # nothing to apply
    return plan


def _from_remote(receipt: Receipt, ref: str | None, call):
    """Run a fetch or ls-remote: an unknown ref is bad input (exit 2), an unreachable
    repository is unavailable (exit 3)."""
    from openalice.core.errors import Unavailable

    try:
        return call()
    except git.GitError as exc:
        if exc.code == "git_missing":
            raise
        detail = str(exc.details.get("stderr", "")) if exc.details else ""
        if ref is not None and ("couldn't find remote ref" in detail or "not our ref" in detail
                                or exc.code == "bad_ref"):
            raise InvalidInput(f"{receipt.repository} has no {ref!r} (a branch, tag or commit)", field="--to",
                               code="unknown_ref") from None
        raise Unavailable(f"cannot reach the template repository {receipt.repository}: {exc.message}",
                          code="source_unavailable", details={"stderr": detail}) from None


# -- applying ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Applied:
    commit: str
    changed: list[str]


def _subject(plan: Preview) -> str:
    r = plan.receipt
    return (f"source({r.template}): upgrade {r.version} -> {plan.version} "
            f"({r.commit[:12]} -> {plan.commit[:12]})")


def _message(plan: Preview) -> str:
    return (f"{_subject(plan)}\n\nMerge {plan.commit} of {plan.receipt.repository}.\n\n"
            f"{TRAILER}: {plan.digest}\n{COMMIT_TRAILER}: {plan.commit}\n")


def apply(ws, *, digest: str, now: datetime) -> tuple[Preview, Applied | None]:
    """Merge the previewed commit; ``(plan, None)`` when the workspace already has it."""
    from openalice.studio import lifecycle
    from openalice.workspaces.access import Caller, authorize_write
    from openalice.workspaces.checkout import checkout

    if not digest or not re.fullmatch(r"[0-9a-f]{64}", digest):
        raise UsageError("--digest must be the 64-hex digest a preview printed", field="--digest", code="usage")
    git.require_version(MERGE_TREE_GIT, "source upgrades (merge-tree --write-tree)")
    root = _git_root(ws)
    authorize_write(Caller.of_process(), ws)     # a headless run upgrades only its own workspace
    with lifecycle.held_idle(ws, "source apply", now=now):     # no Studio now, none can start meanwhile
        with checkout(ws, "alice-harness source apply", now=now):
            recovered = _recover(ws, root, now)
            receipt, receipt_bytes = _read_receipt(root)
            commit = git.resolve_commit(root, INCOMING_REF)
            if commit is None:
                raise InvalidInput("nothing was previewed here; run 'alice-harness source preview' first",
                                   code="stale_plan", details={"digest": None})
            plan = _plan(ws, root, receipt, receipt_bytes, commit, None)
            plan.recovered = recovered
            if plan.digest != digest:
                from openalice.managed import StalePlan

                raise StalePlan("the workspace or the previewed target changed since the preview (the plan's "
                                f"digest is now {plan.digest[:12]}…, not {digest[:12]}…); preview again",
                                code="stale_plan", details={"digest": plan.digest})
            if plan.current:
                git.delete_ref(root, INCOMING_REF)
                return plan, None
            for blocker in plan.blockers:
                cls = Busy if blocker["code"] in ("live_run", "studio_running") else Conflict
                raise cls(blocker["message"], code=blocker["code"],
                          details={k: v for k, v in blocker.items() if k not in ("code", "message")})
            if not plan.mergeable:
                raise Conflict(f"the merge has conflicts in {len(plan.conflicts)} path"
                               f"{'s' if len(plan.conflicts) != 1 else ''}: {', '.join(plan.conflicts[:5])}"
                               "; nothing was changed (merge by hand: git merge "
                               f"{plan.commit[:12]}, or resolve upstream)", code="merge_conflict",
                               details={"conflicts": plan.conflicts})
            applied = _merge(root, plan)
    git.delete_ref(root, INCOMING_REF)
    from openalice import journal

    journal.record("harness.source.upgraded", {
        "workspaceId": ws.id, "template": receipt.template, "repository": receipt.repository,
        "fromCommit": receipt.commit, "toCommit": plan.commit, "fromVersion": receipt.version,
        "toVersion": plan.version, "digest": plan.digest, "commit": applied.commit,
        "changed": len(applied.changed)}, now=now)
    return plan, applied


def _merge(root: Path, plan: Preview) -> Applied:
    from openalice.core.proc import crash_point

    before = git.head(root)
    message = _message(plan)
    merging = git.merge_no_commit(root, plan.commit, message)
    try:
        if merging.returncode != 0:
            unmerged = set(git.unmerged_paths(root))
            if git.merge_head(root) is None or not unmerged <= {RECEIPT_FILE}:
                detail = (merging.stderr or merging.stdout).decode("utf-8", "replace").strip().splitlines()
                raise Conflict("git could not merge "
                               f"{plan.commit[:12]}: {detail[-1] if detail else 'exit ' + str(merging.returncode)}"
                               "; nothing was changed", code="merge_conflict",
                               details={"conflicts": sorted(unmerged), "stderr": "\n".join(detail[-20:])})
        crash_point("source-merged")
        receipt = Receipt(plan.receipt.template, plan.receipt.repository, plan.version, plan.commit)
        fs.atomic_write_bytes(root / RECEIPT_FILE, receipt.encoded(), mode=0o644, dir_mode=0o755)
        git.add(root, [RECEIPT_FILE], force=True)
        commit = git.commit_merge(root, message)
    except BaseException:
        _abort(root, before)
        raise
    return Applied(commit, git.changed_paths(root, before, commit))


def _abort(root: Path, before: str | None) -> None:
    """Put HEAD, index and work tree back as they were before our merge began."""
    if git.merge_head(root) is not None:
        git.abort_merge(root)
    if git.head(root) != before or git.merge_head(root) is not None:
        raise OperationalError(f"could not undo the interrupted merge in {root}: HEAD is {git.head(root)}, "
                               f"was {before}; inspect with 'git status'", code="git_failed")


# -- recovery ---------------------------------------------------------------------------------------

def _ours_in_progress(root: Path) -> bool:
    return git.merge_head(root) is not None and f"\n{TRAILER}: " in git.merge_message(root)


def recover(ws, *, now: datetime, wait: float = RECOVERY_WAIT) -> list[dict]:
    """Abort a source merge a killed ``apply`` left in progress (under the checkout lease)."""
    from openalice.workspaces.checkout import checkout

    root = Path(ws.path)
    if not _ours_in_progress(root):
        return []
    with checkout(ws, "alice-harness source recovery", now=now, wait=wait):
        return _recover(ws, root, now)


def _recover(ws, root: Path, now: datetime) -> list[dict]:
    if not _ours_in_progress(root):
        return []
    message = git.merge_message(root)
    digest = next((line.split(":", 1)[1].strip() for line in message.splitlines()
                   if line.startswith(f"{TRAILER}:")), None)
    paths = git.changed_paths(root, "HEAD", "MERGE_HEAD")
    git.abort_merge(root)
    from openalice import journal

    journal.record("harness.recovered", {"workspaceId": ws.id, "owner": "harness-source", "outcome": "rolled_back",
                                         "digest": digest, "paths": len(paths)}, now=now)
    return [{"owner": "harness-source", "outcome": "rolled_back", "digest": digest, "paths": paths}]
