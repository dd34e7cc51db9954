"""``harness.json``: the manifest a Harness repository keeps at its root.

    manifest = load_manifest(workspace_root)          # ManifestError (exit 2) on bad input
    studio = manifest.capability("studio")            # Capability(command, ports, entry_port, readiness_path)
    manifest = parse_manifest(raw_bytes, file=label)  # the same check for bytes from elsewhere (a git tree)

The file is strict (``spec/harness-manifest.schema.json``, at most 64 KiB):
unknown keys are refused.  Every problem is reported at once, each with its
JSON pointer, under one of four codes: ``missing``, ``too_large``,
``invalid_json`` and ``invalid_manifest``.
"""

from __future__ import annotations

import json
from pathlib import Path

from openalice.core import fs
from openalice.core.errors import AliceError, InvalidInput, NotFound
from openalice.core.fs import loads_json
from openalice.core.records import record_class
from openalice.core.resources import schema_validator

__all__ = ["MANIFEST_NAME", "MAX_BYTES", "ManifestError", "Capability", "Manifest", "manifest_path",
           "parse_manifest", "load_manifest"]

MANIFEST_NAME = "harness.json"
MAX_BYTES = 64 * 1024


class ManifestError(InvalidInput):
    """A missing or invalid ``harness.json`` (exit 2)."""

    default_code = "invalid_manifest"


@record_class(frozen=True)
class Capability:
    name: str
    command: tuple[str, ...]
    ports: tuple[str, ...]
    entry_port: str
    readiness_path: str

    def to_dict(self) -> dict:
        return {"command": list(self.command), "ports": list(self.ports), "entryPort": self.entry_port,
                "readinessPath": self.readiness_path}


@record_class(frozen=True)
class Manifest:
    version: str
    capabilities: dict
    file: str | None = None

    def capability(self, name: str) -> Capability:
        try:
            return self.capabilities[name]
        except KeyError:
            raise ManifestError(f"declares no '{name}' capability (has: "
                                f"{', '.join(sorted(self.capabilities)) or 'none'})",
                                file=self.file, field=f"/capabilities/{name}",
                                code=f"no_{name.replace('-', '_')}_capability") from None


def manifest_path(root: str | Path) -> Path:
    return Path(root) / MANIFEST_NAME


def _friendly(keyword: str, message: str) -> str:
    """Plain words for the mistakes people make; the schema's own text otherwise."""
    if keyword.endswith("/ports/uniqueItems"):
        return "duplicate port ids: each id names one port"
    if keyword.endswith("/command/minItems"):
        return "command is empty: give the argv to run, e.g. [\"npm\", \"run\", \"studio\"]"
    if keyword.endswith("/readinessPath/pattern"):
        return "readinessPath must start with a single '/' and hold no spaces or control characters"
    if keyword.endswith("/ports/minItems"):
        return "ports is empty: declare at least the entry port"
    return message


def parse_manifest(data: bytes, *, file: object = None) -> Manifest:
    """Validate the bytes of a ``harness.json``; raise :class:`ManifestError` naming every problem."""
    if len(data) > MAX_BYTES:
        raise ManifestError(f"file too large ({len(data)} bytes; limit {MAX_BYTES})", file=file,
                            code="too_large")
    try:
        document = loads_json(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ManifestError(f"not UTF-8 (byte {exc.start})", file=file, code="invalid_json") from None
    except json.JSONDecodeError as exc:
        raise ManifestError(f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                            file=file, code="invalid_json") from None
    except RecursionError:
        raise ManifestError("malformed JSON: nested too deeply", file=file, code="invalid_json") from None
    except ValueError as exc:
        raise ManifestError(f"malformed JSON: {exc}", file=file, code="invalid_json") from None
    problems = [{"path": v.instance_path or "/", "message": _friendly(v.keyword_path, v.message)}
                for v in schema_validator("harness-manifest").errors(document)]
    capabilities = document.get("capabilities") if isinstance(document, dict) else None
    if isinstance(capabilities, dict):
        for name, cap in capabilities.items():
            if not isinstance(cap, dict):
                continue
            entry, ports = cap.get("entryPort"), cap.get("ports")
            if isinstance(entry, str) and isinstance(ports, list) and entry not in ports:
                problems.append({"path": f"/capabilities/{name}/entryPort",
                                 "message": f"entryPort {entry!r} is not one of ports"})
    if problems:
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ManifestError(first["message"] + more, file=file, field=first["path"], code="invalid_manifest",
                            details={"violations": problems})
    return Manifest(
        version=document["version"],
        capabilities={name: Capability(name=name, command=tuple(cap["command"]), ports=tuple(cap["ports"]),
                                       entry_port=cap["entryPort"], readiness_path=cap["readinessPath"])
                      for name, cap in capabilities.items()},
        file=None if file is None else str(file))


def load_manifest(root: str | Path) -> Manifest:
    """The workspace's ``harness.json`` (``missing`` if there is none)."""
    path = manifest_path(root)
    try:
        data = fs.read_bytes(path, max_bytes=MAX_BYTES, root=root)
    except NotFound:
        raise ManifestError("no harness.json at the workspace root: this workspace declares no Studio",
                            file=path, code="missing") from None
    except AliceError as exc:
        if exc.code != "too_large":
            raise
        raise ManifestError(exc.message, file=path, code="too_large") from None
    return parse_manifest(data, file=path)
