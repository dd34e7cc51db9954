"""Whether a ``when`` can ever fire, and when it fires next.

The reader tolerates a schedule that can never fire (``every: soon``, a
six-field cron, an ``at`` that is not an instant): the file is valid and the
scheduler shows it as blocked.  ``validate``, ``create`` and ``update`` use
:func:`when_problem` to flag or refuse it.  The cron, zone and duration
modules are imported only when a schedule of that kind is looked at.
"""

from __future__ import annotations

from datetime import datetime

from openalice.core.clock import parse_instant, to_iso
from openalice.core.cron import CronExpr, can_ever_fire, next_fire_after
from openalice.core.errors import AliceError, InvalidInput
from openalice.core.zones import resolve_zone

from .declaration import DEFAULT_CRON_TIMEZONE, TERMINAL_STATUSES, FieldError, Issue

__all__ = ["when_problem", "data_when_problem", "schedule_problem", "schedule_summary"]


def when_problem(when: dict | None, now: datetime | None, *,
                 terminal: bool = False) -> FieldError | None:
    """Why ``when`` can never fire, as a FieldError on ``when.<key>``, or None.

    An ``at`` in the past counts only for a live issue (``terminal`` False)
    and only when ``now`` is given: a done one-shot issue is not a problem.
    """
    if when is None:
        return None
    if not isinstance(when, dict):
        return FieldError("when", "must be a mapping with kind: at, every or cron")
    kind = when.get("kind")
    if kind == "every":
        # lazy: only `every` schedules need it; `alice issue list` must not load it
        from openalice.core.durations import parse_every, parse_every_strict

        if parse_every(when.get("every")) is None:
            try:
                parse_every_strict(when.get("every"), field="every")
            except InvalidInput as exc:
                return FieldError("when.every", f"can never fire: {exc.message}")
        return None
    if kind == "cron":
        text = when.get("cron")
        try:
            expr = CronExpr.parse(text)
        except InvalidInput as exc:
            return FieldError("when.cron", f"can never fire: {exc.message}")
        if not can_ever_fire(expr):
            return FieldError("when.cron", f"can never fire: `{text}` names only days that "
                                           "do not exist (like 30 February)")
        zone = when.get("timezone")
        if zone is not None and zone != DEFAULT_CRON_TIMEZONE:
            try:
                resolve_zone(zone)
            except InvalidInput:
                return FieldError("when.timezone", "timezone must be `local` or a valid IANA "
                                                   "timezone")
        return None
    if kind == "at":
        try:
            instant = parse_instant(when.get("at"))
        except InvalidInput as exc:
            return FieldError("when.at", f"can never fire: {exc.message}")
        if not terminal and now is not None and instant <= now:
            return FieldError("when.at", f"can never fire: at is in the past ({when.get('at')})")
        return None
    return FieldError("when.kind", "must be at, every or cron")


def data_when_problem(data: dict, now: datetime | None,
                      known: list[FieldError] = ()) -> FieldError | None:
    """:func:`when_problem` for raw frontmatter that may be invalid otherwise,
    so a file's every problem is reported at once; None when ``when`` is not
    a mapping or its field already has an error in ``known``."""
    when = data.get("when")
    if not isinstance(when, dict):
        return None
    problem = when_problem(when, now, terminal=data.get("status") in TERMINAL_STATUSES)
    if problem is None or any(e.field.startswith("when") for e in known):
        return None
    return problem


def schedule_problem(issue_or_when: Issue | dict | None, now: datetime | None) -> str | None:
    """Why a schedule can never fire (bad cron, bad ``every`` duration, an
    ``at`` in the past or not an instant, a bad timezone), as
    ``"<field>: <reason>"``; None if it can fire or there is no schedule."""
    if isinstance(issue_or_when, Issue):
        problem = when_problem(issue_or_when.when, now, terminal=issue_or_when.is_terminal)
    else:
        problem = when_problem(issue_or_when, now)
    return None if problem is None else str(problem)


def schedule_summary(issue: Issue, now: datetime, *, workspace_id: str | None = None) -> dict:
    """``{"nextFireAt", "problem", "note"}`` for show/list output.

    ``nextFireAt`` (UTC ISO): the next cron slot after ``now``, a future
    ``at``, and for ``every`` the scheduler's own answer from its cursor
    (``lastFire`` + the interval; ``now`` when it is due, e.g. never fired:
    the next scan starts it).  ``workspace_id`` names the cursor's workspace
    (default: the issue's).
    """
    when = issue.when
    if when is None:
        return {"nextFireAt": None, "problem": None, "note": "not scheduled"}
    if issue.is_terminal:
        return {"nextFireAt": None, "problem": None,
                "note": f"status {issue.status}: the schedule no longer fires"}
    problem = when_problem(when, now)
    if problem is not None:
        return {"nextFireAt": None, "problem": str(problem), "note": None}
    kind = when["kind"]
    if kind == "at":
        return {"nextFireAt": to_iso(parse_instant(when["at"])), "problem": None, "note": None}
    if kind == "every":
        return _every_summary(issue, now, workspace_id or issue.workspace_id)
    fire = next_fire_after(when["cron"], now, resolve_zone(when.get("timezone") or DEFAULT_CRON_TIMEZONE))
    if fire is None:
        return {"nextFireAt": None, "problem": "when.cron: can never fire: no slot within 50 years",
                "note": None}
    return {"nextFireAt": to_iso(fire), "problem": None,
            "note": None if when.get("catchUp", True) else "catchUp false: missed slots are skipped"}


def _every_summary(issue: Issue, now: datetime, workspace_id: str | None) -> dict:
    """The next fire of an ``every`` schedule, as the scheduler decides it."""
    every = issue.when["every"].strip()
    rule = f"every {every} after each accepted run"
    # lazy: the scheduler's modules load only for an `every` summary (not for a listing)
    from . import cursors, due

    cursor = None
    if workspace_id:
        try:
            cursor = cursors.read_cursor(workspace_id, issue.id)
        except AliceError as exc:
            return {"nextFireAt": None, "problem": None,
                    "note": f"{rule}; its cursor cannot be read ({exc.message})"}
    fire = due.next_due(due.parse_schedule(issue.when), cursor, now)
    if fire is None:
        return {"nextFireAt": None, "problem": None, "note": rule}
    if fire <= now:
        never = cursor is None or not cursor.get("lastFire")
        why = "never fired" if never else "its interval has passed"
        return {"nextFireAt": to_iso(now), "problem": None,
                "note": f"due now ({why}): the next scan starts it; then {rule}"}
    return {"nextFireAt": to_iso(fire), "problem": None, "note": rule}
