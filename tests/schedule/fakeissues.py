"""A stand-in for ``openalice.issues`` shaped like its contract, so the
scheduler is tested on its own.  An issue file here is ``.alice/issues/<id>.md``
holding one JSON object of frontmatter fields (``title`` required)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

TERMINAL = ("done", "canceled")


@dataclass(frozen=True)
class FakeIssue:
    id: str
    path: Path
    title: str
    status: str = "todo"
    priority: str = "none"
    assignee: str = "@new-each-run"
    when: dict | None = None
    agent: str | None = None
    credential: str | None = None
    credentialSource: str | None = None
    model: str | None = None
    effort: str | None = None
    timeout: str | None = None
    timeout_seconds: int | None = None
    what: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def is_scheduled(self) -> bool:
        return self.when is not None

    @property
    def is_terminal(self) -> bool:
        return self.status in TERMINAL


def issues_dir(ws_path) -> Path:
    return Path(ws_path) / ".alice" / "issues"


def write_issue(ws_path, issue_id: str, **fields) -> Path:
    fields.setdefault("title", issue_id)
    path = issues_dir(ws_path) / f"{issue_id}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".tmp-{issue_id}")
    tmp.write_text(json.dumps(fields), encoding="utf-8")
    os.replace(tmp, path)
    return path


def every(text: str) -> dict:
    return {"kind": "every", "every": text}


def cron(text: str, timezone: str = "UTC", catch_up: bool | None = None) -> dict:
    out = {"kind": "cron", "cron": text, "timezone": timezone}
    if catch_up is not None:
        out["catchUp"] = catch_up
    return out


def at(text: str) -> dict:
    return {"kind": "at", "at": text}


class Reader:
    """``read_issues(ws)`` with a call counter."""

    def __init__(self) -> None:
        self.calls = 0
        self.fail: set[str] = set()  # workspace ids whose read raises

    def __call__(self, ws):
        from openalice.core.errors import OperationalError

        self.calls += 1
        if ws.id in self.fail:
            raise OperationalError("simulated unreadable workspace", file=ws.path)
        directory = issues_dir(ws.path)
        if not directory.is_dir():
            return SimpleNamespace(state="absent", error=None, issues=[], invalid=[])
        issues, invalid = [], []
        for path in sorted(directory.iterdir()):
            if not path.name.lower().endswith(".md"):
                continue
            issue_id = path.name[:-3]
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                if not isinstance(data, dict) or not isinstance(data.get("title"), str):
                    raise ValueError("title: required")
                issues.append(FakeIssue(id=issue_id, path=path, **data))
            except (ValueError, TypeError) as exc:
                invalid.append(SimpleNamespace(id=issue_id, path=path, errors=[
                    SimpleNamespace(field="title", reason=str(exc))]))
        return SimpleNamespace(state="ok", error=None, issues=issues, invalid=invalid)

    def load_issue(self, ws, issue_id):
        from openalice.core.errors import NotFound

        for issue in self(ws).issues:
            if issue.id == issue_id:
                return issue
        raise NotFound(f"no issue {issue_id!r}", code="unknown_issue")


class Launcher:
    """A ``launch(task_id)`` that records calls and starts nothing."""

    def __init__(self, result=0, error: Exception | None = None) -> None:
        self.calls: list[str] = []
        self.result = result
        self.error = error

    def __call__(self, task_id: str) -> int:
        self.calls.append(task_id)
        if self.error is not None:
            raise self.error
        return self.result
