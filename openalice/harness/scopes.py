"""What an upgrade covers and where it keeps its state: the scopes (bundle, one skill, the
template), the two managed stores, the config.  Where skills live (the primary tree and its
mirror) is :mod:`openalice.workspaces.skills`, shared with stickers."""

from __future__ import annotations

from pathlib import Path

from openalice import managed
from openalice.agents.shims import HARNESS_CONFIG, WORKSPACE_BIN
from openalice.core.errors import InvalidInput, UsageError
from openalice.core.records import record_class

from . import bundle as bundles
from . import config as configs
from . import state

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (typing costs start-up time)
    from typing import Any

GUIDANCE = ("AGENTS.md", "CLAUDE.md")
ACTIONS = ("install", "update", "remove", "restore")
OWNERS = {"harness": "alice-harness", "template": "template"}
TRAILERS = {"harness": "OpenAlice-Harness-Upgrade", "template": "OpenAlice-Template-Upgrade"}
# Machine-local files of a workspace, kept out of its git history.
GIT_EXCLUDES = (f"/{state.TEMPLATE_STATE_DIR}/", f"/{state.HARNESS_STATE_DIR}/", f"/{state.VERSION_FILE}",
                f"/{WORKSPACE_BIN}/")
RECOVERY_WAIT = 30.0


@record_class(frozen=True)
class Scope:
    kind: str                      # "bundle" | "skill" | "template"
    skill: str | None = None
    action: str | None = None

    def to_json(self) -> dict:
        out: dict[str, Any] = {"kind": self.kind}
        if self.skill:
            out.update(skill=self.skill, action=self.action)
        return out

    @property
    def owner(self) -> str:
        return "template" if self.kind == "template" else "harness"


def scope_for(*, template: bool = False, skill: str | None = None, action: str | None = None) -> Scope:
    if action is not None and skill is None:
        raise UsageError("--action needs --skill NAME", field="--action", code="skill_required")
    if template and skill is not None:
        raise UsageError("--template and --skill are separate upgrades; give one", code="usage")
    if skill is not None:
        if not bundles.NAME_RE.match(skill):
            raise InvalidInput(f"not a skill name: {skill!r}", field="--skill", code="unknown_skill")
        action = action or "update"
        if action not in ACTIONS:
            raise UsageError(f"--action must be one of {', '.join(ACTIONS)}", field="--action", code="usage")
        return Scope("skill", skill, action)
    return Scope("template" if template else "bundle")


def harness_store(root) -> managed.Store:
    return managed.Store(root, state.HARNESS_STATE_DIR)


def template_store(root) -> managed.Store:
    return managed.Store(root, state.TEMPLATE_STATE_DIR)


def load_config(root) -> configs.Config:
    """The workspace's harness config; malformed → InvalidInput naming file and field."""
    try:
        return configs.parse_file(str(Path(root) / HARNESS_CONFIG), str(root))
    except configs.ConfigError as exc:
        raise InvalidInput(exc.reason, file=exc.file, field=exc.field, code="harness_config_invalid") from None
