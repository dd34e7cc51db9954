"""The connectors' part of the timer's scan: due deliveries within
:data:`SCAN_BUDGET_S` seconds, so a slow or unreachable connector never holds
up the next scan (each request's timeout is cut to what is left)."""

from __future__ import annotations

from openalice.core.errors import AliceError

from .delivery import deliver

__all__ = ["SCAN_BUDGET_S", "run_due"]

SCAN_BUDGET_S = 10.0


def run_due(now_ms: int) -> tuple[dict | None, str | None]:
    """``(summary for the scan report or None, a warning or None)``."""
    try:
        result = deliver(now_ms=now_ms, budget_s=SCAN_BUDGET_S)
    except (AliceError, OSError) as err:
        return None, f"connectors: {err}"
    totals = {"sent": 0, "failed": 0, "received": 0, "pending": 0}
    for r in result["connectors"]:
        for key in totals:
            totals[key] += r[key]
    problem = None
    if result["problems"]:
        problem = (f"connectors: {len(result['problems'])} connector file(s) cannot be read: "
                   + "; ".join(f"{p['file']}: {p['message']}" for p in result["problems"]))
    if not any(totals.values()):
        return None, problem
    return totals, problem
