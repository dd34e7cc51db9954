"""The workspace registry and workspace inference."""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path

from openalice.core import fs, paths, patterns
from openalice.core.errors import AliceError, Conflict, InvalidInput, NotFound, Unavailable, UsageError
from openalice.core.records import asdict, record_class

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    from datetime import datetime

TEMPLATES = ("blank", "chat")
ID_RE = patterns.compile(r"[a-z0-9][a-z0-9-]{0,63}\Z")
REGISTRY_VERSION = 1

# The seam where later capabilities project guidance, skills and stickers into a
# new workspace: each entry is "module:function", called as fn(workspace, created)
# after the workspace is registered; it may return notes for the person.
# Failures are reported as notes, never fatal to init.
INIT_PROJECTORS: list[str] = ["openalice.harness.upgrade:project_new_workspace",
                               "openalice.stickers.projection:project_new_workspace"]
# Their checks of the input they will project (a bundle, a template), called as
# fn(template) before anything is created: bad input (InvalidInput, exit 2) leaves
# no directory, no file and no registry entry behind.
INIT_CHECKS: list[str] = ["openalice.harness.upgrade:check_new_workspace"]


@record_class(frozen=True)
class Workspace:
    id: str
    label: str
    path: str
    template: str
    createdAt: str

    @property
    def root(self) -> Path:
        return Path(self.path)

    def record(self) -> dict:
        return asdict(self)


@record_class(frozen=True)
class RunEnvironment:
    """What the runner put in a headless child's environment."""

    run_id: str
    workspace_id: str
    resume_id: str | None


def registry_path() -> Path:
    return paths.openalice_home() / "workspaces.json"


def alice_dir(ws: Workspace) -> Path:
    return ws.root / ".alice"


def available_root(ws: Workspace) -> Path:
    """The workspace's root; Unavailable (exit 3, ``workspace_unavailable``) when
    the directory or its ``.alice/`` is gone (a projection never recreates it)."""
    root = ws.root
    if not (root / ".alice").is_dir():
        raise Unavailable(f"workspace '{ws.id}' is not available: {root} (or its .alice/) is missing",
                          code="workspace_unavailable", file=root)
    return root


def _iso(now: datetime) -> str:
    from openalice.core import clock  # lazy: datetime only for writers, not for listings

    return clock.to_iso(now)


def _empty() -> dict:
    return {"version": REGISTRY_VERSION, "workspaces": []}


def _parse_registry(data: object, path: Path) -> list[Workspace]:
    if not isinstance(data, dict) or not isinstance(data.get("workspaces"), list):
        raise InvalidInput("registry must be an object with a 'workspaces' list", file=path,
                           code="malformed_registry")
    if data.get("version") != REGISTRY_VERSION:
        raise InvalidInput(f"unsupported registry version {data.get('version')!r}", file=path,
                           field="version", code="malformed_registry")
    out = []
    index_of: dict[str, int] = {}  # id -> its entry: one pass, not a scan per entry
    for i, item in enumerate(data["workspaces"]):
        if not isinstance(item, dict):
            raise InvalidInput("entry is not an object", file=path, field=f"workspaces/{i}",
                               code="malformed_registry")
        try:
            ws = Workspace(**{k: item[k] for k in ("id", "label", "path", "template", "createdAt")})
        except KeyError as exc:
            raise InvalidInput(f"entry lacks {exc.args[0]!r}", file=path, field=f"workspaces/{i}",
                               code="malformed_registry") from None
        if not all(isinstance(v, str) for v in asdict(ws).values()):
            raise InvalidInput("entry fields must be strings", file=path, field=f"workspaces/{i}",
                               code="malformed_registry")
        first = index_of.setdefault(ws.id, i)
        if first != i:  # which one would `--workspace ID` mean?
            raise InvalidInput(f"duplicate workspace id {ws.id!r}: entries workspaces/{first} "
                               f"({out[first].path}) and workspaces/{i} ({ws.path}); give one of "
                               "them another id", file=path, field=f"workspaces/{i}/id",
                               code="malformed_registry")
        out.append(ws)
    return out


def list_workspaces() -> list[Workspace]:
    path = registry_path()
    data = fs.read_json(path, missing=None)
    if data is None:
        return []
    return _parse_registry(data, path)


def id_base(text: str) -> str:
    """The id a label (or directory name) gives: lowercase, runs of anything but
    ``a-z0-9`` become ``-``, at most 48 characters; ``workspace`` if nothing is left.
    ``init`` adds ``-2``, ``-3``... when it is taken."""
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:48].strip("-")
    return slug or "workspace"


def _unique_id(base: str, taken: set[str]) -> str:
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


def find(path: os.PathLike | str) -> Workspace | None:
    """The registered workspace that contains ``path`` (or is it), if any."""
    real = os.path.realpath(path)
    best = None
    for ws in list_workspaces():
        if paths.is_within(real, ws.path) and (best is None or len(ws.path) > len(best.path)):
            best = ws
    return best


def get(spec: str) -> Workspace:
    """A workspace by id or by path (its root or any path inside it)."""
    workspaces = list_workspaces()
    for ws in workspaces:
        if ws.id == spec:
            return ws
    if "/" in spec or spec in (".", "..") or os.path.isdir(spec):
        ws = find(spec)
        if ws is not None:
            return ws
    raise NotFound(f"unknown workspace {spec!r}", code="unknown_workspace",
                   details={"hint": "see 'alice workspace list'"})


