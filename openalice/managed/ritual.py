"""The one ritual for applying a previewed change to a workspace.

A person previews (a plan and its digest), then applies with that digest.
Harness and template upgrades (:mod:`openalice.harness.upgrade`), the sticker
projection (:mod:`openalice.stickers.projection`) and Studio source upgrades
(:mod:`openalice.studio.source.merge`) all apply the same way, each with its
own planner and applier::

    result, applied = managed.apply_previewed(
        ws, purpose="alice-harness upgrade (bundle)", digest=digest, now=now,
        resolutions={"--keep": keep},     # workspace paths, checked before anything is taken
        hold=None,                        # another lease held around the checkout lease (Studio's)
        recover=lambda: [...],            # finish or undo a half-applied transaction: list of Recovery
        plan=lambda: preview,             # the fresh plan, with .digest and a settable .recovered
        settle=lambda preview: False,     # refuse (raise) what blocks; True: already current
        apply=lambda preview: applied,    # the change itself
        fact=lambda preview, applied: ("harness.upgraded", {...}))   # the journal fact

The steps, in this order:

1. the caller rule (:func:`openalice.workspaces.authorize_write`: a headless
   run applies only to its own workspace), then every resolution path checked
   (:func:`.snapshot.check_path`, exit 2 naming the flag);
2. ``hold`` entered, then the workspace checkout lease (busy: exit 3);
3. ``recover()`` under the lease: whatever a killed apply left is finished or
   undone before anything is planned again;
4. ``plan()`` again, from what is on disk now; its digest must be the one the
   person saw, else :class:`.transaction.StalePlan` (exit 2, ``stale_plan``,
   ``details.digest`` the fresh one);
5. ``settle(plan)``: the job's own refusals (raised), or True when there is
   nothing to apply (the ritual returns ``(plan, None)``, no fact);
6. ``apply(plan)`` under the lease, then, after the lease is released, the
   job's journal fact.

A preview (and ``status``) recovers first too, without an apply:
:func:`recover_pending` takes the checkout lease only when something is
pending, waiting for a holder up to ``wait`` seconds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, ExitStack
from datetime import datetime

from openalice import journal
from openalice.workspaces.access import Caller, authorize_write
from openalice.workspaces.checkout import checkout

from .snapshot import check_path
from .transaction import StalePlan

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only
    from typing import Any

__all__ = ["apply_previewed", "check_digest", "recover_pending"]


def check_digest(fresh: str, given: str | None, *, changed: str = "the workspace") -> None:
    """Refuse a plan whose digest is not the one the person previewed (``given`` None: no
    preview was named, nothing to compare)."""
    if given is not None and given != fresh:
        raise StalePlan(f"{changed} changed since the preview (the plan's digest is now "
                        f"{fresh[:12]}…, not {given[:12]}…); preview again",
                        code="stale_plan", details={"digest": fresh})


def recover_pending(ws, *, purpose: str, now: datetime, pending: bool, recover: Callable[[], list],
                    wait: float = 0.0, lease_held: bool = False) -> list:
    """``recover()`` under the checkout lease when ``pending`` (else ``[]``, nothing taken);
    ``lease_held``: the caller has just taken it."""
    if not pending:
        return []
    if lease_held:
        return recover()
    with checkout(ws, purpose, now=now, wait=wait):
        return recover()


def apply_previewed(ws, *, purpose: str, digest: str | None, now: datetime,
                    recover: Callable[[], list], plan: Callable[[], Any], settle: Callable[[Any], bool],
                    apply: Callable[[Any], Any], fact: Callable[[Any, Any], tuple[str, dict]],
                    resolutions: Mapping[str, Sequence[str]] | None = None,
                    hold: AbstractContextManager | None = None, changed: str = "the workspace") -> tuple[Any, Any]:
    """Run the ritual (module docstring); ``(plan, applied)``, or ``(plan, None)`` when current."""
    authorize_write(Caller.of_process(), ws)    # a headless run changes only its own workspace
    for flag, paths in (resolutions or {}).items():
        for rel in paths:
            check_path(rel, field=flag)
    with ExitStack() as held:
        if hold is not None:
            held.enter_context(hold)
        held.enter_context(checkout(ws, purpose, now=now))
        recovered = recover()
        result = plan()
        result.recovered = recovered
        check_digest(result.digest, digest, changed=changed)
        if settle(result):
            return result, None
        applied = apply(result)
    kind, payload = fact(result, applied)
    journal.record(kind, payload, now=now)
    return result, applied
