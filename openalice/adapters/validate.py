"""Presets and run-configs checked against their schemas and the catalog.

For every binding (a preset seat, a run-config override) the check is:

1. the ``wrapper`` resolves to a catalog adapter (the same string as the
   catalog writes it, or a path to the same file; relative paths resolve
   against the catalog's directory);
2. the ``model`` is in that adapter's catalog ``models``;
3. on this machine (unless ``machine=False``, for CI) the adapter is enabled
   and the model survives its ``modelAllow`` narrowing.  A machine where no
   adapter is enabled at all (a fresh one) is checked against the catalog
   only, with a warning saying so: nothing there could be "not enabled" on
   purpose yet.

``Report.files`` lists the files actually read (the catalog, the machine
state, each document); a path that could not be read is an error, never
counted.

Every problem becomes a :class:`Diagnostic` with the file, a JSON pointer and,
where one is close, a "did you mean" suggestion.  Nothing stops at the first
error.  ``presets/_validate.py`` and ``harness-adapter validate`` both call
:func:`validate`.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable
from pathlib import Path

from openalice.core import fs
from openalice.core.errors import AliceError
from openalice.core.records import field, record_class

from . import state as state_mod
from .catalog import Catalog, adapter_entry, catalog_problems, schema_validator
from .catalog import catalog_path as resolve_catalog_path
from .invoke import wrapper_problem

__all__ = ["Diagnostic", "Report", "KINDS", "validate", "render"]

# version -> schema name
KINDS = {"preset/v1": "presets", "run-config/v1": "run-config", "adapters/v1": "adapters",
         "adapters-state/v1": "adapters-state"}


@record_class(frozen=True)
class Diagnostic:
    severity: str  # "error" | "warning"
    file: str
    pointer: str
    message: str
    suggestion: str | None = None

    def to_dict(self) -> dict:
        out = {"severity": self.severity, "file": self.file, "pointer": self.pointer,
               "message": self.message}
        if self.suggestion:
            out["suggestion"] = self.suggestion
        return out


@record_class
class Report:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    @property
    def error_count(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "error")

    @property
    def warning_count(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "warning")

    @property
    def valid(self) -> bool:
        return self.error_count == 0

    def to_dict(self) -> dict:
        return {"valid": self.valid, "errorCount": self.error_count,
                "warningCount": self.warning_count, "files": list(self.files),
                "diagnostics": [d.to_dict() for d in self.diagnostics]}


def _escape(token: str) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


def _did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None


class _Checker:
    def __init__(self, catalog_file: Path, machine: bool) -> None:
        self.catalog_file = catalog_file
        self.machine = machine
        self.report = Report()
        self.catalog: Catalog | None = None
        self.states: dict | None = None
        self.presets: dict[str, tuple[str, dict]] = {}  # name -> (file, document)
        self.run_configs: list[tuple[str, dict]] = []
        self._seen: set[str] = set()
        self.bindings = 0  # how many bindings were cross-checked

    def add(self, severity: str, file: object, pointer: str, message: str,
            suggestion: str | None = None) -> None:
        self.report.diagnostics.append(Diagnostic(severity, str(file), pointer, message, suggestion))

    def error(self, file: object, pointer: str, message: str, suggestion: str | None = None) -> None:
        self.add("error", file, pointer, message, suggestion)

    def warning(self, file: object, pointer: str, message: str, suggestion: str | None = None) -> None:
        self.add("warning", file, pointer, message, suggestion)

    def _mark(self, path: Path) -> bool:
        """False when ``path`` was looked at already (the same file twice)."""
        key = os.path.realpath(path)
        if key in self._seen:
            return False
        self._seen.add(key)
        return True

    def _read(self, path: Path) -> None:
        self.report.files.append(str(path))

    # -- the catalog and the machine state ---------------------------------

    def load_catalog(self) -> None:
        path = self.catalog_file
        self._mark(path)
        try:
            document = fs.read_json(path, max_bytes=4 * 1024 * 1024, follow_symlinks=True)
        except AliceError as exc:
            self.error(path, "", f"cannot read the adapter catalog: {exc.message}")
            return
        self._read(path)
        problems = catalog_problems(document, path)
        for problem in problems:
            self.error(path, problem.pointer, problem.message, problem.suggestion)
        if problems:
            self.error(path, "", "bindings were not cross-checked: the catalog itself is invalid")
            return
        entries = tuple(adapter_entry(raw, i, path.parent) for i, raw in enumerate(document["adapters"]))
        self.catalog = Catalog(path, entries)
        for entry in entries:
            problem = wrapper_problem(entry)
            if problem:
                self.warning(path, f"{entry.pointer}/wrapper", problem)

    def load_state(self) -> None:
        where = state_mod.state_path()
        exists = where.exists()
        if exists:
            self._mark(where)
        try:
            self.states = state_mod.load_state(where)
            if exists:
                self._read(where)
        except AliceError as exc:
            hint = exc.details.get("hint") if exc.details else None
            self.error(exc.file or where, exc.field if exc.field not in (None, "/") else "",
                       exc.message, hint)
            self.states = None
            return
        if self.catalog is None:
            return
        for adapter_id, record in self.states.items():
            entry = self.catalog.get(adapter_id)
            if entry is None or record.modelAllow is None:
                continue
            for index, model in enumerate(record.modelAllow):
                if model not in entry.models:
                    self.warning(where, f"/state/{_escape(adapter_id)}/modelAllow/{index}",
                                 f"model '{model}' is no longer in the catalog models of "
                                 f"'{adapter_id}'; it is ignored",
                                 f"harness-adapter set-models {adapter_id} ... (or --reset)")

    # -- documents ----------------------------------------------------------

    def check_file(self, path: Path) -> None:
        if not self._mark(path):
            return
        try:
            document = fs.read_json(path, max_bytes=4 * 1024 * 1024, follow_symlinks=True)
        except AliceError as exc:
            self.error(path, "", exc.message)
            return
        self._read(path)
        if not isinstance(document, dict):
            self.error(path, "", "expected a JSON object with a \"version\" field")
            return
        version = document.get("version")
        if not isinstance(version, str) or version not in KINDS:
            known = ", ".join(sorted(KINDS))
            if version is None:
                self.error(path, "/version" if "version" in document else "",
                           f"no \"version\": expected one of {known}")
            else:
                shown = version if isinstance(version, str) else repr(version)
                self.error(path, "/version", f"unknown version '{shown}' (expected one of {known})",
                           _did_you_mean(shown, KINDS) if isinstance(version, str) else None)
            return
        try:
            violations = schema_validator(KINDS[version]).errors(document)
        except AliceError as exc:  # e.g. nested too deeply to check
            self.error(path, exc.field if exc.field not in (None, "/") else "", exc.message)
            return
        for v in violations:
            self.error(path, v.instance_path, v.message)
        if version == "adapters/v1":
            if not violations:
                for problem in catalog_problems(document, path):
                    self.error(path, problem.pointer, problem.message, problem.suggestion)
            return
        if violations or version == "adapters-state/v1":
            return
        if version == "preset/v1":
            name = document["name"]
            if name in self.presets and self.presets[name][0] != str(path):
                self.error(path, "/name", f"preset name '{name}' is also used by {self.presets[name][0]}")
            else:
                self.presets[name] = (str(path), document)
            for seat, binding in document["seats"].items():
                self.check_binding(path, f"/seats/{_escape(seat)}", binding)
        else:
            self.run_configs.append((str(path), document))
            for seat, binding in document.get("overrides", {}).items():
                self.check_binding(path, f"/overrides/{_escape(seat)}", binding)

    def check_binding(self, file: Path, pointer: str, binding: dict) -> None:
        catalog = self.catalog
        if catalog is None:
            return
        self.bindings += 1
        wrapper, model = binding["wrapper"], binding["model"]
        entry = catalog.match_wrapper(wrapper)
        if entry is None:
            self.error(file, f"{pointer}/wrapper",
                       f"wrapper '{wrapper}' is not an adapter of the catalog {catalog.path}",
                       self._suggest_wrapper(wrapper))
            return
        if model not in entry.models:
            self.error(file, f"{pointer}/model",
                       f"model '{model}' is not in the models of adapter '{entry.id}'",
                       _did_you_mean(model, entry.models)
                       or "the catalog allows: " + ", ".join(entry.models))
            model_ok = False
        else:
            model_ok = True
        if not self.machine or self.states is None:
            return
        record = self.states.get(entry.id)
        if record is None or not record.enabled:
            self.error(file, pointer, f"adapter '{entry.id}' is not enabled on this machine",
                       f"harness-adapter enable {entry.id}")
        if model_ok and record is not None and record.modelAllow is not None \
                and model not in record.modelAllow:
            allowed = [m for m in entry.models if m in record.modelAllow]
            self.error(file, f"{pointer}/model",
                       f"model '{model}' is narrowed out on this machine (modelAllow of '{entry.id}' "
                       f"is {', '.join(allowed) or 'empty'})",
                       "allow it here: harness-adapter set-models "
                       f"{entry.id} {' '.join(allowed + [model])} (or --reset)")

    def _suggest_wrapper(self, wrapper: str) -> str | None:
        catalog = self.catalog
        by_spec = {e.raw["wrapper"]: e for e in catalog}
        if not by_spec:
            return None
        entry = catalog.get(wrapper)
        if entry is None:
            stem = os.path.splitext(os.path.basename(wrapper))[0]
            entry = catalog.get(stem)
        if entry is not None:
            return f"did you mean '{entry.raw['wrapper']}' (adapter '{entry.id}')?"
        close = _did_you_mean(wrapper, by_spec)
        return close or "catalog wrappers: " + ", ".join(by_spec)

    # -- cross-file ---------------------------------------------------------

    def known_presets(self) -> None:
        """Presets beside the catalog count as referable even when not listed."""
        for path in sorted(self.catalog_file.parent.glob("*.json")):
            try:
                document = fs.read_json(path, max_bytes=4 * 1024 * 1024, follow_symlinks=True)
            except AliceError:
                continue
            if isinstance(document, dict) and document.get("version") == "preset/v1" \
                    and isinstance(document.get("name"), str):
                self.presets.setdefault(document["name"], (str(path), document))

    def check_run_configs(self) -> None:
        if self.run_configs:
            self.known_presets()
        for file, document in self.run_configs:
            name = document.get("preset")
            if name is None:
                continue
            found = self.presets.get(name)
            if found is None:
                self.error(file, "/preset", f"no preset named '{name}'",
                           _did_you_mean(name, self.presets) or
                           (("known presets: " + ", ".join(sorted(self.presets))) if self.presets else None))
                continue
            seats = found[1].get("seats")
            if not isinstance(seats, dict):
                continue
            for seat in document.get("overrides", {}):
                if seat not in seats:
                    self.error(file, f"/overrides/{_escape(seat)}",
                               f"preset '{name}' has no seat '{seat}'",
                               _did_you_mean(seat, seats) or "its seats: " + ", ".join(seats))


def _expand(paths: Iterable[os.PathLike | str]) -> tuple[list[Path], list[Path]]:
    """The files to check, and the directories that held none."""
    out: list[Path] = []
    empty: list[Path] = []
    for raw in paths:
        path = Path(os.path.abspath(os.path.expanduser(os.fspath(raw))))
        if path.is_dir():
            found = sorted(p for p in path.glob("*.json") if p.is_file())
            out.extend(found)
            if not found:
                empty.append(path)
        else:
            out.append(path)
    return out, empty


def validate(paths: Iterable[os.PathLike | str] = (), *, catalog_path: os.PathLike | str | None = None,
             machine: bool = True) -> Report:
    """Check presets and run-configs (default: every ``*.json`` beside the
    catalog) against their schemas and the catalog; see the module docstring."""
    catalog_file = resolve_catalog_path(catalog_path)
    checker = _Checker(catalog_file, machine)
    checker.load_catalog()
    if machine:
        checker.load_state()
    catalog_only_here = (machine and checker.states is not None
                         and not any(r.enabled for r in checker.states.values()))
    if catalog_only_here:
        checker.machine = False
    targets, empty = _expand(paths) if paths else _expand([catalog_file.parent])
    for directory in empty:
        checker.warning(directory, "", "no *.json file here: nothing was checked in it")
    for path in targets:
        checker.check_file(path)
    checker.check_run_configs()
    if catalog_only_here and checker.bindings:
        checker.warning(state_mod.state_path(), "",
                        "no adapter is enabled on this machine, so the bindings were checked "
                        "against the catalog only",
                        "enable the adapters your presets use: harness-adapter enable ID")
    return checker.report


def render(report: Report) -> str:
    """Human text: one line per diagnostic, then a summary."""
    lines = []
    for d in report.diagnostics:
        where = f"{d.file}:{d.pointer}" if d.pointer else d.file
        hint = f" ({d.suggestion})" if d.suggestion else ""
        lines.append(f"{where}: {d.severity}: {d.message}{hint}")
    files = len(report.files)
    noun = "file" if files == 1 else "files"
    if report.valid:
        warn = f", {report.warning_count} warning(s)" if report.warning_count else ""
        lines.append(f"ok: {files} {noun} read, all valid{warn}")
    else:
        lines.append(f"{report.error_count} error(s), {report.warning_count} warning(s); "
                     f"{files} {noun} read")
    return "\n".join(lines)