def run_environment(env: Mapping[str, str] | None = None) -> RunEnvironment | None:
    """The headless-run identity from the environment, if this is a run."""
    env = os.environ if env is None else env
    run_id = env.get("ALICE_RUN_ID")
    ws_id = env.get("ALICE_WORKSPACE_ID")
    if not run_id or not ws_id:
        return None
    return RunEnvironment(run_id=run_id, workspace_id=ws_id, resume_id=env.get("ALICE_RESUME_ID") or None)


def resolve(spec: str | None = None, *, cwd: os.PathLike | str | None = None,
            env: Mapping[str, str] | None = None) -> Workspace:
    """The workspace a command acts on: ``--workspace`` if given, else the run
    environment's, else the registered workspace containing the cwd."""
    if spec:
        return get(spec)
    run = run_environment(env)
    if run is not None:
        return get(run.workspace_id)
    ws = find(cwd or os.getcwd())
    if ws is None:
        raise UsageError("not inside a registered workspace; pass --workspace PATH|ID",
                         code="no_workspace",
                         details={"hint": "create one with 'alice workspace init PATH'"})
    return ws


def init(path: os.PathLike | str = ".", *, template: str = "blank", label: str | None = None,
         now: datetime, notes: list[str] | None = None,
         populate: Callable[[Path], None] | None = None) -> tuple[Workspace, bool]:
    """Create (or adopt) a workspace at ``path`` and register it.

    Idempotent: an already registered workspace is returned unchanged with
    ``created=False``.  A path nested in another registered workspace, or one
    that contains a registered workspace, is refused.  What the projectors
    report (a file left alone, a projector that failed) is appended to ``notes``.
    ``populate(path)``, when given, creates the directory's content (a clone)
    after those checks and before anything is registered; if it raises, nothing is.
    """
    if template not in TEMPLATES:
        raise InvalidInput(f"unknown template {template!r} (choose {', '.join(TEMPLATES)})",
                           field="template", code="bad_template")
    if label is not None and (not label.strip() or len(label) > 120 or "\n" in label):
        raise InvalidInput("label must be 1-120 characters on one line", field="label",
                           code="bad_label")
    target = Path(os.path.abspath(path))
    if target.exists() and not target.is_dir():
        raise InvalidInput("not a directory", file=target, code="not_a_directory")
    real = os.path.realpath(target)
    registered = list_workspaces()
    for ws in registered:
        if ws.path == real:
            _ensure_alice_dir(Path(real))
            return ws, False
    _refuse_nesting(real, registered)  # before anything is created on disk
    for entry in INIT_CHECKS:
        module_name, _, func_name = entry.partition(":")
        getattr(importlib.import_module(module_name), func_name)(template)
    if populate is not None:
        populate(Path(real))
    fs.ensure_dir(target, 0o755)
    real = os.path.realpath(target)

    created: list[Workspace] = []

    def register(data: dict) -> dict:
        existing = _parse_registry(data, registry_path())
        for ws in existing:
            if ws.path == real:
                raise _AlreadyRegistered(ws)
        _refuse_nesting(real, existing)
        ws_id = _unique_id(id_base(label or Path(real).name), {w.id for w in existing})
        record = Workspace(id=ws_id, label=(label or Path(real).name).strip(), path=real,
                           template=template, createdAt=_iso(now))
        data["workspaces"].append(record.record())
        created.append(record)
        return data

    _ensure_alice_dir(Path(real))
    try:
        fs.locked_update_json(registry_path(), register, default=_empty)
    except _AlreadyRegistered as already:
        return already.workspace, False
    ws = created[-1]
    reported = _run_projectors(ws)
    if notes is not None:
        notes.extend(reported)
    return ws, True


# Lock and temp files live beside the files they guard; they are never content,
# so a workspace that is a git repository must not see them as untracked files.
_ALICE_GITIGNORE = b"""# Written by OpenAlice: lock and temp files beside state files are never content.
.*.lock
.tmp-*
# Machine-local harness bookkeeping (versions, baselines, the CLI shims).
/alice-harness-version.json
/alice-harness-upgrade/
/template-upgrade/
/bin/
# The journal of a sticker apply in flight.
/sticker-transaction.json
"""


def _ensure_alice_dir(root: Path) -> None:
    fs.ensure_dir(root / ".alice" / "issues", 0o755, root=root)
    fs.create_exclusive(root / ".alice" / ".gitignore", _ALICE_GITIGNORE, dir_mode=0o755,
                        root=root)


def _refuse_nesting(real: str, registered: list[Workspace]) -> None:
    for ws in registered:
        if paths.is_within(real, ws.path):
            raise Conflict(f"is inside workspace '{ws.id}' ({ws.path})", code="nested_workspace",
                           file=real)
        if paths.is_within(ws.path, real):
            raise Conflict(f"contains workspace '{ws.id}' ({ws.path})", code="nested_workspace",
                           file=real)


class _AlreadyRegistered(Exception):
    def __init__(self, ws: Workspace) -> None:
        self.workspace = ws


def _run_projectors(ws: Workspace) -> list[str]:
    notes: list[str] = []
    for entry in INIT_PROJECTORS:
        module_name, _, func_name = entry.partition(":")
        fn: Callable[[Workspace, bool], list[str] | None] = getattr(importlib.import_module(module_name),
                                                                     func_name)
        try:
            notes.extend(fn(ws, True) or [])
        except AliceError as err:
            notes.append(f"{module_name.rsplit('.', 2)[-2]}: not projected: {err}")
    return notes


def remove(spec: str) -> Workspace:
    """Unregister a workspace.  Its files (and Inbox entries) are left alone."""
    ws = get(spec)

    def drop(data: dict) -> dict:
        data["workspaces"] = [w for w in data["workspaces"] if w.get("id") != ws.id]
        return data

    fs.locked_update_json(registry_path(), drop, default=_empty)
    return ws
