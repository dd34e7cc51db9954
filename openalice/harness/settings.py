"""``alice-harness config show|set``: reading and changing a workspace's harness config."""

from __future__ import annotations

from datetime import datetime

from openalice.agents.shims import HARNESS_CONFIG
from openalice.core import fs
from openalice.core.errors import Forbidden, InvalidInput, UsageError
from openalice.workspaces.access import Caller, authorize_write
from openalice.workspaces.registry import available_root

from . import bundle as bundles
from . import config as configs
from . import following
from .scopes import load_config

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Sequence

__all__ = ["show", "set_values"]


def _effective(ws, cfg: configs.Config, bundle: bundles.Bundle | None) -> dict:
    skills = {}
    if bundle is not None:
        template = bundle.templates.get(ws.template)
        bundled = set(template.bundled_skills) if template else set()
        skills = {name: cfg.includes(name, bundled=name in bundled) for name in sorted(bundle.skills)}
    return {"skills": skills, "cli": cfg.effective_cli()}


def show(ws, *, bundle_dir=None) -> dict:
    root = available_root(ws)
    cfg = load_config(root)
    bundle = following.select(root, bundle_dir).bundle
    return {"workspaceId": ws.id, "file": str(root / HARNESS_CONFIG), "exists": cfg.exists,
            "config": cfg.document(), "effective": _effective(ws, cfg, bundle)}


def set_values(ws, assignments: Sequence[str], *, bundle_dir=None, now: datetime) -> dict:
    """Apply ``KEY=VALUE`` assignments (one locked read-modify-write)."""
    caller = Caller.of_process()
    authorize_write(caller, ws)
    if caller.run is not None:
        # Stricter than the caller rule: the config is the person's control over the agents.
        raise Forbidden(f"run {caller.run.run_id} may not change the harness config; a person does that "
                        "outside headless runs", code="config_write_from_run")
    if not assignments:
        raise UsageError("give at least one KEY=VALUE", code="usage")
    parsed = []
    for text in assignments:
        try:
            parsed.append(configs.parse_assignment(text))
        except ValueError as exc:
            raise UsageError(str(exc), field="KEY=VALUE", code="bad_config_key") from None
    root = available_root(ws)
    path = root / HARNESS_CONFIG
    bundle = following.select(root, bundle_dir).bundle
    for parts, value in parsed:
        key = ".".join(parts)
        if parts[0] == "skills":
            if parts[1] not in bundle.skills:
                raise InvalidInput(f"no skill {parts[1]!r} in the bundle ({bundle.source}); it has: "
                                   f"{', '.join(sorted(bundle.skills))}", field=key, code="unknown_skill")
            if parts[1] in configs.ALWAYS_INCLUDED and not value:
                raise InvalidInput(f"{parts[1]} is always included and cannot be turned off", field=key,
                                   code="always_included")
    before = load_config(root)
    changes: list[dict] = []

    def update(current: dict) -> dict:
        try:
            cfg = configs.parse(current, str(path))
        except configs.ConfigError as exc:
            raise InvalidInput(exc.reason, file=exc.file, field=exc.field, code="harness_config_invalid") from None
        doc = cfg.document()
        for parts, value in parsed:
            key = ".".join(parts)
            if parts[0] == "skills":
                old = doc.setdefault("skills", {}).get(parts[1])
                doc["skills"][parts[1]] = value
            else:
                tool = configs.TOOL_ALIASES.get(parts[1], parts[1])
                spec = doc.setdefault("cli", {}).setdefault(tool, {})
                if len(parts) == 3:
                    old = spec.get("enabled")
                    spec["enabled"] = value
                else:
                    old = spec.setdefault("groups", {}).get(parts[3])
                    spec["groups"][parts[3]] = value
            changes.append({"key": key, "from": old, "to": value})
        try:
            configs.parse(doc, str(path))
        except configs.ConfigError as exc:
            raise InvalidInput(exc.reason, file=exc.file, field=exc.field, code="bad_config_key") from None
        return configs.parse(doc, str(path)).document()

    if not before.exists:
        fs.ensure_dir(path.parent, 0o755, root=root)
    fs.locked_update_json(path, update, default=lambda: {"schemaVersion": 1, "cli": {}}, root=root,
                          dir_mode=0o755)
    after = load_config(root)
    from openalice import journal  # lazy: only a change records a fact (show prints)

    journal.record("harness.config.changed", {"workspaceId": ws.id, "keys": [c["key"] for c in changes]},
                   now=now)
    return {"workspaceId": ws.id, "file": str(path), "changes": changes, "config": after.document(),
            "effective": _effective(ws, after, bundle),
            "hint": "skill changes take effect with 'alice-harness upgrade --apply'"
            if any(c["key"].startswith("skills.") for c in changes) else None}



