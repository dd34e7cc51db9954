"""The adapter catalog (``adapters/v1``): the engine wrappers a binding may name.

The catalog is repo-tracked, versioned config.  It is found, in order, at the
path given by the caller (``--catalog``), at ``$HARNESS_CATALOG``, or at the
shipped ``presets/adapters.json``.  A relative ``wrapper`` or ``envFile`` is
resolved against the directory holding the catalog file, so one catalog and
its wrappers move together; ``~/...`` and ``$HARNESS_HOME/...`` are expanded
and absolute paths are taken as they are.  An ``envFile`` (where secrets are
written) must stay under the catalog's directory or ``$HARNESS_HOME``; the
shipped catalog keeps its env files in ``$HARNESS_HOME/env/``.

Loading is fail-closed: a malformed or schema-invalid catalog, or two entries
sharing an ``id`` or a ``wrapper``, raises :class:`InvalidInput` naming the file
and every problem, never a partial catalog.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path

from openalice.core import fs, schema_passes
from openalice.core.errors import InvalidInput, NotFound
from openalice.core.paths import harness_home, is_within
from openalice.core.records import field, record_class
from openalice.core.resources import data_path, schema_validator

__all__ = [
    "CATALOG_VERSION", "STREAM_FORMATS", "DEFAULT_STREAM", "Problem", "AdapterEntry", "Catalog",
    "default_catalog_path", "catalog_path", "resolve_path", "catalog_problems", "load_catalog",
    "find", "schema_validator", "suggest", "env_file_problem",
]

CATALOG_VERSION = "adapters/v1"
STREAM_FORMATS = ("wrapper-jsonl", "claude-stream-json", "codex-json", "opencode-json",
                  "pi-json", "text")
DEFAULT_STREAM = "wrapper-jsonl"


@record_class(frozen=True)
class Problem:
    """One reason a document is invalid: where (a JSON pointer) and why."""

    pointer: str
    message: str
    suggestion: str | None = None


@record_class(frozen=True)
class AdapterEntry:
    """One catalog line, with ``wrapper`` and ``envFile`` resolved to absolute paths.

    The camelCase attribute names are the catalog's own field names.
    """

    id: str
    kind: str
    wrapper: Path
    models: tuple[str, ...]
    listModels: bool = False
    health: bool = False
    interactive: bool = False
    envFile: Path | None = None
    env: tuple[str, ...] = ()
    stream: str = DEFAULT_STREAM
    label: str | None = None
    index: int = 0
    raw: Mapping = field(default_factory=dict, compare=False, repr=False)

    @property
    def pointer(self) -> str:
        return f"/adapters/{self.index}"


class Catalog:
    """A loaded, validated catalog."""

    __slots__ = ("path", "entries", "_by_id")

    def __init__(self, path: Path, entries: tuple[AdapterEntry, ...]) -> None:
        self.path = path
        self.entries = entries
        self._by_id = {entry.id: entry for entry in entries}

    def __iter__(self) -> Iterator[AdapterEntry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def __repr__(self) -> str:
        return f"Catalog({str(self.path)!r}, {len(self.entries)} adapters)"

    @property
    def base_dir(self) -> Path:
        return self.path.parent

    def ids(self) -> list[str]:
        return [entry.id for entry in self.entries]

    def get(self, adapter_id: str) -> AdapterEntry | None:
        return self._by_id.get(adapter_id)

    def require(self, adapter_id: str) -> AdapterEntry:
        """The entry, or :class:`NotFound` (exit 2) with a "did you mean"."""
        entry = self._by_id.get(adapter_id)
        if entry is None:
            hint = suggest(adapter_id, self.ids())
            details = {"hint": hint} if hint else {"hint": "known adapters: " + ", ".join(self.ids())
                                                   if self.entries else "the catalog is empty"}
            raise NotFound(f"unknown adapter '{adapter_id}'", file=self.path, code="unknown_adapter",
                           details=details)
        return entry

    def resolve(self, spec: str) -> Path:
        """Where a path written in (or against) this catalog points."""
        return resolve_path(spec, self.base_dir)

    def match_wrapper(self, spec: str) -> AdapterEntry | None:
        """The adapter whose wrapper is ``spec``: the same string as the catalog
        writes it, or a path resolving to the same file."""
        for entry in self.entries:
            if entry.raw.get("wrapper") == spec:
                return entry
        try:
            wanted = _same_file_key(self.resolve(spec))
        except (OSError, ValueError):
            return None
        for entry in self.entries:
            if _same_file_key(entry.wrapper) == wanted:
                return entry
        return None


def suggest(word: str, choices: list[str] | tuple[str, ...]) -> str | None:
    """``did you mean 'x'?`` for the closest choice, or None."""
    import difflib  # lazy: only a typo needs it

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None


def default_catalog_path() -> Path:
    # realpath: in a checkout openalice/presets is a symlink to ../presets, and
    # messages should name the file a user would open.
    return Path(os.path.realpath(data_path("presets", "adapters.json")))


def catalog_path(path: os.PathLike | str | None = None) -> Path:
    """The catalog in use: ``path``, else ``$HARNESS_CATALOG``, else the shipped one."""
    chosen = path if path not in (None, "") else os.environ.get("HARNESS_CATALOG") or None
    if chosen is None:
        return default_catalog_path()
    return Path(os.path.abspath(os.path.expanduser(os.fspath(chosen))))


def resolve_path(spec: str, base_dir: os.PathLike | str) -> Path:
    """Absolute form of a catalog path (see the module docstring)."""
    if "\x00" in spec:
        raise ValueError("path contains a NUL byte")
    for prefix in ("$HARNESS_HOME/", "${HARNESS_HOME}/"):
        if spec.startswith(prefix):
            return Path(os.path.normpath(os.path.join(harness_home(), spec[len(prefix):])))
    expanded = os.path.expanduser(spec)
    if not os.path.isabs(expanded):
        expanded = os.path.join(os.fspath(base_dir), expanded)
    return Path(os.path.normpath(expanded))


def env_file_problem(spec: str, base_dir: os.PathLike | str) -> str | None:
    """Why an ``envFile`` may not be used, or None.  Secrets stay under the
    catalog's own directory (a repository keeps them there, git-ignored) or
    under ``$HARNESS_HOME`` (the shipped catalog's ``$HARNESS_HOME/env/``);
    anything else (``/etc/...``, another user's files, a symlink out) is
    refused, so a catalog cannot make ``set-secret`` write elsewhere."""
    try:
        target = os.path.realpath(resolve_path(spec, base_dir))
    except ValueError as exc:
        return str(exc)
    roots = (os.path.realpath(base_dir), os.path.realpath(harness_home()))
    if any(is_within(target, root) and target != root for root in roots):
        return None
    return (f"envFile '{spec}' resolves to {target}, outside the catalog's directory "
            f"({roots[0]}) and the harness home ({roots[1]}); secrets stay in one of those")


def _same_file_key(path: Path) -> str:
    # realpath so a symlinked checkout directory or "./x" still names one file.
    return os.path.realpath(path)




def catalog_problems(document: object, path: os.PathLike | str) -> list[Problem]:
    """Every problem of a catalog document: schema violations, then duplicate
    ids and wrappers across entries (each naming both entries)."""
    problems = [Problem(v.instance_path, v.message)
                for v in schema_passes.violations("adapters", document)]
    if problems:
        return problems
    base_dir = Path(os.path.abspath(os.fspath(path))).parent
    seen_ids: dict[str, int] = {}
    seen_wrappers: dict[str, int] = {}
    adapters = document["adapters"]
    for index, raw in enumerate(adapters):
        adapter_id = raw["id"]
        if adapter_id in seen_ids:
            first = seen_ids[adapter_id]
            problems.append(Problem(
                f"/adapters/{index}/id",
                f"duplicate adapter id '{adapter_id}': entries /adapters/{first} and /adapters/{index}"))
        else:
            seen_ids[adapter_id] = index
        if raw.get("envFile") is not None:
            problem = env_file_problem(raw["envFile"], base_dir)
            if problem:
                problems.append(Problem(f"/adapters/{index}/envFile", problem))
        try:
            key = _same_file_key(resolve_path(raw["wrapper"], base_dir))
        except ValueError as exc:
            problems.append(Problem(f"/adapters/{index}/wrapper", str(exc)))
            continue
        if key in seen_wrappers:
            first = seen_wrappers[key]
            problems.append(Problem(
                f"/adapters/{index}/wrapper",
                f"wrapper '{raw['wrapper']}' is shared by adapters '{adapters[first]['id']}' "
                f"(/adapters/{first}) and '{adapter_id}' (/adapters/{index}); bindings name "
                "wrappers, so each adapter needs its own"))
        else:
            seen_wrappers[key] = index
    return problems


def adapter_entry(raw: dict, index: int, base_dir: Path) -> AdapterEntry:
    env_file = raw.get("envFile")
    return AdapterEntry(
        id=raw["id"], kind=raw["kind"], wrapper=resolve_path(raw["wrapper"], base_dir),
        models=tuple(raw["models"]), listModels=bool(raw.get("listModels", False)),
        health=bool(raw.get("health", False)), interactive=bool(raw.get("interactive", False)),
        envFile=resolve_path(env_file, base_dir) if env_file is not None else None,
        env=tuple(raw.get("env", ())), stream=raw.get("stream", DEFAULT_STREAM),
        label=raw.get("label"), index=index, raw=dict(raw))


def load_catalog(path: os.PathLike | str | None = None) -> Catalog:
    """Load and check the catalog (see :func:`catalog_path` for which one)."""
    where = catalog_path(path)
    document = fs.read_json(where, max_bytes=4 * 1024 * 1024, follow_symlinks=True)
    problems = catalog_problems(document, where)
    if problems:
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise InvalidInput(
            f"invalid adapter catalog: {first.message}{more}", file=where, field=first.pointer or "/",
            code="invalid_catalog",
            details={"problems": [{"pointer": p.pointer, "message": p.message} for p in problems]})
    base_dir = where.parent
    entries = tuple(adapter_entry(raw, i, base_dir) for i, raw in enumerate(document["adapters"]))
    return Catalog(where, entries)


def find(adapter_id: str, path: os.PathLike | str | None = None) -> AdapterEntry | None:
    """The catalog entry for ``adapter_id``, or None.  A broken catalog still raises."""
    return load_catalog(path).get(adapter_id)
