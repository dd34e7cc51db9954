"""Connector health, read now from the records and their delivery state (never
stored): what ``alice-schedule health`` lists and ``alice doctor`` judges.

``state``: ``failed`` (an item was given up on within :data:`RECENT_MS`, or
the state file cannot be read), ``retrying`` (an item waits for its next
try after a failure), ``disabled``, else ``ok``.
"""

from __future__ import annotations

from openalice.core import clock
from openalice.core.errors import AliceError

from . import records, state

__all__ = ["RECENT_MS", "connector_health"]

RECENT_MS = 7 * 24 * 3600 * 1000


def _one(rec: dict, now_ms: int) -> dict:
    out = {"name": rec["name"], "kind": rec["kind"], "enabled": rec["enabled"], "pending": 0,
           "failed": 0}
    try:
        doc = state.load(rec["name"])
    except AliceError as err:
        return {**out, "state": "failed", "message": f"{err.file}: {err.message}"}
    if doc is None:
        return {**out, "state": "ok" if rec["enabled"] else "disabled", "message": "nothing sent yet"}
    recent = [f for f in doc["failed"] if now_ms - f["at"] <= RECENT_MS]
    out["pending"], out["failed"] = len(doc["queue"]), len(recent)
    retrying = [i for i in doc["queue"] if i.get("tries")]
    if recent:
        last = recent[-1]
        return {**out, "state": "failed",
                "message": f"gave up on {last['id']} after {last['tries']} tries at "
                           f"{clock.to_iso(clock.from_ms(last['at']))}: {last['error']}"}
    if retrying:
        item = retrying[0]
        return {**out, "state": "retrying",
                "message": f"{item['id']}: try {item['tries'] + 1} at "
                           f"{clock.to_iso(clock.from_ms(item['nextAt']))} "
                           f"after: {item.get('lastError', '')}".rstrip(": ")}
    if not rec["enabled"]:
        return {**out, "state": "disabled", "message": "disabled"}
    return {**out, "state": "ok", "message": f"{doc.get('sent', 0)} delivered"}


def connector_health(*, now_ms: int) -> list[dict]:
    found, problems = records.scan_records()
    out = [_one(rec, now_ms) for rec in found]
    for p in problems:
        name = p["file"].rsplit("/", 1)[-1][:-5]
        out.append({"name": name, "kind": "unknown", "enabled": False, "pending": 0, "failed": 0,
                    "state": "failed", "message": f"{p['file']}: {p['field']}: {p['message']}"})
    return out
