"""Live health: ``<wrapper> --health``, on demand, never persisted.

A wrapper is probed only if its catalog entry declares ``"health": true``; a
wrapper that does not know the mode might take ``--health`` for a prompt and
start real (billed) work, so an undeclared one reports ``unknown`` and is
never executed.  Exit 0 is healthy, exit 3 is down with the wrapper's reason,
anything else (including a hang past the timeout) is down too: health is
never assumed.  Probes run in a small thread pool so one slow engine does
not serialise the rest, and each reason is redacted and truncated.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime

from openalice.core.clock import to_iso
from openalice.core.records import record_class
from openalice.core.redact import summarize

from .catalog import AdapterEntry
from .invoke import DEFAULT_TIMEOUT, WrapperRun, known_secret_values, run_wrapper

__all__ = ["HEALTHY", "DOWN", "UNKNOWN", "DEFAULT_CONCURRENCY", "HealthResult", "probe",
           "probe_many", "interpret"]

HEALTHY, DOWN, UNKNOWN = "healthy", "down", "unknown"
DEFAULT_CONCURRENCY = 4
NOT_DECLARED = "the catalog does not declare a --health mode for this wrapper; not probed"


@record_class(frozen=True)
class HealthResult:
    id: str
    health: str
    detail: str | None
    latencyMs: int | None
    checkedAt: str

    def to_dict(self) -> dict:
        out: dict = {"id": self.id, "health": self.health}
        if self.detail:
            out["detail"] = self.detail
        if self.latencyMs is not None:
            out["latencyMs"] = self.latencyMs
        out["checkedAt"] = self.checkedAt
        return out


def _status_line(text: str) -> dict | None:
    """The last JSON object line of the wrapper's stdout, if any."""
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                value = json.loads(line)
            except ValueError:
                return None
            return value if isinstance(value, dict) else None
    return None


def _tail(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return " / ".join(lines[-3:])


def interpret(run: WrapperRun, *, timeout: float, secrets: Iterable[str] = ()) -> tuple[str, str | None, int | None]:
    """``(health, detail, latencyMs)`` for a finished ``--health`` run."""
    secrets = list(secrets)
    measured = int(round(run.elapsed * 1000))
    if run.error:
        return DOWN, summarize(run.error, secrets), None
    if run.timed_out:
        return DOWN, f"timed out after {timeout:g}s (the wrapper's --health never finished)", measured
    status = _status_line(run.stdout_text) or {}
    detail = status.get("detail")
    if not isinstance(detail, str) or not detail.strip():
        detail = _tail(run.stdout_text) if status == {} else None
        detail = detail or _tail(run.stderr_text) or None
    latency = status.get("latencyMs")
    if isinstance(latency, bool) or not isinstance(latency, (int, float)) or latency < 0:
        latency = measured
    code = run.returncode
    if code == 0 and status.get("ok") is not False:
        return HEALTHY, summarize(detail, secrets) if detail else None, int(latency)
    if code == 0:
        reason = f"--health exited 0 but reported ok:false{': ' + detail if detail else ''}"
    elif code == 3:
        reason = detail or "the wrapper reported unavailable (exit 3) without a reason"
    elif code is not None and code < 0:
        reason = f"--health was killed by signal {-code}{': ' + detail if detail else ''}"
    elif code == 126:
        reason = f"--health exit 126 (not executable){': ' + detail if detail else ''}"
    elif code == 127:
        reason = f"--health exit 127 (command not found){': ' + detail if detail else ''}"
    else:
        reason = f"--health exited {code}{': ' + detail if detail else ''}"
    return DOWN, summarize(reason, secrets), measured


def probe(entry: AdapterEntry, *, now: datetime, timeout: float = DEFAULT_TIMEOUT) -> HealthResult:
    """Probe one adapter (or report ``unknown`` without running it)."""
    checked_at = to_iso(now)
    if not entry.health:
        return HealthResult(entry.id, UNKNOWN, NOT_DECLARED, None, checked_at)
    run = run_wrapper(entry, ["--health"], timeout=timeout)
    health, detail, latency = interpret(run, timeout=timeout, secrets=known_secret_values(entry))
    return HealthResult(entry.id, health, detail, latency, checked_at)


def probe_many(entries: Iterable[AdapterEntry], *, now: datetime, timeout: float = DEFAULT_TIMEOUT,
               concurrency: int = DEFAULT_CONCURRENCY) -> list[HealthResult]:
    """Probe several adapters, at most ``concurrency`` at a time; results in input order."""
    entries = list(entries)
    declared = [e for e in entries if e.health]
    if len(declared) <= 1 or concurrency <= 1:
        return [probe(e, now=now, timeout=timeout) for e in entries]
    # lazy: threads only when several declared probes run (`list --json` probes none)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=min(concurrency, len(declared))) as pool:
        futures = [pool.submit(probe, e, now=now, timeout=timeout) for e in entries]
        return [f.result() for f in futures]
