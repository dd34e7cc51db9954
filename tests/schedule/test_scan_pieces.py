"""The scanner is built from explicit pieces (issue 29 item 1): a ScanCache, the
Findings and a WorkspacePass that is given the per-issue rule at the call; no
class of the scanner is assembled from mixins."""

from __future__ import annotations

import ast

from openalice.schedule import scan as scan_module
from openalice.schedule.scan_workspaces import Findings, ScanCache, WorkspacePass
from tests.conftest import REPO
from tests.schedule.fakeissues import every, write_issue


def test_no_class_of_the_scanner_is_assembled_from_others():
    mixed = []
    for path in sorted((REPO / "openalice" / "schedule").glob("scan*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and [ast.unparse(b) for b in node.bases] not in ([], ["Exception"]):
                mixed.append(f"{path.name}: {node.name}")
    assert mixed == []
    assert scan_module._Scanner.__mro__ == (scan_module._Scanner, object)


def _pass(cache: ScanCache, found: Findings, reader=None) -> WorkspacePass:
    return WorkspacePass(cache, found, reader=reader, dry_run=False, now_ms=0)


def test_the_pass_gives_each_scheduled_issue_to_the_rule_it_was_called_with(sched):
    ws = sched.workspace()
    write_issue(ws.path, "poll", when=every("30m"))
    write_issue(ws.path, "note")                       # not scheduled: never evaluated
    write_issue(ws.path, "old", when=every("1h"), status="done")   # terminal: never evaluated
    cache, found = ScanCache(use_cache=True, dry_run=False), Findings()
    cache.data = {"workspaces": {}}
    asked = []

    def evaluate(w, issue, item):
        asked.append((w.id, issue.id, item["recheck"]))
        return {**item, "recheck": False, "nextDue": 42}

    _pass(cache, found, sched.reader).scan(ws, None, evaluate)
    assert asked == [(ws.id, "poll", True)]
    entry = cache.data["workspaces"][ws.id]
    assert entry["issues"]["poll"]["nextDue"] == 42 and "note" in entry["issues"]
    assert cache.changed and cache.touched == {ws.id}
    assert found.workspaces == [{"id": ws.id, "state": "ok", "issues": 3, "scheduled": 2}]
    # the same files again, their entry reused and nothing due: the rule is not asked
    asked.clear()
    again = ScanCache(use_cache=True, dry_run=False)
    again.data = {"workspaces": {}}
    _pass(again, Findings(), sched.reader).scan(ws, entry, evaluate)
    assert asked == [] and not again.changed and again.data["workspaces"][ws.id] == entry


def test_an_unreadable_workspace_keeps_its_cached_entry(sched):
    ws = sched.workspace()
    write_issue(ws.path, "poll", when=every("30m"))
    cache, found = ScanCache(use_cache=True, dry_run=False), Findings()
    cache.data = {"workspaces": {}}
    cached = {"path": ws.path, "state": "ok", "files": {"gone.md": [1, 2, 3]}, "issues": {}, "invalid": []}

    def unreadable(_ws):
        raise OSError(5, "Input/output error")

    _pass(cache, found, reader=unreadable).scan(ws, cached, lambda *a: a[2])
    assert cache.data["workspaces"][ws.id] is cached and not cache.changed
    assert found.workspaces[0]["state"] == "unreadable" and "Input/output error" in found.workspaces[0]["error"]


def test_a_dry_run_or_a_cache_turned_off_never_writes_it(sched):
    import os

    from openalice.schedule.fastpath import cache_file

    for cache in (ScanCache(use_cache=True, dry_run=True), ScanCache(use_cache=False, dry_run=False)):
        cache.data = {"workspaces": {"x": {}}, "registry": [], "order": []}
        cache.changed = True
        cache.save({}, now_iso="2026-01-01T00:00:00Z", now_ms=1)
    assert not os.path.exists(cache_file())
    live = ScanCache(use_cache=True, dry_run=False)
    live.data = {"workspaces": {"x": {}}, "registry": [], "order": []}
    live.changed = True
    live.save({}, now_iso="2026-01-01T00:00:00Z", now_ms=1)
    assert os.path.exists(cache_file())     # (its content is the scan tests' business)


def test_findings_keep_the_order_and_the_details_given():
    found = Findings()
    found.skip("w", "a", "capacity", "2 runs live", slot="s")
    found.skip("w", "b", "never_fires")
    assert found.skipped == [{"workspaceId": "w", "issueId": "a", "reason": "capacity", "detail": "2 runs live",
                              "slot": "s"},
                             {"workspaceId": "w", "issueId": "b", "reason": "never_fires"}]
